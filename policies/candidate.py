"""`candidate`: the evaluation's play (policies/evaluation.py) with weights a training script writes in between runs
(scripts/train_tuned.py), read from an exported array at every decision, so a new set plays
without a compile. Not a built-in: its play changes under it, so no store may record it.
"""
from fisim.jit.modes import compiled
from fisim.jit.policy_call import export_array, exported_array
from policies.evaluation import WEIGHTS, decide_with

NAME = "candidate"
VERSION = 0
SIZE = WEIGHTS.size
PLAYED = WEIGHTS.array()     # the weights played: write into it (PLAYED[:] = ...), never rebind it
export_array("fisim_candidate_weights", PLAYED)


@compiled
def decide(pub, options, n, mem, rng):
    return decide_with(pub, options, n, mem, exported_array("fisim_candidate_weights", SIZE))
