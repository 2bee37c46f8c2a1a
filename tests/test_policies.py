"""The built-in policies and the policy hook: no hidden information (R-INFO), no illegal choice
on any layout, user policy files, clear errors, and scenarios in which `expert` must do the
obvious right thing.

Positions are written in fisim.position's notation (as in tests/test_rules.py) and played on the
engine with fisim.engine.EngineGame.
"""
import numpy as np
import pytest
from support.board import ISLAND
from support.midgame import MIDGAME, PILE_ORDERS, choices, game  # the standard island with its tiles scrambled

from fisim import engine
from fisim.engine.entries import PHASE_ACTIONS, PHASE_FLOOD
from fisim.rules import state as st
from fisim.rules.config import GameConfig
from fisim.rules.constants import SAND
from fisim.rules.layouts import BUILTIN_NAMES, builtin_layout
from fisim.rules.options import (
    ACTION,
    CAPTURE,
    DECISION_NAMES,
    LIFT,
    LIFT_DEST,
    LIFT_TO,
    SANDBAG,
    WINDOW,
    code,
    field1,
    field2,
    field3,
    otype,
)
from fisim.rules.state import ERROR, LOST, WON
from fisim.rules.turn import R_STATUS
from policies import BUILTIN, LEGAL, PolicyError, load_policy
from policies.memory import lift_chosen, remembered_destination

pytestmark = pytest.mark.compiles      # needs the compiled engine: games at its speed

# R-INFO holds for these (search over the evaluation's family and over a policy that ranks nothing
# too); the clairvoyant reference: tests/test_clairvoyant.py
POLICIES = sorted(LEGAL) + ["search/greedy", "search/planner", "search/tuned"]
FAST_POLICIES = [name for name in POLICIES if not name.startswith("search")]


# --- R-INFO: no policy reads the order of a draw pile --------------------------------------


def _decisions(policy, text, phase):
    p, g = game(text, seed=3)
    g.g[g.g[st.X_DECLOG]] = 0
    g.run(phase, policy)
    return engine.decisions_of(g.g)


@pytest.mark.parametrize("name", POLICIES)
def test_a_policy_decides_the_same_whatever_the_order_of_the_draw_piles(name):
    """R-INFO: two positions that differ only in the order of the treasure and the flood draw
    piles get the same decisions in the action phase (no card is drawn in it), with the same
    policy random stream."""
    policy = load_policy(name)
    runs = [_decisions(policy, MIDGAME + t + "\n" + f, PHASE_ACTIONS)
            for t, f in PILE_ORDERS]
    assert runs[0], "the position must ask the policy something"
    assert runs[0] == runs[1] == runs[2]


@pytest.mark.parametrize("name", POLICIES)
def test_the_first_flood_window_is_decided_the_same_whatever_the_pile_order(name):
    """R-INFO at a special-card window: the decision before the first flood card is drawn does
    not depend on which card is on top."""
    policy = load_policy(name)
    text = MIDGAME + "decision: window\n"
    first = []
    for t, f in PILE_ORDERS[:2]:
        decisions = _decisions(policy, text + t + "\n" + f, PHASE_FLOOD)
        assert decisions and decisions[0][0] == WINDOW
        first.append(decisions[0])
    assert first[0] == first[1]


# --- every built-in policy plays legal games on every layout ----------------------------------


@pytest.mark.parametrize("name", FAST_POLICIES)
def test_a_policy_plays_10000_games_over_all_layouts_without_an_illegal_choice(name):
    """10,008 games per policy: 556 on each of the 18 built-in layouts, with 2, 3 and 4 players
    and every level in turn. A game whose policy returned an index outside the options is marked
    ERROR by the engine. (search plays expert's decisions but its action decisions: it has its own
    test at a tiny budget, tests/test_search.py.)"""
    policy = load_policy(name)
    levels = ("novice", "normal", "elite", "legendary")
    played = 0
    for i, layout in enumerate(BUILTIN_NAMES):
        config = GameConfig(players=2 + i % 3, level=levels[i % 4])
        rows = engine.play_batch(builtin_layout(layout), config, policy, seed=100 + i,
                                 first_game=0, n_games=556)
        bad = np.flatnonzero(rows[:, R_STATUS] == ERROR)
        assert bad.size == 0, f"{name} on {layout}: game {bad[0]} ended in an error"
        assert set(rows[:, R_STATUS]) <= {WON, LOST}
        played += len(rows)
    assert played >= 10_000


# --- user policy files and the registry ----------------------------------------------------


