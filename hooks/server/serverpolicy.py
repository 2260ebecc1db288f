"""``<bare>/agentguard/server.json``: the protected patterns and the allowed pushers, as install
recorded them. The hook reads only this file; it is validated on every read."""
import json
import os

from ..policy import FORMAT, Policy, PolicyError, read_json
from .identity import name_problem

NAME = "server.json"
MAX_SIZE = 256 * 1024
MAX_PUSHERS = 1000


def validate_pushers(names):
    if not isinstance(names, (list, tuple)) or len(names) > MAX_PUSHERS:
        raise PolicyError("allowed pushers must be a list of at most %d names" % MAX_PUSHERS)
    out = []
    for name in names:
        problem = name_problem(name)
        if problem:
            raise PolicyError("%s (%r)" % (problem, str(name)[:80]))
        if name not in out:
            out.append(name)
    return out


class ServerPolicy:
    def __init__(self, policy, pushers):
        self.policy = policy
        self.pushers = validate_pushers(pushers)

    def allowed(self, name):
        return name is not None and name in self.pushers

    def to_json(self):
        return {"format": FORMAT, "policy": self.policy.to_json(), "allowed_pushers": self.pushers}

    def dumps(self):
        return json.dumps(self.to_json(), indent=2, sort_keys=True) + "\n"

    @classmethod
    def from_json(cls, data):
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise PolicyError("the server policy has an unknown format")
        return cls(Policy.from_json(data.get("policy")), data.get("allowed_pushers"))


def load(ag_home):
    """The server policy in force; raise PolicyError when it is missing or not valid."""
    return ServerPolicy.from_json(read_json(os.path.join(ag_home, NAME), MAX_SIZE, "the server policy (%s)" % NAME))
