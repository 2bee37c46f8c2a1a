"""`candidate`: expert's play with weights a training script writes in between runs
(scripts/train_tuned.py), read from an exported array at every decision, so a new set plays
without a compile. Not a built-in: its play changes under it, so no store may record it.
"""
from fisim.jit.modes import compiled
from fisim.jit.policy_call import export_array, exported_array
from policies import expert

NAME = "candidate"
VERSION = 0
SIZE = expert.WEIGHTS.size
PLAYED = expert.WEIGHTS.array()     # the weights played: write into it (PLAYED[:] = ...), never rebind it
export_array("fisim_candidate_weights", PLAYED)


@compiled
def decide(pub, options, n, mem, rng):
    return expert.decide_with(pub, options, n, mem, exported_array("fisim_candidate_weights", SIZE))
