"""`tuned`: expert's play with the weights of its evaluation tuned against the win rate instead of
set by hand. The values are in tuned.json beside this file, written by scripts/train_tuned.py
(which says how, and how long it took); the file's content is part of the policy's fingerprint
(a store refuses chunks played with other values) and of its compiled code's cache key.

It sees what expert sees, the public game only (R-INFO): the weights change how positions are
scored, not what is read.
"""
import json
from pathlib import Path

from fisim.jit.modes import compiled
from policies import expert

DATA = Path(__file__).with_name("tuned.json")       # the learned numbers (DATA: policies/__init__.py)
_TRAINED = json.loads(DATA.read_text())
NAME = "tuned"
VERSION = _TRAINED["version"]       # bumped by the training script whenever the values change
LEARNED = expert.WEIGHTS.constant(_TRAINED["weights"])


@compiled(counted=False)
def decide(pub, options, n, mem, rng):
    return expert.decide_with(pub, options, n, mem, LEARNED)
