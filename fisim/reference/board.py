"""The island: which tile lies on each cell, its neighbours, and whether it is dry, flooded or sunk.

Cells are the layout's 24 island cells numbered row-major (R-LAYOUT-2, docs/model.md
"Positions"). A cell *exists* while its tile has not sunk (R-TILES).
"""
from functools import lru_cache

from fisim.position import DRY, FLOODED, SUNK
from fisim.rules.constants import N_TILES

ORTHOGONAL = ((-1, 0), (1, 0), (0, -1), (0, 1))
DIAGONAL = ((-1, -1), (-1, 1), (1, -1), (1, 1))


@lru_cache(maxsize=None)
def neighbours(layout):
    """(orthogonal, diagonal) neighbour lists per cell, among the layout's island cells (R-LAYOUT-2)."""
    index = {rc: i for i, rc in enumerate(layout.cells)}

    def around(r, c, steps):
        return tuple(sorted(index[(r + dr, c + dc)] for dr, dc in steps if (r + dr, c + dc) in index))

    orth = tuple(around(r, c, ORTHOGONAL) for r, c in layout.cells)
    diag = tuple(around(r, c, DIAGONAL) for r, c in layout.cells)
    return orth, diag


class Board:
    """The tiles on a layout's cells and their state (R-TILES, R-LAYOUT-2)."""

    __slots__ = ("layout", "tile_at", "cell_of_tile", "status", "orth", "around")

    def __init__(self, layout, tile_at, status=None):
        self.layout = layout
        self.tile_at = list(tile_at)
        self.cell_of_tile = [0] * N_TILES
        for cell, tile in enumerate(self.tile_at):
            self.cell_of_tile[tile] = cell
        self.status = list(status) if status is not None else [DRY] * len(self.tile_at)
        orth, diag = neighbours(layout)
        self.orth = orth                                               # R-ACT-MOVE
        self.around = tuple(tuple(sorted(o + d)) for o, d in zip(orth, diag))  # R-ROLE-EXPLORER

    def exists(self, cell):
        """A cell exists while its tile has not sunk."""
        return self.status[cell] != SUNK

    def is_flooded(self, cell):
        return self.status[cell] == FLOODED

    def existing(self):
        """All cells whose tile has not sunk, ascending."""
        return [c for c, s in enumerate(self.status) if s != SUNK]

    def flooded(self):
        """All flooded cells, ascending."""
        return [c for c, s in enumerate(self.status) if s == FLOODED]

    def neighbours(self, cell, diagonal=False):
        """Orthogonal neighbours of a cell (and diagonal ones when asked), sunk or not."""
        return self.around[cell] if diagonal else self.orth[cell]

    def sunk_count(self):
        return sum(1 for s in self.status if s == SUNK)
