"""`search`: `expert` with its action decisions checked by rollouts on sampled worlds.

At an action decision with two or more options, expert's best-scored options are the candidates
(CANDIDATES at most, expert's own choice first). A sampled world is the game as the team knows it
with the hidden order of the draw piles dealt at random and new random streams
(fisim.rules.worlds, R-INFO; the clairvoyant reference, policies/clairvoyant.py, plays the piles as
they lie instead); each candidate is played in it and the game played on to its end by
expert (fisim.jit.entries.play_out). All candidates play the same worlds (common random numbers),
so they are compared world by world: an alternative *gains* a world that it wins and expert's
choice loses, and *loses* one in the other case.

The rule: worlds are played in looks of LOOK worlds, up to the budget (`search:N`: N worlds per
decision at most). After each look, an alternative whose net gain g (gained minus lost) is clear,
g >= max(MIN_NET, Z * sqrt(gained + lost)) (a sign test on the worlds where the two differ, about
2.5% one-sided; with 4 worlds only a gain in all 4 is clear), is played, among several clear ones
the one with the largest g; an alternative with g <= 0 is dropped; when none is left, or the
budget is spent, expert's move is played. Most decisions end in the first look: nothing beats
expert's move. Inside a look an alternative is played first in the worlds expert's move won
(where it can only lose) and stops as soon as it can no longer reach g > 0 (in the last look:
MIN_NET), which saves most rollouts and changes no decision. Windows, discards, swims and
Helicopter Lift destinations are expert's.

Its randomness is the policy stream only: one draw per searched decision seeds its worlds.
Version 2: the same search; the policy stream is seeded one-way (fisim.rules.rng), so it samples
other worlds.
"""
import numpy as np

from fisim.jit.generated import engine_module
from fisim.jit.modes import compiled, inlined
from fisim.jit.policy_call import symbol_address
from fisim.jit.runners import entry_symbol
from fisim.rules import view
from fisim.rules.options import ACTION
from fisim.rules.rng import N_STREAMS, game_seed, next_u64
from fisim.rules.state import P_STATUS, WON, copy_into
from fisim.rules.worlds import WORLD_SIZE, rollout_world
from policies import expert

NAME = "search"
VERSION = 2
PARAMETER = ("sampled worlds per decision", 64, 1, 4096)

CANDIDATES = 4      # expert's best-scored options tried, its own choice included
LOOK = 4            # worlds between two looks at the counts
MIN_NET = 3         # a switch needs at least this many more worlds gained than lost ...
Z = 2.0             # ... and a net gain of Z standard deviations of the sign test

PLAYS = (expert,)           # policies whose compiled entries search's code calls (exported first)
_engine = engine_module()   # the engine's play_out, with expert's compiled entry playing, found by
_EXPERT = entry_symbol(expert)      # its symbol (an address would be kept stale in Numba's cache)


@compiled
def decide(pub, options, n, mem, rng):
    return search_over(pub, options, n, mem, rng, expert.HAND_SET, symbol_address(_EXPERT))


@compiled
def search_over(pub, options, n, mem, rng, w, base):
    """The search over expert's play with weights w (expert.WEIGHTS), whose compiled entry is at
    `base` and plays the rollouts: `tuned-search` is this over tuned."""
    if view.decision(pub) != ACTION or n < 2:
        return expert.decide_with(pub, options, n, mem, w)
    top = np.empty((CANDIDATES, 3))
    k = expert.ranked(pub, options, n, ACTION, top, w, False)
    return searched(pub, options, mem, rng, top, k, base)


@inlined
def searched(pub, options, mem, rng, top, k, base):
    """The index of the option to play of the candidates top[:k] (expert.ranked's rows, row 0 the
    choice of the policy whose entry is at `base`), by the search: `planner-search` is this over
    the planner's candidates."""
    if k == 0:
        return 0
    j = _search(pub, options, mem, next_u64(rng), top, k, view.policy_arg(pub), base) if k > 1 else 0
    return expert.chosen(top, j, mem)


@compiled
def _search(pub, options, mem, seed, top, k, budget, base):
    """The row of `top` to play: 0 (expert's choice) unless an alternative's gain is clear."""
    codes = np.empty(k, np.int64)
    for j in range(k):
        codes[j] = expert.whole_code(options, top, j)
    world = np.empty(WORLD_SIZE, np.int32)
    game = np.empty(WORLD_SIZE, np.int32)
    world_streams = np.empty(N_STREAMS, np.uint64)
    streams = np.empty(N_STREAMS, np.uint64)
    gained = np.zeros(k, np.int64)
    lost = np.zeros(k, np.int64)
    alive = np.ones(k, np.bool_)
    alive[0] = False
    base_won = np.zeros(LOOK, np.bool_)
    order = np.empty(LOOK, np.int64)
    for first in range(0, budget, LOOK):
        m = min(budget, first + LOOK) - first
        for w in range(m):
            rollout_world(pub, mem, world, world_streams, game_seed(seed, first + w))
            base_won[w] = _rollout(world, world_streams, game, streams, codes[0], base)
        n_won = 0
        for w in range(m):              # the worlds expert's move won first, then those it lost
            if base_won[w]:
                order[n_won] = w
                n_won += 1
        n = n_won
        for w in range(m):
            if not base_won[w]:
                order[n] = w
                n += 1
        final = first + m == budget
        need = MIN_NET if final else 1
        for j in range(1, k):
            for i in range(m):
                if not alive[j] or gained[j] - lost[j] + m - max(i, n_won) < need:
                    alive[j] = False
                    break
                w = order[i]
                rollout_world(pub, mem, world, world_streams, game_seed(seed, first + w))
                won = _rollout(world, world_streams, game, streams, codes[j], base)
                gained[j] += won and not base_won[w]
                lost[j] += base_won[w] and not won
        best = _clear_winner(gained, lost, alive)
        if best > 0 or final:
            return best
        for j in range(1, k):
            alive[j] = alive[j] and gained[j] > lost[j]
        if not alive.any():
            return 0
    return 0


@inlined
def _rollout(world, world_streams, game, streams, c, base):
    """Whether the team wins the sampled world after option c, the policy whose entry is at
    `base` playing on."""
    copy_into(game, world)
    copy_into(streams, world_streams)
    _engine.play_out(game, streams, base, c)
    return game[P_STATUS] == WON


@compiled
def _clear_winner(gained, lost, alive):
    """The alive alternative with the largest clear net gain, or 0 (none is clear)."""
    best = 0
    best_net = 0
    for j in range(1, gained.shape[0]):
        net = gained[j] - lost[j]
        if alive[j] and net >= max(MIN_NET, Z * np.sqrt(gained[j] + lost[j])) and net > best_net:
            best = j
            best_net = net
    return best
