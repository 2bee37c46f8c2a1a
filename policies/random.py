"""`random`: uniform over the legal options, special cards and ending the phase included."""
from numba import njit

from fisim.rules.rng import randbelow

NAME = "random"
VERSION = 1


@njit
def decide(pub, options, n, mem, rng):
    return randbelow(rng, n)
