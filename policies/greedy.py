"""`greedy`: simple, explainable priorities, tried in order at each decision.

Action phase (the active player):
1. capture a treasure when possible;
2. with all four treasures: lift everyone to Fools' Landing when a second Helicopter Lift is in
   hand (the first flies the team off), else walk there;
3. shore up the flooded tile in reach with most at stake (its importance — Fools' Landing, a
   temple of a treasure not yet captured, other tiles — times the chance that it sinks soon,
   from the flood discard and the cards a Waters Rise! put on top) when that is a lot, or walk
   toward Fools' Landing or a last temple when it is flooded;
4. give a treasure card to a player on the same tile (anywhere, for the Messenger) who holds at
   least as many of that treasure, but fewer than four;
5. move one step toward the next capture: a player holding four cards of a treasure walks to its
   nearest temple (or is lifted there by a Helicopter Lift when it is farther than one move);
6. shore up any other flooded tile in reach, walk toward the player collecting a treasure whose
   cards it holds, or toward the flooded tile that matters most;
7. otherwise end the action phase.
Windows: a Sandbags on Fools' Landing or a last temple when it is flooded and its flood card may
come next, or on another temple still needed when its card comes next with a chance of 1/3 or more. Hand limit: play a Sandbags on a flooded tile, else drop a card of a captured
treasure, else of the treasure the team holds least of, never a Helicopter Lift if avoidable.
Swimming: to the tile nearest Fools' Landing, dry first.
"""
import numpy as np
from numba import njit

from fisim.rules.constants import HELI, MESSENGER, N_TREASURES, SAND
from fisim.rules.options import (ACTION, CAPTURE, DISCARD, DIVE, DROP, FLY, GIVE, MOVE, SHORE,
                                 SHORE2, SWIM_TO, WINDOW, field1, field2, field3, otype)
from fisim.rules.options import HELI as O_HELI
from fisim.rules.options import SAND as O_SAND
from fisim.rules.state import (P_ACTIVE, P_CAPTURED, P_DECIDER, P_DECISION, P_EXISTS, P_FLOODED,
                               P_POS, P_ROLE, P_TILE_AT, hand_at)
from policies.common import (LOSS, N_CELLS, best_flooded, collector, field, fools_cell,
                             next_card_prob, pile_layers, shore_set, sink_risk, team_count,
                             temples_mask, tile_importance)

NAME = "greedy"
VERSION = 1

STAKE_FIRST = 400.0    # a shore up worth this much comes before gives and moves


@njit
def _move_toward(pub, options, n, targets, role):
    """The index of the move (MOVE, FLY, DIVE) that gets closest to `targets`, if it gets closer."""
    dist = np.empty(N_CELLS, np.int32)
    field(pub, targets, role, dist)
    here = dist[pub[P_POS + pub[P_ACTIVE]]]
    best = -1
    bd = here
    for i in range(n):
        t = otype(options[i])
        if t == MOVE or t == FLY or t == DIVE:
            d = dist[field1(options[i])]
            if d < bd:
                bd = d
                best = i
    return best


@njit
def _stake(pub, cell, caps, risk):
    """What a flooded tile puts at stake: its importance times the chance it sinks soon."""
    return tile_importance(pub, cell, caps, 50.0) * (risk[cell] + 0.1)


