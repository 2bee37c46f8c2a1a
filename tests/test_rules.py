"""Rule tests on hand-built positions for the Numba engine, one or more per rule id of
docs/rules.md.

Every position is written in the text notation of fisim.position, so a test reads like the board.
Every position's legal options are asked of both the engine and the plain-Python reference and
must agree (`options`), and every part of a turn run on the engine (`play`) is also run on the
reference from the same position and seed, and must give the same events, the same decisions and
the same state. The asserted outcomes themselves are derived from docs/rules.md by hand.

This module holds the helpers, and the tests of components, layouts, setup and information;
tests/test_rules_actions.py holds actions, adventurers and special cards, and
tests/test_rules_turn.py treasure draws, the hand limit, flooding, swimming, winning and losing.
"""
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from fisim import engine
from fisim.engine import EngineGame
from fisim.jit.entries import PHASE_ACTIONS, PHASE_DRAW, PHASE_FLOOD, PHASE_SINK, PHASE_TURN
from fisim.position import CARD_CODES, DRY, FLOODED, SUNK, TILE_CODES, PositionError, parse_position
from fisim.reference import Game, GameOver
from fisim.reference import setup as ref_setup
from fisim.reference import turn as ref_turn
from fisim.rules import events as ev
from fisim.rules import state as st
from fisim.rules import view
from fisim.rules.config import SWITCHES, ConfigError, GameConfig
from fisim.rules.constants import (
    DECK_COUNTS,
    FLOOD_COUNT,
    KIND_NAMES,
    LEVELS,
    LOSS_NAMES,
    N_KINDS,
    ROLE_NAMES,
    SKULL,
    START_TILE,
    TILE_NAMES,
    TREASURE_NAMES,
)
from fisim.rules.layouts import BUILTIN_NAMES, LayoutError, builtin_layout, load_layout, parse_layout
from fisim.rules.options import (
    CAPTURE,
    DECISION_NAMES,
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
    SWIM_TO,
    code,
    decode,
    field1,
    field2,
    field3,
    otype,
)
from fisim.rules.rng import FIRST, N_STREAMS, POLICY, game_seed, init_streams
from policies import load_policy

SCRIPTED = load_policy(str(Path(__file__).parent / "support" / "scripted.py"))

# --- the engine's internals the tests read: the hidden piles, the decision record, setup --------
# The engine keeps a game in one int32 array `g` (fisim.rules.state): `pub` first, then the order
# of the draw piles at st.H_TPILE and st.H_FPILE, ..., the transcript and the decision record.


def engine_game(p, seed):
    """EngineGame.from_position(p, seed), with room to record every policy decision."""
    g = EngineGame.from_position(p, seed=seed)
    if not g.g[st.X_DECLOG]:
        roomy = st.new_game_array(p.layout.geometry, p.config.to_array(), 1 << 16, 1 << 16)
        roomy[:st.X_LOG_CAP] = g.g[:st.X_LOG_CAP]
        g = EngineGame(roomy, g.rng)
    return g


def hidden_piles(g):
    """(treasure pile, flood pile) in order, top last: what no policy may see (R-INFO)."""
    a, pub = g.g, g.pub
    return ([int(k) for k in a[st.H_TPILE:st.H_TPILE + pub[st.P_TDRAW_N]]],
            [int(t) for t in a[st.H_FPILE:st.H_FPILE + pub[st.P_FDRAW_N]]])


def clear_decisions(g):
    g.g[g.g[st.X_DECLOG]] = 0


def decisions_of(g):
    """(kind, seat, options, chosen index) of every policy call since clear_decisions."""
    return engine.decisions_of(g.g)


def set_up(config, seed, layout="standard"):
    """(pub, game array, events) right after the engine's setup of one game (R-SETUP-1..6); the
    piles' order is at g[st.H_TPILE:...] and g[st.H_FPILE:...]."""
    from fisim.rules.setup import setup_game
    g = st.new_game_array(builtin_layout(layout).geometry, config.to_array(), 1 << 12)
    setup_game(g, np.zeros(N_STREAMS, np.uint64), np.uint64(seed))
    return g[:st.P_SIZE], g, [tuple(int(x) for x in r) for r in engine.events_of(g)]


# The standard island (R-LAYOUT-1) with the tiles scrambled, so that no tile id equals its cell.
ISLAND = """
.  .  CS OB .  .
.  TP GG FL TH .
IG WG BB CA DD TM
CP PR SG HG LL CE
.  TS WT MM CG .
.  .  BG CF .  .
"""


def island(changes=""):
    """ISLAND with some tiles flooded ('ca') or sunk ('~CA')."""
    text = ISLAND
    for token in changes.split():
        name = token.lstrip("~").upper()
        assert re.search(rf"(?<!\S){name}(?!\S)", text), token
        text = re.sub(rf"(?<!\S){name}(?!\S)", token, text)
    return text


def tiles(text):
    return set(text.split())


ALL_TILES = set(TILE_CODES)


# --- reading and writing options --------------------------------------------------------------


def _tile_of(p, cell):
    return TILE_CODES[p.tile_at[cell]]


def _role_of(p, seat):
    return ROLE_NAMES[p.roles[seat]]


def _seat_of(p, role):
    return p.roles.index(ROLE_NAMES.index(role))


def describe(p, c, offered=False):
    """An option code as words: 'move FL', 'nav diver FL', 'heli pilot diver+pilot FL', 'discard wind';
    `offered`: as a decision lists it (a Helicopter Lift without its destination, which is the
    LIFT_DEST decision's 'lift-to FL')."""
    name, f1, f2, f3 = decode(c)
    if name in ("end", "pass"):
        return name
    if name in ("move", "fly", "dive", "swim", "shore", "lift-to"):
        return f"{name} {_tile_of(p, f1)}"
    if name == "nav":
        return f"nav {_role_of(p, f1)} {_tile_of(p, f2)}"
    if name == "shore2":
        return f"shore2 {_tile_of(p, f1)} {_tile_of(p, f2)}"
    if name == "give":
        return f"give {CARD_CODES[f1]} {_role_of(p, f2)}"
    if name in ("capture", "discard"):
        return f"{name} {CARD_CODES[f1]}"
    if name == "heli":
        pawns = "+".join(_role_of(p, s) for s in range(len(p.roles)) if f2 >> s & 1)
        return f"heli {_role_of(p, f1)} {pawns}" + ("" if offered else f" {_tile_of(p, f3)}")
    if name == "sand":
        return f"sand {_role_of(p, f1)} {_tile_of(p, f2)}"
    raise AssertionError(name)


