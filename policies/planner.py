"""`planner`: the evaluation of expert and tuned (policies/evaluation.py), each action chosen for the
turn it leads to, with weights learned for its own play.

expert and tuned score each option by the position right after it, with terms guessing what the
actions left can still do (the shore and capture potentials). The planner looks further: each of
the CANDIDATES best-scored options is played on a copy of `pub` and the rest of the turn after it
greedily (the best-scored option at each action, until END or the actions run out); the option
whose turn ends best is played (ties: the higher-scored one, the greedy choice first). An END ends
its line at once; a Helicopter Lift or a Sandbags costs no action, so a line goes on after it. A
card given to a full hand is dropped at the next decision (R-HAND): a line scores the hand over the
limit as the evaluation does, and plays on.

Its weights are planner.json's, beside this file: tuned's, trained further with the planner
playing (scripts/train_tuned.py --policy planner; the file's made_by gives the commands), since a
weight's best value depends on who plays the positions it scores (most of all, under the planner a
collector holding a capture's cards counts each action it still needs to reach a temple 3.6 times
as much as under tuned: W_READY 30 -> 108).

At an action decision (the last one included) it weighs options tuned does not (evaluation's
`planning`): Helicopter Lifts to Fools' Landing while it is flooded, so that a pawn out of reach
can fly there and shore it up before a Waters Rise! puts its card back on top of the flood pile (of
its losses on the first turn at Novice, nineteen in twenty were Fools' Landing sinking so), and to
a temple of a treasure the team holds a capture's cards of, for pawns holding all but three of them
together (tuned's lifts go to a temple only with a capture's cards in one hand): a group flown
there hands the collector its cards, a collector waits there for the last ones; and a Sandbags on
one of the flooded tiles with most at stake (tuned waits for a window before a flood card). Of the
gifts of one card (to one player or another) only the best-scored is a candidate, so that the
lines played out differ.

Only actions are planned: windows, discards, swims and a Helicopter Lift's destination at those
are the evaluation's greedy choices. The draw and flood phases are not looked into: the end of the
turn is scored with their chances, as the evaluation scores every position. It sees the public
game only (R-INFO): each line is played on a copy of pub with the rules' own functions
(fisim.rules.actions).

The line played is kept as the plan (in the policy's memory): its positions, by a hash of pub,
with the ranking there and the line's end. At the turn's next action decisions, the game
stands where the line went (unless a window or a discard came between): the ranking and the first
candidate's line are read from the plan, not worked out again, for the same choice (a turn's
rankings 12 to 9).

`plan_wide` is the same lookahead with more lines, each going on into the next player's actions if
given a share of their gain to count (_next_turn): deep's play (policies/deep.py). The planner
passes None for it, and Numba, seeing the type None, leaves the next player's turn out of the
planner's compiled code.
"""
from pathlib import Path

import numpy as np

from fisim.jit.intrinsics import stack_empty
from fisim.jit.modes import compiled, inlined
from fisim.rules import view
from fisim.rules.actions import list_options
from fisim.rules.config import C_ACTIONS
from fisim.rules.options import ACTION, END, MAX_OPTIONS, SHORE, SHORE2, otype
from fisim.rules.state import (
    P_ACTIONS_LEFT,
    P_ACTIVE,
    P_CFG,
    P_DECIDER,
    P_DECISION,
    P_FLIGHT_USED,
    P_SIZE,
    copy_into,
)
from policies import evaluation
from policies.distances import N_CELLS
from policies.evaluation import FIELDS_SIZE, N_ROWS, WEIGHTS
from policies.memory import PLAN_SIZE
from policies.specs import BY_NAME
from policies.weights import learned

CANDIDATES = 3      # the best-scored options whose turns are played out
DATA = Path(__file__).with_name(BY_NAME["planner"].data)
DATA_VERSION, LEARNED = learned(DATA, WEIGHTS)      # (the policy's version is its spec's: code and data)


@compiled
def decide(pub, options, n, mem, rng):
    return plan_with(pub, options, n, mem, LEARNED)


@compiled
def plan_with(pub, options, n, mem, w):
    """The planner's decision with evaluation weights w (evaluation.WEIGHTS)."""
    return plan_wide(pub, options, n, mem, w, CANDIDATES, None)


@compiled
def plan_wide(pub, options, n, mem, w, lines, next_share):
    """The decision of a planner playing out the turns of its `lines` best-scored options where it
    ranks a position afresh, each line's end counting `next_share` of what the next player's actions
    from there gain (None: the line ends with the turn; policies/deep.py)."""
    if view.decision(pub) != ACTION or n < 2:
        return evaluation.decide_with(pub, options, n, mem, w)
    top = np.empty((lines, 3))
    return evaluation.chosen(top, 0, mem) if planned(pub, options, n, mem, w, top, next_share) > 0 else 0


