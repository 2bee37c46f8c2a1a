"""What a policy reads, by name: jitted accessors over the public record `pub` (R-INFO).

A policy's `decide(pub, options, n, mem, rng)` may use these instead of the raw offsets of
fisim.rules.state. Each is inlined (Numba copies it into its caller: it costs nothing over the
offsets when playing, and less to compile than a function of its own); flood_draw_mask, a loop, is
compiled once instead. Cells are layout cells 0..23, seats 0..players-1, tiles, treasures and card
kinds the ids of fisim.rules.constants.
Option codes are read with fisim.rules.options (`otype`, `field1..3`, the type constants).
docs/policies.md is the policy author's guide.
"""
from fisim.jit.modes import compiled, inlined
from fisim.rules.config import C_CAPTURE, C_DECK, C_FLOODS, C_HAND_LIMIT, C_SKULL, C_SUNK_CARD_STAYS

# re-exported, so that a policy needs no other module: the ids it compares with, and the
# helpers that walk a cell bitmask
from fisim.rules.constants import (  # noqa: F401
    DIVER,
    ENGINEER,
    EXPLORER,
    FOOLS_LANDING,
    HELI,
    MESSENGER,
    N_TILES,
    N_TREASURES,
    NAVIGATOR,
    PILOT,
    SAND,
    SKULL,
    WATERS_RISE,
)
from fisim.rules.state import (  # noqa: F401
    ALL_CELLS,
    P_ACTIONS_LEFT,
    P_ACTIVE,
    P_CAPTURED,
    P_CELL_OF,
    P_CFG,
    P_DECIDER,
    P_DECISION,
    P_EXISTS,
    P_FDISC,
    P_FDRAW_N,
    P_FLAYER,
    P_FLIGHT_USED,
    P_FLOODED,
    P_LEVEL,
    P_LIFT,
    P_LIFT_FROM,
    P_PLAYERS,
    P_POLICY_ARG,
    P_POS,
    P_ROLE,
    P_SUNK_CELL,
    P_TDISC,
    P_TDRAW_COUNT,
    P_TDRAW_N,
    P_TILE_AT,
    P_TURN,
    diag,
    hand_at,
    hand_size,
    low_bit,
    orth,
    popcount,
)

DRY, FLOODED, SUNK = 0, 1, 2      # tile_status
N_CELLS = N_TILES                 # cells 0..N_CELLS-1; a cell bitmask has one bit per cell


# --- the decision being asked ---

@inlined
def decision(pub):
    """The decision kind (fisim.rules.options ACTION, WINDOW, DISCARD, SWIM, LIFT_DEST)."""
    return pub[P_DECISION]


@inlined
def policy_arg(pub):
    """The parameter the policy was named with (search:32: 32), 0 for a policy without one."""
    return pub[P_POLICY_ARG]


@inlined
def decider(pub):
    """The seat deciding: the active player, the discarding player, the swimmer or, at a
    LIFT_DEST decision, the holder of the Helicopter Lift."""
    return pub[P_DECIDER]


@inlined
def sunk_cell(pub):
    """At a SWIM decision, the cell that sank under the swimmer."""
    return pub[P_SUNK_CELL]


@inlined
def pending_lift(pub):
    """At a LIFT_DEST decision: the LIFT option chosen (field1 the holder, field2 the bitmask of
    the seats it carries), whose destination is asked; 0 at any other decision."""
    return pub[P_LIFT]


@inlined
def lift_chosen_at(pub):
    """At a LIFT_DEST decision: the decision kind the pending lift was chosen at (a SWIM one: a
    rescue)."""
    return pub[P_LIFT_FROM]


# --- players and their hands ---

@inlined
def players(pub):
    return pub[P_PLAYERS]


@inlined
def active(pub):
    """The seat whose turn it is."""
    return pub[P_ACTIVE]


@inlined
def actions_left(pub):
    return pub[P_ACTIONS_LEFT]


@inlined
def flight_used(pub):
    """True once the Pilot has flown this turn (R-ROLE-PILOT)."""
    return pub[P_FLIGHT_USED] != 0


@inlined
def turn(pub):
    """Player turns begun so far."""
    return pub[P_TURN]


@inlined
def role(pub, seat):
    """The adventurer of a seat (fisim.rules.constants DIVER..PILOT)."""
    return pub[P_ROLE + seat]


@inlined
def position(pub, seat):
    """The cell a seat's pawn stands on."""
    return pub[P_POS + seat]


@inlined
def cards(pub, seat, kind):
    """How many cards of a kind (treasures 0..3, HELI, SAND) a seat holds."""
    return pub[hand_at(seat, kind)]


@inlined
def cards_in_hand(pub, seat):
    return hand_size(pub, seat)


@inlined
def hand_limit(pub):
    """5 in the official rules (R-HAND); 7 solo; a variant's."""
    return pub[P_CFG + C_HAND_LIMIT]