def encode(p, words):
    """The option code of words as `describe` writes them."""
    w = words.split()
    cell = lambda t: p.cell_of(t)                     # noqa: E731
    seat = lambda r: _seat_of(p, r)                   # noqa: E731
    kind = {"end": END, "pass": PASS, "move": MOVE, "fly": FLY, "dive": DIVE, "swim": SWIM_TO,
            "shore": SHORE, "nav": NAV, "shore2": SHORE2, "give": GIVE, "capture": CAPTURE,
            "discard": DROP, "heli": LIFT, "sand": SANDBAG}[w[0]]
    if kind in (END, PASS):
        return code(kind)
    if kind in (MOVE, FLY, DIVE, SWIM_TO, SHORE):
        return code(kind, cell(w[1]))
    if kind == NAV:
        return code(kind, seat(w[1]), cell(w[2]))
    if kind == SHORE2:
        return code(kind, cell(w[1]), cell(w[2]))
    if kind == GIVE:
        return code(kind, CARD_CODES.index(w[1]), seat(w[2]))
    if kind in (CAPTURE, DROP):
        return code(kind, CARD_CODES.index(w[1]))
    if kind == LIFT:
        mask = sum(1 << seat(r) for r in w[2].split("+"))
        return code(kind, seat(w[1]), mask, cell(w[3]))
    return code(kind, seat(w[1]), cell(w[2]))       # sand


def position(text):
    return parse_position(text)


def legal(p):
    """The legal options of a position, asserting that the engine and the reference agree; each
    Helicopter Lift (chosen in two steps, docs/model.md) as the lifts it can become, LIFT holder
    seats dest, one per option of its LIFT_DEST decision."""
    eng_game, ref_game = EngineGame.from_position(p), Game.from_position(p)
    eng, ref = eng_game.legal_options(), ref_game.legal_options()
    _agree(p, eng, ref)
    lifts = []
    for c in eng:
        if otype(c) == LIFT:
            dests = eng_game.lift_options(c)
            _agree(p, dests, ref_game.lift_options(c))
            assert dests, "a Helicopter Lift is offered only with somewhere to go"
            assert all(otype(d) == LIFT_TO for d in dests)
            lifts += [c | field1(d) for d in dests]
    return sorted([c for c in eng if otype(c) != LIFT] + lifts)


def _agree(p, eng, ref):
    assert eng == ref, ("engine and reference disagree:\n  engine only: "
                        f"{sorted(describe(p, c) for c in set(eng) - set(ref))}\n  reference only: "
                        f"{sorted(describe(p, c) for c in set(ref) - set(eng))}")
    assert eng == sorted(set(eng)), "options must be listed once each, in ascending code order"


def options(p, prefix=None):
    """The legal options of a position as words (only those of one type if `prefix` is given)."""
    words = {describe(p, c) for c in legal(p)}
    return {w for w in words if prefix is None or w.split()[0] == prefix}


# --- events ------------------------------------------------------------------------------------


def story(p, events):
    """Events as words, e.g. 'draw diver wr', 'water 4', 'sink CA', 'lose landing-sunk: landing-sunk+drowned'."""
    out = []
    for e, a, b, c in events:
        if e == ev.EV_TURN:
            out.append(f"turn {a} {_role_of(p, b)}")
        elif e == ev.EV_CHOICE:
            out.append(f"{DECISION_NAMES[a]} {_role_of(p, b)}: {describe(p, c)}")
        elif e == ev.EV_DRAW:
            out.append(f"draw {_role_of(p, a)} {CARD_CODES[b]}")
        elif e == ev.EV_WATERS_RISE:
            out.append(f"water {a}")
        elif e == ev.EV_FLOOD_ON_TOP:
            out.append(f"flood discard on top {a}")
        elif e == ev.EV_TREASURE_RESHUFFLE:
            out.append(f"treasure reshuffle {a}")
        elif e == ev.EV_FLOOD_RESHUFFLE:
            out.append(f"flood reshuffle {a}")
        elif e == ev.EV_FLOOD:
            out.append(f"flood {_tile_of(p, a)}")
        elif e == ev.EV_SINK:
            out.append(f"sink {_tile_of(p, a)}")
        elif e == ev.EV_FLOOD_SUNK:
            out.append(f"flood sunk {_tile_of(p, a)}")
        elif e == ev.EV_DROWN:
            out.append(f"drown {_role_of(p, a)}")
        elif e == ev.EV_WIN:
            out.append(f"win {_role_of(p, a)}")
        elif e == ev.EV_LOSE:
            out.append(f"lose {loss_names(a)}: {loss_names(b)}")
        else:
            raise AssertionError(f"unexpected event {e}")
    return out


def loss_names(mask):
    return "+".join(name for i, name in enumerate(LOSS_NAMES) if mask >> i & 1)


# --- running part of a turn on both implementations --------------------------------------------

def game_0_seed():
    """The seed of game 0 of master seed 0, whose streams Game.from_position(p) uses (computed when
    first needed: collecting the tests compiles nothing)."""
    return game_seed(0, 0)


_REF_PHASES = {PHASE_ACTIONS: ref_turn.action_phase, PHASE_DRAW: ref_turn.draw_phase,
               PHASE_FLOOD: ref_turn.flood_phase}


class ScriptError(Exception):
    pass


