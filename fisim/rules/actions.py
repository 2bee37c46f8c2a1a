"""Legal options at each decision point, and the effects of actions and special cards.

Everything here is a pure function of `pub` (the public record, which includes the island's
geometry and the rules in force), so policies may call it too, for lookahead on a copy of `pub`.
Option codes and their order are fixed by fisim.rules.options and docs/model.md; lists are built
in ascending code order.
"""
from fisim.jit.modes import compiled, inlined
from fisim.rules.config import (
    C_CAPTURE,
    C_DIVER_FLOODED,
    C_DIVER_SUNK,
    C_HELI_ALL,
    C_NAV_PLAIN,
    C_NO_HELI_RESCUE,
    C_SWIM000,
    C_SWIM001,
)
from fisim.rules.constants import (
    ALL_TREASURES_MASK,
    DIVER,
    ENGINEER,
    EXPLORER,
    HELI,
    MESSENGER,
    N_HAND_KINDS,
    N_TREASURES,
    NAVIGATOR,
    PILOT,
    SAND,
)
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
    NAV,
    PASS,
    SANDBAG,
    SHORE,
    SHORE2,
    SWIM,
    SWIM_TO,
    WINDOW,
    code,
    field1,
    field2,
    field3,
    otype,
)
from fisim.rules.state import (
    ALL_CELLS,
    P_ACTIVE,
    P_CAPTURED,
    P_CFG,
    P_DECIDER,
    P_DECISION,
    P_EXISTS,
    P_FLIGHT_USED,
    P_FLOODED,
    P_LIFT,
    P_PLAYERS,
    P_POS,
    P_ROLE,
    P_SUNK_CELL,
    P_TDISC,
    P_TILE_AT,
    diag,
    hand_at,
    low_bit,
    orth,
)


@inlined
def spread(pub, cells):
    """The union of the orthogonal neighbours of `cells` (a bitmask)."""
    out = 0
    while cells:
        out |= orth(pub, low_bit(cells))
        cells &= cells - 1
    return out


@inlined
def step_mask(pub, cell, diagonal):
    m = orth(pub, cell)
    if diagonal:
        m |= diag(pub, cell)
    return m


@inlined
def dive_through(pub):
    """R-ROLE-DIVER: the island cells the Diver's move may pass through: flooded and sunk ones
    (switch diver-flooded-only: flooded ones only; diver-sunk-only: sunk ones only)."""
    sunk = ALL_CELLS & ~pub[P_EXISTS]
    if pub[P_CFG + C_DIVER_FLOODED] != 0:
        return pub[P_FLOODED]
    if pub[P_CFG + C_DIVER_SUNK] != 0:
        return sunk
    return pub[P_FLOODED] | sunk


@compiled(counted=False)
def dive_reach(pub, cell):
    """R-ROLE-DIVER: existing cells reachable through the cells of `dive_through`."""
    exists = pub[P_EXISTS]
    through = dive_through(pub)
    reach = orth(pub, cell) & exists
    frontier = orth(pub, cell) & through
    seen = frontier
    while frontier:
        nb = spread(pub, frontier)
        reach |= nb & exists
        frontier = nb & through & ~seen
        seen |= frontier
    return reach & ~(1 << cell)


@compiled(counted=False)
def nav_reach(pub, seat):
    """R-ROLE-NAVIGATOR: cells a navigated pawn can reach in 1 or 2 steps, by its own power."""
    exists = pub[P_EXISTS]
    role = pub[P_ROLE + seat]
    cell = pub[P_POS + seat]
    plain = pub[P_CFG + C_NAV_PLAIN] != 0
    diagonal = role == EXPLORER and not plain
    first = step_mask(pub, cell, diagonal)
    via = first & exists
    if role == DIVER and not plain:
        via = first        # a moved Diver's intermediate step may be a sunk cell
    reach = first & exists
    while via:
        reach |= step_mask(pub, low_bit(via), diagonal) & exists
        via &= via - 1
    return reach & ~(1 << cell)


@compiled(counted=False)
def swim_reach(pub, seat, sunk):
    """R-SWIM-1/2: existing cells the pawn of `seat` can swim to from the sunk cell."""
    exists = pub[P_EXISTS]
    role = pub[P_ROLE + seat]
    if role == DIVER:
        seen = 1 << sunk
        frontier = seen
        while frontier:
            nb = spread(pub, frontier) & ~seen
            if nb & exists:
                return nb & exists
            seen |= nb
            frontier = nb
        return 0
    only_diver = pub[P_CFG + C_SWIM000] != 0
    pilot_walks = only_diver or pub[P_CFG + C_SWIM001] != 0      # switches swim-seed000/001
    if role == PILOT and not pilot_walks:
        return exists & ~(1 << sunk)
    return step_mask(pub, sunk, role == EXPLORER and not only_diver) & exists


