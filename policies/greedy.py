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

from fisim.jit.intrinsics import stack_empty
from fisim.rules import view
from fisim.rules.actions import lift_destinations
from fisim.rules.constants import ALL_TREASURES_MASK, HELI, MESSENGER, N_HAND_KINDS, N_TREASURES, NAVIGATOR, SAND
from fisim.rules.options import (
    ACTION,
    CAPTURE,
    DISCARD,
    DIVE,
    DROP,
    FLY,
    GIVE,
    LIFT,
    MOVE,
    NAV,
    SANDBAG,
    SHORE,
    SHORE2,
    SWIM,
    SWIM_TO,
    WINDOW,
    field1,
    field2,
    otype,
)
from fisim.rules.state import low_bit, popcount
from policies.distances import BIG, N_CELLS, field, pilot_cap, shore_set
from policies.flood_odds import next_card_prob, pile_layers, sink_risk
from policies.importance import LOSS, best_flooded, tile_importance
from policies.memory import lift_chosen, remembered_destination
from policies.reading import collector, offers, team_count

# --- weights of the priorities ---
BASE_IMP = 50.0        # importance of a tile that is neither Fools' Landing nor a temple (tile_importance)
BASE_RISK = 0.1        # a flooded tile stays at risk beyond the coming flood phase
STAKE_FIRST = 200.0    # a shore up worth this much comes before the moves toward captures
TEMPLE_SAND = 400.0    # a tile this important is worth a Sandbags at the hand limit ...
TEMPLE_NEXT = 0.34     # ... and at a window when its flood card comes next with this chance
LIFT_PER_PAWN = 100    # the escape lifts the largest group first ...
LIFT_FAR_CAP = 50      # ... then the farthest from Fools' Landing (distance capped)
KEEP_CARD = 1.0        # a card of a treasure not yet captured is kept, more ...
KEEP_PER_TEAM = 1.0    # ... per card of that treasure the team holds ...
KEEP_PER_HAND = 2.0    # ... and per card of it in the player's hand
KEEP_SAND = 6.0        # a Sandbags
KEEP_LAST_HELI = 40.0  # the team's last Helicopter Lift (it flies the team off)
KEEP_HELI = 1.0        # a Helicopter Lift the team has another of
SWIM_FLOODED = 0.5     # a flooded destination counts as this much farther for a swimmer


@njit
def _move_toward(pub, options, n, targets, role):
    """The index of the move (MOVE, FLY, DIVE) that gets closest to `targets`, if it gets closer."""
    dist = stack_empty(N_CELLS, np.int32)
    field(pub, targets, role, dist)
    here = dist[view.position(pub, view.active(pub))]
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
def _lift_to(pub, options, n, seat, targets, mem):
    """The index of the first Helicopter Lift carrying `seat` alone, able to land on one of
    `targets` (on the lowest such cell, kept in `mem`), or -1."""
    for i in range(n):
        c = options[i]
        if otype(c) == LIFT and field2(c) == (1 << seat):
            dests = lift_destinations(pub, field2(c)) & targets
            if dests:
                return lift_chosen(mem, i, low_bit(dests))
    return -1


@njit
def _keep(pub, s, k):
    """How much seat s needs its card of kind k (the hand limit drops the lowest)."""
    if k < N_TREASURES:      # a captured treasure's card is worthless; else keep what adds up
        if (view.captured_mask(pub) >> k) & 1:
            return 0.0
        return KEEP_CARD + KEEP_PER_TEAM * team_count(pub, k) + KEEP_PER_HAND * view.cards(pub, s, k)
    if k == SAND:
        return KEEP_SAND
    return KEEP_LAST_HELI if team_count(pub, HELI) <= 1 else KEEP_HELI     # one Helicopter Lift flies off


@njit
def _room(pub, p, k):
    """Whether seat p can take a card of kind k without dropping one it needs as much."""
    if view.cards_in_hand(pub, p) < view.hand_limit(pub):
        return True
    v = _keep(pub, p, k)
    for j in range(N_HAND_KINDS):
        if j != k and view.cards(pub, p, j) > 0 and _keep(pub, p, j) < v:
            return True
    return False


@njit
def _stake(pub, cell, caps, risk):
    """What a flooded tile puts at stake: its importance times the chance it sinks soon."""
    return tile_importance(pub, cell, caps, BASE_IMP) * (risk[cell] + BASE_RISK)


# --- the action phase: the priorities of the module docstring, in order ---

