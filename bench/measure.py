"""How the benchmark measures: CPU time (user + sys) of the whole process tree a step starts, read as
``getrusage(RUSAGE_CHILDREN)`` deltas around it (every process the step starts has been waited for when
it returns: git waits for its hooks, a hook for its git), alternating the cases of one comparison round
by round (the order rotates, so machine drift hits all alike), medians. On a shared machine wall time
swings with the load; CPU time moves much less, and a ratio of two cases measured in the same rounds
cancels most of what is left. Wall time is kept alongside, for the goals stated in seconds."""
import os
import resource
import shlex
import statistics
import subprocess
import time


def cpu_now():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cost(fn):
    """(CPU seconds, wall seconds, fn's result) of one call of ``fn``."""
    cpu, wall = cpu_now(), time.perf_counter()
    result = fn()
    return cpu_now() - cpu, time.perf_counter() - wall, result


def run(argv, **kwargs):
    kwargs.setdefault("stdout", subprocess.PIPE)
    kwargs.setdefault("stderr", subprocess.PIPE)
    return subprocess.run(argv, **kwargs)


def summary(samples, wall=None):
    """Median, min, max and n of CPU seconds; the samples themselves in round order, so that two cases
    measured in the same rounds can be compared round by round (paired_ratio)."""
    out = {"median": statistics.median(samples), "min": min(samples), "max": max(samples), "n": len(samples),
           "samples": list(samples)}
    if wall:
        out["wall_median"] = statistics.median(wall)
    return out


def paired_ratio(a, b):
    """The median of a's sample / b's sample in the same round, when both carry the samples of the same
    rounds (a round's two runs are seconds apart, so the machine's load changes less between them than
    across the run); else the ratio of the medians."""
    sa, sb = a.get("samples"), b.get("samples")
    if sa and sb and len(sa) == len(sb) and all(sb):
        return statistics.median(x / y for x, y in zip(sa, sb))
    return a["median"] / b["median"]


def alternate(cases, runs, warmup=1):
    """{name: summary of CPU seconds} of ``runs`` rounds after ``warmup`` uncounted ones. ``cases`` maps
    a name to a function performing one measured run, or to (function, reset[, prepare]): prepare runs
    before each measurement and reset after it, both unmeasured. A function may return a string: a
    problem (the case did not do what it measures), which stops the benchmark rather than report a
    figure for the wrong thing."""
    fns = {name: (c if callable(c) else c[0]) for name, c in cases.items()}
    resets = {name: c[1] for name, c in cases.items() if not callable(c) and c[1]}
    prepares = {name: c[2] for name, c in cases.items() if not callable(c) and len(c) > 2 and c[2]}
    cpu = {name: [] for name in cases}
    wall = {name: [] for name in cases}
    order = list(cases)
    for r in range(warmup + runs):
        for name in order:
            if name in prepares:
                prepares[name]()
            spent, took, problem = cost(fns[name])
            if isinstance(problem, str) and problem:
                raise RuntimeError("%s: %s" % (name, problem))
            if name in resets:
                resets[name]()
            if r >= warmup:
                cpu[name].append(spent)
                wall[name].append(took)
        order = order[1:] + order[:1]
    return {name: summary(cpu[name], wall[name]) for name in cases}


def runtime_python(repo):
    """The interpreter install recorded in the repository's runtime copy of ``check`` (the line that
    execs it), else in its manifest."""
    check = os.path.join(repo, ".git", "agentguard", "check")
    with open(check) as fh:
        text = fh.read()
    for line in text.splitlines():
        words = shlex.split(line, comments=True) if line.strip().startswith("exec ") else []
        if len(words) > 1:
            return words[1]
    if text.startswith("#!"):
        return text[2:].split("\n", 1)[0].split()[0]
    import json
    with open(os.path.join(repo, ".git", "agentguard", "manifest.json")) as fh:
        return json.load(fh)["python"]