def test_a_user_policy_file_loads_and_plays(readme_policy):
    from fisim.results.tally import summary
    from fisim.simulation import simulate
    frame = simulate(level="novice", players=2, policy=str(readme_policy), games=300, seed=1)
    assert len(frame) == 300
    assert set(frame["policy"]) == {"always-shore@1"}
    assert summary(frame).set_index("measure").loc["win", "games"] == 300


def test_the_registry_has_versions_and_refuses_unknown_names_and_versions():
    assert {"random", "passive", "greedy", "expert"} <= set(BUILTIN)
    expert = load_policy("expert@1")
    assert expert.NAME == "expert" and expert.VERSION == "1"
    with pytest.raises(PolicyError, match="version"):
        load_policy("expert@99")
    with pytest.raises(PolicyError, match="unknown policy"):
        load_policy("nobody")


def _simulate_error(policy):
    """The EngineError message of a 5-game simulation for 2 players with the policy file `policy`."""
    from fisim.errors import EngineError
    from fisim.simulation import simulate
    with pytest.raises(EngineError) as info:
        simulate(players=2, policy=str(policy), games=5)
    return str(info.value)


def _policy_file(tmp_path, name, body):
    """A policy file whose decide() is `body`."""
    path = tmp_path / f"{name}.py"
    path.write_text(f"from numba import njit\nNAME = '{name}'\n@njit\n"
                    f"def decide(pub, options, n, mem, rng):\n    {body}\n")
    return path


def test_a_policy_that_does_not_compile_is_named_in_one_line(tmp_path):
    message = _simulate_error(_policy_file(tmp_path, "broken", "return undefined_name + 1"))
    assert "\n" not in message and "policy broken" in message and "undefined_name" in message


def test_a_typo_that_fails_while_compiling_is_said_to_fail_to_compile(tmp_path):
    """Issue 47, 7: a misspelt function of a module fails inside Numba's compile as a plain
    AttributeError, once reported as raised "during a game"."""
    path = tmp_path / "typo.py"
    path.write_text("from numba import njit\nfrom fisim.rules import view\nNAME = 'typo'\n@njit\n"
                    "def decide(pub, options, n, mem, rng):\n    return view.decison(pub) % n\n")
    message = _simulate_error(path)
    assert message.startswith("policy typo: its decide() does not compile with Numba"), message
    assert "AttributeError" in message and "'decison'" in message and "during a game" not in message


def test_a_policy_cannot_write_to_pub(tmp_path):
    """R-INFO: pub is handed to a policy read-only; a write does not compile."""
    message = _simulate_error(_policy_file(tmp_path, "writer", "pub[0] = 1\n    return 0"))
    assert "policy writer" in message and "does not compile" in message
    assert "pub and the options may only be read" in message


def test_an_illegal_choice_names_the_policy_and_the_decision(misbehaving):
    message = _simulate_error(misbehaving)            # with 2 players it chooses index n, one past the last
    assert "policy misbehaving" in message and any(f"{d} decision" in message for d in DECISION_NAMES)


# --- expert scenarios ----------------------------------------------------------------------


def test_expert_captures_when_it_can():
    """R-ACT-CAPTURE: four Earth Stones on the Temple of the Moon; a flooded tile next door does
    not come first."""
    p, g = game(ISLAND.replace("CE", "ce") + """
engineer@TM: earth earth earth earth
diver@IG: wind
water 2; active 0; actions 3
""")
    events = g.run(PHASE_ACTIONS, load_policy("expert"))
    acts = choices(events, ACTION)
    assert acts and otype(acts[0]) == CAPTURE and g.pub[st.P_CAPTURED] == 1


def test_expert_walks_to_a_temple_and_captures_within_the_turn():
    p, g = game(ISLAND + """
navigator@DD: earth earth earth earth
diver@IG: wind
water 2; active 0; actions 3
""")
    g.run(PHASE_ACTIONS, load_policy("expert"))
    assert g.pub[st.P_CAPTURED] == 1 << 0     # Temple of the Moon is next to Dunes of Deception


def test_expert_lifts_off_when_it_can_win():
    """R-WIN: all four treasures, the team together two steps from Fools' Landing and two
    Helicopter Lifts: one carries the team to Fools' Landing, the other flies it off."""
    p, g = game(ISLAND + """
pilot@WT: heli
diver@WT: heli wind
captured: earth wind fire ocean
water 5; active 1; actions 3
""")
    events = g.run(PHASE_ACTIONS, load_policy("expert"))
    assert g.pub[st.P_STATUS] == WON
    lifts = [c for c in choices(events) if otype(c) == LIFT]
    assert lifts and field3(lifts[0]) == p.cell_of("FL") and field2(lifts[0]) == 0b11


