"""`greedy`: simple, explainable priorities, tried in order at each decision.

Action phase (the active player):
1. capture a treasure when possible;
2. with all four treasures: when the team holds two Helicopter Lifts or more (the last one flies
   the team off), lift the largest group of pawns — the one farthest from Fools' Landing on a
   tie — to Fools' Landing, else walk there;
3. holding four cards of a treasure: walk (or fly) to its temple when the capture can still be
   made this turn, else, if it could walk there, be lifted there by a Helicopter Lift;
4. give a treasure card to a player on the same tile (anywhere, for the Messenger) who holds at
   least as many of that treasure, but fewer than four, and has room for it (a hand below the
   limit, or a card it needs less to drop);
5. shore up the flooded tile in reach with most at stake (its importance — Fools' Landing, a
   temple of a treasure not yet captured, other tiles — times the chance that it sinks soon,
   from the flood discard and the cards a Waters Rise! put on top) when that is a lot, or walk
   toward Fools' Landing or a last temple when it is flooded;
6. a player holding four cards of a treasure and more than one action from its temple is lifted
   there by a Helicopter Lift (whoever it is, unless it is a Pilot who can still fly); the
   active player walks toward the temple, the Navigator moves that player toward it;
7. walk toward the player collecting a treasure whose cards I hold (not the Messenger);
8. collecting a treasure of which the team holds four cards or more: walk toward another player
   holding some (the Messenger gives from anywhere);
9. shore up any other flooded tile in reach;
10. with three treasures captured, everyone but the last one's collector walks toward Fools'
    Landing;
11. walk toward the flooded tile that matters most;
12. otherwise end the action phase.
Windows: a Sandbags on Fools' Landing or a last temple when it is flooded and its flood card may
come next, or on another temple still needed when its card comes next with a chance of 1/3 or
more.
Hand limit: play a Sandbags on a flooded tile that matters as much as a temple still needed, else
drop the card needed least: a captured treasure's, then a Helicopter Lift the team has another
of, then a Sandbags or a treasure card (worth more the more of that treasure the team and the
player hold), the team's last Helicopter Lift only if nothing else; a Sandbags that would be
dropped is played on the flooded tile that matters most instead.
Swimming: to the tile nearest Fools' Landing, dry first; a Helicopter Lift only when there is
nowhere to swim.
"""
import numpy as np
from numba import njit

from fisim.rules.constants import ALL_TREASURES_MASK, HELI, MESSENGER, N_HAND_KINDS, N_TREASURES, NAVIGATOR, PILOT, SAND
from fisim.rules.options import (ACTION, CAPTURE, DISCARD, DIVE, DROP, FLY, GIVE, LIFT, LIFT_DEST, MOVE, NAV, SANDBAG, SHORE, SHORE2, SWIM_TO, WINDOW, field1, field2, field3, otype)
from fisim.rules.state import (P_ACTIONS_LEFT, P_ACTIVE, P_CAPTURED, P_DECIDER, P_DECISION,
                               P_FLIGHT_USED, P_FLOODED, P_PLAYERS, P_POS, P_ROLE, P_TILE_AT,
                               hand_at, hand_size, low_bit)
from policies.common import (BIG, LOSS, MAX_LIFTS, N_CELLS, best_flooded, bitcount, collector, expand_lifts, field, index_of, remembered_destination,
                             fools_cell, hand_limit, next_card_prob, offers, pile_layers,
                             pilot_cap, shore_set, sink_risk, team_count, temples_mask,
                             tile_importance)

NAME = "greedy"
VERSION = 2          # 1: the first priorities (Novice 7.4%); 2: cards and captures first

STAKE_FIRST = 200.0    # a shore up worth this much comes before the moves toward captures
TEMPLE_SAND = 400.0    # a tile this important is worth a Sandbags at the hand limit


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
def _lift_to(options, n, seat, targets):
    """The index of a Helicopter Lift carrying `seat` alone onto one of `targets`, or -1."""
    for i in range(n):
        c = options[i]
        if otype(c) == LIFT and field2(c) == (1 << seat) and (targets >> field3(c)) & 1:
            return i
    return -1


