"""`planner`: tuned's evaluation, with each action chosen for the turn it leads to.

expert (and tuned) score each option by the position right after it, with terms guessing what the
actions left can still do (the shore and capture potentials). The planner looks further: each of
tuned's CANDIDATES best-scored options is played on a copy of `pub` and the rest of the turn after
it greedily (tuned's best option at each action, until END or the actions run out); the option
whose turn ends best is played (ties: the higher-scored one, tuned's own choice first). An END
ends its line at once; a Helicopter Lift costs no action, so a line goes on after it. A card given
to a full hand is dropped at the next decision (R-HAND): a line scores the hand over the limit as
tuned scores it, and plays on.

At an action decision (the last one included) it also scores what tuned never offers before the
end game: a Helicopter Lift to Fools' Landing while it is flooded, so that a pawn out of reach can
fly there and shore it up before a Waters Rise! puts its card back on top of the flood pile (of
its losses on the first turn at Novice, nineteen in twenty were Fools' Landing sinking so).

Only actions are planned: windows, discards, swims and a Helicopter Lift's destination at those
are tuned's. The draw and flood phases are not looked into: the end of the turn is scored with
their chances, as tuned scores every position. It sees the public game only (R-INFO): each line
is played on a copy of pub with the rules' own functions (fisim.rules.actions).
"""
import numpy as np

from fisim.jit.modes import compiled
from fisim.rules import view
from fisim.rules.actions import list_options
from fisim.rules.options import ACTION, END, MAX_OPTIONS, otype
from fisim.rules.state import P_DECIDER, P_DECISION, P_SIZE, copy_into
from policies import expert, tuned

NAME = "planner"
VERSION = 3     # 2: without the lifts to a flooded Fools' Landing (bump it with tuned's weights too)
DATA = tuned.DATA           # tuned's weights: its data file is in the planner's fingerprint

CANDIDATES = 3      # tuned's best-scored options whose turns are played out


@compiled
def decide(pub, options, n, mem, rng):
    return plan_with(pub, options, n, mem, tuned.LEARNED)


@compiled
def plan_with(pub, options, n, mem, w):
    """The planner's decision with evaluation weights w (expert.WEIGHTS)."""
    if view.decision(pub) != ACTION or n < 2:
        return expert.decide_with(pub, options, n, mem, w)
    top = np.empty((CANDIDATES, 3))
    k = expert.ranked(pub, options, n, ACTION, top, w, True)
    if k == 0:
        return 0
    best = 0
    if k > 1 and view.actions_left(pub) >= 2:
        best = _best_turn(pub, options, top, k, w)
    return expert.chosen(top, best, mem)


@compiled
def _best_turn(pub, options, top, k, w):
    """The row of `top` whose option leads to the best-scored end of the turn."""
    line = np.empty((2, P_SIZE), np.int32)      # the line's position and the next, in turn
    copy_into(line[0], pub[:P_SIZE])            # (what an option changes is put back by _play)
    copy_into(line[1], pub[:P_SIZE])
    line_options = np.empty(MAX_OPTIONS, np.int32)
    step = np.empty((1, 3))
    best = 0
    best_v = -np.inf
    for j in range(k):
        v = _turn_end(pub, expert.whole_code(options, top, j), top[j, 2], w, line, line_options, step)
        if v > best_v:
            best_v = v
            best = j
    return best


@compiled
def _turn_end(pub, c, score, w, line, line_options, step):
    """The score of the turn's end when option c (scored `score`) is played and then tuned's
    best option at every action left (line: two copies of pub, whose fields no option changes
    stay pub's)."""
    expert._play(line[0], pub, c)
    at = 0
    while otype(c) != END and view.actions_left(line[at]) > 0:
        pos = line[at]
        pos[P_DECISION] = ACTION
        pos[P_DECIDER] = view.active(pos)
        m = list_options(pos, line_options, 0)
        if expert.ranked(pos, line_options, m, ACTION, step, w, True) == 0:
            break
        c = expert.whole_code(line_options, step, 0)
        score = step[0, 2]
        expert._play(line[1 - at], pos, c)
        at = 1 - at
    return score