@dataclass
class Run:
    position: object
    events: list          # engine events as (code, a, b, c) tuples
    story: list           # the same as words
    decisions: list       # (decision name, seat's role, options as words) of each policy call
    engine: EngineGame
    reference: Game

    @property
    def pub(self):
        return self.engine.pub

    def hand(self, role):
        s = _seat_of(self.position, role)
        return {CARD_CODES[k]: int(self.pub[st.hand_at(s, k)]) for k in range(6) if self.pub[st.hand_at(s, k)]}

    def where(self, role):
        return _tile_of(self.position, int(self.pub[st.P_POS + _seat_of(self.position, role)]))

    def status(self, tile):
        cell = self.position.cell_of(tile)
        if not self.pub[st.P_EXISTS] >> cell & 1:
            return "sunk"
        return "flooded" if self.pub[st.P_FLOODED] >> cell & 1 else "dry"

    def treasure_discard(self):
        return {CARD_CODES[k]: int(self.pub[st.P_TDISC + k]) for k in range(N_KINDS) if self.pub[st.P_TDISC + k]}

    def flood_discard(self):
        return {TILE_CODES[t] for t in range(24) if self.pub[st.P_FDISC] >> t & 1}

    def flood_pile(self):
        """The hidden flood draw pile, top last (read here only to check the rules)."""
        return [TILE_CODES[t] for t in hidden_piles(self.engine)[1]]

    def treasure_pile(self):
        return [CARD_CODES[k] for k in hidden_piles(self.engine)[0]]

    @property
    def level(self):
        return int(self.pub[st.P_LEVEL])

    @property
    def over(self):
        return {st.PLAYING: None, st.WON: "won", st.LOST: "lost"}[int(self.pub[st.P_STATUS])]


def play(p, phase, script=(), sink=None, seed=None, after=None):
    """Run a phase (fisim.jit.entries.PHASE_*) from position `p` on the engine with a scripted
    policy choosing `script` (option words) in order, and the same on the reference; check that
    both log the same events, ask the same decisions and leave the same state. `after` (a Run)
    goes on from where that run stopped instead of from `p`."""
    if after is not None:
        p, g, game = after.position, after.engine, after.reference
    else:
        seed = game_0_seed() if seed is None else seed
        g = engine_game(p, seed)
        assert seed == game_0_seed(), "the reference's streams are those of game (0, 0)"
        game = Game.from_position(p)
    codes = [encode(p, w) for w in script]
    clear_decisions(g)
    arg = p.cell_of(sink) if sink else 0
    events = [tuple(int(x) for x in row) for row in g.run(phase, SCRIPTED, arg=arg, script=codes)]
    assert g.pub[st.P_STATUS] != st.ERROR, (
        f"the script {list(script)} chose an option not on offer; engine asked "
        f"{[(DECISION_NAMES[k], [describe(p, c) for c in o]) for k, _, o, _ in decisions_of(g)]}")
    decisions = decisions_of(g)
    first, asked = _reference_run(game, p, phase, codes, sink)
    assert [k[:3] for k in decisions] == asked, "engine and reference asked different decisions"
    assert events == game.events[first:], (
        "engine and reference logged different events:\n  engine:    "
        f"{story(p, events)}\n  reference: {story(p, game.events[first:])}")
    _same_state(g, game, p)
    _public_piles_match(g)
    return Run(p, events, story(p, events),
               [(DECISION_NAMES[k], _role_of(p, s), [describe(p, c, offered=True) for c in o])
                for k, s, o, _ in decisions],
               g, game)


def _reference_run(game, p, phase, codes, sink):
    """Run the phase on the reference Game; return (index of its first new event, decisions asked)."""
    first = len(game.events)
    asked = []
    script = iter(codes)

    lift = []       # a scripted lift, LIFT holder seats dest, answers two decisions

    def chooser(g, kind, seat, found):
        target = lift.pop() if lift else next(script, 0)
        asked.append((kind, seat, tuple(found)))
        if kind == LIFT_DEST:
            target = code(LIFT_TO, field3(target))
        elif otype(target) == LIFT:
            lift.append(target)
            target = code(LIFT, field1(target), field2(target))
        if target not in found:
            raise ScriptError(f"reference: {describe(p, target)} not among {[describe(p, c) for c in found]}")
        return found.index(target)

    game.chooser = chooser
    game.decision = None
    if game.result is not None:
        return first, asked
    try:
        if phase in _REF_PHASES:
            _REF_PHASES[phase](game)
        elif phase == PHASE_TURN:
            ref_turn.begin_turn(game)
            ref_turn.finish_turn(game)
        elif phase == PHASE_SINK:
            cell = p.cell_of(sink)
            game.board.status[cell] = SUNK
            game.log(ev.EV_SINK, cell)
            ref_turn.sink(game, cell)
    except GameOver:
        pass
    return first, asked


def _public_piles_match(g):
    """R-INFO: `pub` tells which cards are in each draw pile (not their order), kept up to date."""
    pub = g.pub
    tpile, fpile = hidden_piles(g)
    pile = Counter(tpile)
    assert [int(pub[st.P_TDRAW_COUNT + k]) for k in range(N_KINDS)] == [pile[k] for k in range(N_KINDS)]
    marked = {t for t in range(24) if pub[st.P_FLAYER + t] > 0}
    assert marked <= set(fpile), "only cards still in the flood pile can be marked as put on top"


def _same_state(g, ref, p):
    """The engine's state after a run equals the reference's."""
    pub = g.pub
    n = len(p.roles)
    status = [SUNK if not pub[st.P_EXISTS] >> c & 1 else FLOODED if pub[st.P_FLOODED] >> c & 1 else DRY
              for c in range(24)]
    assert status == ref.board.status, "tile states differ"
    assert [int(pub[st.P_POS + s]) for s in range(n)] == [pl.cell for pl in ref.players], "pawns differ"
    assert [[int(pub[st.hand_at(s, k)]) for k in range(6)] for s in range(n)] == [pl.hand for pl in ref.players]
    assert int(pub[st.P_LEVEL]) == ref.level
    assert {t for t in range(4) if pub[st.P_CAPTURED] >> t & 1} == ref.captured
    assert int(pub[st.P_ACTIVE]) == ref.active
    won = ref.result is not None and ref.result["won"]
    lost = ref.result is not None and not ref.result["won"]
    assert int(pub[st.P_STATUS]) == (st.WON if won else st.LOST if lost else st.PLAYING)
    if lost:
        names = ref.result["conditions"]
        assert int(pub[st.P_CONDITIONS]) == sum(1 << i for i, nm in enumerate(LOSS_NAMES) if nm in names)
        assert LOSS_NAMES[int(pub[st.P_CAUSE]).bit_length() - 1] == ref.result["cause"]
        return           # piles at the moment of loss are not compared
    assert hidden_piles(g) == (ref.treasure_draw, ref.flood_draw)
    assert Counter({k: int(pub[st.P_TDISC + k]) for k in range(N_KINDS) if pub[st.P_TDISC + k]}) == \
        Counter(ref.treasure_discard)
    assert {t for t in range(24) if pub[st.P_FDISC] >> t & 1} == set(ref.flood_discard)
    assert int(pub[st.P_ACTIONS_LEFT]) == ref.actions_left
    assert bool(pub[st.P_FLIGHT_USED]) == bool(ref.flight_used)


