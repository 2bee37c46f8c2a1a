"""The layout of a policy's memory (`mem`, MEM_SIZE ints per game, zeroed at setup: fisim.rules.state)
as the built-in policies use it, in one place:

    mem[0:PLAN_SIZE]     the planner's plan (policies/planner.py): the positions of the line it
                         played, by key, with their rankings and the line's end
    mem[LIFT_MEMO]       a Helicopter Lift's destination, chosen with the lift at one decision and
                         played at the LIFT_DEST decision that follows (docs/model.md)

A policy file owns all of its memory; these slots are the built-ins' convention.
"""
from fisim.jit.modes import compiled, inlined
from fisim.rules.options import field1
from fisim.rules.state import MEM_SIZE

LIFT_MEMO = MEM_SIZE - 1    # the last slot
PLAN_SIZE = LIFT_MEMO       # the slots before it


@inlined
def lift_chosen(mem, i, dest):
    """i, the index of the LIFT option chosen, whose destination `dest` is kept in `mem` for the
    LIFT_DEST decision that follows (remembered_destination)."""
    mem[LIFT_MEMO] = dest
    return i


@compiled(counted=False)
def remembered_destination(options, n, mem):
    """At a LIFT_DEST decision: the index of the destination `lift_chosen` kept."""
    for i in range(n):
        if field1(options[i]) == mem[LIFT_MEMO]:
            return i
    return -1