def test_expert_walks_to_fools_landing_with_all_four_treasures():
    p, g = game(ISLAND + """
messenger@CA: heli
engineer@TH: earth
captured: earth wind fire ocean
water 5; active 0; actions 3
""")
    g.run(PHASE_ACTIONS, load_policy("expert"))
    assert g.pub[st.P_POS + 0] == p.cell_of("FL")


def test_expert_saves_fools_landing_with_sandbags_before_it_sinks():
    """R-SPECIAL-SAND: Fools' Landing is flooded and its card is on the flood draw pile, so it may
    be the next one drawn; the Sandbags in hand is played on it before the draw."""
    p, g = game(ISLAND.replace("FL", "fl") + """
pilot@CE: sand wind
diver@IG: fire
water 2; active 0; actions 0
decision: window
flood discard: CS OB
flood draw: TP GG TH IG WG BB CA DD TM CP PR SG HG LL CE TS WT MM CG BG CF FL
""")
    events = g.run(PHASE_FLOOD, load_policy("expert"))
    sands = [c for c in choices(events) if otype(c) == SANDBAG]
    assert sands and field2(sands[0]) == p.cell_of("FL")
    assert g.pub[st.P_STATUS] != LOST and (g.pub[st.P_EXISTS] >> p.cell_of("FL")) & 1


def test_expert_keeps_its_sandbags_when_fools_landing_lies_under_the_known_top_cards():
    """R-DRAW-WR, R-INFO: a Waters Rise! put TP and GG back on top, and at water 2 exactly those two
    are drawn, so flooded Fools' Landing cannot sink in this flood phase: the Sandbags is kept
    (without that knowledge it is played, as its card may come next)."""
    text = ISLAND.replace("FL", "fl") + """
pilot@CE: sand wind
diver@IG: fire
water 2; active 0; actions 0
decision: window
flood discard: CS OB
"""
    p, g = game(text + "flood on top: TP GG\n")
    events = g.run(PHASE_FLOOD, load_policy("expert"))
    assert not [c for c in choices(events) if otype(c) == SANDBAG]
    assert g.pub[st.hand_at(0, SAND)] == 1 and (g.pub[st.P_FLOODED] >> p.cell_of("FL")) & 1
    _, g = game(text)
    sands = [c for c in choices(g.run(PHASE_FLOOD, load_policy("expert"))) if otype(c) == SANDBAG]
    assert sands and field2(sands[0]) == p.cell_of("FL")


def test_expert_keeps_its_sandbags_when_nothing_that_matters_can_sink():
    p, g = game(ISLAND.replace("WT", "wt") + """
pilot@CE: sand wind
diver@IG: fire
water 2; active 0; actions 0
decision: window
flood discard: CS OB WT
""")
    events = g.run(PHASE_FLOOD, load_policy("expert"))
    assert not [c for c in choices(events) if otype(c) == SANDBAG]


# --- Helicopter Lifts chosen in two steps by greedy and expert --------------------------------


def test_a_lift_chosen_with_its_destination_lands_there_at_the_lift_dest_decision():
    """policies.memory: the destination kept by lift_chosen is the one picked at LIFT_DEST."""
    mem = np.zeros(st.MEM_SIZE, np.int32)
    assert lift_chosen(mem, 3, 17) == 3
    destinations = np.array([code(LIFT_TO, d) for d in (2, 9, 17, 20)], np.int32)
    assert remembered_destination(destinations, 4, mem) == 2


def test_greedy_lifts_a_collector_out_of_reach_to_its_temple_then_captures():
    """Greedy's priority 3: four Earth Stones three steps from the Temple of the Sun (no capture
    this turn on foot): a Helicopter Lift of the collector alone, then its destination, a temple
    of the Earth Stone, then the capture."""
    p, g = game(ISLAND + """
engineer@IG: earth earth earth earth heli
diver@FL: wind
water 2; active 0; actions 3
""")
    events = g.run(PHASE_ACTIONS, load_policy("greedy"))
    temples = {p.cell_of("TM"), p.cell_of("TS")}
    lifts = [c for c in choices(events) if otype(c) == LIFT]
    assert lifts and field2(lifts[0]) == 0b01 and field3(lifts[0]) in temples
    landed = [opts[i] for kind, seat, opts, i in engine.decisions_of(g.g) if kind == LIFT_DEST]
    assert [field1(c) for c in landed] == [field3(lifts[0])]
    assert g.pub[st.P_CAPTURED] == 1 << 0
