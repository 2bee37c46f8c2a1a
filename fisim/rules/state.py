"""The fixed-size game record: one int32 array per game, its fields declared in order below
(fisim.rules.schema derives and checks every offset), and the layout of a game's result row.

`g[:P_SIZE]` is `pub`, everything a player may see (R-INFO): the island's geometry and the rules
in force, the board, pawns, hands, discards, the sizes and contents (as counts) of the draw
piles, which flood cards were put back on top, the meter and the decision being asked. After it
come the policy's memory, the current list of options, the order of the two draw piles (hidden:
only the engine reads it) and room for a transcript. A policy is handed pub typed read-only
(fisim.jit.intrinsics.read_only: Numba will not compile a write to it), its memory and the
options.

One array (and a small uint64 array of random streams) is all the engine's functions pass
around: every array handed to a compiled function costs reference counting, and with one array
that cost stays small; fisim.jit.intrinsics.uncounted removes it where games are played.
"""
import numpy as np

from fisim.jit.intrinsics import bit_count, trailing_zeros
from fisim.jit.modes import compiled, inlined
from fisim.rules.config import C_SIZE
from fisim.rules.constants import MAX_PLAYERS, N_HAND_KINDS, N_KINDS, N_TILES
from fisim.rules.options import MAX_OPTIONS
from fisim.rules.schema import ACTION, SCRATCH, SETUP, Layout
from fisim.rules.variant import MAX_TREASURE_CARDS

MEM_SIZE = 64           # ints of policy memory per game

# --- pub: geometry and rules (fixed for a game) ---
PUB = Layout("pub")
P_GEO = PUB.add("P_GEO", 2 * N_TILES, "per cell: bitmask of its orthogonal, then of its diagonal, "
                "neighbours", SETUP)
P_CFG = PUB.add("P_CFG", C_SIZE, "the config array (fisim.rules.config C_*)", SETUP)
P_POLICY_ARG = PUB.add("P_POLICY_ARG", 1, "the policy's parameter, from its name (search:32: 32 "
                       "sampled worlds per decision); 0 for a policy without one", SETUP)
# --- pub: the game ---
P_TILE_AT = PUB.add("P_TILE_AT", N_TILES, "tile id on each cell", SETUP)
P_CELL_OF = PUB.add("P_CELL_OF", N_TILES, "cell of each tile id", SETUP)
P_EXISTS = PUB.add("P_EXISTS", 1, "bitmask of the cells whose tile has not sunk")
P_FLOODED = PUB.add("P_FLOODED", 1, "bitmask of the cells whose tile is flooded", ACTION)
P_PLAYERS = PUB.add("P_PLAYERS", 1, "number of players", SETUP)
P_ROLE = PUB.add("P_ROLE", MAX_PLAYERS, "role per seat (-1: empty seat)", SETUP)
P_POS = PUB.add("P_POS", MAX_PLAYERS, "cell per seat", ACTION)
P_HAND = PUB.add("P_HAND", MAX_PLAYERS * N_HAND_KINDS, "cards per seat and kind (hand_at)", ACTION)
P_CAPTURED = PUB.add("P_CAPTURED", 1, "bitmask of the captured treasures", ACTION)
P_LEVEL = PUB.add("P_LEVEL", 1, "water level 1..10")
P_TDRAW_N = PUB.add("P_TDRAW_N", 1, "cards in the treasure draw pile")
P_TDRAW_COUNT = PUB.add("P_TDRAW_COUNT", N_KINDS, "of which per kind")
P_TDISC = PUB.add("P_TDISC", N_KINDS, "treasure discard pile, per kind", ACTION)
P_FDRAW_N = PUB.add("P_FDRAW_N", 1, "cards in the flood draw pile")
P_FDISC = PUB.add("P_FDISC", 1, "bitmask of the tile ids in the flood discard pile")
P_FLAYER = PUB.add("P_FLAYER", N_TILES, "per tile id, for a card in the flood draw pile: the number "
                   "of the Waters Rise! that put it on top (0: unknown); higher layers lie above")
P_LAYER_TOP = PUB.add("P_LAYER_TOP", 1, "the newest such number")
P_TURN = PUB.add("P_TURN", 1, "player turns begun")
P_ACTIVE = PUB.add("P_ACTIVE", 1, "seat of the active player")
P_ACTIONS_LEFT = PUB.add("P_ACTIONS_LEFT", 1, "actions left in this action phase", ACTION)
P_FLIGHT_USED = PUB.add("P_FLIGHT_USED", 1, "1 once the Pilot has flown this turn", ACTION)
P_DECISION = PUB.add("P_DECISION", 1, "decision kind being asked (fisim.rules.options)")
P_DECIDER = PUB.add("P_DECIDER", 1, "seat deciding: the active one (action, window), the "
                    "discarding player, the swimmer")
