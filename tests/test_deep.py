"""`deep` (issue 45): the planner with ten lines, each going on into the next player's actions.
R-INFO for deep is tested with every legal policy's (tests/test_policies.py), the planner's lines
in tests/test_planner.py; a golden transcript of its game in tests/test_golden.py.

Positions are written in fisim.position's notation, as in tests/test_policies.py."""
import numpy as np
import pytest
from support.board import ISLAND
from support.midgame import MIDGAME, choices, game

from fisim import grid
from fisim.engine.entries import PHASE_ACTIONS
from fisim.rules import state as st
from fisim.rules.actions import list_options
from fisim.rules.options import ACTION, MAX_OPTIONS, MOVE, otype
from fisim.store import file_digest, manifest_for
from policies import deep, load_policy, normalized, planner
from policies.distances import N_CELLS
from policies.evaluation import CAP, N_ROWS
from policies.importance import LOSS
from policies.specs import BY_NAME

pytestmark = pytest.mark.compiles      # needs the compiled engine
W = np.asarray(planner.LEARNED)
NEXT_CAN_CAPTURE = ISLAND + """
navigator@SG: wind
diver@CE: earth earth earth earth
water 3; active 0; actions 2
"""


def _line_ends(text):
    """The planner's score of the turn's end after the active player's first move in `text`, without
    and with the next player's actions (planner._turn_end, next_share None and deep's)."""
    p, g = game(text)
    pub = g.pub.copy()
    pub[st.P_DECISION], pub[st.P_DECIDER] = ACTION, 0
    options = np.empty(MAX_OPTIONS, np.int32)
    n = list_options(pub, options, 0)
    move = next(int(c) for c in options[:n] if otype(c) == MOVE)
    ends = []
    for next_share in (None, deep.NEXT_SHARE):
        line = np.empty((2, st.P_SIZE), np.int32)
        line[:] = pub[:st.P_SIZE]
        keys = np.zeros(planner.PLAN_STEPS, np.uint64)
        steps = np.empty((planner.PLAN_STEPS, planner.STEP_SIZE))
        fields, filled = np.empty((N_ROWS, N_CELLS), np.int32), np.zeros(N_ROWS, np.int64)
        ends.append(planner._turn_end(pub, move, 0.0, W, line, np.empty(MAX_OPTIONS, np.int32), keys, steps, fields,
                                      filled, next_share))
    return ends


def test_a_line_counts_half_of_what_the_next_player_gains():
    """R-ACT-CAPTURE: the Diver, next to play, holds the four Earth cards beside the Temple of the
    Moon. Whatever the Navigator does, the Diver can step onto it and capture the Earth Stone in its
    own turn: a line's end counts half of that gain (more than a quarter of a capture's weight);
    with three cards it gains next to nothing."""
    plain, partner = _line_ends(NEXT_CAN_CAPTURE)
    assert partner - plain > 0.25 * W[CAP]
    plain, partner = _line_ends(NEXT_CAN_CAPTURE.replace("earth earth earth earth", "earth earth earth"))
    assert 0.0 <= partner - plain < 0.01 * W[CAP]


def test_the_next_player_shores_nothing():
    """R-ACT-SHORE, R-FLOOD: Fools' Landing is flooded and its card on top of the flood pile, and the
    Engineer, next to play, stands beside it. The line's end counts it lost (the flood comes
    before the Engineer's turn, and the lines do not look into it), so the Engineer's shore is not
    counted as a gain."""
    text = ISLAND.replace("FL", "fl") + """
navigator@SG: wind
engineer@CA:
water 3; active 0; actions 2
flood on top: FL
"""
    plain, partner = _line_ends(text)
    assert plain < -0.5 * LOSS and partner == plain


def test_deep_is_the_planner_with_the_planners_weights():
    """deep builds on the planner and plays its learned weights (planner.json): a store of it
    refuses other values, as the planner's does."""
    spec = BY_NAME["deep"]
    assert spec.builds_on == {"planner": BY_NAME["planner"].version}
    assert spec.data_digest == BY_NAME["planner"].data_digest and deep.DATA == planner.DATA
    cells = grid.expand(["standard"], ["normal"], [2], "random", grid.parse_policies("deep"), [()])
    manifest = manifest_for(cells, 0, {"games": 2000}, False, 1000)
    assert manifest["files"] == {normalized("deep"): file_digest(planner.DATA)}
    assert load_policy("deep").label == f"deep@{spec.version}"


@pytest.mark.parametrize("text", [MIDGAME, NEXT_CAN_CAPTURE])
def test_search_over_deep_starts_from_deeps_choice(text):
    """search over deep tries deep's candidates, its choice first: with one world per decision no
    alternative's gain can be clear (search's MIN_NET), and it plays deep's actions."""
    acts = []
    for name in ("deep", "search:1/deep"):
        p, g = game(text, seed=1)
        acts.append(choices(g.run(PHASE_ACTIONS, load_policy(name)), ACTION))
    assert acts[0] and acts[0] == acts[1]
