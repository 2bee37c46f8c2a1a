"""A test policy: the `random` policy that first checks the game's invariants on the public
record at every decision (R-TDECK, R-FDECK, R-METER, R-SWIM-3, R-HAND, as the switches read them)
and makes an illegal choice (-1, which the engine reports as an error) when one is broken."""
from numba import njit

from fisim.rules.config import C_HAND_AFTER_DRAW, C_HAND_LIMIT, C_SUNK_CARD_STAYS
from fisim.rules.constants import DECK_COUNTS, N_HAND_KINDS, N_KINDS, N_TILES
from fisim.rules.options import DISCARD, LIFT_DEST, SWIM, WINDOW
from fisim.rules.rng import randbelow
from fisim.rules.state import (
    P_ACTIVE,
    P_CELL_OF,
    P_CFG,
    P_DECIDER,
    P_DECISION,
    P_EXISTS,
    P_FDISC,
    P_FDRAW_N,
    P_FLOODED,
    P_LEVEL,
    P_LIFT_FROM,
    P_PLAYERS,
    P_POS,
    P_SUNK_CELL,
    P_TDISC,
    P_TDRAW_COUNT,
    P_TDRAW_N,
    hand_at,
    hand_size,
    popcount,
)
from fisim.rules.view import flood_draw_mask

NAME = "invariant-random"
VERSION = 1


@njit
def broken(pub, mem):
    """0 when every invariant holds, else the number of the first one broken."""
    players = pub[P_PLAYERS]
    in_pile = 0
    for k in range(N_KINDS):                      # every treasure card in exactly one place
        held = 0
        if k < N_HAND_KINDS:
            for s in range(players):
                held += pub[hand_at(s, k)]
        if pub[P_TDRAW_COUNT + k] < 0 or pub[P_TDRAW_COUNT + k] + pub[P_TDISC + k] + held != DECK_COUNTS[k]:
            return 1
        in_pile += pub[P_TDRAW_COUNT + k]
    if in_pile != pub[P_TDRAW_N]:
        return 2
    exists = pub[P_EXISTS]                        # the flood cards are exactly the unsunk tiles
    stays = pub[P_CFG + C_SUNK_CARD_STAYS] != 0   # (all the tiles: switch sunk-card-stays)
    if pub[P_FDRAW_N] + popcount(pub[P_FDISC]) != (N_TILES if stays else popcount(exists)):
        return 3
    if popcount(flood_draw_mask(pub)) != pub[P_FDRAW_N]:
        return 9
    disc = pub[P_FDISC]
    t = 0
    while disc:
        if disc & 1 and not stays and not (exists >> pub[P_CELL_OF + t]) & 1:
            return 4
        disc >>= 1
        t += 1
    if pub[P_FLOODED] & ~exists:
        return 5
    decision = pub[P_LIFT_FROM] if pub[P_DECISION] == LIFT_DEST else pub[P_DECISION]
    swimming = decision == SWIM
    # switch hand-after-draw: the active player may be over the limit between two cards drawn
    drawing = pub[P_CFG + C_HAND_AFTER_DRAW] != 0 and decision == WINDOW
    for s in range(players):                      # no pawn on a sunk tile (but the swimmers)
        cell = pub[P_POS + s]
        if not (exists >> cell) & 1 and not (swimming and cell == pub[P_SUNK_CELL]):
            return 6
        if (hand_size(pub, s) > pub[P_CFG + C_HAND_LIMIT] and not (decision == DISCARD and pub[P_DECIDER] == s)
                and not (drawing and s == pub[P_ACTIVE])):
            return 7
    if pub[P_LEVEL] < mem[0] or pub[P_LEVEL] >= 10:   # the meter never falls; skull ends the game
        return 8
    mem[0] = pub[P_LEVEL]
    return 0


@njit
def decide(pub, options, n, mem, rng):
    if broken(pub, mem):
        return -1
    return randbelow(rng, n)
