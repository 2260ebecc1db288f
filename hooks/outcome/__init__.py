"""Outcome checks: what a tool call did to the guard, compared with a snapshot taken before it, and
undone (``agentguard check --after``)."""
