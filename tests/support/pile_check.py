"""A test policy: `random`, which at every decision first compares what view.flood_draw_mask reads
from pub with the engine's hidden flood draw pile, and counts in its memory (MEM_*): decisions
checked, mismatches, and sunk tiles' cards found in the pile. It reads the hidden pile, so it must
be handed the piles as a clairvoyant reference is (tests/test_engine_games.py); else it raises."""
from numba import njit

from fisim.rules.constants import N_TILES
from fisim.rules.rng import randbelow
from fisim.rules.state import H_FPILE, P_CELL_OF, P_EXISTS, P_FDRAW_N, P_SIZE, SEEN_DECKS, popcount
from fisim.rules.view import flood_draw_mask

NAME = "pile-check"
VERSION = 1
MEM_CHECKS, MEM_WRONG, MEM_SUNK_IN_PILE = 0, 1, 2


@njit
def decide(pub, options, n, mem, rng):
    if pub.shape[0] < SEEN_DECKS:
        raise ValueError("pile-check is not handed the hidden piles")
    size = pub[P_FDRAW_N]
    hidden = 0
    for i in range(size):
        hidden |= 1 << pub[H_FPILE + i]
    mem[MEM_CHECKS] += 1
    if flood_draw_mask(pub[:P_SIZE]) != hidden or popcount(hidden) != size:
        mem[MEM_WRONG] += 1
    for t in range(N_TILES):
        if (hidden >> t) & 1 and not (pub[P_EXISTS] >> pub[P_CELL_OF + t]) & 1:
            mem[MEM_SUNK_IN_PILE] += 1
    return randbelow(rng, n)
