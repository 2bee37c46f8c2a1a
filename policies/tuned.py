"""`tuned`: expert's play with the weights of its evaluation tuned against the win rate instead of
set by hand. The values are in tuned.json beside this file, written by scripts/train_tuned.py
(which says how); the file's content is part of the policy's fingerprint (a store refuses chunks
played with other values) and of its compiled code's cache key, and a file other than the shipped
one is labelled apart (policies/specs.py data_digest).

It sees what expert sees, the public game only (R-INFO): the weights change how positions are
scored, not what is read.
"""
from pathlib import Path

from fisim.jit.modes import compiled
from fisim.rules.options import ACTION
from policies.evaluation import WEIGHTS, decide_with, ranked
from policies.specs import BY_NAME
from policies.weights import learned

DATA = Path(__file__).with_name(BY_NAME["tuned"].data)
VERSION, LEARNED = learned(DATA, WEIGHTS)     # (its version: bumped by the training script whenever the values change)


@compiled(counted=False)
def decide(pub, options, n, mem, rng):
    return decide_with(pub, options, n, mem, LEARNED)


@compiled(counted=False)
def candidates(pub, options, n, mem, rng, top):
    """Its best-scored options at an action decision, its choice first, for search."""
    return ranked(pub, options, n, ACTION, top, LEARNED, False)
