"""`planner-search`: search (policies/search.py) over the planner: its candidates are the options
whose turns the planner played out, its own choice first, and the planner plays the rollouts. It
sees what search sees (R-INFO).
"""
import numpy as np

from fisim.jit.modes import compiled
from fisim.jit.policy_call import symbol_address
from fisim.jit.runners import entry_symbol
from fisim.rules import view
from fisim.rules.options import ACTION
from policies import expert, planner, search, tuned

NAME = "planner-search"
VERSION = planner.VERSION   # search over planner@N: planner-search@N
DATA = tuned.DATA           # the planner's (tuned's) values: in this policy's fingerprint too
PARAMETER = search.PARAMETER

PLAYS = (planner,)          # (search.PLAYS: the entries its compiled code calls, exported first)
_PLANNER = entry_symbol(planner)


@compiled
def decide(pub, options, n, mem, rng):
    if view.decision(pub) != ACTION or n < 2:
        return expert.decide_with(pub, options, n, mem, tuned.LEARNED)
    top = np.empty((planner.CANDIDATES, 3))
    k = planner.planned(pub, options, n, mem, tuned.LEARNED, top)
    return search.searched(pub, options, mem, rng, top, k, symbol_address(_PLANNER))
