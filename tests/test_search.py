"""The `search` policy and the engine pieces it plays with: play_out (a game continued from an
action decision), sampled worlds (fisim.rules.worlds, R-INFO) and a policy's parameter.

Positions are written in fisim.position's notation and played with fisim.engine.EngineGame, as in
tests/test_policies.py."""
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from support.board import ISLAND
from support.commands import run
from support.midgame import MIDGAME, PILE_ORDERS, TREASURE_DRAWS, choices, game, piles

from fisim import engine
from fisim.engine import runners
from fisim.engine.entries import PHASE_ACTIONS, PHASE_PLAY_OUT, PHASE_REST
from fisim.rules import state as st
from fisim.rules.config import SWITCHES, GameConfig
from fisim.rules.constants import N_KINDS
from fisim.rules.layouts import BUILTIN_NAMES, builtin_layout
from fisim.rules.options import ACTION, CAPTURE, LIFT, LIFT_DEST, SHORE, code, field1, field2, otype
from fisim.rules.rng import N_STREAMS, POLICY
from fisim.rules.state import ERROR, LOST, WON
from fisim.rules.turn import R_STATUS
from fisim.rules.view import flood_draw_mask
from fisim.rules.worlds import WORLD_SIZE, sample_world
from policies import PolicyError, load_policy

pytestmark = pytest.mark.compiles      # needs the compiled engine: games at its speed

EXPERT = load_policy("expert")
TINY = load_policy("search:2")
POSITIONS = [MIDGAME.replace("active 0", f"active {a}") + t + "\n" + f
             for a, (t, f) in enumerate(PILE_ORDERS)]


def whole_choice(decisions):
    """The option code of the first decision of a record (an action), a lift with its destination."""
    kind, _, options, i = decisions[0]
    assert kind == ACTION
    c = options[i]
    if otype(c) == LIFT:
        dest_kind, _, dest_options, j = decisions[1]
        assert dest_kind == LIFT_DEST
        c = code(LIFT, field1(c), field2(c), field1(dest_options[j]))
    return c


# --- play_out: a game continued from an action decision ----------------------------------------


@pytest.mark.parametrize("policy", ["expert", "greedy"])
@pytest.mark.parametrize("text", POSITIONS)
def test_play_out_with_the_policys_choice_is_the_game_the_policy_plays(policy, text):
    """R-TURN: the rest of a game from an action decision, the policy deciding it, and play_out
    with the option the policy chose there give the same game: the same events, the same end and
    the same random streams (for a policy that draws no random numbers)."""
    policy = load_policy(policy)
    _, played = game(text, seed=5)
    events = played.run(PHASE_REST, policy)
    _, continued = game(text, seed=5)
    c = whole_choice(engine.decisions_of(played.g))
    assert np.array_equal(continued.run(PHASE_PLAY_OUT, policy, arg=c), events)
    assert np.array_equal(continued.pub, played.pub) and played.pub[st.P_STATUS] in (WON, LOST)
    assert np.array_equal(continued.rng, played.rng)


# --- sampled worlds ----------------------------------------------------------------------------


def _world(pub, seed):
    world, streams = np.zeros(WORLD_SIZE, np.int32), np.zeros(N_STREAMS, np.uint64)
    sample_world(pub, np.zeros(st.MEM_SIZE, np.int32), world, streams, np.uint64(seed))
    return world, streams


LAYERED = MIDGAME + "flood on top: CP PR SG | HG LL\n"


def test_a_sampled_world_keeps_what_is_public_and_deals_the_hidden_piles():
    """R-INFO, R-DRAW-WR: a world is pub itself with draw piles of the same cards in a new order;
    the groups a Waters Rise! put back on top stay on top, the newest highest."""
    p, g = game(LAYERED)
    tpile, fpile = piles(g.g)
    world, streams = _world(g.pub, 1)
    assert np.array_equal(world[:st.P_SIZE], g.pub)
    wt, wf = piles(world)
    assert Counter(wt) == Counter(tpile) and sorted(wf) == sorted(fpile)
    assert sum(1 << t for t in wf) == flood_draw_mask(g.pub)
    assert set(wf[-2:]) == {p.tile_at[p.cell_of(x)] for x in ("HG", "LL")}
    assert set(wf[-5:-2]) == {p.tile_at[p.cell_of(x)] for x in ("CP", "PR", "SG")}
    again, again_streams = _world(g.pub, 1)
    assert np.array_equal(again, world) and np.array_equal(again_streams, streams)
    other, other_streams = _world(g.pub, 2)
    assert piles(other) != (wt, wf) and not np.array_equal(other_streams, streams)
    assert not set(streams) & set(g.rng)


def test_sampled_treasure_piles_are_uniform():
    """Each kind lies on top of the sampled treasure pile as often as its share of the pile's cards
    (2,000 worlds; tolerance: 4 standard errors of a binomial proportion)."""
    _, g = game(MIDGAME + TREASURE_DRAWS[0])
    counts = g.pub[st.P_TDRAW_COUNT:st.P_TDRAW_COUNT + N_KINDS]
    n = 2000
    tops = Counter(int(piles(_world(g.pub, s)[0])[0][-1]) for s in range(n))
    for k in range(N_KINDS):
        share = counts[k] / counts.sum()
        assert abs(tops[k] / n - share) <= 4 * np.sqrt(share * (1 - share) / n), k


