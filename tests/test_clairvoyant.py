"""The clairvoyant reference (policies/clairvoyant.py): search with the true order of the draw
piles in view, never a legal player. The engine hands the hidden piles to it alone (a policy file
cannot ask for them, a legal policy never gets them: R-INFO, tests/test_policies.py); its
rollouts play the piles as they lie, on copies; every output names it with its note."""
import numpy as np
import pytest
from support.midgame import MIDGAME, PILE_ORDERS, game, piles

from fisim import engine
from fisim.engine import EngineGame, runners
from fisim.engine.entries import PHASE_ACTIONS, PHASE_TURN
from fisim.rules import state as st
from fisim.rules.config import C_ACTIONS, GameConfig
from fisim.rules.layouts import builtin_layout
from fisim.rules.rng import N_STREAMS, POLICY, game_seed
from fisim.rules.setup import setup_game
from fisim.rules.worlds import WORLD_SIZE, rollout_world, sample_world
from fisim.simulation import simulate
from policies import CLAIRVOYANT_NOTE, LEGAL, labelled, load_policy, sees_decks

pytestmark = pytest.mark.compiles      # needs the compiled engine: games at its speed

ORDERS = [MIDGAME + t + "\n" + f for t, f in PILE_ORDERS]


def test_only_the_built_in_clairvoyant_is_handed_the_hidden_piles(tmp_path):
    seer = tmp_path / "seer.py"         # a policy file that asks to see: it is not heard
    seer.write_text("from policies.search import decide  # noqa\nNAME = 'seer'\nSEES_DECKS = True\n")
    for name in [*LEGAL, "search:4", str(seer)]:
        policy = load_policy(name)
        assert not sees_decks(policy) and not sees_decks(policy.NAME), name
        run = runners.runner(policy)
        assert run.decide.SEEN == st.P_SIZE, name
    clairvoyant = load_policy("clairvoyant:4")
    assert sees_decks(clairvoyant) and sees_decks("clairvoyant:4@1")
    run = runners.runner(clairvoyant)
    assert run.decide.SEEN == st.SEEN_DECKS
    assert run is not runners.runner(load_policy("search:4"))


def _midgame(game, turns=8):
    """Deal `game` of seed 0 (standard island, 2 players, novice) after `turns` turns of expert, at
    the start of the next action phase; None if the game is over by then."""
    layout, config = builtin_layout("standard"), GameConfig(players=2, level="novice")
    g = st.new_game_array(layout.geometry, config.to_array(), 1 << 16, 1 << 16)
    rng = np.zeros(N_STREAMS, np.uint64)
    setup_game(g, rng, np.uint64(game_seed(0, game)))
    played = EngineGame(g, rng)
    for _ in range(turns):
        played.run(PHASE_TURN, load_policy("expert"))
        if played.pub[st.P_STATUS] != st.PLAYING:
            return None
    g[st.P_TURN] += 1                       # the next turn begins (fisim.rules.turn.begin_turn)
    g[st.P_ACTIONS_LEFT] = g[st.P_CFG + C_ACTIONS]
    return played


def _reordered(played, seed):
    """The same position with the hidden piles in another order the team cannot tell apart from
    the true one (a sampled world's, R-DRAW-WR layers kept)."""
    world, streams = np.zeros(WORLD_SIZE, np.int32), np.zeros(N_STREAMS, np.uint64)
    sample_world(played.pub, played.g[st.MEM:st.MEM + st.MEM_SIZE], world, streams, np.uint64(seed))
    g = played.g.copy()
    g[st.H_TPILE:st.SEEN_DECKS] = world[st.H_TPILE:st.SEEN_DECKS]
    return EngineGame(g, played.rng.copy())


def _action_decisions(played, policy):
    g = EngineGame(played.g.copy(), played.rng.copy())
    g.g[g.g[st.X_DECLOG]] = 0
    g.run(PHASE_ACTIONS, policy)
    return engine.decisions_of(g.g)


def test_search_ignores_the_pile_order_and_the_clairvoyant_reads_it():
    """Positions of 16 real games after 8 turns, each with its hidden piles in the true order and
    in another one, the same policy stream: search:16 decides alike in every pair (R-INFO); the
    clairvoyant at the same budget does not (it sees which cards come)."""
    positions = [(p, _reordered(p, 1)) for p in map(_midgame, range(16)) if p is not None]
    assert len(positions) >= 12
    differ = 0
    for true, other in positions:
        assert _action_decisions(true, load_policy("search:16")) == _action_decisions(other, load_policy("search:16"))
        differ += (_action_decisions(true, load_policy("clairvoyant:16"))
                   != _action_decisions(other, load_policy("clairvoyant:16")))
    assert differ > 0


def test_a_clairvoyant_world_is_the_true_piles_with_new_streams():
    _, g = game(ORDERS[0])
    mem = np.zeros(st.MEM_SIZE, np.int32)
    world, streams = np.zeros(WORLD_SIZE, np.int32), np.zeros(N_STREAMS, np.uint64)
    rollout_world(g.g[:st.SEEN_DECKS], mem, world, streams, np.uint64(3))
    assert np.array_equal(world[:st.P_SIZE], g.pub) and piles(world) == piles(g.g)
    assert not set(streams) & set(g.rng)
    sampled, sampled_streams = world.copy(), streams.copy()
    sample_world(g.pub, mem, sampled, sampled_streams, np.uint64(3))
    rollout_world(g.pub, mem, world, streams, np.uint64(3))        # pub alone: a sampled world
    assert np.array_equal(world, sampled) and np.array_equal(streams, sampled_streams)
    assert piles(world) != piles(g.g)


def test_clairvoyant_rollouts_leave_the_games_piles_and_streams_alone():
    _, g = game(ORDERS[1], seed=9)
    rng, before = g.rng.copy(), piles(g.g)
    g.run(PHASE_ACTIONS, load_policy("clairvoyant:4"))
    assert piles(g.g) == before
    moved = g.rng != rng
    assert moved[POLICY] and not moved[np.arange(N_STREAMS) != POLICY].any()


def test_the_clairvoyant_carries_its_note_in_rows_and_labels():
    assert labelled("clairvoyant:8@1") == f"clairvoyant:8@1 ({CLAIRVOYANT_NOTE})"
    assert labelled("search:8@1") == "search:8@1" and labelled("expert") == "expert"
    frame = simulate(level="novice", players=2, policy="clairvoyant:2", games=2, seed=1)
    assert set(frame["policy"]) == {f"clairvoyant:2@2 ({CLAIRVOYANT_NOTE})"}
