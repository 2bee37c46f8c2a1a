"""Whole games on the engine: invariants over many random games, reproducibility across thread
counts, common random numbers across settings, and the result columns."""
from pathlib import Path

import numpy as np
import pytest
from support.midgame import FLOOD_DRAWS, MIDGAME, TREASURE_DRAWS
from support.midgame import game as midgame

import policies
from fisim import engine
from fisim.crosscheck import switch_sets
from fisim.engine import runners
from fisim.engine.entries import PHASE_REST
from fisim.rules import events as ev
from fisim.rules import state as st
from fisim.rules.config import GameConfig
from fisim.rules.layouts import BUILTIN_NAMES, builtin_layout
from fisim.rules.rng import N_STREAMS
from fisim.rules.state import ERROR, LOST, WON
from fisim.rules.turn import MAX_TURNS, R_CAUSE, R_CONDITIONS, R_LEVEL, R_STATUS, R_TURNS
from fisim.simulation import simulate
from policies import load_policy

pytestmark = pytest.mark.compiles      # needs the compiled engine: games at its speed

VARIANTS = switch_sets()


def test_invariants_hold_at_every_decision_of_10000_random_games(invariant_random):
    """R-TDECK, R-FDECK, R-METER, R-SWIM-3, R-HAND checked by the policy at every decision; every
    game ends (no error, no turn limit). 10,368 games over all layouts, switch sets and sizes."""
    played = 0
    for i, name in enumerate(BUILTIN_NAMES):
        layout = builtin_layout(name)
        for j, switches in enumerate(VARIANTS):
            for players in (1, 2, 3, 4):
                config = GameConfig(players=players, level=("novice", "normal", "elite", "legendary")[(i + j) % 4],
                                    switches=switches | ({"solo"} if players == 1 else set()))
                rows = engine.play_batch(layout, config, invariant_random, seed=1000 * i + j, first_game=0,
                                         n_games=12)
                bad = np.flatnonzero(rows[:, R_STATUS] == ERROR)
                assert bad.size == 0, f"{name} {config}: invariant broken in game {bad[0]}"
                assert set(rows[:, R_STATUS]) <= {WON, LOST}
                played += len(rows)
    assert played >= 10_000


def test_flood_draw_mask_is_the_hidden_flood_pile_at_every_decision(monkeypatch):
    """R-INFO, R-FLOOD-1: at every decision of 300 random games (150 under the official rules,
    150 under switch sunk-card-stays, every level, 2-4 players) view.flood_draw_mask equals the
    set of cards in the engine's hidden flood draw pile, which holds each card once; sunk tiles'
    cards are in it under the switch only. The checking policy (tests/support/pile_check.py) is
    handed the hidden piles as the clairvoyant reference is, and counts in its memory."""
    policy = load_policy(str(Path(__file__).parent / "support" / "pile_check.py"))
    monkeypatch.setattr(policies, "sees_decks", lambda p: p is policy)
    run = runners.runner(policy)
    layout = builtin_layout("standard")
    for switches in ((), ("sunk-card-stays",)):
        checks = turns = with_sunk = 0
        for game in range(150):
            config = GameConfig(players=2 + game % 3, level=("novice", "normal", "elite", "legendary")[game % 4],
                                switches=switches)
            g = st.new_game_array(layout.geometry, config.to_array(), 0)
            out = np.zeros(st.R_SIZE, np.int32)
            run.record_game(g, np.zeros(N_STREAMS, np.uint64), np.uint64(31), np.int64(game), np.int64(0), out)
            assert out[R_STATUS] in (WON, LOST)
            mem = g[st.MEM:st.MEM + st.MEM_SIZE]
            assert mem[policy.module.MEM_WRONG] == 0, (switches, game)
            checks += mem[policy.module.MEM_CHECKS]
            turns += out[R_TURNS]
            with_sunk += mem[policy.module.MEM_SUNK_IN_PILE]
        assert checks >= turns > 0          # every turn asks at least its first action
        assert (with_sunk > 0) == bool(switches), (switches, with_sunk)


def test_every_loss_records_its_primary_cause_among_its_conditions():
    """R-LOSE-CAUSE: the primary cause is the highest-priority condition that holds."""
    rows = engine.play_batch(builtin_layout("standard"), GameConfig(players=4, level="legendary"),
                             load_policy("passive"), seed=5, first_game=0, n_games=5000)
    lost = rows[rows[:, R_STATUS] == LOST]
    assert len(lost) == 5000
    cond, cause = lost[:, R_CONDITIONS], lost[:, R_CAUSE]
    assert np.all(cause & cond) and np.all(cause == (cond & -cond))
    skull = lost[cause == 8]
    assert np.all(skull[:, R_LEVEL] == 10)


