"""`tuned`: expert's play with the weights of its evaluation tuned against the win rate instead of
set by hand. The values are in tuned.json beside this file, written by scripts/train_tuned.py
(which says how); the file's content is part of the policy's fingerprint (a store refuses chunks
played with other values) and of its compiled code's cache key, and a file other than the shipped
one is labelled apart (policies/specs.py data_digest).

It sees what expert sees, the public game only (R-INFO): the weights change how positions are
scored, not what is read.
"""
import json
import math
from pathlib import Path

from fisim.jit.modes import compiled
from fisim.rules.options import ACTION
from policies import PolicyError
from policies.evaluation import WEIGHTS, decide_with, ranked
from policies.specs import BY_NAME

DATA = Path(__file__).with_name(BY_NAME["tuned"].data)
KEYS = {"policy", "version", "weights", "made_by", "running_time", "passes"}     # what the training script writes


def learned(path):
    """(version, {weight: value}) of a data file the training script wrote, every weight of the
    evaluation given as a finite number; PolicyError in one line naming the file and what is wrong."""
    def refused(problem):
        return PolicyError(f"policy data file {path}: {problem}")
    try:
        data = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise refused("it does not exist (reinstall fisim, or run scripts/train_tuned.py)") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise refused(f"not readable JSON ({exc})") from None
    if not isinstance(data, dict):
        raise refused(f"a JSON object is expected, not a {type(data).__name__}")
    extra = sorted(set(data) - KEYS)
    if extra:
        raise refused(f"unknown entry {extra[0]!r}; it holds {', '.join(sorted(KEYS))}")
    version, weights = data.get("version"), data.get("weights")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise refused(f"'version' must be a whole number from 1, not {version!r}")
    if not isinstance(weights, dict):
        raise refused("'weights' must be an object of weight names and numbers")
    for name in WEIGHTS.names:
        value = weights.get(name)
        if name not in weights:
            raise refused(f"weight {name} is missing")
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
            raise refused(f"weight {name} must be a finite number, not {value!r}")
    unknown = sorted(set(weights) - set(WEIGHTS.names))
    if unknown:
        raise refused(f"unknown weight {unknown[0]!r}")
    return version, weights


VERSION, _VALUES = learned(DATA)     # (its version: bumped by the training script whenever the values change)
LEARNED = WEIGHTS.constant(_VALUES)


@compiled(counted=False)
def decide(pub, options, n, mem, rng):
    return decide_with(pub, options, n, mem, LEARNED)


@compiled(counted=False)
def candidates(pub, options, n, mem, rng, top):
    """Its best-scored options at an action decision, its choice first, for search."""
    return ranked(pub, options, n, ACTION, top, LEARNED, False)