# --- the search policy -------------------------------------------------------------------------


def test_search_draws_only_on_the_policy_stream_and_plays_on_copies():
    """Rollouts play sampled copies: the game's own streams and hidden piles are untouched by an
    action phase decided by search; only the policy stream moves (a seed per searched decision)."""
    _, g = game(POSITIONS[0], seed=9)
    rng, before = g.rng.copy(), piles(g.g)
    assert choices(g.run(PHASE_ACTIONS, load_policy("search:4")), ACTION)
    assert piles(g.g) == before
    moved = g.rng != rng
    assert moved[POLICY] and not moved[np.arange(N_STREAMS) != POLICY].any()


def test_search_finds_the_obvious_win():
    """R-ACT-CAPTURE, R-SPECIAL-HELI, R-WIN: the team stands on the Temple of the Moon with the
    last treasure's four cards and two Helicopter Lifts: capture, lift to Fools' Landing, lift off."""
    _, g = game(ISLAND + """
pilot@TM: earth earth earth earth heli
diver@TM: heli
captured: wind fire ocean
water 4; active 0; actions 3
""")
    events = g.run(PHASE_ACTIONS, load_policy("search:16"))
    assert otype(choices(events, ACTION)[0]) == CAPTURE
    assert g.pub[st.P_STATUS] == WON


def test_search_avoids_the_obvious_loss():
    """R-DRAW-WR, R-LOSE: flooded Fools' Landing's card is the only card a Waters Rise! put back on
    top, so it is the next flood card: every option but shoring it up loses the game."""
    p, g = game(ISLAND.replace("FL", "fl") + """
engineer@GG: wind
diver@IG: fire
water 3; active 0; actions 1
flood discard: CS OB
flood on top: FL
""")
    acts = choices(g.run(PHASE_ACTIONS, load_policy("search:16")), ACTION)
    assert otype(acts[0]) == SHORE and field1(acts[0]) == p.cell_of("FL")


@pytest.mark.parametrize("name", ["search:2", "planner-search:2", "search:2/greedy"])
def test_search_plays_legal_games_over_all_layouts_and_rule_switches(name):
    """At a tiny budget (2 worlds): every built-in layout, 2-4 players, every level and every
    rule switch in turn, no illegal choice."""
    levels = ("novice", "normal", "elite", "legendary")
    switches = sorted(set(SWITCHES) - {"solo"})
    policy = load_policy(name)
    for i, layout in enumerate(BUILTIN_NAMES):
        config = GameConfig(players=2 + i % 3, level=levels[i % 4], switches={switches[i % len(switches)]})
        rows = engine.play_batch(builtin_layout(layout), config, policy, seed=300 + i, first_game=0, n_games=3)
        assert not (rows[:, R_STATUS] == ERROR).any(), (layout, config)
        assert set(rows[:, R_STATUS]) <= {WON, LOST}


def test_search_gives_the_same_games_on_one_and_two_threads():
    n = 2 * engine.MIN_BLOCK
    one = engine.play_batch(builtin_layout("standard"), GameConfig(players=3, level="elite"), TINY, 4, 0, n, threads=1)
    two = engine.play_batch(builtin_layout("standard"), GameConfig(players=3, level="elite"), TINY, 4, 0, n, threads=2)
    assert np.array_equal(one, two)


# --- a policy's parameter ----------------------------------------------------------------------


def test_the_budget_is_part_of_the_policys_name():
    assert load_policy("search").NAME == "search:64" and load_policy("search").ARG == 64
    policy = load_policy("search:8@2")
    assert (policy.NAME, policy.ARG, policy.VERSION) == ("search:8", 8, "2")
    assert runners.runner(policy) is runners.runner(load_policy("search:64"))


@pytest.mark.parametrize("name, says", [("search:0", "from 1 to"), ("search:x", "whole number"),
                                        ("search:", "whole number"), ("expert:3", "takes no parameter"),
                                        ("search:4@9", "version")])
def test_a_bad_parameter_is_refused_in_one_line(name, says):
    with pytest.raises(PolicyError, match=says) as refused:
        load_policy(name)
    assert "\n" not in str(refused.value)


def test_search_plays_from_the_command_line_with_its_budget_in_the_results(tmp_path):
    """search:N is a policy like any other: simulate writes it into every row, a sweep stores it."""
    out = tmp_path / "games.csv"
    r = run("simulate", "--policy", "search:2", "--games", "3", "--seed", "5", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert set(pd.read_csv(out)["policy"]) == {"search:2@2"}
    r = run("sweep", "--levels", "novice", "--players", "2", "--policies", "expert,search:2", "--games", "3",
            "--quiet", "--no-report", "--out", str(tmp_path / "sweep"))
    assert r.returncode == 0, r.stderr
    assert "search:2" in r.stdout and "expert" in r.stdout
