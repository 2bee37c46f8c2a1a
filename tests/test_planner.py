"""`planner` (issue 30): tuned's evaluation, each action chosen for the end of the turn it leads to.
R-INFO for the planner is tested with every legal policy's (tests/test_policies.py), its training
with tuned's (tests/test_tuned.py).

Positions are written in fisim.position's notation, as in tests/test_policies.py."""
import json

import numpy as np
import pytest
from support.board import ISLAND, SCRIPTED
from support.midgame import MIDGAME, choices, game

from fisim import grid
from fisim.engine.entries import PHASE_ACTIONS, PHASE_DRAW, PHASE_FLOOD
from fisim.position import CARD_CODES
from fisim.rules import state as st
from fisim.rules import view
from fisim.rules.actions import list_options
from fisim.rules.options import ACTION, GIVE, LIFT, MAX_OPTIONS, SANDBAG, SHORE, SHORE2, field1, field2, field3, otype
from fisim.store import file_digest, manifest_for
from policies import candidate, evaluation, internal, load_policy, normalized, planner, tuned
from policies.specs import BY_NAME

pytestmark = pytest.mark.compiles      # needs the compiled engine
planner_spec = BY_NAME["planner"]

TWO_FLOODED = """
.  .  cs OB .  .
.  TP GG fl TH .
IG WG BB CA DD TM
CP PR SG HG LL CE
.  TS WT MM CG .
.  .  BG CF .  .
engineer@WG: ocean
explorer@MM: earth
water 3; active 0; actions 3
"""


LANDING_AT_RISK = ISLAND.replace("FL", "fl").replace("CS", "cs") + """
messenger@TS: heli earth
navigator@TM: ocean
water 2; active 0; actions {actions}
flood discard: FL CS
"""


def _played(policy, text, phase=PHASE_ACTIONS, seed=1):
    """(position, game, events) of `policy` (a name or a Policy) playing `phase` from `text`."""
    p, g = game(text, seed=seed)
    events = g.run(phase, load_policy(policy) if isinstance(policy, str) else policy)
    return p, g, events


def test_the_planner_walks_where_one_action_shores_two_tiles():
    """R-ROLE-ENGINEER: Cliffs of Abandon and Fools' Landing are flooded, both next to the Gold
    Gate, two steps from the Engineer. tuned scores each step by the position it leads to, and
    walks to shore Fools' Landing alone; the planner plays each first step's turn to its end, walks
    to the Gold Gate instead and shores both with its last action."""
    p, g, events = _played("tuned", TWO_FLOODED)
    assert g.pub[st.P_FLOODED] >> p.cell_of("CS") & 1       # tuned leaves Cliffs of Abandon flooded
    p, g, events = _played("planner", TWO_FLOODED)
    acts = choices(events, ACTION)
    assert len(acts) == 3 and otype(acts[-1]) == SHORE2
    assert g.pub[st.P_FLOODED] & (1 << p.cell_of("CS") | 1 << p.cell_of("FL")) == 0


@pytest.mark.parametrize("actions", [3, 1])
def test_the_planner_flies_to_a_flooded_fools_landing_and_shores_it_up(actions):
    """R-SPECIAL-HELI, R-ACT-SHORE: Fools' Landing is flooded and its card in the flood discard
    (a Waters Rise! would put it back on top), five steps from the Messenger, who holds a
    Helicopter Lift. tuned walks toward it; the planner flies there and shores it up, with the
    turn's last action too."""
    text = LANDING_AT_RISK.format(actions=actions)
    p, g, events = _played("tuned", text)
    assert g.pub[st.P_FLOODED] >> p.cell_of("FL") & 1
    p, g, events = _played("planner", text)
    acts = choices(events, ACTION)
    assert otype(acts[0]) == LIFT and field3(acts[0]) == p.cell_of("FL")
    assert otype(acts[1]) == SHORE and not g.pub[st.P_FLOODED] >> p.cell_of("FL") & 1


CARDS_AT_THE_TEMPLE = ISLAND + """
engineer@CS: heli {engineer}
explorer@TS: {explorer}
water 3; active 0; actions 3
"""


