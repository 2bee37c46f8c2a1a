"""The fixed-size game record: one int32 array per game, with named offsets.

`g[:P_SIZE]` is `pub`, everything a player may see (R-INFO): the island's geometry and the rules
in force, the board, pawns, hands, discards, the sizes and contents (as counts) of the draw
piles, which flood cards were put back on top, the meter and the decision being asked. After it
come the order of the two draw piles (hidden: only the engine reads it), the policy's memory, the
current list of options, a copy of `pub` for the policy, and room for a transcript. Policies are
given that copy alone.

One array (and a small uint64 array of random streams) is all the engine's functions pass
around: every array handed to a compiled function costs reference counting, and with one array
that cost stays small; `uncounted` removes it where games are played in bulk.
"""
import numpy as np
from numba import njit
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.arrayobj import make_array

from fisim.rules.constants import N_HAND_KINDS, N_TILES

# --- pub: geometry and rules (fixed for a game) ---
P_GEO = 0                # 24 x 2: per cell, bitmask of orthogonal, then of diagonal, neighbours
P_CFG = 48               # the config array (fisim.rules.config C_*)
# --- pub: the game ---
P_TILE_AT = 72           # 24: tile id on each cell (fixed for a game)
P_CELL_OF = 96           # 24: cell of each tile id
P_EXISTS = 120           # cells whose tile has not sunk
P_FLOODED = 121          # cells whose tile is flooded
P_PLAYERS = 122
P_ROLE = 123             # 4: role per seat (-1 for an empty seat)
P_POS = 127              # 4: cell per seat
P_HAND = 131             # 4 x 6: cards per seat and kind
P_CAPTURED = 155         # bitmask of captured treasures
P_LEVEL = 156            # water level 1..10
P_TDRAW_N = 157          # cards in the treasure draw pile
P_TDRAW_COUNT = 158      # 7: of which per kind
P_TDISC = 165            # 7: treasure discard per kind
P_FDRAW_N = 172          # cards in the flood draw pile
P_FDISC = 173            # bitmask of tile ids in the flood discard
P_FLAYER = 174           # 24 per tile id: for a card in the flood draw pile, the number of the
                         # Waters Rise! that put it on top (0: unknown); higher layers lie above
P_LAYER_TOP = 198        # the newest such number
P_TURN = 199             # player turns begun
P_ACTIVE = 200
P_ACTIONS_LEFT = 201
P_FLIGHT_USED = 202
P_DECISION = 203         # decision kind being asked (fisim.rules.options)
P_DECIDER = 204          # seat deciding: active (action, window), discarding player, swimmer
P_SUNK_CELL = 205        # the cell that sank (swim decisions)
P_STATUS = 206           # PLAYING, WON, LOST, ERROR
P_CONDITIONS = 207       # loss conditions mask (fisim.rules.constants)
P_CAUSE = 208            # primary cause bit
P_SUNK_COUNT = 209
P_FIRST = 210
P_ERROR = 211            # 1 + decision kind at which the policy chose an illegal index
P_SIZE = 212

PLAYING, WON, LOST, ERROR = 0, 1, 2, 3

# --- after pub ---
H_TPILE = P_SIZE         # 28 treasure-card kinds, the last on top (hidden)
H_FPILE = H_TPILE + 28   # 24 flood-card tile ids, the last on top (hidden)
X_LOG_CAP = H_FPILE + 24  # room for the transcript, in ints (0: none)
X_DECLOG = X_LOG_CAP + 1  # offset of the decision record (0: none)
MEM = X_DECLOG + 1       # the policy's per-game memory
MEM_SIZE = 64
OPTS = MEM + MEM_SIZE    # the options of the current decision
MAX_OPTIONS = 2048
PUB_COPY = OPTS + MAX_OPTIONS  # the copy of pub a policy is given: it cannot change the game,
                               # and what lies beyond it is public (the transcript)
LOG = PUB_COPY + P_SIZE   # the transcript: g[LOG] ints used, then rows of 4 (fisim.rules.events)
# After the transcript's room comes the decision record: ints used, then per decision the kind,
# the seat, n, the n options and the chosen index.

ALL_CELLS = (1 << N_TILES) - 1


def new_game_array(geometry, config, log_ints=0, declog_ints=0):
    """A game array for one layout (its `geometry`) and config array, with room for a transcript
    and a decision record of the given sizes (0: none)."""
    g = np.zeros(LOG + 1 + log_ints + (1 + declog_ints if declog_ints else 0), dtype=np.int32)
    g[P_GEO:P_GEO + 2 * N_TILES] = geometry.ravel()
    g[P_CFG:P_CFG + config.shape[0]] = config
    g[X_LOG_CAP] = log_ints
    g[X_DECLOG] = LOG + 1 + log_ints if declog_ints else 0
    return g


@njit(inline="always")
def hand_at(s, k):
    """Offset of seat s's count of card kind k in pub."""
    return P_HAND + s * N_HAND_KINDS + k


@njit(inline="always")
def orth(pub, cell):
    return pub[P_GEO + 2 * cell]


@njit(inline="always")
def diag(pub, cell):
    return pub[P_GEO + 2 * cell + 1]


@njit
def hand_size(pub, s):
    n = 0
    for k in range(N_HAND_KINDS):
        n += pub[hand_at(s, k)]
    return n


@njit
def holders_mask(pub, kind):
    """Bitmask of the seats that hold at least one card of `kind`."""
    m = 0
    for s in range(pub[P_PLAYERS]):
        if pub[hand_at(s, kind)] > 0:
            m |= 1 << s
    return m


# lowest set bit's index by a de Bruijn multiply: the bit loops over cells skip empty cells
_DE_BRUIJN = np.array([0, 1, 28, 2, 29, 14, 24, 3, 30, 22, 20, 15, 25, 17, 4, 8,
                       31, 27, 13, 23, 21, 19, 16, 7, 26, 12, 18, 6, 11, 5, 10, 9], np.int32)


@njit(inline="always")
def low_bit(m):
    """Index of the lowest set bit of a nonzero cell mask (< 2**32)."""
    return _DE_BRUIJN[(((m & -m) * 0x077CB531) >> 27) & 31]


@njit
def popcount(m):
    n = 0
    while m:
        m &= m - 1
        n += 1
    return n


@intrinsic
def uncounted(typingctx, array):
    """A view of `array` without a reference count (no meminfo), for the hot loop of run_block.

    Every pass of a counted array between compiled functions, and every slice of it, costs an
    atomic increment and decrement; a view without meminfo makes both a null test (about a quarter
    of a random game's time). The caller must keep `array` itself alive while the view is used."""
    def codegen(context, builder, sig, args):
        source = make_array(array)(context, builder, args[0])
        view = make_array(array)(context, builder)
        for field in ("data", "nitems", "itemsize", "shape", "strides"):
            setattr(view, field, getattr(source, field))
        view.meminfo = cgutils.get_null_value(view.meminfo.type)
        view.parent = cgutils.get_null_value(view.parent.type)
        return view._getvalue()
    return array(array), codegen
