"""`tuned-search`: search (policies/search.py) over `tuned` instead of expert: its candidates are
tuned's best-scored options and tuned plays its rollouts. It sees what search sees (R-INFO).
"""
from fisim.jit.modes import compiled
from fisim.jit.policy_call import symbol_address
from fisim.jit.runners import entry_symbol
from policies import search, tuned

NAME = "tuned-search"
VERSION = tuned.VERSION     # search over tuned@N plays as tuned's values make it: tuned-search@N
DATA = tuned.DATA           # tuned's values: in this policy's fingerprint too
PARAMETER = search.PARAMETER

PLAYS = (tuned,)            # (search.PLAYS: the entries its compiled code calls, exported first)
_TUNED = entry_symbol(tuned)


@compiled
def decide(pub, options, n, mem, rng):
    return search.search_over(pub, options, n, mem, rng, tuned.LEARNED, symbol_address(_TUNED))
