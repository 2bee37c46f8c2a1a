"""Decision points and the integer encoding of options (the policy hook's vocabulary).

At every decision point the engine lists the legal options as int32 codes in ascending order
and a policy returns the index of one. A code packs an option type and three 8-bit fields,

    type << 24 | f1 << 16 | f2 << 8 | f3

with the fields per type given below; `code` packs and `otype`, `field1..3` and `unpack` read
it, here only: the engine, the reference implementation and the policies all use these. Both
implementations of the rules (the engine and the reference) must produce exactly the same sorted
code lists; that is what the differential tests compare. Cells are layout cell numbers; seats are
0..players-1; kinds are card kinds.
"""
from fisim.jit.modes import inlined
from fisim.rules.constants import MAX_PLAYERS, N_TILES, N_TREASURES
from fisim.rules.variant import PARAMETERS

# Decision kinds (what the engine is asking).
ACTION = 0    # active player's action phase: actions, END, and special cards by anyone
WINDOW = 1    # a special-card window: PASS, or a Helicopter Lift / Sandbags by anyone
DISCARD = 2   # a player over the hand limit: discard a card, or play one of their specials
SWIM = 3      # a pawn whose tile sank: swim somewhere, or be lifted off by a Helicopter Lift
LIFT_DEST = 4  # where the Helicopter Lift just chosen (a LIFT option) lands
DECISION_NAMES = ("action", "window", "discard", "swim", "lift-dest")

# Option types                 f1        f2        f3
END = 0        # end the action phase
PASS = 1       # play nothing at this window
MOVE = 2       # dest cell
FLY = 3        # dest cell                          (Pilot, once per turn)
DIVE = 4       # dest cell                          (Diver, not a plain-move destination)
NAV = 5        # seat     dest cell                 (Navigator moves another pawn)
SHORE = 6      # cell
SHORE2 = 7     # cell a   cell b (a < b)            (Engineer)
GIVE = 8       # kind     to seat
CAPTURE = 9    # treasure
LIFT = 10      # holder   seat mask  [dest cell]    (play a Helicopter Lift card; not an action.
               #                                     Offered without f3; its LIFT_DEST decision
               #                                     follows; the lift played carries f3 = dest)
SANDBAG = 11   # holder   cell                      (play a Sandbags card; not an action)
DROP = 12      # kind                               (hand-limit discard)
SWIM_TO = 13   # dest cell
LIFT_TO = 14   # dest cell                          (the destination of the pending lift)
TYPE_NAMES = ("end", "pass", "move", "fly", "dive", "nav", "shore", "shore2", "give",
              "capture", "heli", "sand", "discard", "swim", "lift-to")
ACTION_TYPES = (MOVE, FLY, DIVE, NAV, SHORE, SHORE2, GIVE, CAPTURE)   # each costs one action

# The most options a decision lists (the room of the game array's OPTS), derived from the limits a
# variant may set. The longest list is an action decision's: END, the active player's actions and
# every holder's special cards. Each term bounds what one part of actions.list_options appends
# (a grid cell has at most 4 orthogonal neighbours; N_TILES - 1 cells are not one's own):
_OTHERS = N_TILES - 1
_ROLE_ACTIONS = max(8 + 9,                                  # Explorer: diagonal moves and shores too
                    4 + _OTHERS + 5,                        # Pilot: moves, a flight anywhere, shores
                    _OTHERS + 5,                            # Diver: moves and dives (other cells), shores
                    4 + (MAX_PLAYERS - 1) * _OTHERS + 5,    # Navigator: moves, each other pawn moved, shores
                    4 + 5 + 5 * 4 // 2)                     # Engineer: moves, shores, pairs of shores
_HOLDERS = {key: min(MAX_PLAYERS, PARAMETERS[key].high) for key in ("helicopter_lifts", "sandbags")}
MAX_OPTIONS = (1 + _ROLE_ACTIONS
               + N_TREASURES * (MAX_PLAYERS - 1) + 1        # GIVE (a kind to a seat), CAPTURE
               + _HOLDERS["helicopter_lifts"] * (2 ** MAX_PLAYERS - 1)  # LIFT: per holder, per group of pawns
               + _HOLDERS["sandbags"] * N_TILES)            # SANDBAG: per holder, per flooded tile


TYPE_SHIFT, F1_SHIFT, F2_SHIFT = 24, 16, 8
FIELD_MASK = 0xFF


@inlined
def code(kind, f1=0, f2=0, f3=0):
    return (kind << TYPE_SHIFT) | (f1 << F1_SHIFT) | (f2 << F2_SHIFT) | f3


@inlined
def otype(c):
    return c >> TYPE_SHIFT


@inlined
def field1(c):
    return (c >> F1_SHIFT) & FIELD_MASK


@inlined
def field2(c):
    return (c >> F2_SHIFT) & FIELD_MASK


@inlined
def field3(c):
    return c & FIELD_MASK


def unpack(c):
    """(type, f1, f2, f3) of an option code, as Python ints (the reference, tests, transcripts)."""
    c = int(c)
    return c >> TYPE_SHIFT, (c >> F1_SHIFT) & FIELD_MASK, (c >> F2_SHIFT) & FIELD_MASK, c & FIELD_MASK


def decode(c):
    """(type name, f1, f2, f3) of an option code, for tests and transcripts."""
    t, f1, f2, f3 = unpack(c)
    return TYPE_NAMES[t], f1, f2, f3
