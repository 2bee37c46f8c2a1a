"""`candidate`: the evaluation's play (policies/evaluation.py), or the planner's (policies/planner.py),
with weights a training script writes in between runs (scripts/train_tuned.py), read from exported
arrays at every decision, so a new set plays without a compile. Not a built-in: its play changes
under it, so no store may record it.
"""
import numpy as np

from fisim.jit.modes import compiled
from fisim.jit.policy_call import export_array, exported_array
from policies.evaluation import WEIGHTS, decide_with
from policies.planner import plan_with

NAME = "candidate"
VERSION = 0
SIZE = WEIGHTS.size
PLAYED = WEIGHTS.array()     # the weights played: write into it (PLAYED[:] = ...), never rebind it
PLANS = np.zeros(1)      # PLANS[0] = 1.0: the planner plays them; 0.0: the evaluation (as expert and tuned)
export_array("fisim_candidate_weights", PLAYED)
export_array("fisim_candidate_plans", PLANS)


@compiled
def decide(pub, options, n, mem, rng):
    w = exported_array("fisim_candidate_weights", SIZE)
    if exported_array("fisim_candidate_plans", 1)[0] > 0.0:
        return plan_with(pub, options, n, mem, w)
    return decide_with(pub, options, n, mem, w)