def test_the_planner_flies_to_a_temple_to_hand_over_the_last_cards():
    """R-SPECIAL-HELI, R-ACT-GIVE: the Engineer holds a Helicopter Lift and two Earth cards, five
    steps from the Temple of the Sun, where the Explorer holds the other two. tuned lifts a pawn to
    a temple only with four cards in one hand, and walks; the planner (`planning`) flies there and
    gives both cards, so the Explorer can capture the Earth Stone on its own turn without a step."""
    text = CARDS_AT_THE_TEMPLE.format(engineer="earth earth", explorer="earth earth wind")
    p, g, events = _played("tuned", text)
    assert LIFT not in map(otype, choices(events, ACTION))
    p, g, events = _played("planner", text)
    acts = choices(events, ACTION)
    assert otype(acts[0]) == LIFT and field3(acts[0]) == p.cell_of("TS")
    assert list(map(otype, acts[1:3])) == [GIVE, GIVE]
    assert g.pub[st.hand_at(1, CARD_CODES.index("earth"))] == 4


@pytest.mark.parametrize(("engineer", "explorer", "flies"), [
    ("earth", "earth earth earth", True),           # the Engineer holds one of the four: three short
    ("wind", "earth earth earth earth", False),     # she holds none: the capture is the Explorer's alone
    ("earth earth", "earth wind wind", False),      # the team holds three: no capture to fly to
])
def test_the_planner_lifts_a_group_to_a_temple_within_three_cards_of_a_capture_the_team_holds(
        engineer, explorer, flies):
    """R-SPECIAL-HELI: the temple is a destination of the planner's lifts for a group holding all
    but three (LIFT_SHORT) of a capture's cards the team holds, and never for tuned's."""
    p, g = game(CARDS_AT_THE_TEMPLE.format(engineer=engineer, explorer=explorer))
    temples = view.temple_cells(g.pub, CARD_CODES.index("earth"))
    targets = [evaluation._lift_targets(g.pub, 1, ACTION, False, planning) & temples for planning in (False, True)]
    assert targets == [0, temples if flies else 0]


SANDBAGS_FOR_THE_LANDING = ISLAND.replace("FL", "fl").replace("CS", "cs") + """
messenger@TS: sand earth
navigator@TM: ocean
water 2; active 0; actions 3
flood discard: FL CS
"""


def test_the_planner_plays_a_sandbags_in_its_turn():
    """R-SPECIAL-SAND: Fools' Landing is flooded and its card in the flood discard, five steps from
    the Messenger, who holds a Sandbags. tuned walks toward it and keeps the card for a window; the
    planner shores it up at once with the Sandbags (no action spent) and plays its three actions."""
    p, g, events = _played("tuned", SANDBAGS_FOR_THE_LANDING)
    assert SANDBAG not in map(otype, choices(events, ACTION))
    p, g, events = _played("planner", SANDBAGS_FOR_THE_LANDING)
    acts = choices(events, ACTION)
    assert otype(acts[0]) == SANDBAG and field2(acts[0]) == p.cell_of("FL")
    assert not g.pub[st.P_FLOODED] >> p.cell_of("FL") & 1 and len(acts) == 4


THREE_ON_ONE_TILE = ISLAND + """
engineer@BB: earth earth
explorer@BB: earth
messenger@BB: earth
water 2; active 0; actions 3
"""


def test_the_planners_candidates_give_each_card_once():
    """R-ACT-GIVE: the Engineer can give an Earth card to the Explorer or to the Messenger, scored
    alike. tuned's ranking lists both gifts; the planner's candidates keep the first and take the
    next-best option in place of the second, so that the lines it plays out differ."""
    p, g = game(THREE_ON_ONE_TILE)
    pub = g.pub.copy()
    pub[st.P_DECISION], pub[st.P_DECIDER] = ACTION, 0
    options = np.empty(MAX_OPTIONS, np.int32)
    n = list_options(pub, options, 0)
    w = evaluation.WEIGHTS.array(evaluation.WEIGHTS.values(planner.LEARNED))
    rankings = []
    for planning in (False, True):
        top = np.empty((planner.CANDIDATES, 3))
        k = evaluation.ranked(pub, options, n, ACTION, top, w, planning)
        rankings.append([(options[int(top[j, 0])], top[j, 2]) for j in range(k)])
    gifts = [[c for c, _ in ranking if otype(c) == GIVE and field1(c) == CARD_CODES.index("earth")]
             for ranking in rankings]
    assert len(gifts[0]) == 2 and gifts[1] == gifts[0][:1]
    assert rankings[1][:2] == [r for r in rankings[0] if r[0] != gifts[0][1]]
    assert len(rankings[1]) == 3 and rankings[1][2][1] <= rankings[0][2][1]