@compiled
def candidates(pub, options, n, mem, rng, top):
    """For search: the planner's candidates at an action decision, its choice first, in the first
    CANDIDATES rows of top; their count."""
    return planned(pub, options, n, mem, LEARNED, top[:CANDIDATES], None)


@compiled
def planned(pub, options, n, mem, w, top, next_share):
    """The planner's candidates at an action decision, its choice first: rows of top as
    evaluation.ranked writes them (the evaluation's order after the first); returns their count.
    As many lines are played out as top has rows where the position is ranked afresh (the plan
    keeps CANDIDATES); next_share: as plan_wide's."""
    keys, kept = _plan(mem)
    fields = stack_empty(FIELDS_SIZE, np.int32).reshape((N_ROWS, N_CELLS))
    filled = stack_empty(N_ROWS, np.int64)   # (the distance fields, shared by the lines)
    filled[:] = 0
    at = _find(keys, _key(pub))
    if at >= 0:
        k = _read_step(kept[at], top)
    else:
        k = evaluation.ranked_sharing(pub, options, n, ACTION, top, w, True, fields, filled)
    if k > 1 and view.actions_left(pub) >= 2:
        _first(top, _best_turn(pub, options, top, k, w, at, keys, kept, fields, filled, next_share))
    return k


@inlined
def _first(top, j):
    """Move row j of top first, the rows before it one down."""
    for f in range(3):
        x = top[j, f]
        for i in range(j, 0, -1):
            top[i, f] = top[i - 1, f]
        top[0, f] = x


@compiled
def _best_turn(pub, options, top, k, w, at, keys, kept, fields, filled, next_share):
    """The row of `top` whose option leads to the best-scored end of the turn (at: pub's step in
    the plan, whose line is row 0's, or -1); the line of a row worked out here and chosen becomes
    the plan (fields, filled: the decision's distance fields, evaluation.ranked_sharing)."""
    line = np.empty((2, P_SIZE), np.int32)      # the line's position and the next, in turn
    copy_into(line[0], pub[:P_SIZE])            # (what an option changes is put back by play_option)
    copy_into(line[1], pub[:P_SIZE])
    line_options = np.empty(MAX_OPTIONS, np.int32)
    line_keys = np.zeros((k, PLAN_STEPS), np.uint64)
    line_steps = np.empty((k, PLAN_STEPS, STEP_SIZE))
    best = 0
    best_v = -np.inf
    for j in range(k):
        if j == 0 and at >= 0:
            v = kept[at, LINE_END]
        else:
            c = evaluation.whole_code(options, top, j)
            v = _turn_end(pub, c, top[j, 2], w, line, line_options, line_keys[j], line_steps[j], fields, filled,
                          next_share)
        if v > best_v:
            best_v = v
            best = j
    if best > 0 or at < 0:
        keys[:] = line_keys[best]
        kept[:] = line_steps[best]
    return best


@compiled
def _turn_end(pub, c, score, w, line, line_options, keys, steps, fields, filled, next_share):
    """The score of the turn's end when option c (scored `score`) is played and then the evaluation's
    best option at every action left (line: two copies of pub, whose fields no option changes
    stay pub's), with next_share of the next player's gain from there (_next_turn; None: none, and
    Numba prunes the branch where the type of next_share is None); the line's
    first PLAN_STEPS positions, by key, with their rankings and the end, are written to keys and
    steps (a key of 0: no position)."""
    evaluation.play_option(line[0], pub, c)
    at = 0
    ranked_at = 0
    top = np.empty((CANDIDATES, 3))
    while otype(c) != END and view.actions_left(line[at]) > 0:
        pos = line[at]
        k = _ranked_at(pos, line_options, top, w, True, fields, filled)
        if k == 0:
            break
        if ranked_at < PLAN_STEPS:
            keys[ranked_at] = _key(pos)
            _write_step(steps[ranked_at], top, k)
            ranked_at += 1
        c = evaluation.whole_code(line_options, top, 0)
        score = top[0, 2]
        evaluation.play_option(line[1 - at], pos, c)
        at = 1 - at
    if next_share is not None:
        score += next_share * max(0.0, _next_turn(line[at], w, line_options) - score)
    for s in range(ranked_at):
        steps[s, LINE_END] = score
    return score


