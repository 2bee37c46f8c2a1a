"""Rule numbers as data (issue 15): each number a variant file sets changes play as the rules say,
on hand-built positions (notation of fisim.position, whose `rules:` line takes `key=value` words
as well as switches), played on the engine and the reference alike (tests/test_rules.py `play`);
and a variant file of the official numbers plays the official rules, game by game.
"""
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from support.board import ISLAND, options, play, position, set_up

from fisim import simulate
from fisim.engine.entries import PHASE_ACTIONS, PHASE_DRAW, PHASE_FLOOD, PHASE_TURN
from fisim.rules import events as ev
from fisim.rules import state as st
from fisim.rules.config import GameConfig
from fisim.rules.constants import N_TILES, WATERS_RISE
from fisim.rules.rng import game_seed
from fisim.rules.variant import PARAMETERS, load_variant, variant_of_words

pytestmark = pytest.mark.compiles      # needs the compiled engine: games at its speed

OFFICIAL_FILE = Path(__file__).parent.parent / "docs" / "variants" / "official.toml"


def test_hand_limit_4_forces_a_discard_at_5_cards():
    """R-HAND with hand_limit=4: 4 cards are kept, the fifth is discarded at once; the official
    limit of 5 keeps all five."""
    hand = "diver@IG: earth earth wind\ntreasure draw: earth fire ocean\n"
    run = play(position(ISLAND + hand + "rules: hand_limit=4\n"), PHASE_DRAW, ["discard wind"])
    assert run.story == ["draw diver ocean", "draw diver fire", "discard diver: discard wind"]
    assert run.hand("diver") == {"earth": 2, "fire": 1, "ocean": 1}
    official = play(position(ISLAND + hand), PHASE_DRAW)
    assert official.story == ["draw diver ocean", "draw diver fire"] and sum(official.hand("diver").values()) == 5


def test_a_meter_with_the_skull_at_6_ends_the_game_at_the_second_waters_rise_from_legendary():
    """R-METER with meter=[2, 2, 3, 3, 3, "skull"]: from Legendary a Waters Rise! raises the meter
    to 5, the second to the skull at 6, and the game is lost (4 -> 5 -> 6); officially play goes on
    at 6."""
    board = ISLAND + "diver@IG:\nwater 4\ntreasure draw: earth wr wr\n"
    run = play(position(board + "rules: meter=2,2,3,3,3,skull\n"), PHASE_DRAW)
    assert run.story == ["draw diver wr", "water 5", "draw diver wr", "water 6", "lose skull: skull"]
    assert run.over == "lost" and run.pub[st.P_CAUSE] == 8
    official = play(position(board), PHASE_DRAW)
    assert official.story == ["draw diver wr", "water 5", "draw diver wr", "water 6"] and official.over is None


def test_the_meter_sets_the_flood_cards_drawn_at_each_position():
    """R-METER: at position 5 of meter=[2, 2, 3, 3, 5, "skull"], 5 flood cards are drawn (3
    officially)."""
    board = ISLAND + "diver@IG:\nwater 5\n"
    run = play(position(board + "rules: meter=2,2,3,3,5,skull\n"), PHASE_FLOOD)
    assert len(run.story) == 5 and all(s.startswith("flood ") for s in run.story)
    assert len(play(position(board), PHASE_FLOOD).story) == 3


def test_four_waters_rise_cards_are_in_the_deck():
    """R-TDECK with waters_rise=4 (and 6 cards per treasure, 1 Sandbags): after setup (R-SETUP-4:
    no Waters Rise! dealt) the draw pile holds the 4 Waters Rise! and the rest of the 32 cards."""
    variant = variant_of_words(["waters_rise=4", "treasure_cards=6", "sandbags=1"], "test")
    for i in range(50):
        pub, g, _ = set_up(GameConfig(players=3, variant=variant).validate(), game_seed(3, i))
        pile = g[st.H_TPILE:st.H_TPILE + pub[st.P_TDRAW_N]]
        assert pub[st.P_TDRAW_N] == 4 * 6 + 3 + 1 + 4 - 3 * 2
        assert np.sum(pile == WATERS_RISE) == pub[st.P_TDRAW_COUNT + WATERS_RISE] == 4
        assert np.bincount(pile, minlength=7)[:4].sum() + sum(
            pub[st.hand_at(s, k)] for s in range(3) for k in range(4)) == 24


