"""The repeat index (fisim.rules.rng.repeat_policy_stream): a repeat of a game is the same deal
(tile placement, team, first player, pile orders) and the same streams for every later shuffle,
with only the policy's random stream drawn afresh; repeat 0 is the game as it has always been
played (the golden transcripts pin that down)."""
import hashlib
import json

import numpy as np
import pytest

from fisim import engine
from fisim.cell import Cell
from fisim.rules import events as ev
from fisim.rules.config import GameConfig
from fisim.rules.layouts import builtin_layout
from fisim.rules.rng import N_STREAMS, POLICY, init_streams, repeat_policy_stream
from fisim.rules.state import R_FIRST, R_ROLE, R_STATUS, R_TURNS
from fisim.simulation import simulate
from fisim.store import manifest_for
from policies import REPLAYS_ALIKE, load_policy

pytestmark = pytest.mark.compiles      # needs the compiled engine: games at its speed

SETUP = {ev.EV_PLACE, ev.EV_SETUP_FLOOD, ev.EV_TEAM, ev.EV_DEAL, ev.EV_DEAL_WR, ev.EV_DEAL_RESHUFFLE, ev.EV_FIRST}


def test_a_repeat_reseeds_the_policy_stream_only():
    base = np.zeros(N_STREAMS, np.uint64)
    init_streams(np.uint64(12345), base)
    same = base.copy()
    repeat_policy_stream(same, 0)
    assert np.array_equal(same, base)
    policy_streams = set()
    for r in range(1, 200):
        streams = base.copy()
        repeat_policy_stream(streams, r)
        others = [k for k in range(N_STREAMS) if k != POLICY]
        assert np.array_equal(streams[others], base[others])
        policy_streams.add(int(streams[POLICY]))
    assert len(policy_streams) == 199 and int(base[POLICY]) not in policy_streams


def _dealt(events):
    """The deal as the transcript shows it (placement, floods, team, cards, first player), and
    the treasure cards and flooded or sunk cells drawn before any shuffle after setup (which
    play can move: a Waters Rise! returns the flood discard, whose content play changes)."""
    setup = [tuple(e) for e in events if e[0] in SETUP]
    draws, floods = [], []
    for e in events:
        if e[0] in (ev.EV_WATERS_RISE, ev.EV_TREASURE_RESHUFFLE, ev.EV_FLOOD_RESHUFFLE):
            break
        if e[0] == ev.EV_DRAW:
            draws.append(int(e[2]))
        elif e[0] in (ev.EV_FLOOD, ev.EV_SINK):
            floods.append(int(e[1]))
    return setup, draws, floods


def _prefix_equal(a, b):
    n = min(len(a), len(b))
    return a[:n] == b[:n]


def test_repeats_keep_the_deal_and_change_a_stochastic_policys_play():
    layout, config, policy = builtin_layout("standard"), GameConfig(players=3, level="novice"), load_policy("random")
    changed = 0
    for game in range(12):
        base = engine.record(layout, config, policy, 5, game).events
        setup, draws, floods = _dealt(base)
        assert setup and draws
        for repeat in (1, 2, 7):
            events = engine.record(layout, config, policy, 5, game, repeat=repeat).events
            other_setup, other_draws, other_floods = _dealt(events)
            assert other_setup == setup                            # placement, team, hands, first player
            assert _prefix_equal(other_draws, draws)               # the same treasure pile order
            assert _prefix_equal(other_floods, floods)             # the same flood pile order
            choices = [tuple(e) for e in events if e[0] == ev.EV_CHOICE]
            changed += choices != [tuple(e) for e in base if e[0] == ev.EV_CHOICE]
    assert changed == 36            # random play never repeats a whole game's choices


@pytest.mark.parametrize("name", REPLAYS_ALIKE)
def test_a_policy_that_ignores_its_stream_plays_every_repeat_alike(name):
    """The policies that draw nothing from their stream (REPLAYS_ALIKE, refused as the ladder's
    replayer): if a repeat changed anything but the policy stream (a pile, a later shuffle), or
    the policy drew on it, some of their games would differ."""
    layout, config = builtin_layout("standard"), GameConfig(players=2, level="normal")
    base = engine.play_batch(layout, config, load_policy(name), 9, 0, 200, threads=1)
    for repeat in (1, 3):
        again = engine.play_batch(layout, config, load_policy(name), 9, 0, 200, threads=1, repeat=repeat)
        assert np.array_equal(again, base)


def test_repeat_zero_is_the_game_as_dealt_and_others_differ_in_bulk():
    layout, config, policy = builtin_layout("skull-island"), GameConfig(players=4, level="elite"), load_policy("random")
    base = engine.play_batch(layout, config, policy, 3, 0, 300, threads=1)
    assert np.array_equal(engine.play_batch(layout, config, policy, 3, 0, 300, threads=2, repeat=0), base)
    other = engine.play_batch(layout, config, policy, 3, 0, 300, threads=2, repeat=5)
    assert np.array_equal(other[:, R_ROLE:R_ROLE + 4], base[:, R_ROLE:R_ROLE + 4])
    assert np.array_equal(other[:, R_FIRST], base[:, R_FIRST])
    assert np.mean(other[:, R_TURNS] != base[:, R_TURNS]) > 0.3
    assert np.array_equal(engine.play_batch(layout, config, policy, 3, 0, 300, threads=1, repeat=5), other)
    assert set(np.unique(other[:, R_STATUS])) <= {1, 2}


def test_the_repeat_is_recorded_in_rows_and_manifests():
    frame = simulate(level="novice", players=2, policy="random", games=50, seed=2, repeat=4)
    assert (frame["repeat"] == 4).all()
    assert (simulate(level="novice", players=2, policy="random", games=5, seed=2)["repeat"] == 0).all()
    dealt = Cell("standard", "novice", 2, None, "random", ())
    again = Cell("standard", "novice", 2, None, "random", (), repeat=3)
    fields = {"layout": "standard", "level": "novice", "players": 2, "team": None, "policy": "random", "rules": []}
    fields.update(dealt.variant_record)      # the cell's rule numbers are part of its key
    assert dealt.key == hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()[:12]
    assert again.key != dealt.key
    cells = manifest_for([dealt, again], 0, {"games": 10}, False)["cells"]
    assert "repeat" not in cells[0] and cells[1]["repeat"] == 3
