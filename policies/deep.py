"""`deep`: the planner (policies/planner.py) looking wider and past its own turn, for a stronger
legal player at a quarter of the planner's speed.

Where it ranks a position afresh it plays out the turns of its LINES best-scored options instead
of the planner's three, and each line goes on into the next player's action phase (the planner's
`next_share`): the end of a line counts half of what the next player's greedy actions from there
gain (NEXT_SHARE), shoring nothing, as the flood between the turns is not looked into.
Both matter most where the team's play is coordinated: with 3 and 4 players the wider lines and
the next player's turn together gain more than each alone, and the next player's turn is the only
lookahead measured to gain with 2 (docs/strength.md, "deep").

It plays the planner's learned weights (planner.json) and sees what the planner sees, the public
game only (R-INFO): the next player's actions are played on a copy of pub with the rules' own
functions, the draw and flood phases before them not at all.
"""
import numpy as np

from fisim.jit.modes import compiled
from policies import planner

LINES = 10      # the best-scored options whose turns are played out at a fresh ranking
NEXT_SHARE = 0.5        # the share of the next player's gain a line's end counts (planner._next_turn)
DATA = planner.DATA     # the planner's learned weights (specs: data)


@compiled
def decide(pub, options, n, mem, rng):
    return planner.plan_wide(pub, options, n, mem, planner.LEARNED, LINES, NEXT_SHARE)


@compiled
def candidates(pub, options, n, mem, rng, top):
    """For search: its candidates at an action decision, its choice first, in the first
    planner.CANDIDATES rows of top; their count."""
    wide = np.empty((LINES, 3))
    k = min(planner.planned(pub, options, n, mem, planner.LEARNED, wide, NEXT_SHARE), planner.CANDIDATES)
    top[:k] = wide[:k]
    return k
