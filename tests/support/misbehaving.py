"""A test policy that misbehaves in the way the number of players says: with 2 players it
chooses an option that is not on offer (index n), with 3 it raises ValueError, with 4 it never
returns; alone (solo) it plays the first option. One policy file for the three failures, so that
the tests of failing policies share one compiled policy."""
from numba import njit

from fisim.rules.state import P_PLAYERS

NAME = "misbehaving"
VERSION = 1


@njit
def decide(pub, options, n, mem, rng):
    players = pub[P_PLAYERS]
    if players == 2:
        return n
    if players == 3 and n > 0:
        raise ValueError("no thanks")
    while pub[P_PLAYERS] == 4:
        mem[1] += 1
    return 0
