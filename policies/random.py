"""`random`: uniform over the legal options, special cards and ending the phase included; a
Helicopter Lift is chosen in two steps (docs/model.md), each uniform: first among the options (one
per card holder and group of pawns), then among its destinations."""
from fisim.jit.modes import compiled
from fisim.rules.rng import randbelow


@compiled
def decide(pub, options, n, mem, rng):
    return randbelow(rng, n)