# === tests: helpers ============================================================================


def test_helpers_read_the_board():
    p = position(island("ca ~BB") + "diver@IG: earth heli\npilot@FL:\n")
    assert p.status[p.cell_of("CA")] == FLOODED and p.status[p.cell_of("BB")] == SUNK
    assert p.status[p.cell_of("CS")] == DRY
    assert p.cell_of("CS") == 0 and p.cell_of("CF") == 23          # cells are numbered row-major
    for words in ("move WG", "dive FL", "heli diver diver+pilot TM", "give earth pilot", "sand pilot CA",
                  "nav diver CA", "shore2 CA DD", "discard heli", "end", "pass", "swim TM"):
        assert describe(p, encode(p, words)) == words


# === R-TILES, R-TDECK, R-FDECK, R-ROLES, R-METER ===============================================


def test_tiles_names_treasures_and_starting_tiles():
    """R-TILES: the 24 tile names; each treasure's two tiles; each adventurer's starting tile."""
    assert set(TILE_NAMES) == {
        "Temple of the Moon", "Temple of the Sun", "Whispering Garden", "Howling Garden",
        "Cave of Embers", "Cave of Shadows", "Coral Palace", "Tidal Palace", "Fools' Landing",
        "Bronze Gate", "Copper Gate", "Gold Gate", "Iron Gate", "Silver Gate", "Breakers Bridge",
        "Cliffs of Abandon", "Crimson Forest", "Dunes of Deception", "Lost Lagoon", "Misty Marsh",
        "Observatory", "Phantom Rock", "Twilight Hollow", "Watchtower"}
    assert len(TILE_NAMES) == 24
    where = {TREASURE_NAMES[t]: {TILE_NAMES[2 * t], TILE_NAMES[2 * t + 1]} for t in range(4)}
    assert where == {"Earth Stone": {"Temple of the Moon", "Temple of the Sun"},
                     "Statue of the Wind": {"Whispering Garden", "Howling Garden"},
                     "Crystal of Fire": {"Cave of Embers", "Cave of Shadows"},
                     "Ocean's Chalice": {"Coral Palace", "Tidal Palace"}}
    start = {ROLE_NAMES[r]: TILE_NAMES[START_TILE[r]] for r in range(6)}
    assert start == {"pilot": "Fools' Landing", "engineer": "Bronze Gate", "explorer": "Copper Gate",
                     "navigator": "Gold Gate", "diver": "Iron Gate", "messenger": "Silver Gate"}
    # the notation's two-letter codes name the same tiles
    codes = dict(zip(TILE_CODES, TILE_NAMES))
    assert codes == {
        "TM": "Temple of the Moon", "TS": "Temple of the Sun", "WG": "Whispering Garden",
        "HG": "Howling Garden", "CE": "Cave of Embers", "CS": "Cave of Shadows", "CP": "Coral Palace",
        "TP": "Tidal Palace", "FL": "Fools' Landing", "BG": "Bronze Gate", "CG": "Copper Gate",
        "GG": "Gold Gate", "IG": "Iron Gate", "SG": "Silver Gate", "BB": "Breakers Bridge",
        "CA": "Cliffs of Abandon", "CF": "Crimson Forest", "DD": "Dunes of Deception",
        "LL": "Lost Lagoon", "MM": "Misty Marsh", "OB": "Observatory", "PR": "Phantom Rock",
        "TH": "Twilight Hollow", "WT": "Watchtower"}


def test_treasure_deck_flood_deck_and_roles():
    """R-TDECK: 28 cards, 5 per treasure, 3 Helicopter Lift, 2 Sandbags, 3 Waters Rise!.
    R-FDECK: one flood card per tile. R-ROLES: the six adventurers."""
    counts = dict(zip(KIND_NAMES, (int(x) for x in DECK_COUNTS)))
    assert counts == {"Earth Stone": 5, "Statue of the Wind": 5, "Crystal of Fire": 5, "Ocean's Chalice": 5,
                      "Helicopter Lift": 3, "Sandbags": 2, "Waters Rise!": 3}
    assert sum(counts.values()) == 28
    p = position(ISLAND + "diver@IG:\n")
    assert sorted(p.flood_draw) == list(range(24))          # a fresh position: every tile's card
    assert len(p.treasure_draw) == 28 and sorted(p.treasure_draw) == sorted(
        k for k in range(7) for _ in range(DECK_COUNTS[k]))
    assert set(ROLE_NAMES) == {"diver", "engineer", "explorer", "messenger", "navigator", "pilot"}


def test_meter_table_and_starting_levels():
    """R-METER: flood cards per turn at levels 1..9, the skull at 10, the four difficulties."""
    assert [int(x) for x in FLOOD_COUNT[1:]] == [2, 2, 3, 3, 3, 4, 4, 5, 5]
    assert SKULL == 10
    assert LEVELS == {"novice": 1, "normal": 2, "elite": 3, "legendary": 4}
    assert [GameConfig(level=name).start_level for name in ("novice", "normal", "elite", "legendary")] == [1, 2, 3, 4]