@njit
def _action(pub, options, n, mem):
    """The option of the first priority that applies (END if none)."""
    i = _capture(options, n)
    if i < 0:
        i = _escape(pub, options, n, mem)
    if i < 0:
        i = _capture_this_turn(pub, options, n, mem)
    if i < 0:
        i = _give(pub, options, n)
    if i >= 0:
        return i
    shore, stake = _best_shore(pub, options, n)
    if shore >= 0 and stake >= STAKE_FIRST:
        return shore
    #    (5.) or walk toward Fools' Landing or a last temple when it is flooded
    caps = view.captured_mask(pub)
    role = view.role(pub, view.active(pub))
    x = best_flooded(pub, caps)
    if x >= 0 and tile_importance(pub, x, caps, BASE_IMP) >= LOSS:
        i = _move_toward(pub, options, n, shore_set(pub, x, role), role)
        if i >= 0:
            return i
    i = _bring_to_temple(pub, options, n, mem)
    if i < 0:
        i = _toward_collector(pub, options, n)
    if i < 0:
        i = _toward_holders(pub, options, n)
    if i >= 0:
        return i
    if shore >= 0:          # 9. shore up any tile in reach
        return shore
    i = _toward_fools_landing(pub, options, n)
    if i < 0 and x >= 0:    # 11. walk toward the most valuable flooded tile
        i = _move_toward(pub, options, n, shore_set(pub, x, role), role)
    if i >= 0:
        return i
    return 0    # 12. END


@njit
def _capture(options, n):
    """1. capture a treasure when possible."""
    for i in range(n):
        if otype(options[i]) == CAPTURE:
            return i
    return -1


@njit
def _escape(pub, options, n, mem):
    """2. with all four treasures: lift the largest group (the farthest on a tie) to Fools'
    Landing while a Helicopter Lift is left for the take-off, else walk there."""
    a = view.active(pub)
    fl = view.fools_landing(pub)
    if view.captured_mask(pub) != ALL_TREASURES_MASK:
        return -1
    if team_count(pub, HELI) >= 2:
        dist = stack_empty(N_CELLS, np.int32)
        field(pub, 1 << fl, -1, dist)
        best = -1
        bv = 0
        for i in range(n):
            c = options[i]
            if otype(c) == LIFT and (lift_destinations(pub, field2(c)) >> fl) & 1:
                m = field2(c)
                v = LIFT_PER_PAWN * popcount(m) + min(dist[view.position(pub, low_bit(m))], LIFT_FAR_CAP)
                if v > bv:
                    bv = v
                    best = i
        if best >= 0:
            return lift_chosen(mem, best, fl)
    if view.position(pub, a) != fl:
        return _move_toward(pub, options, n, 1 << fl, view.role(pub, a))
    return -1


@njit
def _capture_this_turn(pub, options, n, mem):
    """3. holding four cards of a treasure: walk to its temple if the actions left allow the
    capture this turn, else be lifted there."""
    a = view.active(pub)
    caps = view.captured_mask(pub)
    role = view.role(pub, a)
    dist = stack_empty(N_CELLS, np.int32)
    for t in range(N_TREASURES):
        if not (caps >> t) & 1 and view.cards(pub, a, t) >= view.capture_cards(pub):
            tm = view.temple_cells(pub, t)
            field(pub, tm, role, dist)
            d = dist[view.position(pub, a)]
            d = pilot_cap(pub, a, d)      # R-ROLE-PILOT: one flight anywhere
            if d + 1 <= view.actions_left(pub):
                i = _move_toward(pub, options, n, tm, role)
                if i >= 0:
                    return i
            elif d < BIG:        # (cut off from its temples: see 6.)
                i = _lift_to(pub, options, n, a, tm, mem)
                if i >= 0:
                    return i
    return -1


@njit
def _give(pub, options, n):
    """4. give toward the collector: a card to a player holding at least as many of that
    treasure, but fewer than four, with room for it."""
    a = view.active(pub)
    for i in range(n):
        c = options[i]
        if otype(c) == GIVE:
            k = field1(c)
            p = field2(c)
            if view.cards(pub, a, k) <= view.cards(pub, p, k) < view.capture_cards(pub) and _room(pub, p, k):
                return i
    return -1


@njit
def _best_shore(pub, options, n):
    """5. the shore up with most at stake, and its stake ((-1, 0) if none)."""
    risk = stack_empty(N_CELLS, np.float64)
    sink_risk(pub, risk, True)
    caps = view.captured_mask(pub)
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
    return best, bv


@njit
def _bring_to_temple(pub, options, n, mem):
    """6. bring a player holding four cards to a temple: a Helicopter Lift when it is more than
    one action away (R-SPECIAL-HELI), else its own moves, or the Navigator's."""
    a = view.active(pub)
    caps = view.captured_mask(pub)
    role = view.role(pub, a)
    dist = stack_empty(N_CELLS, np.int32)
    for t in range(N_TREASURES):
        if (caps >> t) & 1:
            continue
        tm = view.temple_cells(pub, t)
        for s in range(view.players(pub)):
            if view.cards(pub, s, t) < view.capture_cards(pub):
                continue
            rs = view.role(pub, s)
            field(pub, tm, rs, dist)
            d = dist[view.position(pub, s)]
            if pilot_cap(pub, s, d) >= 2:
                i = _lift_to(pub, options, n, s, tm, mem)
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
    return -1


