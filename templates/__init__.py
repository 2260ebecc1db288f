"""Files agentguard writes into target repositories (read with importlib.resources)."""
