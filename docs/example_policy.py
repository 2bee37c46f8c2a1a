"""An example fisim policy, written against the policy author's API only (docs/policies.md):
fisim.rules.view reads the game, fisim.rules.options the options, fisim.rules.rng draws.

    fisim simulate --policy docs/example_policy.py --level normal --players 3 --games 10000 --seed 1

Its plan, in order: capture a treasure when it can; once all four are captured, bring everyone to
Fools' Landing (by Helicopter Lift only while the team keeps another one to fly off with: a lift
is played only to win); keep Fools' Landing and the needed temples dry with Sandbags and shoring;
carry four cards of a treasure to its temple; bring treasure cards to the pawn that holds most of
that treasure; shore up any flooded tile in reach; walk toward a flooded tile, an important one
first; otherwise act at random. It discards what the team needs least, swims at
random and, left to drown, takes a rescue lift. A sketch, not a strong player (`expert` is one).
"""
from numba import njit

from fisim.rules import view
from fisim.rules.options import (
    ACTION,
    CAPTURE,
    DISCARD,
    DIVE,
    DROP,
    END,
    FLY,
    GIVE,
    LIFT,
    LIFT_DEST,
    LIFT_TO,
    MOVE,
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
from fisim.rules.rng import randbelow

NAME = "example"
VERSION = 1

FAR = 99            # steps to a cell that cannot be reached
NONE = -1           # no option found


@njit
def steps(pub, start, targets):
    """Orthogonal steps over the island's tiles from cell `start` to the nearest cell of the
    bitmask `targets` (FAR if none can be reached); every adventurer can walk this way."""
    exists = view.existing_cells(pub)
    seen = 1 << start
    frontier = seen
    d = 0
    while frontier:
        if frontier & targets:
            return d
        reached = 0
        while frontier:
            reached |= view.neighbours(pub, view.low_bit(frontier), False)
            frontier &= frontier - 1
        frontier = reached & exists & ~seen
        seen |= frontier
        d += 1
    return FAR


@njit
def first_of_type(options, n, kind):
    for i in range(n):
        if otype(options[i]) == kind:
            return i
    return NONE


@njit
def random_of_type(options, n, kind, rng):
    """A uniformly random index among the options of one type (a sorted list keeps them
    together), or NONE."""
    lo = first_of_type(options, n, kind)
    if lo == NONE:
        return NONE
    hi = lo
    while hi < n and otype(options[hi]) == kind:
        hi += 1
    return lo + randbelow(rng, hi - lo)


@njit
def move_toward(pub, options, n, targets):
    """The move (walk, flight or dive) that brings the active pawn closest to `targets`, if it
    brings it closer than it is; else NONE."""
    best, best_steps = NONE, steps(pub, view.position(pub, view.active(pub)), targets)
    for i in range(n):
        t = otype(options[i])
        if t == MOVE or t == FLY or t == DIVE:
            d = steps(pub, field1(options[i]), targets)
            if d < best_steps:
                best, best_steps = i, d
    return best


@njit
def importance(pub, cell):
    """What a flooded cell is worth shoring: Fools' Landing most, then a temple of a treasure
    still to capture."""
    if cell == view.fools_landing(pub):
        return 3
    for t in range(view.N_TREASURES):
        if not view.captured(pub, t) and (view.temple_cells(pub, t) >> cell) & 1:
            return 2
    return 1


@njit
def important_flooded(pub):
    """Bitmask of the flooded cells worth walking to: Fools' Landing and the needed temples."""
    m = 0
    flooded = view.flooded_cells(pub)
    while flooded:
        c = view.low_bit(flooded)
        if importance(pub, c) >= 2:
            m |= 1 << c
        flooded &= flooded - 1
    return m


@njit
def sandbag_important(pub, options, n):
    """Sandbags on the most important flooded tile, if it is Fools' Landing or a needed temple;
    else NONE."""
    best, best_worth = NONE, 1
    for i in range(n):
        if otype(options[i]) == SANDBAG and importance(pub, field2(options[i])) > best_worth:
            best, best_worth = i, importance(pub, field2(options[i]))
    return best


@njit
def collector(pub, treasure):
    """The seat holding most cards of a treasure (the lowest such seat)."""
    best = 0
    for s in range(1, view.players(pub)):
        if view.cards(pub, s, treasure) > view.cards(pub, best, treasure):
            best = s
    return best


@njit
def bring_cards(pub, options, n):
    """Give a treasure card to its collector, or walk toward the collector to give it; else NONE."""
    seat = view.active(pub)
    for t in range(view.N_TREASURES):
        to = collector(pub, t)
        if view.captured(pub, t) or to == seat or view.cards(pub, seat, t) == 0:
            continue
        for i in range(n):
            if otype(options[i]) == GIVE and field1(options[i]) == t and field2(options[i]) == to:
                return i
        i = move_toward(pub, options, n, 1 << view.position(pub, to))
        if i != NONE:
            return i
    return NONE


@njit
def best_shore(pub, options, n, least):
    """The shore-up of the most important tiles, if they are worth at least `least`; else NONE."""
    best, best_worth = NONE, least - 1
    for i in range(n):
        c = options[i]
        if otype(c) == SHORE:
            worth = importance(pub, field1(c))
        elif otype(c) == SHORE2:
            worth = importance(pub, field1(c)) + importance(pub, field2(c))
        else:
            continue
        if worth > best_worth:
            best, best_worth = i, worth
    return best


@njit
def all_captured(pub):
    for t in range(view.N_TREASURES):
        if not view.captured(pub, t):
            return False
    return True


@njit
def team_cards(pub, kind):
    n = 0
    for s in range(view.players(pub)):
        n += view.cards(pub, s, kind)
    return n


@njit
def homeward_lift(pub, options, n):
    """Once every treasure is captured and the team holds a second Helicopter Lift to win with:
    the lift carrying the most pawns not yet on Fools' Landing (its destination is chosen at the
    LIFT_DEST decision that follows). Else NONE."""
    if not all_captured(pub) or team_cards(pub, view.HELI) < 2:
        return NONE
    best, most = NONE, 0
    for i in range(n):
        c = options[i]
        if otype(c) == LIFT and view.position(pub, view.low_bit(field2(c))) != view.fools_landing(pub):
            carried = view.popcount(field2(c))
            if carried > most:
                best, most = i, carried
    return best


@njit
def act(pub, options, n, rng):
    """An ACTION decision."""
    i = first_of_type(options, n, CAPTURE)
    if i != NONE:
        return i
    if all_captured(pub):
        i = homeward_lift(pub, options, n)
        if i == NONE:
            i = move_toward(pub, options, n, 1 << view.fools_landing(pub))
        if i == NONE and view.position(pub, view.active(pub)) == view.fools_landing(pub):
            i = first_of_type(options, n, END)       # wait there for the others
        if i != NONE:
            return i
    i = sandbag_important(pub, options, n)
    if i == NONE:
        i = best_shore(pub, options, n, 2)
    if i != NONE:
        return i
    seat = view.active(pub)
    for t in range(view.N_TREASURES):
        if not view.captured(pub, t) and view.cards(pub, seat, t) >= 4:
            i = move_toward(pub, options, n, view.temple_cells(pub, t))
            if i != NONE:
                return i
    i = bring_cards(pub, options, n)
    if i == NONE:
        i = best_shore(pub, options, n, 1)
    if i == NONE:
        i = move_toward(pub, options, n, important_flooded(pub))
    if i == NONE:
        i = move_toward(pub, options, n, view.flooded_cells(pub))
    if i != NONE:
        return i
    # at random among the actions and END: special cards come after them in the sorted list
    k = 0
    while k < n and otype(options[k]) < LIFT:
        k += 1
    return randbelow(rng, k)


@njit
def discard(pub, options, n):
    """A DISCARD decision: Sandbags played on a tile that matters, else a card of a captured
    treasure dropped, else of the treasure the team holds fewest of, else Sandbags; a
    Helicopter Lift last."""
    i = sandbag_important(pub, options, n)
    if i != NONE:
        return i
    best, best_worth = NONE, FAR
    for i in range(n):
        c = options[i]
        if otype(c) != DROP:
            continue
        k = field1(c)
        if k == view.HELI:
            worth = FAR - 1
        elif k == view.SAND:
            worth = FAR - 2
        elif view.captured(pub, k):
            worth = 0
        else:
            worth = team_cards(pub, k)
        if worth < best_worth:
            best, best_worth = i, worth
    return best


@njit
def decide(pub, options, n, mem, rng):
    kind = view.decision(pub)
    if kind == ACTION:
        return act(pub, options, n, rng)
    if kind == WINDOW:
        i = homeward_lift(pub, options, n)
        if i == NONE:
            i = sandbag_important(pub, options, n)
        return 0 if i == NONE else i                 # option 0 is PASS
    if kind == DISCARD:
        return discard(pub, options, n)
    if kind == SWIM:
        i = random_of_type(options, n, SWIM_TO, rng)
        return i if i != NONE else first_of_type(options, n, LIFT)   # not PASS: be rescued
    if kind == LIFT_DEST:
        for i in range(n):
            if otype(options[i]) == LIFT_TO and field1(options[i]) == view.fools_landing(pub):
                return i
    return randbelow(rng, n)
