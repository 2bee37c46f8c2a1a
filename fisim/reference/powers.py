"""Where a pawn may go or shore up: plain movement and the adventurers' powers.

Each function returns a set of cells; the option lists in `legal.py` turn them into codes.
"""
from fisim.rules.constants import DIVER, EXPLORER, PILOT


def step_cells(board, role, cell):
    """R-ACT-MOVE: existing orthogonal neighbours; R-ROLE-EXPLORER: diagonal ones too."""
    return {d for d in board.neighbours(cell, role == EXPLORER) if board.exists(d)}


def shore_cells(board, role, cell):
    """R-ACT-SHORE: the flooded tile under the pawn or next to it (R-ROLE-EXPLORER: diagonally too)."""
    near = (cell,) + board.neighbours(cell, role == EXPLORER)
    return {x for x in near if board.is_flooded(x)}


def flight_cells(board, cell):
    """R-ROLE-PILOT: every existing tile but his own."""
    return {d for d in board.existing() if d != cell}


def dive_cells(board, cell, through):
    """R-ROLE-DIVER: existing cells reached through one or more cells whose status is in `through`.

    A path cell -> x1 -> ... -> d of orthogonal steps whose intermediate cells x1... are all
    flooded or sunk (`through` = {FLOODED, SUNK}; switch diver-flooded-only: {FLOODED},
    diver-sunk-only: {SUNK}); the plain-move destinations (paths without an intermediate) are
    left out.
    """
    passable = set()                       # cells the Diver can swim through
    frontier = [x for x in board.orth[cell] if board.status[x] in through]
    passable.update(frontier)
    while frontier:
        x = frontier.pop()
        for y in board.orth[x]:
            if y not in passable and board.status[y] in through:
                passable.add(y)
                frontier.append(y)
    ends = {d for x in passable for d in board.orth[x] if board.exists(d)}
    return ends - {cell} - step_cells(board, DIVER, cell)


def navigated_cells(board, role, cell, plain):
    """R-ROLE-NAVIGATOR: where the Navigator can move a pawn of `role` standing on `cell`.

    One or two steps to existing neighbours. Default: the moved pawn keeps its power — an
    Explorer steps diagonally too, a Diver's intermediate cell may be sunk; the Pilot is moved
    like anyone else. `plain` (switch navigator-plain): orthogonal steps over existing cells.
    """
    diagonal = role == EXPLORER and not plain
    first = set(board.neighbours(cell, diagonal))
    if not (role == DIVER and not plain):
        first = {x for x in first if board.exists(x)}
    ends = {x for x in first if board.exists(x)}
    for x in first:
        ends.update(d for d in board.neighbours(x, diagonal) if board.exists(d))
    ends.discard(cell)
    return ends


def nearest_cells(board, cell):
    """R-SWIM-2 (Diver): the existing cells at the fewest orthogonal steps through island cells.

    Sunk cells count as steps; the sea outside the layout does not. Empty if none is reachable.
    """
    seen = {cell}
    ring = [cell]
    while ring:
        nxt = []
        for x in ring:
            for y in board.orth[x]:
                if y not in seen:
                    seen.add(y)
                    nxt.append(y)
        found = {y for y in nxt if board.exists(y)}
        if found:
            return found
        ring = nxt
    return set()


def swim_cells(board, role, cell, seed000, seed001):
    """R-SWIM-1/2: where a pawn on the sinking `cell` may swim.

    Orthogonal neighbours that exist; the Explorer diagonally too, the Pilot anywhere, the Diver
    to the nearest existing tiles. `seed000` (switch swim-seed000): only the Diver's exception;
    `seed001` (switch swim-seed001): the Diver's and the Explorer's, the Pilot swims like anyone.
    """
    if role == DIVER:
        return nearest_cells(board, cell)
    if role == PILOT and not (seed000 or seed001):
        return flight_cells(board, cell)
    diagonal = role == EXPLORER and not seed000
    return {d for d in board.neighbours(cell, diagonal) if board.exists(d)}