@compiled
def _next_turn(end, w, line_options):
    """The score of the next player's action phase (solo: the same player's next) played greedily
    from `end`, the position the active player's actions lead to: the draw and the flood between
    the turns are not looked into, so the next player shores nothing (it would shore up what the
    active player left flooded, before the flood that may sink it); of the evaluation's best
    options (ranked as expert and tuned rank them: no lift to the planner's own targets, no
    Sandbags) it plays the best that shores nothing, as many as a turn has actions."""
    turn = np.empty((2, P_SIZE), np.int32)
    copy_into(turn[0], end[:P_SIZE])
    turn[0, P_ACTIVE] = (view.active(end) + 1) % view.players(end)
    turn[0, P_ACTIONS_LEFT] = turn[0, P_CFG + C_ACTIONS]
    turn[0, P_FLIGHT_USED] = 0
    copy_into(turn[1], turn[0])
    fields = stack_empty(FIELDS_SIZE, np.int32).reshape((N_ROWS, N_CELLS))
    filled = stack_empty(N_ROWS, np.int64)      # (its own distance fields: another pawn moves)
    filled[:] = 0
    top = np.empty((CANDIDATES, 3))
    score = -np.inf
    at = 0
    for _ in range(turn[0, P_CFG + C_ACTIONS]):
        pos = turn[at]
        if view.actions_left(pos) == 0:
            break
        k = _ranked_at(pos, line_options, top, w, False, fields, filled)
        j = 0
        while j < k and otype(evaluation.whole_code(line_options, top, j)) in (SHORE, SHORE2):
            j += 1
        if j == k:
            break
        c = evaluation.whole_code(line_options, top, j)
        score = top[j, 2]
        if otype(c) == END:
            break
        evaluation.play_option(turn[1 - at], pos, c)
        at = 1 - at
    return score


@inlined
def _ranked_at(pos, line_options, top, w, planning, fields, filled):
    """Make pos its active player's action decision and rank its options into top (a line's step,
    evaluation.ranked_sharing); their count."""
    pos[P_DECISION] = ACTION
    pos[P_DECIDER] = view.active(pos)
    m = list_options(pos, line_options, 0)
    return evaluation.ranked_sharing(pos, line_options, m, ACTION, top, w, planning, fields, filled)


# --- the plan ---

PLAN_STEPS = 2          # positions of the line played kept (a turn's actions after the first)
STEP_SIZE = 3 * CANDIDATES + 2      # one position's: its ranking's rows, their count, the line's end
COUNT = 3 * CANDIDATES
LINE_END = COUNT + 1
FNV_OFFSET = np.uint64(0xCBF29CE484222325)
FNV_PRIME = np.uint64(0x100000001B3)
assert 2 * PLAN_STEPS * (1 + STEP_SIZE) <= PLAN_SIZE


@inlined
def _plan(mem):
    """The plan in the policy's memory: (keys[PLAN_STEPS], kept[PLAN_STEPS, STEP_SIZE])."""
    keys = mem[:2 * PLAN_STEPS].view(np.uint64)
    kept = mem[2 * PLAN_STEPS:2 * PLAN_STEPS * (1 + STEP_SIZE)].view(np.float64)
    return keys, kept.reshape((PLAN_STEPS, STEP_SIZE))


@inlined
def _key(pos):
    """A 64-bit hash of the position pos[:P_SIZE], never 0: FNV-1a over its ints, in four lanes
    (four chains of multiplications at once), then over the lanes."""
    a = b = c = d = FNV_OFFSET
    last = P_SIZE - P_SIZE % 4
    for i in range(0, last, 4):
        a = (a ^ _bits(pos[i])) * FNV_PRIME
        b = (b ^ _bits(pos[i + 1])) * FNV_PRIME
        c = (c ^ _bits(pos[i + 2])) * FNV_PRIME
        d = (d ^ _bits(pos[i + 3])) * FNV_PRIME
    for i in range(last, P_SIZE):
        a = (a ^ _bits(pos[i])) * FNV_PRIME
    for lane in (b, c, d):
        a = (a ^ lane) * FNV_PRIME
    return a | np.uint64(1)


@inlined
def _bits(x):
    """An int32 of the position as a uint64."""
    return np.uint64(np.int64(x) & np.int64(0xFFFFFFFF))


@inlined
def _find(keys, key):
    """The plan's step whose position has `key`, else -1."""
    for s in range(PLAN_STEPS):
        if keys[s] == key:
            return s
    return -1


@inlined
def _write_step(step, top, k):
    """Write a ranking (its k rows of top) into a plan's step."""
    for j in range(k):
        for f in range(3):
            step[3 * j + f] = top[j, f]
    step[COUNT] = k


@inlined
def _read_step(step, top):
    """Read a plan's step's ranking into top; its count."""
    k = int(step[COUNT])
    for j in range(k):
        for f in range(3):
            top[j, f] = step[3 * j + f]
    return k