@njit
def _keep(pub, s, k):
    """How much seat s needs its card of kind k (the hand limit drops the lowest)."""
    if k < N_TREASURES:      # a captured treasure's card is worthless; else keep what adds up
        if (pub[P_CAPTURED] >> k) & 1:
            return 0.0
        return 1.0 + team_count(pub, k) + 2.0 * pub[hand_at(s, k)]
    if k == SAND:
        return 6.0
    return 40.0 if team_count(pub, HELI) <= 1 else 1.0     # one Helicopter Lift flies off


@njit
def _room(pub, p, k):
    """Whether seat p can take a card of kind k without dropping one it needs as much."""
    if hand_size(pub, p) < hand_limit(pub):
        return True
    v = _keep(pub, p, k)
    for j in range(N_HAND_KINDS):
        if j != k and pub[hand_at(p, j)] > 0 and _keep(pub, p, j) < v:
            return True
    return False


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
    players = pub[P_PLAYERS]
    nheli = team_count(pub, HELI)
    dist = np.empty(N_CELLS, np.int32)
    # 1. capture
    for i in range(n):
        if otype(options[i]) == CAPTURE:
            return i
    # 2. the escape: lift the largest group (the farthest on a tie) while a Helicopter Lift is
    #    left for the take-off, else walk to Fools' Landing
    if caps == ALL_TREASURES_MASK:
        if nheli >= 2:
            field(pub, 1 << fl, -1, dist)
            best = -1
            bv = 0
            for i in range(n):
                c = options[i]
                if otype(c) == LIFT and field3(c) == fl:
                    m = field2(c)
                    v = 100 * bitcount(m) + min(dist[pub[P_POS + low_bit(m)]], 50)
                    if v > bv:
                        bv = v
                        best = i
            if best >= 0:
                return best
        if pub[P_POS + a] != fl:
            i = _move_toward(pub, options, n, 1 << fl, role)
            if i >= 0:
                return i
    # 3. a capture this turn: walk there if the actions left allow it, else be lifted
    for t in range(N_TREASURES):
        if not (caps >> t) & 1 and pub[hand_at(a, t)] >= 4:
            tm = temples_mask(pub, t)
            field(pub, tm, role, dist)
            d = dist[pub[P_POS + a]]
            d = pilot_cap(pub, a, d, pub[P_FLIGHT_USED])      # R-ROLE-PILOT: one flight anywhere
            if d + 1 <= pub[P_ACTIONS_LEFT]:
                i = _move_toward(pub, options, n, tm, role)
                if i >= 0:
                    return i
            elif d < BIG:        # (cut off from its temples: see 6.)
                i = _lift_to(options, n, a, tm)
                if i >= 0:
                    return i
    # 4. give toward the collector
    for i in range(n):
        c = options[i]
        if otype(c) == GIVE:
            k = field1(c)
            p = field2(c)
            if pub[hand_at(a, k)] <= pub[hand_at(p, k)] < 4 and _room(pub, p, k):
                return i
    # 5. shore up the flooded tile in reach with most at stake, when that is a lot
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
    #    or walk toward Fools' Landing or a last temple when it is flooded
    x = best_flooded(pub, caps)
    if x >= 0 and tile_importance(pub, x, caps, 50.0) >= LOSS:
        i = _move_toward(pub, options, n, shore_set(pub, x, role), role)
        if i >= 0:
            return i
    # 6. bring a player holding four cards to a temple: a Helicopter Lift when it is more than
    #    one action away (R-SPECIAL-HELI), else its own moves, or the Navigator's
    for t in range(N_TREASURES):
        if (caps >> t) & 1:
            continue
        tm = temples_mask(pub, t)
        for s in range(players):
            if pub[hand_at(s, t)] < 4:
                continue
            rs = pub[P_ROLE + s]
            field(pub, tm, rs, dist)
            d = dist[pub[P_POS + s]]
            if d >= 2 and not (rs == PILOT and (s != a or pub[P_FLIGHT_USED] == 0)):
                i = _lift_to(options, n, s, tm)
                if i >= 0:
                    return i
            if s == a:
                i = _move_toward(pub, options, n, tm, role)
                if i >= 0:
                    return i
            elif role == NAVIGATOR:            # R-ROLE-NAVIGATOR: up to two steps
                best_nav = -1
                for i in range(n):
                    c = options[i]
                    if otype(c) == NAV and field1(c) == s and dist[field2(c)] < d:
                        d = dist[field2(c)]
                        best_nav = i
                if best_nav >= 0:
                    return best_nav
    # 7. walk toward the player collecting a treasure whose cards I hold
    if role != MESSENGER:
        for t in range(N_TREASURES):
            if not (caps >> t) & 1 and pub[hand_at(a, t)] > 0 and team_count(pub, t) >= 2:
                b = collector(pub, t)
                if (b != a and pub[hand_at(b, t)] >= pub[hand_at(a, t)]
                        and pub[P_POS + b] != pub[P_POS + a]):
                    i = _move_toward(pub, options, n, 1 << pub[P_POS + b], -1)
                    if i >= 0:
                        return i
    # 8. the collector of a treasure with four cards or more in the team walks toward a holder
    for t in range(N_TREASURES):
        if not (caps >> t) & 1 and team_count(pub, t) >= 4 and collector(pub, t) == a:
            m = 0
            for s in range(players):
                if (s != a and pub[hand_at(s, t)] > 0 and pub[P_ROLE + s] != MESSENGER
                        and pub[P_POS + s] != pub[P_POS + a]):
                    m |= 1 << pub[P_POS + s]
            if m:
                i = _move_toward(pub, options, n, m, role)
                if i >= 0:
                    return i
    # 9. shore up any tile in reach
    if best >= 0:
        return best
    # 10. three treasures in: all but the last one's collector walk toward Fools' Landing
    if bitcount(caps) == 3 and pub[P_POS + a] != fl:
        last = 0
        for t in range(N_TREASURES):
            if not (caps >> t) & 1:
                last = t
        if collector(pub, last) != a or pub[hand_at(a, last)] == 0:
            i = _move_toward(pub, options, n, 1 << fl, role)
            if i >= 0:
                return i
    # 11. walk toward the most valuable flooded tile
    if x >= 0:
        i = _move_toward(pub, options, n, shore_set(pub, x, role), role)
        if i >= 0:
            return i
    return 0    # 12. END


