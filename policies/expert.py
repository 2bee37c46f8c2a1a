"""`expert`: each option scored by the position it leads to, with the evaluation's hand-set weights
(policies/evaluation.py); the best score wins."""
from fisim.jit.modes import compiled
from fisim.rules.options import ACTION
from policies.evaluation import HAND_SET, decide_with, ranked


@compiled(counted=False)
def decide(pub, options, n, mem, rng):
    return decide_with(pub, options, n, mem, HAND_SET)


@compiled(counted=False)
def candidates(pub, options, n, mem, rng, top):
    """Its best-scored options at an action decision, its choice first, for search (rows of top as
    evaluation.ranked writes them); their count."""
    return ranked(pub, options, n, ACTION, top, HAND_SET, False)