@pytest.mark.parametrize("level,count", list(zip(range(1, 10), (2, 2, 3, 3, 3, 4, 4, 5, 5))))
def test_meter_sets_the_flood_cards_drawn(level, count):
    """R-METER, R-FLOOD-1: at level L the flood phase draws the table's count of cards, top first."""
    pile = "WT MM CG BG CF TS"                                # top last: TS is drawn first
    p = position(ISLAND + f"pilot@FL:\nwater {level}\nflood draw: {pile}\n"
                 "flood discard: CS OB TP GG FL TH IG WG BB CA DD TM CP PR SG HG LL CE\n")
    run = play(p, PHASE_FLOOD)
    assert run.story == [f"flood {t}" for t in reversed(pile.split())][:count]


@pytest.mark.parametrize("start,rises", [("novice", 9), ("normal", 8), ("elite", 7), ("legendary", 6)])
def test_waters_rise_reach_the_skull(start, rises):
    """R-METER: from Legendary the 6th Waters Rise! reaches the skull (from Novice the 9th);
    R-LOSE skull: the game is lost at once."""
    level = LEVELS[start]
    p = position(ISLAND + f"pilot@FL: earth earth wind wind fire\nwater {level}\n"
                 "treasure draw: wr wr wr\n")
    g = EngineGame.from_position(p, seed=game_0_seed())
    seen = []
    for _ in range(5):                                       # the 3 Waters Rise! come round again
        seen += [e for e in story(p, g.run(PHASE_DRAW, SCRIPTED)) if e.startswith(("water", "lose"))]
        if g.pub[st.P_STATUS] != st.PLAYING:
            break
    assert seen == [f"water {level + i}" for i in range(1, rises + 1)] + ["lose skull: skull"]
    assert g.pub[st.P_STATUS] == st.LOST and g.pub[st.P_LEVEL] == SKULL


# === R-LAYOUT-1..4 ==============================================================================

# The shapes exactly as drawn in docs/rules.md (R-LAYOUT-1, R-LAYOUT-3).
RULES_SHAPES = {
    "standard": "..##.. .####. ###### ###### .####. ..##..",
    "skull-island": "###### #.##.# ###### .####. .####.",
    "harpoon-hideout": "####.. ###... ####.# #.#### ...### ..####",
    "atoll-of-decisions-card": "..###.. .#####. ##...## ##...## .#####. ..###..",
    "bay-of-gulls": "...##... ...##... #..##..# ######## .######. ...##...",
    "shipwreck-bay": "######## ##.##.## .##..##. .######.",
    "palm-springs": "..###.. ####### .#.#.#. ...#... .#####. .#####.",
    "mutiny-towers": "#.....# #.....# #.....# ##...## ####### #######",
    "davy-jones-locker": "....#.... .####.... ###.####. .####.### ....####. ....#....",
    "treasure-island": "##...## .#####. ..###.. ..###.. .#####. ##...##",
    "island-of-shadows": "###### ###### ###### ######",
    "volcano-island": "##### ##### ##.## ##### #####",
    "island-of-death": "..###.. ####### .#####. ..###.. ..###.. ..###..",
    "bone-island": ".##..##. ######## ######## .##..##.",
    "coral-reef": ".##.... ####... ######. .###### ...#### ....##.",
    "bridge-of-horrors": "###...#### ########## ####...###",
    "atoll-of-decisions-arena": "..###.. .##.##. ##...## #.....# ##...## .##.##. ..###..",
    "arch-of-fate": "...###... ..#####.. .###.###. ###...### ##.....##",
}


def test_builtin_layouts_have_the_shapes_of_the_rules():
    """R-LAYOUT-1, R-LAYOUT-3: the standard island and the 17 named islands, 24 cells each."""
    assert set(BUILTIN_NAMES) == set(RULES_SHAPES) and len(BUILTIN_NAMES) == 18
    for name, rows in RULES_SHAPES.items():
        layout = builtin_layout(name)
        assert layout.rows == tuple(rows.split()), name
        assert len(layout.cells) == 24, name
        assert sum(r.count("#") for r in rows.split()) == 24, name


def test_standard_layout_rows_and_orthogonal_adjacency():
    """R-LAYOUT-1: rows of 2, 4, 6, 6, 4, 2 tiles; R-LAYOUT-2: adjacency is orthogonal, the
    diagonal neighbours are kept apart (for the Explorer)."""
    layout = builtin_layout("standard")
    assert [r.count("#") for r in layout.rows] == [2, 4, 6, 6, 4, 2]
    geo = layout.geometry
    cells = {rc: i for i, rc in enumerate(layout.cells)}
    mask = lambda *rcs: sum(1 << cells[rc] for rc in rcs)    # noqa: E731
    assert geo[cells[(2, 2)], 0] == mask((1, 2), (3, 2), (2, 1), (2, 3))
    assert geo[cells[(2, 2)], 1] == mask((1, 1), (1, 3), (3, 1), (3, 3))
    assert geo[cells[(0, 2)], 0] == mask((0, 3), (1, 2))      # sea all round the rest
    assert geo[cells[(0, 2)], 1] == mask((1, 1), (1, 3))
    assert geo[cells[(2, 0)], 0] == mask((3, 0), (2, 1))
    assert geo[cells[(2, 0)], 1] == mask((1, 1), (3, 1))


def test_custom_layout_errors_name_line_and_column(tmp_path):
    """R-LAYOUT-4: a bad character and a wrong cell count are rejected with line and column."""
    good = RULES_SHAPES["standard"].split()
    bad = list(good)
    bad[2] = "##x###"
    with pytest.raises(LayoutError, match=r"line 3, column 3: 'x'"):
        parse_layout("\n".join(bad))
    with pytest.raises(LayoutError, match=r"line 6, column 3: cell 25"):
        parse_layout("\n".join(good[:4] + ["######"] + good[5:]))
    with pytest.raises(LayoutError, match=r"line 6: ends with 23 '#' cells"):
        parse_layout("\n".join(good[:5] + ["..#..."]))
    with pytest.raises(LayoutError, match=r"ends with 0 '#' cells"):
        parse_layout("")
    path = tmp_path / "mine.txt"
    path.write_text("\n".join(good[:1] + ["#T####"] + good[2:]) + "\n")
    with pytest.raises(LayoutError, match=r"layout mine: line 2, column 2: 'T'"):
        load_layout(str(path))