@njit
def _action(pub, options, n):
    risk = np.empty(N_CELLS, np.float64)
    sink_risk(pub, risk, True)
    a = pub[P_ACTIVE]
    caps = pub[P_CAPTURED]
    fl = fools_cell(pub)
    role = pub[P_ROLE + a]
    # 1. capture
    for i in range(n):
        if otype(options[i]) == CAPTURE:
            return i
    # 2. the escape
    if caps == 15:
        if team_count(pub, HELI) >= 2:
            for i in range(n):
                c = options[i]
                if otype(c) == O_HELI and field3(c) == fl:
                    return i
        if pub[P_POS + a] != fl:
            i = _move_toward(pub, options, n, 1 << fl, role)
            if i >= 0:
                return i
    # 3. shore up the most valuable flooded tile in reach
    best = -1
    bv = 0.0
    for i in range(n):
        c = options[i]
        t = otype(c)
        if t == SHORE or t == SHORE2:
            v = _stake(pub, field1(c), caps, risk)
            if t == SHORE2:
                v += _stake(pub, field2(c), caps, risk)
            if v > bv:
                bv = v
                best = i
    if best >= 0 and bv >= STAKE_FIRST:
        return best
    # 3b. walk toward Fools' Landing or a last temple when it is flooded
    x = best_flooded(pub, caps)
    if x >= 0 and tile_importance(pub, x, caps, 50.0) >= LOSS:
        i = _move_toward(pub, options, n, shore_set(pub, x, role), role)
        if i >= 0:
            return i
    # 4. give toward the collector
    for i in range(n):
        c = options[i]
        if otype(c) == GIVE:
            k = field1(c)
            p = field2(c)
            # (a full hand then drops its least useful card; four are enough)
            if pub[hand_at(a, k)] <= pub[hand_at(p, k)] < 4:
                return i
    # 5. move toward the next capture; a Helicopter Lift carries a player with four cards to a
    #    temple more than one move away (R-SPECIAL-HELI)
    for t in range(N_TREASURES):
        if not (caps >> t) & 1 and pub[hand_at(a, t)] >= 4:
            dist = np.empty(N_CELLS, np.int32)
            field(pub, temples_mask(pub, t), role, dist)
            if dist[pub[P_POS + a]] > 1:
                for i in range(n):
                    c = options[i]
                    if (otype(c) == O_HELI and field2(c) == (1 << a)
                            and (temples_mask(pub, t) >> field3(c)) & 1):
                        return i
            i = _move_toward(pub, options, n, temples_mask(pub, t), role)
            if i >= 0:
                return i
    # 6. shore up any tile in reach
    if best >= 0:
        return best
    # 7. move toward the player collecting a treasure whose cards I hold
    if role != MESSENGER:
        for t in range(N_TREASURES):
            if not (caps >> t) & 1 and pub[hand_at(a, t)] > 0 and team_count(pub, t) >= 2:
                b = collector(pub, t)
                if b != a and pub[hand_at(b, t)] >= pub[hand_at(a, t)] and pub[P_POS + b] != pub[P_POS + a]:
                    i = _move_toward(pub, options, n, 1 << pub[P_POS + b], -1)
                    if i >= 0:
                        return i
    # 8. move toward the most valuable flooded tile
    x = best_flooded(pub, caps)
    if x >= 0:
        i = _move_toward(pub, options, n, shore_set(pub, x, role), role)
        if i >= 0:
            return i
    return 0    # END


@njit
def _window(pub, options, n):
    tops = np.zeros(3, np.int32)
    pile_layers(pub, tops)
    caps = pub[P_CAPTURED]
    for i in range(n):
        c = options[i]
        if otype(c) == O_SAND:
            x = field2(c)
            imp = tile_importance(pub, x, caps, 50.0)
            p = next_card_prob(pub, pub[P_TILE_AT + x], tops)
            if (imp >= LOSS and p > 0) or (imp >= 400.0 and p >= 0.34):
                return i
    return 0



@njit
def _discard(pub, options, n):
    s = pub[P_DECIDER]
    caps = pub[P_CAPTURED]
    flooded = pub[P_FLOODED] & pub[P_EXISTS]
    best = -1
    bv = -1.0
    for i in range(n):        # a Sandbags on the most valuable flooded tile
        c = options[i]
        if otype(c) == O_SAND:
            v = tile_importance(pub, field2(c), caps, 50.0)
            if v > bv:
                bv = v
                best = i
    if best >= 0:
        return best
    best = -1
    bv = 1e9
    for i in range(n):
        c = options[i]
        if otype(c) != DROP:
            continue
        k = field1(c)
        if k < N_TREASURES:      # a captured treasure's card is worthless; else keep what adds up
            v = 0.0 if (caps >> k) & 1 else 1.0 + team_count(pub, k) + 2.0 * pub[hand_at(s, k)]
        elif k == SAND:
            v = 6.0
        else:                    # keep one Helicopter Lift for the team
            v = 40.0 if team_count(pub, HELI) <= 1 else 4.0
        if v < bv:
            bv = v
            best = i
    return best


@njit
def _swim(pub, options, n):
    fl = fools_cell(pub)
    s = pub[P_DECIDER]
    dist = np.empty(N_CELLS, np.int32)
    field(pub, 1 << fl, pub[P_ROLE + s], dist)
    best = 0
    bv = 1e9
    for i in range(n):
        c = options[i]
        t = otype(c)
        if t == SWIM_TO:
            d = field1(c)
        elif t == O_HELI:
            d = field3(c)
        else:
            continue
        v = dist[d] + (0.5 if (pub[P_FLOODED] >> d) & 1 else 0.0)
        if v < bv:
            bv = v
            best = i
    return best


@njit
def decide(pub, options, n, mem, rng):
    kind = pub[P_DECISION]
    if kind == ACTION:
        return _action(pub, options, n)
    if kind == WINDOW:
        return _window(pub, options, n)
    if kind == DISCARD:
        return _discard(pub, options, n)
    return _swim(pub, options, n)