@compiled(counted=False)
def win_available(pub, fools_cell):
    """R-WIN: all treasures captured, every pawn on Fools' Landing, a Helicopter Lift in hand."""
    if pub[P_CAPTURED] != ALL_TREASURES_MASK or not (pub[P_EXISTS] >> fools_cell) & 1:
        return False
    for s in range(pub[P_PLAYERS]):
        if pub[P_POS + s] != fools_cell:
            return False
    for s in range(pub[P_PLAYERS]):
        if pub[hand_at(s, HELI)] > 0:
            return True
    return False


@inlined
def _add_cells(opts, n, kind, f1, cells, f2_is_cell):
    """Append one option per cell of `cells` (ascending): the cell is f1, or f2 after a fixed f1."""
    base = code(kind, f1) if f2_is_cell else code(kind)
    shift = 8 if f2_is_cell else 16
    while cells:
        opts[n] = base | (low_bit(cells) << shift)
        n += 1
        cells &= cells - 1
    return n


@compiled(counted=False)
def _lift_groups(pub, rescue_seat, sunk):
    """R-SPECIAL-HELI: the groups a Helicopter Lift may carry, as a bitmask with bit m set for each
    seat mask m of pawns on one cell (heli-all: all the pawns of that cell) that has somewhere to
    go; with rescue_seat >= 0, only the groups lifting it off `sunk`. The same for every holder, so
    it is worked out once per listing."""
    players = pub[P_PLAYERS]
    heli_all = pub[P_CFG + C_HELI_ALL] != 0
    mates = 0           # 4 bits per seat: the seats whose pawns share its cell
    for s in range(players):
        for q in range(players):
            if pub[P_POS + q] == pub[P_POS + s]:
                mates |= 1 << (4 * s + q)
    groups = 0
    for m in range(1, 1 << players):
        first = low_bit(m)
        on_src = (mates >> (4 * first)) & 15
        if m & ~on_src:
            continue
        if heli_all and m != on_src:
            continue
        if rescue_seat >= 0 and (pub[P_POS + first] != sunk or not (m >> rescue_seat) & 1):
            continue
        if lift_destinations(pub, m):
            groups |= 1 << m
    return groups


@compiled(counted=False)
def _add_heli(pub, opts, n, only_seat, rescue_seat, sunk):
    """R-SPECIAL-HELI plays by every holder (or by `only_seat` if >= 0): LIFT holder seats, one per
    group of `_lift_groups` (with rescue_seat >= 0, those lifting it off `sunk`)."""
    groups = -1
    for h in range(pub[P_PLAYERS]):
        if (only_seat < 0 or h == only_seat) and pub[hand_at(h, HELI)] > 0:
            if groups < 0:
                groups = _lift_groups(pub, rescue_seat, sunk)
            m = groups
            while m:
                opts[n] = code(LIFT, h, low_bit(m))
                n += 1
                m &= m - 1
    return n


@compiled(counted=False)
def lift_destinations(pub, seats):
    """R-SPECIAL-HELI: where a Helicopter Lift of the pawns `seats` (on one cell) may land: any
    existing cell but theirs (a sunk cell of swimmers no longer exists)."""
    return pub[P_EXISTS] & ~(1 << pub[P_POS + low_bit(seats)])


@compiled(counted=False)
def _add_specials(pub, opts, n, only_seat):
    """R-SPECIAL-1: Helicopter Lift and Sandbags plays by every holder (or by `only_seat` if >= 0),
    at any decision that offers them, costing no action."""
    n = _add_heli(pub, opts, n, only_seat, -1, -1)
    for h in range(pub[P_PLAYERS]):
        if (only_seat < 0 or h == only_seat) and pub[hand_at(h, SAND)] > 0:
            n = _add_cells(opts, n, SANDBAG, h, pub[P_FLOODED], True)
    return n


@compiled(counted=False)
def _add_actions(pub, opts, n):
    """The active player's actions (R-ACT-*, R-ROLE-*), in ascending code order."""
    a = pub[P_ACTIVE]
    role = pub[P_ROLE + a]
    cell = pub[P_POS + a]
    exists = pub[P_EXISTS]
    flooded = pub[P_FLOODED]
    players = pub[P_PLAYERS]
    explorer = role == EXPLORER                                          # R-ROLE-EXPLORER: diagonal too
    moves = step_mask(pub, cell, explorer) & exists                      # R-ACT-MOVE
    n = _add_cells(opts, n, MOVE, 0, moves, False)
    if role == PILOT and pub[P_FLIGHT_USED] == 0:                        # R-ROLE-PILOT
        n = _add_cells(opts, n, FLY, 0, exists & ~(1 << cell), False)
    if role == DIVER:                                                    # R-ROLE-DIVER
        n = _add_cells(opts, n, DIVE, 0, dive_reach(pub, cell) & ~moves, False)
    if role == NAVIGATOR:                                                # R-ROLE-NAVIGATOR
        for p in range(players):
            if p != a:
                n = _add_cells(opts, n, NAV, p, nav_reach(pub, p), True)
    shore = (step_mask(pub, cell, explorer) | (1 << cell)) & flooded     # R-ACT-SHORE
    n = _add_cells(opts, n, SHORE, 0, shore, False)
    if role == ENGINEER:                                                 # R-ROLE-ENGINEER
        rest = shore
        while rest:
            x = low_bit(rest)
            rest &= rest - 1
            n = _add_cells(opts, n, SHORE2, x, rest, True)
    for k in range(N_TREASURES):                                         # R-ACT-GIVE
        if pub[hand_at(a, k)] > 0:
            for p in range(players):
                if p != a and (role == MESSENGER or pub[P_POS + p] == cell):    # R-ROLE-MESSENGER
                    opts[n] = code(GIVE, k, p)
                    n += 1
    tile = pub[P_TILE_AT + cell]                                         # R-ACT-CAPTURE
    if tile < 2 * N_TREASURES:
        t = tile >> 1
        if not (pub[P_CAPTURED] >> t) & 1 and pub[hand_at(a, t)] >= pub[P_CFG + C_CAPTURE]:
            opts[n] = code(CAPTURE, t)
            n += 1
    return n