@pytest.mark.parametrize(("turn", "begun"), [(MAX_TURNS, 0), (MAX_TURNS - 1, 1)])
def test_a_game_at_the_turn_limit_ends_its_turn_and_is_marked_an_error(turn, begun):
    """The engine's safety stop (fisim.rules.turn.out_of_turns; no legal game reaches it: the
    Waters Rise! cards come round again until the water reaches the skull): a game that has begun
    MAX_TURNS turns plays out the turn it is in, begins no other and is marked ERROR, neither won
    nor lost."""
    text = MIDGAME.replace("turn 7", f"turn {turn}") + TREASURE_DRAWS[1] + "\n" + FLOOD_DRAWS[1] + "\n"
    _, played = midgame(text)
    events = played.run(PHASE_REST, load_policy("passive"))
    assert played.pub[st.P_STATUS] == ERROR and played.pub[st.P_TURN] == MAX_TURNS
    assert sum(e == ev.EV_TURN for e, *_ in events) == begun


@pytest.mark.parametrize("policy", ["random", "passive"])
def test_results_do_not_depend_on_thread_count(policy):
    layout, config = builtin_layout("coral-reef"), GameConfig(players=3, level="elite")
    pol = load_policy(policy)
    one = engine.play_batch(layout, config, pol, 42, 0, 3000, threads=1)
    two = engine.play_batch(layout, config, pol, 42, 0, 3000, threads=2)
    assert np.array_equal(one, two)


def test_a_game_is_the_same_whichever_batch_it_is_played_in():
    layout, config, pol = builtin_layout("standard"), GameConfig(players=2), load_policy("random")
    whole = engine.play_batch(layout, config, pol, 9, 0, 500)
    part = engine.play_batch(layout, config, pol, 9, 123, 77)
    assert np.array_equal(whole[123:200], part)


@pytest.mark.parametrize("name", ["random", "expert"])
def test_bulk_runner_plays_the_games_the_recorder_plays(name):
    """run_games plays blocks of games into result rows; record_game (which the golden transcripts
    and the reference cross-check use) one game in the caller's array, with its transcript. Both
    entry points call the same compiled game loop, and must play the same games."""
    layout, pol = builtin_layout("skull-island"), load_policy(name)
    statuses = []
    for config in (GameConfig(players=2, level="novice"), GameConfig(players=4, level="elite", switches={"heli-all"})):
        rows = engine.play_batch(layout, config, pol, 5, 0, 40)
        recorded = np.stack([engine.record(layout, config, pol, 5, game).result for game in range(40)])
        assert np.array_equal(rows, recorded)
        statuses.extend(rows[:, R_STATUS])
    assert LOST in statuses and (WON in statuses or name == "random")


def _setup_events(layout, config, policy, seed, game):
    from fisim.rules import events as ev
    events = engine.record(layout, config, policy, seed, game).events
    keep = {ev.EV_PLACE, ev.EV_SETUP_FLOOD, ev.EV_DEAL, ev.EV_DEAL_WR}
    return [tuple(e) for e in events if e[0] in keep]


def test_common_random_numbers_across_policy_team_and_switch():
    """Game i starts from the same placement, floods and deal whatever the policy, team or switch."""
    layout = builtin_layout("standard")
    base = _setup_events(layout, GameConfig(players=3), load_policy("random"), 3, 17)
    assert base == _setup_events(layout, GameConfig(players=3), load_policy("passive"), 3, 17)
    assert base == _setup_events(layout, GameConfig(players=3, team=("diver", "pilot", "engineer")),
                                 load_policy("random"), 3, 17)
    assert base == _setup_events(layout, GameConfig(players=3, switches={"heli-all"}), load_policy("random"), 3, 17)
    assert base != _setup_events(layout, GameConfig(players=3), load_policy("random"), 3, 18)


def test_simulate_frame_columns_and_values():
    frame = simulate(level="elite", players=2, team="diver,pilot", layout="skull-island", policy="passive",
                     games=300, seed=4)
    expected = {"game", "seed", "won", "cause", "landing_sunk", "treasure_lost", "drowned", "skull", "turns",
                "water_level", "treasures", "tiles_sunk", "sunk_cells", "first_sunk", "cause_cell", "sunk_tiles",
                "first_sunk_tile", "cause_tile", "team",
                "first_player", "players", "layout", "level",
                "policy", "rules"}
    assert expected <= set(frame.columns)
    assert list(frame["game"]) == list(range(300))
    assert set(frame["team"]) == {"diver+pilot"}
    assert not frame["won"].any() and (frame["treasures"] == 0).all()   # passive never captures
    assert set(frame["first_player"]) == {0, 1}                          # R-SETUP-6: random start
    loss_flags = frame[["landing_sunk", "treasure_lost", "drowned", "skull"]]
    assert (loss_flags.any(axis=1) == ~frame["won"]).all()
    rows = engine.play_batch(builtin_layout("skull-island"), GameConfig(players=2, level="elite",
                             team=("diver", "pilot")), load_policy("passive"), 4, 0, 300)
    assert np.array_equal(frame["turns"].to_numpy(), rows[:, R_TURNS])
