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

MAX_OPTIONS = 256   # more than any decision lists: at most 1 + 4 moves + 69 navigations + 5 shores
                    # + 12 gives + 1 capture + 45 lifts (3 holders x 15 groups) + 48 sandbags


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