@compiled(counted=False)
def list_options(pub, out, at):
    """Write the legal options of the decision in pub[P_DECISION] to out[at:], in ascending code
    order; return how many there are: at most MAX_OPTIONS (fisim.rules.options derives it from
    the variant limits), the room `out` needs."""
    kind = pub[P_DECISION]
    n = at
    if kind == ACTION:
        out[n] = code(END)
        n = _add_actions(pub, out, n + 1)
        n = _add_specials(pub, out, n, -1)
    elif kind == WINDOW:
        out[n] = code(PASS)
        n = _add_specials(pub, out, n + 1, -1)
    elif kind == DISCARD:
        s = pub[P_DECIDER]
        n = _add_specials(pub, out, n, s)
        for k in range(N_HAND_KINDS):
            if pub[hand_at(s, k)] > 0:
                out[n] = code(DROP, k)
                n += 1
    elif kind == SWIM:
        s = pub[P_DECIDER]
        sunk = pub[P_SUNK_CELL]
        dests = swim_reach(pub, s, sunk)
        if dests == 0:
            out[n] = code(PASS)          # R-SWIM-3: the pawn may be left to drown
            n = _add_heli_rescues(pub, out, n + 1, s, sunk)
        else:
            n = _add_heli_rescues(pub, out, n, s, sunk)
            n = _add_cells(out, n, SWIM_TO, 0, dests, False)
    elif kind == LIFT_DEST:
        n = _add_cells(out, n, LIFT_TO, 0, lift_destinations(pub, field2(pub[P_LIFT])), False)
    return n - at


@compiled(counted=False)
def _add_heli_rescues(pub, opts, n, seat, sunk):
    """R-SPECIAL-WINDOWS: Helicopter Lifts that carry a swimmer off the sunk cell."""
    if pub[P_CFG + C_NO_HELI_RESCUE] == 0:
        n = _add_heli(pub, opts, n, -1, seat, sunk)
    return n


@inlined
def actor_of(pub, c):
    """The seat that acts when option c is applied: a special card's holder, else the decider."""
    t = otype(c)
    if t == LIFT or t == SANDBAG:
        return field1(c)
    return pub[P_DECIDER]


@compiled(counted=False)
def apply_special(pub, c):
    """R-SPECIAL-1, R-SPECIAL-HELI, R-SPECIAL-SAND: play the card and put it on the treasure
    discard."""
    h = field1(c)
    if otype(c) == LIFT:
        pub[hand_at(h, HELI)] -= 1
        pub[P_TDISC + HELI] += 1
        m = field2(c)
        for s in range(pub[P_PLAYERS]):
            if (m >> s) & 1:
                pub[P_POS + s] = field3(c)
    else:
        pub[hand_at(h, SAND)] -= 1
        pub[P_TDISC + SAND] += 1
        pub[P_FLOODED] &= ~(1 << field2(c))


@compiled(counted=False)
def apply_action(pub, c):
    """Apply one action of the active player; return the seat that received a card, or -1."""
    a = pub[P_ACTIVE]
    t = otype(c)
    if t == MOVE or t == DIVE:
        pub[P_POS + a] = field1(c)
    elif t == FLY:
        pub[P_POS + a] = field1(c)
        pub[P_FLIGHT_USED] = 1
    elif t == NAV:
        pub[P_POS + field1(c)] = field2(c)
    elif t == SHORE:
        pub[P_FLOODED] &= ~(1 << field1(c))
    elif t == SHORE2:
        pub[P_FLOODED] &= ~((1 << field1(c)) | (1 << field2(c)))
    elif t == GIVE:
        k = field1(c)
        p = field2(c)
        pub[hand_at(a, k)] -= 1
        pub[hand_at(p, k)] += 1
        return p
    elif t == CAPTURE:
        k = field1(c)
        pub[hand_at(a, k)] -= pub[P_CFG + C_CAPTURE]
        pub[P_TDISC + k] += pub[P_CFG + C_CAPTURE]
        pub[P_CAPTURED] |= 1 << k
    return -1


