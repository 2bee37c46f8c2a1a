"""The fixed-size game record: offsets into two int32 arrays, and the context the engine passes.

`pub` holds everything a player may see (R-INFO): the board, pawns, hands, discards, the sizes and
contents (as counts) of the draw piles, which flood cards were put back on top, the meter and the
decision being asked. `hid` holds the order of the two draw piles, which only the engine reads;
policies are given `pub` alone, so they cannot read the hidden order.
"""
from collections import namedtuple

import numpy as np
from numba import njit

from fisim.rules.constants import N_HAND_KINDS, N_TILES

# pub offsets. Cell sets are bitmasks over cells; FDISC is a bitmask over tile ids.
P_TILE_AT = 0            # 24: tile id on each cell (fixed for a game)
P_CELL_OF = 24           # 24: cell of each tile id
P_EXISTS = 48            # cells whose tile has not sunk
P_FLOODED = 49           # cells whose tile is flooded
P_PLAYERS = 50
P_ROLE = 51              # 4: role per seat (-1 for an empty seat)
P_POS = 55               # 4: cell per seat
P_HAND = 59              # 4 x 6: cards per seat and kind
P_CAPTURED = 83          # bitmask of captured treasures
P_LEVEL = 84             # water level 1..10
P_TDRAW_N = 85           # cards in the treasure draw pile
P_TDRAW_COUNT = 86       # 7: of which per kind
P_TDISC = 93             # 7: treasure discard per kind
P_FDRAW_N = 100          # cards in the flood draw pile
P_FDISC = 101            # bitmask of tile ids in the flood discard
P_FLAYER = 102           # 24 per tile id: for a card in the flood draw pile, the number of the
                         # Waters Rise! that put it on top (0: unknown); higher layers lie above
P_LAYER_TOP = 126        # the newest such number
P_TURN = 127             # player turns begun
P_ACTIVE = 128
P_ACTIONS_LEFT = 129
P_FLIGHT_USED = 130
P_DECISION = 131         # decision kind being asked (fisim.rules.options)
P_DECIDER = 132          # seat deciding: active (action, window), discarding player, swimmer
P_SUNK_CELL = 133        # the cell that sank (swim decisions)
P_STATUS = 134           # PLAYING, WON, LOST, ERROR
P_CONDITIONS = 135       # loss conditions mask (fisim.rules.constants)
P_CAUSE = 136            # primary cause bit
P_SUNK_COUNT = 137
P_FIRST = 138
P_ERROR = 139            # 1 + decision kind at which the policy chose an illegal index
P_SIZE = 140

PLAYING, WON, LOST, ERROR = 0, 1, 2, 3

# hid offsets: piles, the last card on top.
H_TPILE = 0              # 28 treasure-card kinds
H_FPILE = 28             # 24 flood-card tile ids
H_SIZE = 52

MEM_SIZE = 64            # per-game scratch memory a policy may keep between decisions
ALL_CELLS = (1 << N_TILES) - 1

# What the engine's functions share. `log` and `declog` are int32 buffers whose element 0 counts
# the ints used; a buffer of size 1 records nothing.
Ctx = namedtuple("Ctx", "pub hid geo cfg rng opts mem log declog")


@njit(cache=True, inline="always")
def hand_at(s, k):
    """Offset of seat s's count of card kind k in pub."""
    return P_HAND + s * N_HAND_KINDS + k


@njit(cache=True)
def hand_size(pub, s):
    n = 0
    for k in range(N_HAND_KINDS):
        n += pub[hand_at(s, k)]
    return n


@njit(cache=True)
def holders_mask(pub, kind):
    """Bitmask of the seats that hold at least one card of `kind`."""
    m = 0
    for s in range(pub[P_PLAYERS]):
        if pub[hand_at(s, kind)] > 0:
            m |= 1 << s
    return m


@njit(cache=True)
def popcount(m):
    n = 0
    while m:
        m &= m - 1
        n += 1
    return n


@njit(cache=True)
def log_event(log, code, a, b, c):
    i = log[0]
    if i + 4 < log.shape[0]:
        log[i + 1] = code
        log[i + 2] = a
        log[i + 3] = b
        log[i + 4] = c
        log[0] = i + 4


def new_buffers(log_size=1, declog_size=1):
    """Fresh per-game arrays (everything but geometry and config) for one game."""
    from fisim.rules.options import MAX_OPTIONS
    from fisim.rules.rng import N_STREAMS
    return (np.zeros(P_SIZE, np.int32), np.zeros(H_SIZE, np.int32), np.zeros(N_STREAMS, np.uint64),
            np.zeros(MAX_OPTIONS, np.int32), np.zeros(MEM_SIZE, np.int32),
            np.zeros(log_size, np.int32), np.zeros(declog_size, np.int32))