@njit
def _toward_collector(pub, options, n):
    """7. walk toward the player collecting a treasure whose cards I hold (not the Messenger)."""
    a = view.active(pub)
    if view.role(pub, a) == MESSENGER:
        return -1
    caps = view.captured_mask(pub)
    for t in range(N_TREASURES):
        if not (caps >> t) & 1 and view.cards(pub, a, t) > 0 and team_count(pub, t) >= 2:
            b = collector(pub, t)
            if (b != a and view.cards(pub, b, t) >= view.cards(pub, a, t)
                    and view.position(pub, b) != view.position(pub, a)):
                i = _move_toward(pub, options, n, 1 << view.position(pub, b), -1)
                if i >= 0:
                    return i
    return -1


@njit
def _toward_holders(pub, options, n):
    """8. the collector of a treasure with four cards or more in the team walks toward a holder."""
    a = view.active(pub)
    caps = view.captured_mask(pub)
    for t in range(N_TREASURES):
        if not (caps >> t) & 1 and team_count(pub, t) >= view.capture_cards(pub) and collector(pub, t) == a:
            m = 0
            for s in range(view.players(pub)):
                if (s != a and view.cards(pub, s, t) > 0 and view.role(pub, s) != MESSENGER
                        and view.position(pub, s) != view.position(pub, a)):
                    m |= 1 << view.position(pub, s)
            if m:
                i = _move_toward(pub, options, n, m, view.role(pub, a))
                if i >= 0:
                    return i
    return -1


@njit
def _toward_fools_landing(pub, options, n):
    """10. three treasures in: all but the last one's collector walk toward Fools' Landing."""
    a = view.active(pub)
    caps = view.captured_mask(pub)
    fl = view.fools_landing(pub)
    if popcount(caps) != 3 or view.position(pub, a) == fl:
        return -1
    last = 0
    for t in range(N_TREASURES):
        if not (caps >> t) & 1:
            last = t
    if collector(pub, last) != a or view.cards(pub, a, last) == 0:
        return _move_toward(pub, options, n, 1 << fl, view.role(pub, a))
    return -1


# --- the other decisions ---

@njit
def _window(pub, options, n):
    """A Sandbags on Fools' Landing or a last temple whose card may come next, or on another
    temple still needed whose card comes next with a fair chance; else PASS."""
    tops = stack_empty(3, np.int32)
    known = False           # the flood pile's known top cards, read at the first Sandbags
    caps = view.captured_mask(pub)
    for i in range(n):
        c = options[i]
        if otype(c) == SANDBAG:
            if not known:
                pile_layers(pub, tops)
                known = True
            x = field2(c)
            imp = tile_importance(pub, x, caps, BASE_IMP)
            p = next_card_prob(pub, view.tile_at(pub, x), tops)
            if (imp >= LOSS and p > 0) or (imp >= TEMPLE_SAND and p >= TEMPLE_NEXT):
                return i
    return 0


@njit
def _discard(pub, options, n):
    """A Sandbags on a tile that matters as much as a temple still needed, else the card needed
    least (_keep); a Sandbags about to be dropped is played instead."""
    s = view.decider(pub)
    caps = view.captured_mask(pub)
    sand = -1
    sv = -1.0
    for i in range(n):        # a Sandbags on the most valuable flooded tile ...
        c = options[i]
        if otype(c) == SANDBAG:
            v = tile_importance(pub, field2(c), caps, BASE_IMP)
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
def _swim(pub, options, n, mem):
    """To the tile nearest Fools' Landing, dry first; a Helicopter Lift only when there is nowhere
    to swim (its destination kept in `mem`)."""
    fl = view.fools_landing(pub)
    s = view.decider(pub)
    dist = stack_empty(N_CELLS, np.int32)
    field(pub, 1 << fl, view.role(pub, s), dist)
    flooded = view.flooded_cells(pub)
    can_swim = offers(options, n, SWIM_TO)
    best = 0
    best_dest = -1
    bv = 1e9
    for i in range(n):
        c = options[i]
        t = otype(c)
        if t == SWIM_TO:
            d = field1(c)
            v = dist[d] + (SWIM_FLOODED if (flooded >> d) & 1 else 0.0)
            if v < bv:
                bv = v
                best = i
                best_dest = -1
        elif t == LIFT and not can_swim:      # a rescue only (R-SWIM-3)
            dests = lift_destinations(pub, field2(c))
            while dests:
                d = low_bit(dests)
                dests &= dests - 1
                v = dist[d] + (SWIM_FLOODED if (flooded >> d) & 1 else 0.0)
                if v < bv:
                    bv = v
                    best = i
                    best_dest = d
    if best_dest >= 0:
        return lift_chosen(mem, best, best_dest)
    return best


@njit
def decide(pub, options, n, mem, rng):
    """A Helicopter Lift is decided with its destination, which `mem` keeps for the LIFT_DEST
    decision that follows."""
    kind = view.decision(pub)
    if kind == ACTION:
        return _action(pub, options, n, mem)
    if kind == WINDOW:
        return _window(pub, options, n)
    if kind == DISCARD:
        return _discard(pub, options, n)
    if kind == SWIM:
        return _swim(pub, options, n, mem)
    return remembered_destination(options, n, mem)
