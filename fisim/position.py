"""A compact text notation for game positions, so that rule tests read like the board.

    . . TM TS . .          one token per grid cell: '.' sea, 'TM' a dry tile,
    . WG hg CE CS .        'hg' (lower case) a flooded tile, '~CF' a sunk tile
    ...
    diver@IG: earth earth heli       one line per seat, in seat order: role@tile: hand
    pilot@FL:
    water 3; active 0; actions 2; flight used; turn 4
    captured: earth fire
    decision: swim diver             action | window | discard SEAT | swim SEAT [sunk TILE]
    treasure draw: fire wr heli      top last; default: the rest of the deck, in kind order
    treasure discard: sand
    flood draw: TM BB                top last; default: the rest (the unsunk tiles' cards, or
                                     all with rules sunk-card-stays), in tile order
    flood discard: IG
    flood on top: CE IG | BB         what Waters Rise! put back on top (R-DRAW-WR, public by
                                     R-INFO): groups, the latest last; they are the top cards
    rules: heli-all hand_limit=4     switches, and rule numbers a variant file could set

The grid also fixes the layout's shape. A `Position` is neutral data: the engine and the
reference each build their own state from it.
"""
from dataclasses import dataclass, field

from fisim.rules.config import GameConfig
from fisim.rules.constants import N_HAND_KINDS, N_KINDS, N_TILES, ROLE_NAMES
from fisim.rules.layouts import Layout
from fisim.rules.options import DECISION_NAMES, SWIM
from fisim.rules.variant import variant_of_words

TILE_CODES = ("TM", "TS", "WG", "HG", "CE", "CS", "CP", "TP", "FL", "BG", "CG", "GG", "IG", "SG",
              "BB", "CA", "CF", "DD", "LL", "MM", "OB", "PR", "TH", "WT")
CARD_CODES = ("earth", "wind", "fire", "ocean", "heli", "sand", "wr")
DRY, FLOODED, SUNK = 0, 1, 2


class PositionError(ValueError):
    pass


@dataclass
class Position:
    layout: Layout
    tile_at: list                 # tile id per cell
    status: list                  # DRY / FLOODED / SUNK per cell
    roles: list                   # role id per seat
    pos: list                     # cell per seat
    hands: list                   # per seat, counts of kinds 0..5
    captured: set = field(default_factory=set)
    level: int = 2
    active: int = 0
    actions_left: int = 3
    flight_used: bool = False
    turn: int = 1
    decision: int = 0             # a decision kind of fisim.rules.options
    decider: int = 0              # the seat deciding (discard, swim)
    sunk_cell: int = -1           # the cell that sank (swim)
    treasure_draw: list = None    # kinds, top last
    treasure_discard: list = None # counts of kinds 0..6
    flood_draw: list = None       # tile ids, top last
    flood_discard: set = None     # tile ids
    flood_on_top: list = ()       # groups of tile ids put back on top, the latest last
    switches: frozenset = frozenset()
    variant: object = None        # a fisim.rules.variant.Variant: the rule numbers set

    @property
    def config(self):
        return GameConfig(players=len(self.roles), team=tuple(ROLE_NAMES[r] for r in self.roles),
                          switches=self.switches, variant=self.variant)

    def cell_of(self, code):
        tile = TILE_CODES.index(code)
        return self.tile_at.index(tile)


def _tile(code):
    if code.upper() not in TILE_CODES:
        raise PositionError(f"unknown tile code {code!r}; choose from {' '.join(TILE_CODES)}")
    return TILE_CODES.index(code.upper())


def _cards(words):
    kinds = []
    for w in words:
        if w not in CARD_CODES:
            raise PositionError(f"unknown card {w!r}; choose from {' '.join(CARD_CODES)}")
        kinds.append(CARD_CODES.index(w))
    return kinds


