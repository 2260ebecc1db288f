"""agentguard for gptme: see hooks/agentguard_confirm.py. Written by `agentguard install`."""
