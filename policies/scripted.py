"""A policy that plays a script, to reach a chosen position (the tests' hand-built positions, the
common start of scripts/departures.py's two action phases): mem[1:] holds the option codes to
choose, in order; mem[0] counts the choices made. A scripted Helicopter Lift is the lift played,
LIFT holder seats dest: it answers both steps of the lift (its LIFT option, then its LIFT_DEST
decision). Past the end of the script it asks for code 0 (END); an option not on offer is an
illegal choice."""
from numba import njit

from fisim.rules.options import LIFT, LIFT_DEST, code, field1, field2, field3, otype
from fisim.rules.view import decision

NAME = "scripted"
VERSION = 1


@njit
def decide(pub, options, n, mem, rng):
    target = mem[1 + mem[0]]
    if decision(pub) == LIFT_DEST:
        target = code(0, field3(target))      # the lift's destination, as a LIFT_TO code's field
        mem[0] += 1
        for i in range(n):
            if field1(options[i]) == field1(target):
                return i
        return -1
    if otype(target) == LIFT:
        target = code(LIFT, field1(target), field2(target))
    else:
        mem[0] += 1
    for i in range(n):
        if options[i] == target:
            return i
    return -1
