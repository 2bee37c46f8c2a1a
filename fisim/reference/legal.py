"""The legal options at each decision point, as sorted lists of option codes (docs/model.md).

Codes are packed by fisim.rules.options.code, with the types and fields given there.
"""
from typing import NamedTuple

from fisim.reference import powers
from fisim.rules.constants import DIVER, ENGINEER, HELI, MESSENGER, N_TREASURES, NAVIGATOR, PILOT, SAND
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
    unpack,
)


class Decision(NamedTuple):
    """A decision point: its kind (fisim.rules.options), the deciding seat, the sunk cell (swim);
    for LIFT_DEST, the pending lift (the LIFT option chosen) and the kind it was chosen at."""

    kind: int
    seat: int
    sunk: int = -1
    lift: int = 0
    lift_from: int = -1


def options(game, decision):
    """All legal options of a decision, ascending."""
    kind, seat, sunk, lift, _ = decision
    if kind == ACTION:
        found = action_options(game) + special_options(game, holders=range(len(game.players)))
        found.append(code(END))
    elif kind == WINDOW:
        found = special_options(game, holders=range(len(game.players)))
        found.append(code(PASS))
    elif kind == DISCARD:
        found = discard_options(game, seat) + special_options(game, holders=(seat,))
    elif kind == SWIM:
        found = swim_options(game, seat, sunk)
    elif kind == LIFT_DEST:
        found = [code(LIFT_TO, d) for d in lift_destinations(game, unpack(lift)[2])]
    else:
        raise ValueError(f"unknown decision kind {kind}")
    return sorted(found)


# --- the active player's actions (R-TURN, 1 action each) -------------------------------------

def action_options(game):
    """MOVE, FLY, DIVE, NAV, SHORE, SHORE2, GIVE and CAPTURE options of the active player."""
    board, me = game.board, game.players[game.active]
    found = [code(MOVE, d) for d in powers.step_cells(board, me.role, me.cell)]      # R-ACT-MOVE
    if me.role == PILOT and not game.flight_used:                                    # R-ROLE-PILOT
        found += [code(FLY, d) for d in powers.flight_cells(board, me.cell)]
    if me.role == DIVER:                                                             # R-ROLE-DIVER
        found += [code(DIVE, d) for d in powers.dive_cells(board, me.cell, game.dive_through)]
    if me.role == NAVIGATOR:                                                         # R-ROLE-NAVIGATOR
        for other in game.players:
            if other is not me:
                ends = powers.navigated_cells(board, other.role, other.cell, game.nav_plain)
                found += [code(NAV, other.seat, d) for d in ends]
    shore = sorted(powers.shore_cells(board, me.role, me.cell))                     # R-ACT-SHORE
    found += [code(SHORE, x) for x in shore]
    if me.role == ENGINEER:                                                          # R-ROLE-ENGINEER
        found += [code(SHORE2, a, b) for i, a in enumerate(shore) for b in shore[i + 1:]]
    for other in game.players:                                                       # R-ACT-GIVE
        if other is not me and (me.role == MESSENGER or other.cell == me.cell):     # R-ROLE-MESSENGER
            found += [code(GIVE, k, other.seat) for k in range(N_TREASURES) if me.hand[k] > 0]
    for t in range(N_TREASURES):                                                     # R-ACT-CAPTURE
        if t not in game.captured and me.hand[t] >= game.config.capture and game.board.tile_at[me.cell] // 2 == t:
            found.append(code(CAPTURE, t))
    return found


# --- special cards, played by their holder at any time (R-SPECIAL-1) --------------------------

def special_options(game, holders):
    """HELI and SAND options of the given seats (R-SPECIAL-HELI, R-SPECIAL-SAND)."""
    found = []
    heli_holders = [h for h in holders if game.players[h].hand[HELI] > 0]
    if heli_holders:
        found += [code(LIFT, h, m) for h in heli_holders for m in heli_groups(game)]
    sand_holders = [h for h in holders if game.players[h].hand[SAND] > 0]
    if sand_holders:
        flooded = game.board.flooded()
        found += [code(SANDBAG, h, x) for h in sand_holders for x in flooded]
    return found


def pawns_by_cell(game):
    """{cell: bitmask of the seats standing there}."""
    at = {}
    for p in game.players:
        at[p.cell] = at.get(p.cell, 0) | (1 << p.seat)
    return at


def submasks(mask):
    """Every non-empty subset of a bitmask."""
    sub = mask
    while sub:
        yield sub
        sub = (sub - 1) & mask


def heli_groups(game):
    """The pawn masks a Helicopter Lift can carry (R-SPECIAL-HELI): one or more pawns standing on
    one cell (switch heli-all: exactly all the pawns on it), if they have somewhere to go."""
    groups = []
    for here in pawns_by_cell(game).values():
        groups += [m for m in ((here,) if game.heli_all else submasks(here)) if lift_destinations(game, m)]
    return groups


def lift_destinations(game, seats):
    """Where a Helicopter Lift of the pawns `seats` (on one cell) lands: any existing cell but
    theirs (for swimmers, their cell has sunk)."""
    here = next(p.cell for p in game.players if seats >> p.seat & 1)
    return [d for d in game.board.existing() if d != here]


# --- hand limit (R-HAND) ----------------------------------------------------------------------

def discard_options(game, seat):
    """DROP k for each kind the player over the hand limit holds (specials are listed separately)."""
    hand = game.players[seat].hand
    return [code(DROP, k) for k in range(len(hand)) if hand[k] > 0]


# --- swimming (R-SWIM-1..3) -------------------------------------------------------------------

def swim_options(game, seat, sunk):
    """SWIM_TO each destination of the swimmer, plus Helicopter Lift rescues.

    A rescue (R-SPECIAL-WINDOWS, unless switch no-heli-rescue) lifts a set of pawns still on the
    sunk cell that contains the swimmer (heli-all: all of them) to any existing cell. A swimmer
    with no destination also has PASS: nobody lifts it and it drowns (R-SWIM-3).
    """
    swimmer = game.players[seat]
    found = [code(SWIM_TO, d) for d in powers.swim_cells(game.board, swimmer.role, sunk, game.swim000, game.swim001)]
    if not found:
        found.append(code(PASS))
    if game.heli_rescue:
        holders = [p.seat for p in game.players if p.hand[HELI] > 0]
        if holders:
            here = pawns_by_cell(game).get(sunk, 0)
            groups = (here,) if game.heli_all else [m for m in submasks(here) if m >> seat & 1]
            found += [code(LIFT, h, m) for h in holders for m in groups if lift_destinations(game, m)]
    return found