P_SUNK_CELL = PUB.add("P_SUNK_CELL", 1, "the cell that sank last (swim decisions: the one swum from)")
P_STATUS = PUB.add("P_STATUS", 1, "PLAYING, WON, LOST or ERROR")
P_CONDITIONS = PUB.add("P_CONDITIONS", 1, "loss conditions mask (fisim.rules.constants)")
P_CAUSE = PUB.add("P_CAUSE", 1, "primary cause bit")
P_SUNK_COUNT = PUB.add("P_SUNK_COUNT", 1, "tiles sunk")
P_FIRST = PUB.add("P_FIRST", 1, "seat of the first player", SETUP)
P_ERROR = PUB.add("P_ERROR", 1, "1 + decision kind at which the policy chose an illegal index")
P_ERROR_INDEX = PUB.add("P_ERROR_INDEX", 1, "that index (held to the int32 range)")
P_ERROR_N = PUB.add("P_ERROR_N", 1, "how many options that decision offered")
P_LIFT = PUB.add("P_LIFT", 1, "at a LIFT_DEST decision: the LIFT code (holder, seats) of the "
                 "Helicopter Lift whose destination is asked (0: none)")
P_LIFT_FROM = PUB.add("P_LIFT_FROM", 1, "the decision kind that lift was chosen at")
P_FIRST_SUNK = PUB.add("P_FIRST_SUNK", 1, "1 + the cell that sank first in this game (0: none yet, or "
                       "tiles had sunk before a hand-built position)")
P_SIZE = PUB.close(globals()).size

PLAYING, WON, LOST, ERROR = 0, 1, 2, 3
LOOKAHEAD_RANGES = PUB.ranges(ACTION)   # what `restore` copies back into a lookahead copy

# --- the whole game array: pub, then what only the engine reads ---
GAME = Layout("game array", start=P_SIZE)
MEM = GAME.add("MEM", MEM_SIZE, "the policy's per-game memory, zeroed at setup", SCRATCH)
OPTS = GAME.add("OPTS", MAX_OPTIONS, "the options of the current decision", SCRATCH)
# the hidden piles lie beyond what a policy is handed (pub, its memory, the options)
H_TPILE = GAME.add("H_TPILE", MAX_TREASURE_CARDS, "treasure draw pile, kinds, the last on top (hidden); "
                   "room for the largest deck a variant may have")
H_FPILE = GAME.add("H_FPILE", N_TILES, "flood draw pile, tile ids, the last on top (hidden)")
X_LOG_CAP = GAME.add("X_LOG_CAP", 1, "room for the transcript, in ints (0: none)", SETUP)
X_DECLOG = GAME.add("X_DECLOG", 1, "offset of the decision record (0: none)", SETUP)
X_POLICY = GAME.add("X_POLICY", 2, "where the policy's compiled decide is, for the engine to call it "
                  "(its address: low, then high 32 bits; fisim.jit.policy_call)", SETUP)
X_TEMPLE_CLOSE = GAME.add("X_TEMPLE_CLOSE", 1, "1 once a treasure not captured had its last temple standing "
                          "flooded in this game (one flood card from treasure-lost: result column R_CLOSE)")
LOG = GAME.add("LOG", 1, "transcript ints used; the rows of 4 (fisim.rules.events) follow, then "
               "the decision record: ints used, then per decision the kind, the seat, n, the n "
               "options and the chosen index")
GAME.close(globals())
# the game array up to the end of both hidden draw piles: what a clairvoyant reference is handed
# instead of pub (its entry in fisim.engine); never a legal policy
SEEN_DECKS = H_FPILE + N_TILES