@njit
def _window(pub, options, n):
    tops = np.zeros(3, np.int32)
    pile_layers(pub, tops)
    caps = pub[P_CAPTURED]
    for i in range(n):
        c = options[i]
        if otype(c) == SANDBAG:
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
    sand = -1
    sv = -1.0
    for i in range(n):        # a Sandbags on the most valuable flooded tile ...
        c = options[i]
        if otype(c) == SANDBAG:
            v = tile_importance(pub, field2(c), caps, 50.0)
            if v > sv:
                sv = v
                sand = i
    if sand >= 0 and sv >= TEMPLE_SAND:      # ... when it is Fools' Landing or a temple needed
        return sand
    best = -1
    bv = 1e9
    for i in range(n):
        c = options[i]
        if otype(c) != DROP:
            continue
        v = _keep(pub, s, field1(c))
        if v < bv:
            bv = v
            best = i
    if sand >= 0 and field1(options[best]) == SAND:   # rather than drop it
        return sand
    return best


@njit
def _swim(pub, options, n):
    fl = fools_cell(pub)
    s = pub[P_DECIDER]
    dist = np.empty(N_CELLS, np.int32)
    field(pub, 1 << fl, pub[P_ROLE + s], dist)
    can_swim = offers(options, n, SWIM_TO)
    best = 0
    bv = 1e9
    for i in range(n):
        c = options[i]
        t = otype(c)
        if t == SWIM_TO:
            d = field1(c)
        elif t == LIFT and not can_swim:      # a rescue only (R-SWIM-3)
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
    """Decided on the one-step list of options (a lift with its destination, expand_lifts)."""
    kind = pub[P_DECISION]
    if kind == LIFT_DEST:
        return remembered_destination(options, n, mem)
    if not offers(options, n, LIFT):
        return _decide(pub, options, n, kind)
    full = np.empty(n + MAX_LIFTS, np.int32)
    m = expand_lifts(pub, options, n, full)
    return index_of(options, n, full[_decide(pub, full, m, kind)], mem)


@njit
def _decide(pub, options, n, kind):
    if kind == ACTION:
        return _action(pub, options, n)
    if kind == WINDOW:
        return _window(pub, options, n)
    if kind == DISCARD:
        return _discard(pub, options, n)
    return _swim(pub, options, n)