def test_custom_layout_disconnected_is_accepted_and_reported(tmp_path):
    """R-LAYOUT-4: a layout that is not one orthogonally connected island is allowed, and said so."""
    text = "######\n......\n######\n......\n######\n......\n######\n"
    path = tmp_path / "strips.txt"
    path.write_text(text)
    layout = load_layout(str(path))
    assert len(layout.cells) == 24 and layout.connected is False
    assert load_layout("standard").connected is True
    # diagonal contact does not connect
    assert parse_layout("#.....\n.#####\n######\n######\n######\n").connected is False
    from click.testing import CliRunner

    from fisim.cli import cli
    result = CliRunner().invoke(cli, ["layouts", str(path)])
    assert result.exit_code == 0 and "NOT one connected island" in result.output


# === R-SETUP-1..6 ===============================================================================


def test_setup_places_all_24_tiles_dry_then_floods_six():
    """R-SETUP-1: every tile placed once, all dry; R-SETUP-2: 6 flood cards drawn, those tiles
    flooded and their cards on the flood discard, the other 18 in the draw pile."""
    for i in range(20):
        pub, hid, events = set_up(GameConfig(players=3), game_seed(7, i))
        tile_at = [int(x) for x in pub[st.P_TILE_AT:st.P_TILE_AT + 24]]
        assert sorted(tile_at) == list(range(24))
        assert [e for e in events if e[0] == ev.EV_PLACE] == [(ev.EV_PLACE, c, tile_at[c], 0) for c in range(24)]
        floods = [e[1] for e in events if e[0] == ev.EV_SETUP_FLOOD]
        assert len(floods) == 6 == len(set(floods))
        assert pub[st.P_EXISTS] == (1 << 24) - 1 and pub[st.P_FLOODED] == sum(1 << c for c in floods)
        assert pub[st.P_FDISC] == sum(1 << tile_at[c] for c in floods)
        pile = [int(x) for x in hid[st.H_FPILE:st.H_FPILE + pub[st.P_FDRAW_N]]]
        assert len(pile) == 18 and sorted(pile + [tile_at[c] for c in floods]) == list(range(24))


@pytest.mark.compiles
def test_setup_placement_is_uniform():
    """R-LAYOUT-2, R-SETUP-1: tiles are placed uniformly at random: over 2400 games each tile
    lands on each cell about 100 times (a placement that favours cells fails)."""
    hits = np.zeros((24, 24), dtype=np.int64)
    for i in range(2400):
        pub, _, _ = set_up(GameConfig(players=2), game_seed(11, i))
        for c in range(24):
            hits[pub[st.P_TILE_AT + c], c] += 1
    assert hits.min() >= 55 and hits.max() <= 150
    # the 6 initial floods are uniform over cells too
    floods = np.zeros(24, dtype=np.int64)
    for i in range(800):
        pub, _, _ = set_up(GameConfig(players=2), game_seed(12, i))
        floods += [(pub[st.P_FLOODED] >> c) & 1 for c in range(24)]
    assert floods.sum() == 4800 and floods.min() >= 140 and floods.max() <= 260


def test_setup_pawns_start_on_their_tiles():
    """R-SETUP-3: one adventurer per player (fixed team in seat order, or at random without
    repeats); each pawn on its role's starting tile, flooded or not."""
    team = ("messenger", "pilot", "diver", "navigator")
    start_flooded = 0
    for i in range(40):
        pub, _, events = set_up(GameConfig(players=4, team=team), game_seed(3, i))
        cell_of = {int(pub[st.P_TILE_AT + c]): c for c in range(24)}
        for s, role in enumerate(team):
            r = ROLE_NAMES.index(role)
            assert pub[st.P_ROLE + s] == r and pub[st.P_POS + s] == cell_of[START_TILE[r]]
            start_flooded += pub[st.P_FLOODED] >> int(pub[st.P_POS + s]) & 1
        assert [e for e in events if e[0] == ev.EV_TEAM] == [
            (ev.EV_TEAM, s, ROLE_NAMES.index(r), cell_of[START_TILE[ROLE_NAMES.index(r)]]) for s, r in enumerate(team)]
    assert start_flooded > 0                                  # starting on a flooded tile happens
    dealt = Counter()
    for i in range(60):
        pub, _, _ = set_up(GameConfig(players=3), game_seed(4, i))
        roles = [int(pub[st.P_ROLE + s]) for s in range(4)]
        assert len(set(roles[:3])) == 3 and roles[3] == -1 and pub[st.P_POS + 3] == -1
        dealt.update(roles[:3])
    assert set(dealt) == set(range(6))                       # every adventurer gets dealt


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_setup_deals_two_cards_each_and_never_a_waters_rise(players):
    """R-SETUP-4: 2 treasure cards per player, face up; a Waters Rise! dealt is set aside and
    replaced, then shuffled back: the draw pile holds 28 - 2P cards, all 3 Waters Rise! among them."""
    config = GameConfig(players=players, switches={"solo"} if players == 1 else ())
    set_aside_seen = 0
    for i in range(40):
        pub, hid, events = set_up(config, game_seed(5, i))
        hands = [[int(pub[st.hand_at(s, k)]) for k in range(6)] for s in range(players)]
        assert all(sum(h) == 2 for h in hands)
        n = int(pub[st.P_TDRAW_N])
        assert n == 28 - 2 * players
        pile = Counter(int(k) for k in hid[st.H_TPILE:st.H_TPILE + n])
        assert pile[6] == 3
        assert [pile[k] + sum(h[k] for h in hands if k < 6) for k in range(7)] == [int(x) for x in DECK_COUNTS]
        assert [int(pub[st.P_TDRAW_COUNT + k]) for k in range(7)] == [pile[k] for k in range(7)]
        deals = [e for e in events if e[0] in (ev.EV_DEAL, ev.EV_DEAL_WR, ev.EV_DEAL_RESHUFFLE)]
        assert all(e[2] != 6 for e in deals if e[0] == ev.EV_DEAL)
        wr = [e for e in deals if e[0] == ev.EV_DEAL_WR]
        if wr:
            set_aside_seen += 1
            assert deals[-1] == (ev.EV_DEAL_RESHUFFLE, 28 - 2 * players, 0, 0)
        else:
            assert all(e[0] == ev.EV_DEAL for e in deals)
        seats = [e[1] for e in deals if e[0] == ev.EV_DEAL]
        assert seats == sorted(seats) and Counter(seats) == {s: 2 for s in range(players)}
    assert set_aside_seen > 0