@inlined
def capture_cards(pub):
    """Matching cards a capture discards: 4 in the official rules (R-ACT-CAPTURE); a variant's."""
    return pub[P_CFG + C_CAPTURE]


@inlined
def deck_cards(pub, kind):
    """Cards of a kind in the whole treasure deck (R-TDECK: 5 per treasure, 3 HELI, 2 SAND, 3
    WATERS_RISE); a variant's."""
    return pub[P_CFG + C_DECK + kind]


# --- the island ---

@inlined
def tile_at(pub, cell):
    """The tile id on a cell (fixed for a game)."""
    return pub[P_TILE_AT + cell]


@inlined
def cell_of(pub, tile):
    """The cell of a tile id (fixed for a game)."""
    return pub[P_CELL_OF + tile]


@inlined
def fools_landing(pub):
    """The cell of Fools' Landing."""
    return pub[P_CELL_OF + FOOLS_LANDING]


@inlined
def temple_cells(pub, treasure):
    """Bitmask of the cells of a treasure's two temples that have not sunk (R-ACT-CAPTURE)."""
    both = (1 << pub[P_CELL_OF + 2 * treasure]) | (1 << pub[P_CELL_OF + 2 * treasure + 1])
    return both & pub[P_EXISTS]


@inlined
def tile_status(pub, cell):
    """DRY, FLOODED or SUNK."""
    if not (pub[P_EXISTS] >> cell) & 1:
        return SUNK
    return FLOODED if (pub[P_FLOODED] >> cell) & 1 else DRY


@inlined
def existing_cells(pub):
    """Bitmask of the cells whose tile has not sunk."""
    return pub[P_EXISTS]


@inlined
def flooded_cells(pub):
    """Bitmask of the cells whose tile is flooded."""
    return pub[P_FLOODED]


@inlined
def neighbours(pub, cell, diagonal):
    """Bitmask of a cell's orthogonal island neighbours, with the diagonal ones if asked (sunk
    cells included: mask with existing_cells)."""
    m = orth(pub, cell)
    if diagonal:
        m |= diag(pub, cell)
    return m


@inlined
def captured(pub, treasure):
    return (pub[P_CAPTURED] >> treasure) & 1 == 1


@inlined
def captured_mask(pub):
    return pub[P_CAPTURED]


# --- the water meter and the piles (their sizes and contents, never their order) ---

@inlined
def water_level(pub):
    """1..skull (R-METER)."""
    return pub[P_LEVEL]


@inlined
def skull(pub):
    """The skull's position on the water meter: 10 in the official rules (R-METER); a variant's."""
    return pub[P_CFG + C_SKULL]


@inlined
def flood_draws(pub):
    """Flood cards drawn at the current water level."""
    level = pub[P_LEVEL]
    return flood_draws_at(pub, level) if level < pub[P_CFG + C_SKULL] else 0


@inlined
def flood_draws_at(pub, level):
    """Flood cards drawn at a water level below the skull (R-METER); a variant's."""
    return pub[P_CFG + C_FLOODS + level]


@inlined
def treasure_pile_size(pub):
    return pub[P_TDRAW_N]


@inlined
def treasure_pile_count(pub, kind):
    """Cards of a kind (Waters Rise! included) in the treasure draw pile."""
    return pub[P_TDRAW_COUNT + kind]


@inlined
def treasure_discard_count(pub, kind):
    return pub[P_TDISC + kind]


@inlined
def flood_pile_size(pub):
    return pub[P_FDRAW_N]


@inlined
def in_flood_discard(pub, tile):
    return (pub[P_FDISC] >> tile) & 1 == 1


@inlined
def flood_discard_mask(pub):
    """Bitmask of the tile ids whose flood card is in the flood discard."""
    return pub[P_FDISC]


@inlined
def flood_layer(pub, tile):
    """For a card in the flood draw pile: the number of the Waters Rise! that put it back on top
    (higher lies above; 0: unknown position) (R-DRAW-WR)."""
    return pub[P_FLAYER + tile]


@compiled(counted=False)
def flood_draw_mask(pub):
    """Bitmask of the tile ids whose flood card is in the flood draw pile (R-INFO: its contents are
    public, its order is not): every tile's card but those in the flood discard and, unless switch
    sunk-card-stays keeps them in the deck, those of the sunk tiles (R-FLOOD-1)."""
    m = ALL_CELLS & ~pub[P_FDISC]          # tile ids 0..23, like cells
    if pub[P_CFG + C_SUNK_CARD_STAYS] == 0:
        sunk = ALL_CELLS & ~pub[P_EXISTS]
        while sunk:
            m &= ~(1 << pub[P_TILE_AT + low_bit(sunk)])
            sunk &= sunk - 1
    return m
