"""Distances on the island as each adventurer moves (R-ACT-MOVE and the roles' powers): the fewest
actions from every cell to a set of cells, where a tile can be shored up from, and the Pilot's
flight. What the heuristic policies (greedy, the evaluation) measure a plan in. Read from the
public record only (R-INFO).
"""
from fisim.jit.modes import compiled, inlined
from fisim.rules import view
from fisim.rules.actions import dive_through
from fisim.rules.actions import spread as spread_orth
from fisim.rules.constants import DIVER, EXPLORER, PILOT
from fisim.rules.state import diag, low_bit, orth
from fisim.rules.view import N_CELLS

BIG = 99              # "unreachable" in a distance field


@inlined
def spread_all(pub, cells):
    """Orthogonal and diagonal neighbours of `cells` (the Explorer's step)."""
    out = 0
    while cells:
        c = low_bit(cells)
        out |= orth(pub, c) | diag(pub, c)
        cells &= cells - 1
    return out


@compiled(counted=False)
def field(pub, targets, role, out):
    """out[c] = the fewest actions a pawn of `role` on cell c needs to stand on one of `targets`
    (R-ACT-MOVE; Explorer diagonal, Diver through flooded/sunk cells as the switches allow; the
    Pilot walks here: pilot_cap gives his flight). BIG if it cannot get there."""
    exists = view.existing_cells(pub)
    for c in range(N_CELLS):
        out[c] = BIG
    frontier = targets & exists
    seen = frontier
    through = dive_through(pub)
    d = 0
    while frontier:
        m = frontier
        while m:
            out[low_bit(m)] = d
            m &= m - 1
        if role == EXPLORER:
            nxt = spread_all(pub, frontier)
        else:
            nxt = spread_orth(pub, frontier)
            if role == DIVER:          # R-ROLE-DIVER: one action through flooded and/or sunk cells
                t = nxt & through
                reach = t
                while t:
                    t = spread_orth(pub, t) & through & ~reach
                    reach |= t
                nxt |= spread_orth(pub, reach)
        nxt &= exists & ~seen
        seen |= nxt
        frontier = nxt
        d += 1


@inlined
def shore_set(pub, cell, role):
    """The cells from which `role` can shore up `cell` (R-ACT-SHORE; Explorer diagonal too)."""
    m = orth(pub, cell) | (1 << cell)
    if role == EXPLORER:
        m |= diag(pub, cell)
    return m & view.existing_cells(pub)


@inlined
def pilot_cap(pos, seat, d):
    """d, the actions `seat` needs to get somewhere in position `pos`; 1 for a Pilot whose flight
    is unused this turn (R-ROLE-PILOT; only the active player can have used it)."""
    if view.role(pos, seat) == PILOT and d > 1 and not (seat == view.active(pos) and view.flight_used(pos)):
        return 1
    return d
