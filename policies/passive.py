"""`passive`: takes no action and plays no card; discards and swims uniformly at random.

A floor for every difficulty figure: what the island does to a team that does nothing.
"""
from fisim.jit.modes import compiled
from fisim.rules.options import DROP, END, PASS, SWIM_TO, otype
from fisim.rules.rng import randbelow


@compiled
def _pick_type(options, n, kind, rng):
    """A uniformly random index among the options of one type (they are contiguous)."""
    lo = 0
    while lo < n and otype(options[lo]) != kind:
        lo += 1
    hi = lo
    while hi < n and otype(options[hi]) == kind:
        hi += 1
    return lo + randbelow(rng, hi - lo)


@compiled
def decide(pub, options, n, mem, rng):
    first = otype(options[0])
    if first == END or first == PASS:
        return 0
    for i in range(n):
        t = otype(options[i])
        if t == DROP or t == SWIM_TO:
            return _pick_type(options, n, t, rng)
    return 0     # not reached: a discard decision always offers DROP, a swim one PASS or SWIM_TO