# --- a game's result row ---
RESULT = Layout("result row")
R_STATUS = RESULT.add("R_STATUS", 1, "PLAYING, WON, LOST or ERROR")
R_CAUSE = RESULT.add("R_CAUSE", 1, "primary loss cause bit (0: won)")
R_CONDITIONS = RESULT.add("R_CONDITIONS", 1, "loss conditions mask")
R_TURNS = RESULT.add("R_TURNS", 1, "player turns begun, the last included")
R_LEVEL = RESULT.add("R_LEVEL", 1, "final water level")
R_CAPTURED = RESULT.add("R_CAPTURED", 1, "treasures captured")
R_SUNK = RESULT.add("R_SUNK", 1, "tiles sunk")
R_FIRST = RESULT.add("R_FIRST", 1, "seat of the first player")
R_ROLE = RESULT.add("R_ROLE", MAX_PLAYERS, "role per seat (-1: empty seat)")
R_ERROR = RESULT.add("R_ERROR", 1, "1 + decision kind of an illegal choice (0: none)")
R_SUNK_MASK = RESULT.add("R_SUNK_MASK", 1, "bitmask of the cells sunk by the end")
R_FIRST_SUNK = RESULT.add("R_FIRST_SUNK", 1, "the cell that sank first (-1: none)")
R_LAST_SUNK = RESULT.add("R_LAST_SUNK", 1, "the cell that sank last (-1: none); the tile whose loss "
                         "ended a game lost to landing-sunk, treasure-lost or drowned")
R_SUNK_TILES = RESULT.add("R_SUNK_TILES", 1, "bitmask of the tile ids sunk by the end (tiles are placed "
                          "at random: a cell is a place, a tile id a named tile)")
R_FIRST_SUNK_TILE = RESULT.add("R_FIRST_SUNK_TILE", 1, "the tile id that sank first (-1: none)")
R_LAST_SUNK_TILE = RESULT.add("R_LAST_SUNK_TILE", 1, "the tile id that sank last (-1: none)")
R_ERROR_INDEX = RESULT.add("R_ERROR_INDEX", 1, "an illegal choice's index (held to the int32 range)")
R_ERROR_N = RESULT.add("R_ERROR_N", 1, "and how many options were offered")
R_CLOSE = RESULT.add("R_CLOSE", 1, "how close the game came to being lost: a mask of "
                     "fisim.rules.constants CLOSE_* (docs/model.md, Game record)")
R_SIZE = RESULT.close(globals()).size

ALL_CELLS = (1 << N_TILES) - 1


def dump(g, scratch=False):
    """A readable {field: value} of a game array (pub's fields, then the engine's; the policy's
    memory, the options and pub's copy only with `scratch`), for tests and debugging."""
    out = {**PUB.dump(g), **GAME.dump(g)}
    if not scratch:
        for f in GAME.fields:
            if f.changes == SCRATCH:
                del out[f.name]
    return out


def new_game_array(geometry, config, log_ints=0, declog_ints=0, policy_arg=0):
    """A game array for one layout (its `geometry`), config array and policy parameter, with room
    for a transcript and a decision record of the given sizes (0: none)."""
    g = np.zeros(LOG + 1 + log_ints + (1 + declog_ints if declog_ints else 0), dtype=np.int32)
    g[P_GEO:P_GEO + 2 * N_TILES] = geometry.ravel()
    g[P_CFG:P_CFG + config.shape[0]] = config
    g[P_POLICY_ARG] = policy_arg
    g[X_LOG_CAP] = log_ints
    g[X_DECLOG] = LOG + 1 + log_ints if declog_ints else 0
    return g


@inlined
def hand_at(s, k):
    """Offset of seat s's count of card kind k in pub."""
    return P_HAND + s * N_HAND_KINDS + k


@inlined
def orth(pub, cell):
    return pub[P_GEO + 2 * cell]


@inlined
def diag(pub, cell):
    return pub[P_GEO + 2 * cell + 1]


@inlined
def restore(sp, pub):
    """Put back into the lookahead copy `sp` every field an action or special card changes
    (the fields declared ACTION), from `pub`."""
    for r in range(LOOKAHEAD_RANGES.shape[0]):
        for i in range(LOOKAHEAD_RANGES[r, 0], LOOKAHEAD_RANGES[r, 1]):
            sp[i] = pub[i]


@compiled(counted=False)
def hand_size(pub, s):
    n = 0
    for k in range(N_HAND_KINDS):
        n += pub[hand_at(s, k)]
    return n


@compiled(counted=False)
def holders_mask(pub, kind):
    """Bitmask of the seats that hold at least one card of `kind`."""
    m = 0
    for s in range(pub[P_PLAYERS]):
        if pub[hand_at(s, kind)] > 0:
            m |= 1 << s
    return m


@inlined
def low_bit(m):
    """Index of the lowest set bit of a nonzero cell mask."""
    return trailing_zeros(m)


@inlined
def popcount(m):
    """The number of set bits of a non-negative mask."""
    return bit_count(m)


@compiled(counted=False)
def copy_into(dst, src):
    """dst[:] = src, item by item: a slice assignment compiles Numba's shape-mismatch error with it,
    over a second of compiling in every process that compiles one."""
    for i in range(src.shape[0]):
        dst[i] = src[i]
