"""How much each tile matters: what the team loses if it sinks (R-LOSE: Fools' Landing and the last
temple of a treasure not yet captured lose the game), shared by the heuristic policies.
"""
from fisim.jit.modes import compiled
from fisim.rules import view
from fisim.rules.constants import FOOLS_LANDING, N_TREASURES
from fisim.rules.state import orth, popcount
from fisim.rules.view import N_CELLS

LOSS = 10000.0        # a tile whose sinking loses the game
TEMPLE_TWIN_FLOODED = 1500.0    # a temple still needed whose twin is flooded ...
TEMPLE_TWIN_DRY = 450.0         # ... or dry
FL_ACCESS = 240.0     # a tile next to Fools' Landing, shared among its neighbours
TEMPLE_ACCESS = 90.0  # a tile next to a temple still needed, shared among its neighbours


@compiled(counted=False)
def tile_importance(pub, cell, captured, base):
    """How much the team loses if the tile on `cell` sinks: the game for Fools' Landing or the
    last temple of an uncaptured treasure (R-LOSE), a lot for a temple whose twin is flooded, less
    for one whose twin is dry, `base` for any other tile."""
    t = view.tile_at(pub, cell)
    if t == FOOLS_LANDING:
        return LOSS
    if t < 2 * N_TREASURES and not (captured >> (t >> 1)) & 1:
        twin = view.cell_of(pub, t ^ 1)
        status = view.tile_status(pub, twin)
        if status == view.SUNK:
            return LOSS
        if status == view.FLOODED:
            return TEMPLE_TWIN_FLOODED
        return TEMPLE_TWIN_DRY
    # the tiles that give access to Fools' Landing and to the temples still needed
    v = base
    nb = orth(pub, cell)
    fl = view.fools_landing(pub)
    ex = view.existing_cells(pub)
    if (nb >> fl) & 1:
        v += FL_ACCESS / max(1, popcount(orth(pub, fl) & ex))
    for tt in range(N_TREASURES):
        if not (captured >> tt) & 1:
            for j in range(2):
                tc = view.cell_of(pub, 2 * tt + j)
                if (nb >> tc) & 1 and (ex >> tc) & 1:
                    v += TEMPLE_ACCESS / max(1, popcount(orth(pub, tc) & ex))
    return v


@compiled(counted=False)
def best_flooded(pub, captured):
    """The flooded cell that matters most (importance), or -1."""
    flooded = view.flooded_cells(pub) & view.existing_cells(pub)
    best = -1
    bv = -1.0
    for c in range(N_CELLS):
        if (flooded >> c) & 1:
            v = tile_importance(pub, c, captured, 50.0)
            if v > bv:
                bv = v
                best = c
    return best