def test_two_actions_per_turn_end_the_action_phase_after_two():
    """R-TURN with actions=2: the second action ends the action phase (no third decision), and the
    treasure cards are drawn at once."""
    board = ISLAND + "diver@IG:\ntreasure draw: earth fire\n"
    run = play(position(board + "rules: actions=2\n"), PHASE_TURN, ["move WG", "move BB"])
    assert [d[0] for d in run.decisions] == ["action", "action"]
    assert run.story[:5] == ["turn 2 diver", "action diver: move WG", "action diver: move BB",
                             "draw diver fire", "draw diver earth"]
    official = play(position(board), PHASE_TURN, ["move WG", "move BB", "end"])
    assert [d[0] for d in official.decisions] == ["action"] * 3


def test_capture_with_3_cards_when_capture_is_3():
    """R-ACT-CAPTURE with capture=3: 3 matching cards on a temple capture the treasure and go to
    the treasure discard; officially 3 are not enough."""
    board = ISLAND + "diver@TM: earth earth earth wind\n"
    assert "capture earth" not in options(position(board))
    p = position(board + "rules: capture=3\n")
    assert "capture earth" in options(p)
    run = play(p, PHASE_ACTIONS, ["capture earth", "end"])
    assert run.pub[st.P_CAPTURED] == 1 and run.hand("diver") == {"wind": 1}
    assert run.treasure_discard() == {"earth": 3}


def test_initial_floods_8_flood_8_tiles():
    """R-SETUP-2 with initial_floods=8: 8 flood cards drawn, those 8 tiles flooded, their cards on
    the flood discard, 16 left in the draw pile."""
    config = GameConfig(players=2, variant=variant_of_words(["initial_floods=8"], "test")).validate()
    for i in range(20):
        pub, _, events = set_up(config, game_seed(5, i))
        floods = [e[1] for e in events if e[0] == ev.EV_SETUP_FLOOD]
        assert len(set(floods)) == 8 and pub[st.P_FLOODED] == sum(1 << c for c in floods)
        assert bin(pub[st.P_FDISC]).count("1") == 8 and pub[st.P_FDRAW_N] == N_TILES - 8


def test_the_example_file_sets_every_rule_number_to_its_official_value():
    """docs/variants/official.toml sets every key, each to the official value."""
    variant = load_variant(OFFICIAL_FILE)
    assert dict(variant.values) == {key: p.official for key, p in PARAMETERS.items()}
    assert GameConfig(variant=variant).to_array().tolist() == GameConfig().to_array().tolist()


@pytest.mark.parametrize("policy, level, players, rules, games", [
    ("random", "novice", 2, (), 4000),
    ("greedy", "legendary", 4, ("heli-all",), 3000),
    ("expert", "normal", 3, (), 2000),
    ("expert", "elite", 2, ("sunk-card-stays", "hand-after-draw"), 1000),
])
def test_a_variant_file_of_the_official_numbers_plays_the_official_rules_game_by_game(
        policy, level, players, rules, games):
    """The same games, result by result, with docs/variants/official.toml as without it (only the
    rules and variant labels differ)."""
    plain = simulate(level=level, players=players, policy=policy, rules=rules, games=games, seed=11)
    filed = simulate(level=level, players=players, policy=policy, rules=(*rules, str(OFFICIAL_FILE)),
                     games=games, seed=11)
    assert set(filed["variant"]) == {"official-numbers"} and set(plain["variant"]) == {"official"}
    labels = ["rules", "variant"]
    pd.testing.assert_frame_equal(plain.drop(columns=labels), filed.drop(columns=labels))
    assert plain["won"].sum() > 0 or policy == "random"
