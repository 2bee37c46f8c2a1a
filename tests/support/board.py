"""The rule tests' board: positions written in the text notation of fisim.position, and each asked
of both implementations, the Numba engine and the plain-Python reference, which must agree: the
legal options of a position (`options`), and every part of a turn run from it (`play`: the same
events, decisions and state)."""
import re
from collections import Counter
from dataclasses import dataclass

import numpy as np

import policies
from fisim import engine
from fisim.engine import EngineGame
from fisim.engine.entries import PHASE_ACTIONS, PHASE_DRAW, PHASE_FLOOD, PHASE_SINK, PHASE_TURN
from fisim.position import CARD_CODES, DRY, FLOODED, SUNK, TILE_CODES, parse_position
from fisim.reference import Game, GameOver
from fisim.reference import turn as ref_turn
from fisim.rules import events as ev
from fisim.rules import state as st
from fisim.rules.constants import (
    CLOSE_NAMES,
    LOSS_NAMES,
    N_KINDS,
    ROLE_NAMES,
)
from fisim.rules.layouts import builtin_layout
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
from fisim.rules.rng import game_seed
from fisim.rules.turn import result_row
from policies import load_policy

SCRIPTED = load_policy(policies.SCRIPTED)

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
    from fisim.rules.rng import N_STREAMS
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

    def close(self):
        """How close the game came to being lost (the result's R_CLOSE, by CLOSE_NAMES), as the
        engine's result row gives it; once the game is over, the reference's must be the same."""
        out = np.zeros(st.R_SIZE, np.int32)
        result_row(self.engine.g, out)
        if self.reference.result is not None:
            assert self.reference.result["close"] == out[st.R_CLOSE], "engine and reference results differ"
        return {name for i, name in enumerate(CLOSE_NAMES) if out[st.R_CLOSE] >> i & 1}


def play(p, phase, script=(), sink=None, seed=None, after=None):
    """Run a phase (fisim.engine.entries.PHASE_*) from position `p` on the engine with a scripted
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
    assert bool(g.g[st.X_TEMPLE_CLOSE]) == ref.temple_close, "the treasure one flood card from lost differs"
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
