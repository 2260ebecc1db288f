"""What install and the doctor know about each harness and the runtime does not need: the adapter
files install writes, the settings file it merges the hook into, whether the harness will load it
(trust, switches that turn hooks off), and what else the doctor checks. One module per harness,
found through ``registry``; the runtime facts (tool names, payloads, answers, guarded paths) are in
``hooks/harness``."""
