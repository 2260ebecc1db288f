"""The doctor's checks, per group, in the order they run (and are printed): the registry the
runner (``installer/doctor/runner.py``) walks. A group's checks live in one module."""
from . import push
from . import auditlog, backstop, branches, bypass, gitsetup, harness, live, policy, refshape, runtime

GROUPS = [
    ("git", [gitsetup.check_version, gitsetup.check_ref_storage, gitsetup.check_git_options]),
    ("platform", [gitsetup.check_caller_argv]),
    ("install", [backstop.check_manifest]),
    ("hooks", [backstop.check_hooks_location, backstop.check_worktrees, backstop.check_hook_files]),
    ("runtime", [runtime.check_runtime]),
    ("policy", [policy.check_policy_snapshot, policy.check_policy_config, policy.check_remotes]),
    ("push", [push.check_push_guard]),
    ("probe", [live.check_probes]),
    ("bypass", [bypass.check_aliases, bypass.check_env, bypass.check_hooks_path, bypass.check_includes,
                bypass.check_config_hooks, bypass.check_programs, bypass.check_template_dir]),
    ("refs", [refshape.check_refshape]),
    ("branches", [branches.check_ahead, branches.check_counterpart, branches.check_tracking]),
    ("adapters", [harness.check_adapters]),
    ("audit", [auditlog.check_audit, auditlog.check_grants]),
]
