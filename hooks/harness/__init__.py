"""The harnesses (the coding agents whose tool calls agentguard checks): one module per harness
describing it (``descriptor.Harness``), found through ``registry``; and ``hook``, the hook protocol
(``agentguard check --hook HARNESS`` before a tool call and ``check --after --hook HARNESS`` after it).

Everything the stdlib runtime needs to know about a harness lives in its module here; what only
install needs (settings files and how they merge, trust) lives in ``installer/harness``.
"""
