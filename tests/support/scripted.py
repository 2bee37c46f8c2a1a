"""A test policy that plays a script: mem[1:] holds the option codes to choose, in order;
mem[0] counts the choices made. Past the end of the script it asks for code 0 (END); an option
not on offer is an illegal choice."""
from numba import njit

NAME = "scripted"
VERSION = 1


@njit
def decide(pub, options, n, mem, rng):
    target = mem[1 + mem[0]]
    mem[0] += 1
    for i in range(n):
        if options[i] == target:
            return i
    return -1