def parse_position(text):
    lines = [ln.split("#")[0].rstrip() for ln in text.strip("\n").splitlines()]
    lines = [ln for ln in lines if ln.strip()]
    grid = []
    while lines and "@" not in lines[0] and ":" not in lines[0] and not lines[0].lstrip().startswith("water"):
        grid.append(lines.pop(0).split())
    width = max(len(r) for r in grid)
    rows, tile_at, status = [], [], []
    for r in grid:
        rows.append("".join("." if t == "." else "#" for t in r).ljust(width, "."))
        for t in r:
            if t == ".":
                continue
            sunk = t.startswith("~")
            code = t.lstrip("~")
            tile_at.append(_tile(code))
            status.append(SUNK if sunk else FLOODED if code.islower() else DRY)
    if sorted(tile_at) != list(range(N_TILES)):
        raise PositionError("the board must show each of the 24 tiles exactly once")
    p = Position(Layout("position", tuple(rows)), tile_at, status, [], [], [])
    decision = ("action", None)
    for ln in lines:
        head, _, rest = ln.partition(":")
        words = rest.split()
        if "@" in head:
            role, _, where = head.strip().partition("@")
            p.roles.append(ROLE_NAMES.index(role))
            p.pos.append(tile_at.index(_tile(where)))
            hand = [0] * N_HAND_KINDS
            for k in _cards(words):
                hand[k] += 1
            p.hands.append(hand)
        elif head.strip() == "captured":
            p.captured = set(_cards(words))
        elif head.strip() == "decision":
            decision = (words[0], words[1:])
        elif head.strip() == "treasure draw":
            p.treasure_draw = _cards(words)
        elif head.strip() == "treasure discard":
            p.treasure_discard = [0] * N_KINDS
            for k in _cards(words):
                p.treasure_discard[k] += 1
        elif head.strip() == "flood draw":
            p.flood_draw = [_tile(w) for w in words]
        elif head.strip() == "flood discard":
            p.flood_discard = {_tile(w) for w in words}
        elif head.strip() == "flood on top":
            p.flood_on_top = [[_tile(w) for w in group.split()] for group in rest.split("|")]
        elif head.strip() == "rules":
            p.switches = frozenset(w for w in words if "=" not in w)
            numbers = [w for w in words if "=" in w]
            p.variant = variant_of_words(numbers, "position") if numbers else None
        else:
            for item in ln.split(";"):
                item = item.split()
                if item[0] in ("water", "active", "actions", "turn"):
                    setattr(p, {"water": "level", "actions": "actions_left"}.get(item[0], item[0]), int(item[1]))
                elif item == ["flight", "used"]:
                    p.flight_used = True
                else:
                    raise PositionError(f"cannot read {ln!r}")
    kind, args = decision
    p.decision = DECISION_NAMES.index(kind)
    p.decider = p.roles.index(ROLE_NAMES.index(args[0])) if args else p.active
    if p.decision == SWIM:
        p.sunk_cell = p.cell_of(args[2]) if len(args) > 2 else p.pos[p.decider]
    _fill_piles(p)
    return p


def _fill_piles(p):
    """Put every card not placed explicitly into its draw pile, in canonical order (R-TDECK, R-FDECK)."""
    if p.treasure_discard is None:
        p.treasure_discard = [0] * N_KINDS
    if p.treasure_draw is None:
        deck = p.config.deck
        left = [deck[k] - p.treasure_discard[k] - sum(h[k] for h in p.hands if k < N_HAND_KINDS)
                for k in range(N_KINDS)]
        p.treasure_draw = [k for k in range(N_KINDS) for _ in range(max(left[k], 0))]
    if p.flood_discard is None:
        p.flood_discard = set()
    on_top = [t for group in p.flood_on_top for t in group]
    if p.flood_draw is None:
        stays = "sunk-card-stays" in p.switches         # then a sunk tile's card is in the deck too
        p.flood_draw = [t for t in range(N_TILES) if (stays or p.status[p.tile_at.index(t)] != SUNK)
                        and t not in p.flood_discard and t not in on_top] + on_top
    top = p.flood_draw[len(p.flood_draw) - len(on_top):]
    at = 0
    for group in p.flood_on_top:
        if not group or sorted(top[at:at + len(group)]) != sorted(group):
            raise PositionError("'flood on top' must name the top cards of the flood draw pile, "
                                "group by group")
        at += len(group)
