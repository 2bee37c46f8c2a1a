"""`search`: a base policy's action decisions checked by rollouts on sampled worlds; expert is the
base unless another is named (`search:N/BASE`: a built-in, or a user's policy file).

At an action decision with two or more options, the candidates are the base's choice and its best
alternatives (CANDIDATES at most): a base of the evaluation's family (expert, tuned, the planner)
gives its best-scored options (specs: candidates), any other base its own choice, with the
evaluation's best-scored other options as the alternatives (Helicopter Lifts left out: the base
decides their destinations). A sampled world is the game as the team knows it with the hidden
order of the draw piles dealt at random and new random streams (fisim.rules.worlds, R-INFO; the
clairvoyant reference, policies/clairvoyant.py, plays the piles as they lie instead); each
candidate is played in it and the game played on to its end by the base, through the engine's play_out
(called at the address the engine exports: fisim.jit.policy_call.call_play_out).
All candidates play the same worlds (common random numbers), so they are compared world by world:
an alternative *gains* a world that it wins and the base's choice loses, and *loses* one in the
other case.

The rule: worlds are played in looks of LOOK worlds, up to the budget (`search:N`: N worlds per
decision at most). After each look, an alternative whose net gain g (gained minus lost) is clear,
g >= max(MIN_NET, Z * sqrt(gained + lost)) (a sign test on the worlds where the two differ, about
2.5% one-sided; with 4 worlds only a gain in all 4 is clear), is played, among several clear ones
the one with the largest g; an alternative with g <= 0 is dropped; when none is left, or the
budget is spent, the base's move is played. Most decisions end in the first look: nothing beats
the base's move. Inside a look an alternative is played first in the worlds the base's move won
(where it can only lose) and stops as soon as it can no longer reach g > 0 (in the last look:
MIN_NET), which saves most rollouts and changes no decision. Windows, discards, swims and
Helicopter Lift destinations are the base's.

Its randomness is the policy stream only: one draw per searched decision seeds its worlds (a base
that draws on the stream draws on the same one).
"""
import hashlib

import numpy as np

from fisim.jit.cache import cached_module
from fisim.jit.modes import compiled, inlined
from fisim.jit.policy_call import PLAY_OUT, call_play_out, symbol_address
from fisim.rules import view
from fisim.rules.options import ACTION, LIFT, otype
from fisim.rules.rng import N_STREAMS, game_seed, next_u64
from fisim.rules.state import P_STATUS, WON, copy_into
from fisim.rules.worlds import WORLD_SIZE, rollout_world
from policies import evaluation, expert, load_policy

CANDIDATES = 4      # the base's candidates tried, its own choice included
LOOK = 4            # worlds between two looks at the counts
MIN_NET = 3         # a switch needs at least this many more worlds gained than lost ...
Z = 2.0             # ... and a net gain of Z standard deviations of the sign test

_EXPERT = load_policy("expert").symbol     # the base's entry, found by its symbol (an address would be kept
                                           # stale in Numba's cache), as the engine's play_out is


@compiled
def decide(pub, options, n, mem, rng):
    return search_over(pub, options, n, mem, rng, expert.decide, expert.candidates, symbol_address(_EXPERT))


COMPOSED = '''"""fisim: {search} over {base} (generated; safe to delete)."""
import sys

from fisim.jit.modes import compiled
from fisim.jit.policy_call import symbol_address
from policies.search import search_over

base = sys.modules[{module!r}]
BASE = {symbol!r}     # the base's compiled entry, which plays the rollouts (exported first)


@compiled
def decide(pub, options, n, mem, rng):
    return search_over(pub, options, n, mem, rng, base.decide, {candidates}, symbol_address(BASE))
'''


def composed(search, base):
    """The module of search (a policies.Policy) over `base` (a Policy), written into the compile
    cache: its decide is search_over with base's decide and candidates (base's function giving
    search its best options, specs: candidates; else choice_first), base's entry playing the
    rollouts (exported under base.symbol before the search runs)."""
    candidates = f"base.{base.spec.candidates}" if base.spec.candidates else "None"
    text = COMPOSED.format(search=search.code_name, base=base.code_name, module=base.module.__name__,
                           symbol=base.symbol, candidates=candidates)
    key = hashlib.sha256(f"{search.digest} {base.digest} {base.module.__name__}".encode()).hexdigest()[:16]
    return cached_module(f"composed_{search.code_name}_over_{base.code_name}_{key}", text)


@compiled
def search_over(pub, options, n, mem, rng, base_decide, candidates, base):
    """The search's decision over the base whose decide, candidates (its compiled function giving
    its best options, its choice first; None: choice_first) and compiled entry (at `base`, which
    plays the rollouts) are given (a search over another base than expert: `composed`)."""
    if view.decision(pub) != ACTION or n < 2:
        return base_decide(pub, options, n, mem, rng)
    top = np.empty((CANDIDATES, 3))
    if candidates is None:
        k = choice_first(pub, options, n, mem, rng, top, base_decide)
    else:
        k = candidates(pub, options, n, mem, rng, top)
    return searched(pub, options, mem, rng, top, k, base)


@compiled
def choice_first(pub, options, n, mem, rng, top, base_decide):
    """The candidates of a base that ranks nothing: its choice (alone when it is a Helicopter Lift,
    whose destination it decides next), then the evaluation's best-scored other options that are
    not lifts; their count."""
    i = base_decide(pub, options, n, mem, rng)
    top[0, 0] = i
    top[0, 1] = -1
    top[0, 2] = 0.0
    if i < 0 or i >= n or otype(options[i]) == LIFT:
        return 1        # (an index out of range is the engine's to refuse)
    ranking = np.empty((CANDIDATES + 1, 3))
    m = evaluation.ranked(pub, options, n, ACTION, ranking, evaluation.HAND_SET, False)
    k = 1
    for j in range(m):
        if k < top.shape[0] and ranking[j, 0] != i and ranking[j, 1] < 0:
            for f in range(3):
                top[k, f] = ranking[j, f]
            k += 1
    return k


@inlined
def searched(pub, options, mem, rng, top, k, base):
    """The index of the option to play of the candidates top[:k] (rows as evaluation.ranked writes
    them, row 0 the choice of the base, whose entry is at `base`)."""
    if k == 0:
        return 0
    j = _search(pub, options, mem, next_u64(rng), top, k, view.policy_arg(pub), base) if k > 1 else 0
    return evaluation.chosen(top, j, mem)


@compiled
def _search(pub, options, mem, seed, top, k, budget, base):
    """The row of `top` to play: 0 (the base's choice) unless an alternative's gain is clear."""
    codes = np.empty(k, np.int64)
    for j in range(k):
        codes[j] = evaluation.whole_code(options, top, j)
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
        for w in range(m):              # the worlds the base's move won first, then those it lost
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
    call_play_out(symbol_address(PLAY_OUT), game, streams, base, c)
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