def test_setup_water_level_and_first_player():
    """R-SETUP-5: the meter at the difficulty's position (or any position below the skull, engine
    and reference); R-SETUP-6: a fixed first player, or a random one (every seat happens)."""
    for name, level in LEVELS.items():
        pub, _, events = set_up(GameConfig(players=2, level=name, first=1), game_seed(6, level))
        assert pub[st.P_LEVEL] == level and pub[st.P_ACTIVE] == 1
        assert events[-1] == (ev.EV_FIRST, 1, level, 0)
    for position in (5, 9):                                  # a meter position below the skull, unnamed
        pub, _, events = set_up(GameConfig(players=2, level=str(position), first=0), game_seed(6, position))
        assert pub[st.P_LEVEL] == position and events[-1] == (ev.EV_FIRST, 0, position, 0)
        ref = Game(builtin_layout("standard"), GameConfig(players=2, level=str(position), first=0),
                   seed=game_seed(6, position))
        ref_setup.set_up(ref)
        assert ref.level == position and tuple(ref.events[-1][:3]) == (ev.EV_FIRST, 0, position)
    firsts = Counter()
    for i in range(200):
        pub, _, _ = set_up(GameConfig(players=4), game_seed(8, i))
        firsts[int(pub[st.P_ACTIVE])] += 1
    assert set(firsts) == {0, 1, 2, 3} and min(firsts.values()) > 25


@pytest.mark.parametrize("active,players", [(0, 2), (1, 2), (2, 3), (3, 4)])
def test_play_passes_clockwise_in_seat_order(active, players):
    """R-SETUP-6, R-TURN: after a turn, the next seat (seat + 1, wrapping) is active."""
    team = ["diver", "engineer", "messenger", "navigator"][:players]
    seats = "".join(f"{r}@{g}:\n" for r, g in zip(team, ("IG", "BG", "SG", "GG")))
    p = position(island() + seats + f"active {active}\nturn 5\ntreasure draw: earth wind fire\n")
    run = play(p, PHASE_TURN, ["end"])
    assert run.story[0] == f"turn 6 {team[active]}"
    assert run.pub[st.P_ACTIVE] == (active + 1) % players


# === R-INFO =====================================================================================


def test_policy_sees_no_pile_order():
    """R-INFO: two positions that differ only in the order of the draw piles give the policy the
    same public state and the same options at every kind of decision; the order is kept outside
    `pub`, the only thing a policy is given."""
    def pos(treasure, flood, decision):
        return position(island("ca wg") + "navigator@GG: earth heli\ndiver@IG: sand earth earth wind fire ocean\n"
                        f"treasure draw: {treasure}\nflood draw: {flood}\ndecision: {decision}\n"
                        "flood discard: CS OB TP GG FL TH IG WG BB CA DD CP PR SG HG LL WT MM CG BG TS\n")
    for decision in ("action", "window", "discard diver"):
        a = pos("fire ocean wr earth wind", "TM CE CF", decision)
        b = pos("wind wr earth ocean fire", "CF TM CE", decision)
        ea, eb = EngineGame.from_position(a), EngineGame.from_position(b)
        assert np.array_equal(ea.pub, eb.pub)
        assert hidden_piles(ea) != hidden_piles(eb)
        assert legal(a) == legal(b)


def test_waters_rise_tells_which_cards_are_on_top_but_not_their_order():
    """R-INFO: after a Waters Rise! the policy may know which flood cards were put on top (pub
    marks them) but not their order: under eight seeds the hidden order varies, pub does not."""
    p = position(island("tp dd cp") + "diver@IG:\ntreasure draw: fire earth wr\n"
                 "flood discard: TP DD CP GG\n")
    run = play(p, PHASE_DRAW)
    assert run.story == ["draw diver wr", "water 3", "flood discard on top 4", "draw diver earth"]
    on_top = {TILE_CODES[t] for t in range(24) if run.pub[st.P_FLAYER + t] > 0}
    assert on_top == tiles("TP DD CP GG")
    orders = {tuple(run.flood_pile()[-4:])}
    for i in range(1, 8):
        g = EngineGame.from_position(p, seed=game_seed(0, i))
        g.run(PHASE_DRAW, SCRIPTED)
        assert np.array_equal(g.pub, run.pub)
        orders.add(tuple(TILE_CODES[t] for t in hidden_piles(g)[1][-4:]))
    assert len(orders) > 1 and all(set(o) == tiles("TP DD CP GG") for o in orders)


def test_a_position_says_which_flood_cards_a_waters_rise_put_on_top():
    """R-DRAW-WR, R-INFO: the notation's 'flood on top' groups are the top cards of the flood draw
    pile, the latest group on top, and pub marks them layer by layer as a Waters Rise! would."""
    p = position(island("tp") + "diver@IG:\nflood on top: TP DD | CP\n")
    g = EngineGame.from_position(p)
    layers = {TILE_CODES[t]: int(g.pub[st.P_FLAYER + t]) for t in range(24) if g.pub[st.P_FLAYER + t]}
    assert layers == {"TP": 1, "DD": 1, "CP": 2} and g.pub[st.P_LAYER_TOP] == 2
    pile = [TILE_CODES[t] for t in hidden_piles(g)[1]]
    assert pile[-1] == "CP" and set(pile[-3:-1]) == {"TP", "DD"} and len(pile) == 24
    run = play(p, PHASE_FLOOD)          # water 2: two cards, CP then one of the first group
    assert run.story[0] == "flood CP" and run.story[1] in ("sink TP", "flood DD")
    with pytest.raises(PositionError, match="top cards of the flood draw pile"):
        position(island("") + "diver@IG:\nflood on top: TP\nflood draw: TP GG\n")


