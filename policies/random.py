"""`random`: uniform over the legal options, special cards and ending the phase included.

Version 2: a Helicopter Lift is chosen in two steps (docs/model.md), each uniform: first among the
options (one per card holder and group of pawns), then among its destinations.
Version 3: the same rule; its random stream is seeded one-way (fisim.rules.rng), so it draws
other numbers."""
from fisim.jit.modes import compiled
from fisim.rules.rng import randbelow

NAME = "random"
VERSION = 3


@compiled
def decide(pub, options, n, mem, rng):
    return randbelow(rng, n)
