"""A test policy: expert, except under the heli-all rule switch, where it takes no action and plays
no card (passive). It stands in for a stronger player whose play turns a rule reading's effect
around (heli-all against the official rules: R-SPECIAL-HELI), for the tests of the stronger-play
check (fisim.stronger)."""
from numba import njit

from fisim.rules.config import C_HELI_ALL
from fisim.rules.state import P_CFG
from policies.expert import decide as expert
from policies.passive import decide as passive

NAME = "heli-passive"
VERSION = 1


@njit
def decide(pub, options, n, mem, rng):
    if pub[P_CFG + C_HELI_ALL]:
        return passive(pub, options, n, mem, rng)
    return expert(pub, options, n, mem, rng)