def test_flood_draw_mask_names_the_cards_in_the_flood_draw_pile():
    """R-INFO, R-FLOOD-1: view.flood_draw_mask is every tile's card but those in the flood discard
    and those of the sunk tiles CA and BB; switch sunk-card-stays: the sunk tiles' cards are in
    the deck too, CA's in the pile, BB's in the discard. Either way it equals the contents of the
    hidden pile, which it does not read."""
    board = island("~CA ~BB wg") + "diver@IG:\n"
    for rules, discard, in_pile in (("", "WG TM", ALL_TILES - tiles("WG TM CA BB")),
                                    ("rules: sunk-card-stays\n", "WG TM BB", ALL_TILES - tiles("WG TM BB"))):
        g = EngineGame.from_position(position(board + f"flood discard: {discard}\n" + rules))
        mask = view.flood_draw_mask(g.pub)
        assert {TILE_CODES[t] for t in range(24) if mask >> t & 1} == in_pile
        assert mask == sum(1 << t for t in hidden_piles(g)[1]) and len(hidden_piles(g)[1]) == len(in_pile)


SPLITMIX_M1, SPLITMIX_M2 = 0xBF58476D1CE4E5B9, 0x94D049BB133111EB   # splitmix64's published constants


def _unmix64(z):
    """The inverse of splitmix64's finalizer (fisim.rules.rng.mix64): what a policy could compute."""
    def unshift(z, s):
        x = z
        for _ in range(64 // s):
            x = z ^ (x >> s)
        return x
    z = unshift(z, 31)
    z = unshift(z * pow(SPLITMIX_M2, -1, 2**64) % 2**64, 27)
    z = unshift(z * pow(SPLITMIX_M1, -1, 2**64) % 2**64, 30)
    return z


def _seed_behind(counter, stream):
    """The game seed a stream seeded as init_streams seeds the others, mix64(seed ^ (k + 1) * M2),
    was seeded from: the attack a policy could make on the counter it is handed."""
    return _unmix64(int(counter)) ^ ((stream + 1) * SPLITMIX_M2 % 2**64)


def test_the_policy_stream_tells_nothing_of_the_piles():
    """R-INFO: the counter of the random stream a policy is handed does not give the game away.
    The attack that works on a stream seeded as the others are (undo the mix: the game's seed, and
    a setup from it: every pile) recovers every seed from the FIRST stream; on the policy stream
    (seeded one-way, fisim.rules.rng) it predicts the next treasure card no better than a guess
    from the public counts: hits within 4 standard deviations of what such a guess expects."""
    games, hits, expected, variance = 600, 0, 0.0, 0.0
    config = GameConfig(players=3)
    for i in range(games):
        seed = game_seed(13, i)
        streams = np.zeros(N_STREAMS, np.uint64)
        init_streams(np.uint64(seed), streams)
        assert _seed_behind(streams[FIRST], FIRST) == seed
        pub, g, _ = set_up(config, seed)
        top = int(g[st.H_TPILE + pub[st.P_TDRAW_N] - 1])
        guessed_pub, guessed, _ = set_up(config, _seed_behind(streams[POLICY], POLICY))
        guess = int(guessed[st.H_TPILE + guessed_pub[st.P_TDRAW_N] - 1])
        chance = pub[st.P_TDRAW_COUNT + guess] / pub[st.P_TDRAW_N]      # of a guess blind to the order
        hits += guess == top
        expected += chance
        variance += chance * (1 - chance)
    assert hits <= expected + 4 * variance ** 0.5, (hits, expected, variance ** 0.5)


# === rule switches and the solo variant: configuration ==========================================


def test_switches_are_the_rules_switches():
    """The rule switches fisim implements (docs/rules.md §8): navigator-plain, heli-all,
    swim-seed000, no-heli-rescue, swim-seed001, diver-flooded-only, diver-sunk-only,
    sunk-card-stays, hand-after-draw, solo."""
    assert set(SWITCHES) == {"navigator-plain", "heli-all", "swim-seed000", "no-heli-rescue", "swim-seed001",
                             "diver-flooded-only", "diver-sunk-only", "sunk-card-stays", "hand-after-draw", "solo"}
    with pytest.raises(ConfigError):
        GameConfig(switches={"heli-some"}).validate()


@pytest.mark.parametrize("pair", [("swim-seed000", "swim-seed001"), ("diver-flooded-only", "diver-sunk-only")])
def test_two_readings_of_one_rule_cannot_be_combined(pair):
    """R-SWIM-2 (swim-seed000, swim-seed001) and R-ROLE-DIVER (diver-flooded-only,
    diver-sunk-only) each have two switches that read the rule two ways: a setting takes one of
    them, with any other switch; both are refused in one message naming the two."""
    for s in pair:
        GameConfig(switches={s, "heli-all", "sunk-card-stays", "hand-after-draw"}).validate()
    with pytest.raises(ConfigError) as refused:
        GameConfig(switches=set(pair)).validate()
    message = str(refused.value)
    assert "\n" not in message and all(repr(s) in message for s in pair)


def test_solo_config_draws_three_and_holds_seven():
    """R-VAR-SOLO: 1 player with 1 adventurer, 3 treasure cards a turn, hand limit 7; solo is for
    one player only, and one player needs solo."""
    solo = GameConfig(players=1, switches={"solo"}).validate()
    assert (solo.draws, solo.hand_limit, solo.actions) == (3, 7, 3)
    assert (GameConfig(players=2).draws, GameConfig(players=2).hand_limit) == (2, 5)
    with pytest.raises(ConfigError, match="solo"):
        GameConfig(players=1).validate()
    with pytest.raises(ConfigError, match="solo"):
        GameConfig(players=2, switches={"solo"}).validate()
    pub, _, _ = set_up(solo, game_seed(1, 1))
    assert pub[st.P_PLAYERS] == 1 and pub[st.P_ROLE + 1] == -1
