"""Island layouts (R-LAYOUT-1..4): the built-in shapes, the text-file parser and the geometry.

A layout is a grid of `#` (a cell that holds a tile) and `.` (sea). Its 24 island cells are
numbered 0..23 in row-major order; everything positional in fisim (pawns, options, masks,
transcripts) is a cell number. Geometry is precomputed once per layout as bitmasks over cells.
"""
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from fisim.errors import ConfigError
from fisim.rules.constants import N_TILES

_SHAPES = {
    # R-LAYOUT-1
    "standard": """
..##..
.####.
######
######
.####.
..##..""",
    # R-LAYOUT-3
    "skull-island": """
######
#.##.#
######
.####.
.####.""",
    "harpoon-hideout": """
####..
###...
####.#
#.####
...###
..####""",
    "atoll-of-decisions-card": """
..###..
.#####.
##...##
##...##
.#####.
..###..""",
    "bay-of-gulls": """
...##...
...##...
#..##..#
########
.######.
...##...""",
    "shipwreck-bay": """
########
##.##.##
.##..##.
.######.""",
    "palm-springs": """
..###..
#######
.#.#.#.
...#...
.#####.
.#####.""",
    "mutiny-towers": """
#.....#
#.....#
#.....#
##...##
#######
#######""",
    "davy-jones-locker": """
....#....
.####....
###.####.
.####.###
....####.
....#....""",
    "treasure-island": """
##...##
.#####.
..###..
..###..
.#####.
##...##""",
    "island-of-shadows": """
######
######
######
######""",
    "volcano-island": """
#####
#####
##.##
#####
#####""",
    "island-of-death": """
..###..
#######
.#####.
..###..
..###..
..###..""",
    "bone-island": """
.##..##.
########
########
.##..##.""",
    "coral-reef": """
.##....
####...
######.
.######
...####
....##.""",
    "bridge-of-horrors": """
###...####
##########
####...###""",
    "atoll-of-decisions-arena": """
..###..
.##.##.
##...##
#.....#
##...##
.##.##.
..###..""",
    "arch-of-fate": """
...###...
..#####..
.###.###.
###...###
##.....##""",
}

BUILTIN_NAMES = tuple(_SHAPES)


class LayoutError(ConfigError):
    """A layout name or file that fisim cannot use; the message says what and where."""


@dataclass(frozen=True)
class Layout:
    """One island shape. `rows` are strings of '#' and '.', all of the same width."""

    name: str
    rows: tuple

    @cached_property
    def cells(self):
        """(row, col) of each island cell, in cell-number order (row-major)."""
        return tuple((r, c) for r, line in enumerate(self.rows) for c, ch in enumerate(line) if ch == "#")

    @cached_property
    def geometry(self):
        """int32[24, 2]: per cell, the bitmask of its orthogonal and of its diagonal neighbours."""
        index = {rc: i for i, rc in enumerate(self.cells)}
        geo = np.zeros((len(self.cells), 2), dtype=np.int32)
        for i, (r, c) in enumerate(self.cells):
            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                j = index.get((r + dr, c + dc))
                if j is not None:
                    geo[i, 0] |= 1 << j
            for dr, dc in ((-1, -1), (-1, 1), (1, -1), (1, 1)):
                j = index.get((r + dr, c + dc))
                if j is not None:
                    geo[i, 1] |= 1 << j
        return geo

    @cached_property
    def connected(self):
        """True when the cells form one orthogonally connected island (R-LAYOUT-4 reports it)."""
        geo = self.geometry
        seen, frontier = 1, 1
        while frontier:
            grown = 0
            for i in range(len(self.cells)):
                if frontier >> i & 1:
                    grown |= int(geo[i, 0])
            frontier = grown & ~seen
            seen |= grown
        return seen == (1 << len(self.cells)) - 1

    def draw(self, labels=None):
        """The grid as text; `labels` (one short string per cell) replaces the '#' marks."""
        width = max(len(s) for s in labels) if labels else 1
        cell_of = {rc: i for i, rc in enumerate(self.cells)}
        lines = []
        for r, line in enumerate(self.rows):
            out = []
            for c, ch in enumerate(line):
                i = cell_of.get((r, c))
                if i is None:
                    out.append("." * width if labels else ".")
                else:
                    out.append(labels[i].ljust(width) if labels else "#")
            lines.append((" " if labels else "").join(out).rstrip())
        return "\n".join(lines)


def parse_layout(text, name="custom"):
    """Parse R-LAYOUT-4 notation. Raises LayoutError naming the line and column of a problem."""
    lines = text.splitlines()
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    count = 0
    for ln, line in enumerate(lines, start=1):
        for col, ch in enumerate(line.rstrip(), start=1):
            if ch not in "#.":
                raise LayoutError(
                    f"layout {name}: line {ln}, column {col}: {ch!r} is not allowed; "
                    "use '#' for a tile and '.' for sea")
            if ch == "#":
                count += 1
                if count == N_TILES + 1:
                    raise LayoutError(
                        f"layout {name}: line {ln}, column {col}: cell 25; a layout needs exactly 24 '#' cells")
    if count != N_TILES:
        where = f"line {len(lines)}" if lines else "line 1"
        raise LayoutError(f"layout {name}: {where}: ends with {count} '#' cells; a layout needs exactly 24")
    width = max(len(line.rstrip()) for line in lines)
    return Layout(name, tuple(line.rstrip().ljust(width, ".") for line in lines))


def builtin_layout(name):
    """A built-in layout by its kebab-case name."""
    if name not in _SHAPES:
        raise LayoutError(f"unknown layout {name!r}; choose one of: {', '.join(BUILTIN_NAMES)}, or a layout file")
    return parse_layout(_SHAPES[name], name)


def load_layout(name_or_path):
    """A built-in layout by name, or a layout file (R-LAYOUT-4) by path."""
    if name_or_path in _SHAPES:
        return builtin_layout(name_or_path)
    path = Path(name_or_path)
    if path.exists() and not path.is_file():    # a FIFO would block, a device never end (as for variant files)
        raise LayoutError(f"layout file {path} is not a regular file")
    if not path.is_file():
        return builtin_layout(name_or_path)   # raises the "unknown layout" message
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise LayoutError(f"layout file {path}: cannot be read ({exc.__class__.__name__})") from None
    return parse_layout(text, path.stem)
