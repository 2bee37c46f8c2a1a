"""`candidate`: expert's play, or the planner's, with weights a training script writes in between
runs (scripts/train_tuned.py), read from exported arrays at every decision, so a new set plays
without a compile. Not a built-in: its play changes under it, so no store may record it.
"""
import numpy as np

from fisim.jit.modes import compiled
from fisim.jit.policy_call import export_array, exported_array
from policies import expert, planner

NAME = "candidate"
VERSION = 0
SIZE = expert.WEIGHTS.size
PLAYED = expert.WEIGHTS.array()     # the weights played: write into it (PLAYED[:] = ...), never rebind it
PLANS = np.zeros(1)                 # 1.0: the planner's play, 0.0: expert's (set by play_as)
export_array("fisim_candidate_weights", PLAYED)
export_array("fisim_candidate_plans", PLANS)


def play_as(policy, weights):
    """Play as `policy` (expert, tuned or planner: the last plans its turns) with these weights."""
    PLANS[0] = float(policy is planner)
    PLAYED[:] = weights


@compiled
def decide(pub, options, n, mem, rng):
    w = exported_array("fisim_candidate_weights", SIZE)
    if exported_array("fisim_candidate_plans", 1)[0] > 0.0:
        return planner.plan_with(pub, options, n, mem, w)
    return expert.decide_with(pub, options, n, mem, w)