@pytest.mark.parametrize(("actions", "phase"), [(1, PHASE_ACTIONS), (3, PHASE_DRAW), (3, PHASE_FLOOD)])
def test_the_planner_plays_the_evaluation_where_it_does_not_plan(actions, phase):
    """With one action left the turn's end is the next position, and windows, discards and swims
    are the evaluation's greedy choices with the planner's weights (policies.candidate playing
    them): from the midgame (Fools' Landing dry), the last action, the draw (a discard) and the
    flood phase (windows) are played alike. (At the last action the Diver's Sandbags is another
    card: the planner weighs a Sandbags at its actions, the evaluation only at a window.)"""
    text = MIDGAME.replace("actions 3", f"actions {actions}").replace(" fl ", " FL ")
    if phase == PHASE_ACTIONS:
        text = text.replace("ocean sand", "ocean ocean")
    candidate.PLAYED[:] = planner.LEARNED
    runs = [_played(policy, text, phase, seed=4) for policy in (internal(candidate), "planner")]
    assert runs[0][2].size and np.array_equal(runs[0][2], runs[1][2])
    assert np.array_equal(runs[0][1].pub, runs[1][1].pub)


@pytest.mark.parametrize("text", [TWO_FLOODED, MIDGAME, LANDING_AT_RISK.format(actions=3)])
def test_the_plan_chooses_as_planning_afresh(text):
    """The line played is kept as the plan, and the turn's next action decisions read their
    ranking and first line from it: the same choices as a planner with its memory empty from the
    second action on (the same position, reached by a script), and the plan holds the position
    the third action was chosen at (a Helicopter Lift or a Sandbags costs no action: R-SPECIAL-HELI,
    R-SPECIAL-SAND)."""
    p, g, events = _played("planner", text)
    acts = choices(events, ACTION)
    afresh = _scripted(text, acts[:1])
    assert choices(afresh.run(PHASE_ACTIONS, load_policy("planner")), ACTION) == acts[1:]
    keys, kept = planner._plan(g.g[st.MEM:st.MEM + st.MEM_SIZE])
    assert planner._key(_scripted(text, acts[:2]).pub) in keys


def _scripted(text, acts):
    """The game from position `text` after the action decisions `acts` (a script, then END)."""
    p, g = game(text, seed=1)
    g.run(PHASE_ACTIONS, SCRIPTED, script=acts)
    g.g[st.P_ACTIONS_LEFT] = 3 - sum(otype(c) not in (LIFT, SANDBAG) for c in acts)
    return g


@pytest.mark.parametrize("name", ["planner", "planner-search:2"])
def test_the_planner_has_its_own_data_file(name):
    """The planner plays the weights of planner.json, and search over it too: a store of either
    refuses other values, as tuned's does."""
    cells = grid.expand(["standard"], ["normal"], [2], "random", grid.parse_policies(name), [()])
    manifest = manifest_for(cells, 0, {"games": 2000}, False, 1000)
    given = normalized(name)        # planner-search:2 is search:2/planner
    assert manifest["files"] == {given: file_digest(planner.DATA)}
    version = load_policy("planner").VERSION
    assert manifest["policy_labels"][given] in (f"planner@{version}", f"search:2/planner@2.{version}")


def test_the_planners_weights_were_learned_for_its_play_from_tuneds():
    """planner.json is the training script's (--policy planner), started from tuned's file: its
    made_by chains tuned's commands and the planner's, and its weights are what the planner plays."""
    data = json.loads(planner.DATA.read_text())
    assert data["policy"] == "planner" and planner.DATA_VERSION == data["version"]
    assert evaluation.WEIGHTS.values(planner.LEARNED) == data["weights"] != evaluation.WEIGHTS.values(tuned.LEARNED)
    tuned_made_by = json.loads(tuned.DATA.read_text())["made_by"]
    assert data["made_by"].startswith(tuned_made_by + " --out tuned.json && ")
    assert "--policy planner" in data["made_by"].split(" && ")[-1]
    assert load_policy("planner").label == f"planner@{planner_spec.version}"    # the shipped file


@pytest.mark.parametrize("text", [TWO_FLOODED, MIDGAME, LANDING_AT_RISK.format(actions=3)])
def test_search_over_the_planner_starts_from_the_planners_choice(text):
    """planner-search's candidates are the planner's, its choice first: with one world per
    decision no alternative's gain can be clear (search's MIN_NET), and it plays the planner's
    actions."""
    acts = [choices(_played(name, text)[2], ACTION) for name in ("planner", "planner-search:1")]
    assert acts[0] and acts[0] == acts[1]
