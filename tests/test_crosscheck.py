"""The engine against the plain-Python reference (fisim/reference), and known exact answers."""
import math

import numpy as np
import pytest
from numba import njit

from fisim.crosscheck import crosscheck_game, random_config, switch_sets
from fisim.engine import EngineGame
from fisim.engine.entries import PHASE_DRAW
from fisim.position import parse_position
from fisim.rules import events as ev
from fisim.rules import state as st
from fisim.rules.config import GameConfig
from fisim.rules.constants import HELI, N_TILES, SAND
from fisim.rules.layouts import BUILTIN_NAMES, builtin_layout
from fisim.rules.rng import game_seed
from fisim.rules.setup import setup_game
from fisim.stats import wilson
from policies import load_policy

pytestmark = pytest.mark.compiles      # needs the compiled engine: games at its speed

LEVELS = ("novice", "normal", "elite", "legendary")
TEAMS = (None, ("diver", "navigator"), ("pilot", "explorer", "engineer"),
         ("messenger", "diver", "navigator", "explorer"))
VARIANTS = switch_sets()


def settings():
    """(layout, config) pairs covering every layout, switch, level, player count and role."""
    for i, name in enumerate(BUILTIN_NAMES):
        for j, switches in enumerate(VARIANTS):
            team = TEAMS[(i + j) % len(TEAMS)]
            players = len(team) if team else 1 + (i + j) % 4
            extra = {"solo"} if players == 1 else set()
            yield builtin_layout(name), GameConfig(players=players, level=LEVELS[(i * 3 + j) % 4], team=team,
                                                   switches=switches | extra)


@pytest.mark.slow
def test_engine_and_reference_agree_on_every_decision_and_event():
    """>= 2,000 random-policy games with identical transcripts, and the same option lists at every
    decision of them (>= 20,000 positions), over all layouts, switches, levels and roles."""
    random = load_policy("random")
    games = decisions = 0
    for k, (layout, config) in enumerate(settings()):
        for g in range(10):
            mismatch, compared = crosscheck_game(layout, config, random, seed=k, game=g)
            assert mismatch is None, f"{layout.name} {config}:\n{mismatch}"
            games += 1
            decisions += compared
    assert games >= 2000 and decisions >= 20_000


def test_passive_games_agree_too():
    passive = load_policy("passive")
    for k, (layout, config) in enumerate(settings()):
        mismatch, _ = crosscheck_game(layout, config, passive, seed=k, game=0)
        assert mismatch is None, f"{layout.name} {config}:\n{mismatch}"


def test_waters_rise_to_the_skull_counts_exactly_9_8_7_6():
    """R-METER: from Novice 9 Waters Rise! reach the skull, from Normal 8, Elite 7, Legendary 6."""
    scripted = load_policy("passive")
    board = """
        . . TM TS . .
        . WG HG CE CS .
        CP TP FL BG CG GG
        IG SG BB CA CF DD
        . LL MM OB PR .
        . . TH WT . .
        pilot@FL:
        water {level}
        rules: solo
        treasure draw: earth earth earth earth earth wind wind wind wind wind wr wr wr
    """
    for start, expected in zip((1, 2, 3, 4), (9, 8, 7, 6)):
        game = EngineGame.from_position(parse_position(board.format(level=start)))
        rises = 0
        while game.pub[st.P_STATUS] == st.PLAYING:
            events = game.run(PHASE_DRAW, scripted)
            rises += int(np.sum(events[:, 0] == ev.EV_WATERS_RISE))
        assert rises == expected
        assert game.pub[st.P_LEVEL] == 10 and game.pub[st.P_CAUSE] == 8


@njit
def _setup_stats(g, n, flooded_tile_counts, no_special):
    """Set up n games; count per tile how often it starts flooded, and the games with no special."""
    rng = np.zeros(6, np.uint64)
    for i in range(n):
        setup_game(g, rng, game_seed(77, i))
        for t in range(N_TILES):
            if (g[st.P_FDISC] >> t) & 1:
                flooded_tile_counts[t] += 1
        specials = 0
        for s in range(g[st.P_PLAYERS]):
            specials += g[st.hand_at(s, HELI)] + g[st.hand_at(s, SAND)]
        if specials == 0:
            no_special[0] += 1


def _within(observed, n, p):
    """Is observed/n within 4.5 standard errors of p? (A false alarm about once in 150,000 runs.)"""
    return abs(observed / n - p) <= 4.5 * math.sqrt(p * (1 - p) / n)


def test_initial_floods_and_deal_match_their_exact_probabilities():
    """R-SETUP-2: each tile is among the 6 initial floods with probability 6/24 = 1/4.
    R-SETUP-4: no Helicopter Lift or Sandbags among the 2n cards dealt to n players has probability
    C(20, 2n) / C(25, 2n) (Waters Rise! are replaced, so the 2n come from the 25 other cards)."""
    n = 100_000
    for players in (2, 3, 4):
        counts, none = np.zeros(N_TILES, np.int64), np.zeros(1, np.int64)
        g = st.new_game_array(builtin_layout("standard").geometry, GameConfig(players=players).to_array())
        _setup_stats(g, n, counts, none)
        assert all(_within(c, n, 0.25) for c in counts), counts / n
        exact = math.comb(20, 2 * players) / math.comb(25, 2 * players)
        low, high = wilson(int(none[0]), n)
        assert _within(int(none[0]), n, exact), (none[0] / n, exact, low, high)


def test_engine_and_reference_agree_on_random_variants():
    """Rule numbers as data: >= 300 random-policy games under random valid variants (deck, meter,
    hand limit, actions, draws, initial floods, capture), several games each, with identical
    options at every decision, transcripts and results; and the same with expert's choices."""
    rng = np.random.default_rng(15)
    random, expert = load_policy("random"), load_policy("expert")
    games = 0
    for k, (layout, config) in enumerate(settings()):
        if k % 3:
            continue
        config = random_config(rng, config)
        for g in range(4):
            for policy in (random, expert) if g == 0 else (random,):
                mismatch, _ = crosscheck_game(layout, config, policy, seed=k, game=g)
                assert mismatch is None, f"{layout.name} {config}:\n{mismatch}"
                games += 1
    assert games >= 300
