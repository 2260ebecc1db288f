"""What an agent's tool call pays: the pre-check, the after-check and the whole call (both harness hooks
through `sh`, as Claude Code runs them), against the interpreter floor (`<the runtime's python> -I -S -c
pass`), all in the same alternating rounds."""
import json
import os
import sys

from measure import alternate, run, runtime_python

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# an ordinary agent command on a feature branch (judged, allowed, not run), and a command that is not git
COMMAND = "git add -A && git commit -m 'fix the thing' && git push -u origin HEAD"
PLAIN = "ls -la"


def claude_hooks(repo):
    """Claude Code's (PreToolUse, PostToolUse) commands from the settings file install wrote."""
    for name in ("settings.local.json", "settings.json"):
        path = os.path.join(repo, ".claude", name)
        if os.path.exists(path):
            with open(path) as fh:
                hooks = json.load(fh).get("hooks", {})
            found = [group["hooks"][0]["command"] for event in ("PreToolUse", "PostToolUse")
                     for group in hooks.get(event, [])[:1]]
            if len(found) == 2:
                return found
    raise SystemExit("no Claude Code hooks in %s (install with --harness claude or all)" % repo)


def payloads(repo, command=COMMAND):
    """Claude Code's pre- and post-call payloads of one Bash call."""
    pre = {"session_id": "bench", "transcript_path": os.path.join(repo, ".bench-transcript"), "cwd": repo,
           "hook_event_name": "PreToolUse", "tool_name": "Bash",
           "tool_input": {"command": command, "description": "commit and push the fix"}}
    post = dict(pre, hook_event_name="PostToolUse",
                tool_response={"stdout": "", "stderr": "", "interrupted": False, "isImage": False})
    return json.dumps(pre).encode(), json.dumps(post).encode()


def _step(argv, repo, env, stdin=b""):
    """A measured function: run argv; a failure or a refusal is a problem, not a figure."""
    def fn():
        proc = run(argv, cwd=repo, env=env, input=stdin)
        out = proc.stdout.decode(errors="replace")
        if proc.returncode or '"deny"' in out or '"block"' in out:
            return "exit %d: %s %s" % (proc.returncode, out[:300], proc.stderr.decode(errors="replace")[:300])
        return None
    return fn


def hot_path(repo, env, runs, check=None):
    """CPU-time summaries of floor, check (a git command and a plain one), after and call, alternating.
    ``check``: another command to run as the pre- and after-check (tests/test_bench.py slows it down
    to prove the gate fails); the whole call always runs the settings file's hooks."""
    python = runtime_python(repo)
    check = check or os.path.join(repo, ".git", "agentguard", "check")
    pre_payload, post_payload = payloads(repo)
    plain_pre, plain_post = payloads(repo, PLAIN)
    pre_hook, post_hook = claude_hooks(repo)
    floor = _step([python, "-I", "-S", "-c", "pass"], repo, env)
    pre = _step([check, "--hook", "claude"], repo, env, pre_payload)
    post = _step([check, "--after", "--hook", "claude"], repo, env, post_payload)
    pre_sh = _step(["sh", "-c", pre_hook], repo, env, pre_payload)
    post_sh = _step(["sh", "-c", post_hook], repo, env, post_payload)

    def call():
        return pre_sh() or post_sh()
    # every pre-check is followed by its after-check, as in a real call; the after-check measured is
    # the one that follows a pre-check
    plain = (_step([check, "--hook", "claude"], repo, env, plain_pre),
             _step([check, "--after", "--hook", "claude"], repo, env, plain_post))
    cases = {"floor": floor, "check": (pre, post), "check-plain": plain, "after": (post, None, pre), "call": call}
    return {"python": python, "command": COMMAND, "plain": PLAIN, **alternate(cases, runs, warmup=2)}


def extras(repo, env, runs, agentguard, quick):
    """Figures reported without a goal: the CLI's check, an after-check that repairs, each other
    settings-file harness's hook (full run), doctor on one repository with many refs, peak memory."""
    out = {}
    check = os.path.join(repo, ".git", "agentguard", "check")
    out["agentguard check (CLI entry point)"] = alternate(
        {"x": _step([agentguard, "check", "--json", COMMAND], repo, env)}, runs)["x"]
    hook = os.path.join(repo, ".git", "hooks", "pre-commit")

    def repair():
        proc = run([check, "--after", "--json"], cwd=repo, env=env)
        return None if os.path.exists(hook) else "the after-check did not put the hook back: %r" % proc.stdout
    out["check --after restoring a deleted hook"] = alternate(
        {"x": (repair, None, lambda: os.unlink(hook))}, runs)["x"]
    if not quick:
        out.update(_harness_hooks(repo, env, runs))
    n = 200 if quick else 5000
    oid = run(["git", "rev-parse", "HEAD"], cwd=repo, env=env).stdout.decode().strip()
    creates = "".join("create refs/tags/d%05d %s\n" % (i, oid) for i in range(n)).encode()
    run(["git", "update-ref", "--stdin"], cwd=repo, env=env, input=creates)
    out["agentguard doctor, one repository with %d refs" % n] = alternate(
        {"x": lambda: None if run([agentguard, "doctor", "--json"], cwd=repo, env=env).returncode == 0
         else "doctor failed"}, 3)["x"]
    out["runtime peak memory (KiB), 10,000-line protected transaction"] = _peak_memory(repo, env, oid)
    return out


def _harness_hooks(repo, env, runs):
    """Each settings-file harness's pre-call hook as install writes it, with its payload for a shell call."""
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    from agentguard.hooks.harness.hook import PROTOCOLS
    from agentguard.installer.harness.settingsfile import NAMES, hook_command
    from harnesscalls import CALLS
    cases = {}
    for name in NAMES:
        payload = json.dumps(dict(CALLS[name](COMMAND), **{PROTOCOLS[name].cwd: repo})).encode()
        cases["harness pre-call hook (%s)" % name] = _step(["sh", "-c", hook_command(name)],
                                                           repo, env, payload)
    return alternate(cases, runs)


def _peak_memory(repo, env, oid):
    import subprocess
    run_py = os.path.join(repo, ".git", "agentguard", "runtime", "run.py")
    data = "".join("%s %s refs/heads/main\n" % (oid, oid) for _ in range(10000)).encode()
    proc = subprocess.Popen([runtime_python(repo), "-I", "-S", "-B", run_py, "reference-transaction", "0",
                             "prepared"], cwd=repo, env=env, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    proc.stdin.write(data)
    proc.stdin.close()
    _, _, usage = os.wait4(proc.pid, 0)
    return {"median": usage.ru_maxrss, "min": usage.ru_maxrss, "max": usage.ru_maxrss, "n": 1, "unit": "KiB"}
