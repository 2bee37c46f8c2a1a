"""R-TURN and everything a turn sets off: actions, draws, Waters Rise!, floods, sinking, swimming,
the hand limit, special-card windows, the win and the losses. The event order is docs/model.md's.

The functions that ask the policy are plain Python here: they call a module-level `decide` that
fisim.engine.specialise binds to one policy's decide function when it compiles them for it.
"""
from numba import njit

from fisim.rules import events as ev
from fisim.rules.actions import (actor_of, apply_action, apply_special, list_options, swim_reach,
                                 win_available)
from fisim.rules.config import C_ACTIONS, C_DRAWS, C_FLOODS, C_HAND_LIMIT, C_NO_HELI_RESCUE
from fisim.rules.constants import (DROWNED, FOOLS_LANDING, HELI, LANDING_SUNK, N_KINDS,
                                   N_TREASURES, SAND, SKULL, SKULL_REACHED, TREASURE_LOST,
                                   WATERS_RISE)
from fisim.rules.options import ACTION, DISCARD, DROP, END, PASS, SWIM, WINDOW, field1, otype
from fisim.rules.options import HELI as O_HELI
from fisim.rules.options import SAND as O_SAND
from fisim.rules.rng import FLOOD, POLICY, TREASURE, shuffle
from fisim.rules.setup import setup_game
from fisim.rules.state import (ERROR, H_FPILE, H_TPILE, LOST, P_ACTIONS_LEFT, P_ACTIVE, P_CAPTURED,
                               P_CAUSE, P_CELL_OF, P_CONDITIONS, P_DECIDER, P_DECISION, P_ERROR,
                               P_EXISTS, P_FDISC, P_FDRAW_N, P_FIRST, P_FLAYER, P_FLIGHT_USED,
                               P_FLOODED, P_LAYER_TOP, P_LEVEL, P_PLAYERS, P_POS, P_ROLE,
                               P_STATUS, P_SUNK_CELL, P_SUNK_COUNT, P_TDISC, P_TDRAW_COUNT,
                               P_TDRAW_N, P_TILE_AT, P_TURN, PLAYING, WON, hand_at, hand_size,
                               holders_mask, log_event, popcount)

MAX_TURNS = 10_000

decide = None   # bound per policy by fisim.engine.specialise

# Columns of a game's result row.
R_STATUS, R_CAUSE, R_CONDITIONS, R_TURNS, R_LEVEL, R_CAPTURED, R_SUNK, R_FIRST, R_ROLE, R_ERROR = (
    0, 1, 2, 3, 4, 5, 6, 7, 8, 12)
R_SIZE = 13


def ask(ctx, kind, decider):
    """List the legal options of a decision and get one: alone, or from the policy (R-INFO: it
    sees `pub` only). Returns the option code, or -1 after an illegal choice (game marked ERROR)."""
    pub, opts, declog = ctx.pub, ctx.opts, ctx.declog
    pub[P_DECISION] = kind
    pub[P_DECIDER] = decider
    n = list_options(pub, ctx.geo, ctx.cfg, opts)
    i = 0
    if n > 1:
        i = decide(pub, ctx.geo, opts, n, ctx.mem, ctx.rng[POLICY:POLICY + 1])
        if i < 0 or i >= n:
            pub[P_STATUS] = ERROR
            pub[P_ERROR] = kind + 1
            return -1
        j = declog[0]
        if j + n + 4 < declog.shape[0]:
            declog[j + 1] = kind
            declog[j + 2] = decider
            declog[j + 3] = n
            declog[j + 4:j + 4 + n] = opts[:n]
            declog[j + 4 + n] = i
            declog[0] = j + n + 4
    return opts[i]


@njit(cache=True, inline="always")
def lose(ctx, conditions):
    """R-LOSE / R-LOSE-CAUSE: record every condition and the primary cause (lowest bit first)."""
    pub = ctx.pub
    pub[P_STATUS] = LOST
    pub[P_CONDITIONS] = conditions
    pub[P_CAUSE] = conditions & -conditions
    log_event(ctx.log, ev.EV_LOSE, pub[P_CAUSE], conditions, 0)


@njit(cache=True, inline="always")
def claim_win(ctx):
    """R-WIN: the first seat from the active one holding a Helicopter Lift lifts the team off."""
    pub = ctx.pub
    players = pub[P_PLAYERS]
    for k in range(players):
        s = (pub[P_ACTIVE] + k) % players
        if pub[hand_at(s, HELI)] > 0:
            pub[hand_at(s, HELI)] -= 1
            pub[P_TDISC + HELI] += 1
            pub[P_STATUS] = WON
            log_event(ctx.log, ev.EV_WIN, s, 0, 0)
            return


@njit(cache=True, inline="always")
def check_win(ctx):
    if win_available(ctx.pub, ctx.pub[P_CELL_OF + FOOLS_LANDING]):
        claim_win(ctx)
        return True
    return False


@njit(cache=True, inline="always")
def play_special(ctx, kind, c):
    log_event(ctx.log, ev.EV_CHOICE, kind, actor_of(ctx.pub, c), c)
    apply_special(ctx.pub, c)


def window(ctx):
    """R-SPECIAL-WINDOWS: the team may play Helicopter Lifts and Sandbags, one after another."""
    pub = ctx.pub
    while True:
        if check_win(ctx):
            return
        if holders_mask(pub, HELI) == 0 and holders_mask(pub, SAND) == 0:
            return
        c = ask(ctx, WINDOW, pub[P_ACTIVE])
        if c < 0 or otype(c) == PASS:
            return
        play_special(ctx, WINDOW, c)


def enforce_hand_limit(ctx, seat):
    """R-HAND: a player over the limit discards (or plays specials) until back at the limit."""
    pub = ctx.pub
    while hand_size(pub, seat) > ctx.cfg[C_HAND_LIMIT]:
        if check_win(ctx):
            return
        c = ask(ctx, DISCARD, seat)
        if c < 0:
            return
        if otype(c) == DROP:
            log_event(ctx.log, ev.EV_CHOICE, DISCARD, seat, c)
            k = field1(c)
            pub[hand_at(seat, k)] -= 1
            pub[P_TDISC + k] += 1
        else:
            play_special(ctx, DISCARD, c)


def action_phase(ctx):
    """R-TURN (1): up to the configured number of actions; special cards cost none."""
    pub = ctx.pub
    while pub[P_ACTIONS_LEFT] > 0:
        if check_win(ctx):
            return
        c = ask(ctx, ACTION, pub[P_ACTIVE])
        if c < 0:
            return
        t = otype(c)
        if t == O_HELI or t == O_SAND:
            play_special(ctx, ACTION, c)
            continue
        log_event(ctx.log, ev.EV_CHOICE, ACTION, pub[P_ACTIVE], c)
        if t == END:
            return
        receiver = apply_action(pub, c)
        pub[P_ACTIONS_LEFT] -= 1
        if receiver >= 0:
            enforce_hand_limit(ctx, receiver)
            if pub[P_STATUS] != PLAYING:
                return


@njit(cache=True, inline="always")
def flood_pile_add_discard(ctx):
    """Shuffle the flood discard (listed by ascending tile id) onto the top of the flood draw pile."""
    pub, hid = ctx.pub, ctx.hid
    n = pub[P_FDRAW_N]
    k = 0
    disc = pub[P_FDISC]
    t = 0
    while disc:
        if disc & 1:
            hid[H_FPILE + n + k] = t
            k += 1
        disc >>= 1
        t += 1
    shuffle(ctx.hid[H_FPILE + n:H_FPILE + n + k], k, ctx.rng[FLOOD:FLOOD + 1])
    pub[P_FDISC] = 0
    pub[P_FDRAW_N] = n + k
    return k


@njit(cache=True, inline="always")
def waters_rise(ctx):
    """R-DRAW-WR: raise the meter; the flood discard, shuffled, goes on top of the flood pile."""
    pub = ctx.pub
    pub[P_LEVEL] += 1
    log_event(ctx.log, ev.EV_WATERS_RISE, pub[P_LEVEL], 0, 0)
    if pub[P_LEVEL] >= SKULL:
        lose(ctx, SKULL_REACHED)
        return
    if pub[P_FDISC] != 0:
        n = pub[P_FDRAW_N]
        k = flood_pile_add_discard(ctx)
        pub[P_LAYER_TOP] += 1
        for i in range(n, n + k):
            pub[P_FLAYER + ctx.hid[H_FPILE + i]] = pub[P_LAYER_TOP]
        log_event(ctx.log, ev.EV_FLOOD_ON_TOP, k, 0, 0)
    pub[P_TDISC + WATERS_RISE] += 1


@njit(cache=True, inline="always")
def treasure_reshuffle(ctx):
    """R-DRAW-EMPTY: the treasure discard (listed by ascending kind) becomes the new draw pile."""
    pub, hid = ctx.pub, ctx.hid
    n = 0
    for k in range(N_KINDS):
        cnt = pub[P_TDISC + k]
        for _ in range(cnt):
            hid[H_TPILE + n] = k
            n += 1
        pub[P_TDRAW_COUNT + k] = cnt
        pub[P_TDISC + k] = 0
    shuffle(hid[H_TPILE:H_TPILE + n], n, ctx.rng[TREASURE:TREASURE + 1])
    pub[P_TDRAW_N] = n
    log_event(ctx.log, ev.EV_TREASURE_RESHUFFLE, n, 0, 0)


def draw_phase(ctx):
    """R-DRAW-1: draw cards one at a time; each may raise the water, fill a hand, empty the pile."""
    pub, hid = ctx.pub, ctx.hid
    a = pub[P_ACTIVE]
    for _ in range(ctx.cfg[C_DRAWS]):
        if pub[P_TDRAW_N] == 0:
            return      # unreachable in a legal game: the discard always refills the pile
        n = pub[P_TDRAW_N] - 1
        k = hid[H_TPILE + n]
        pub[P_TDRAW_N] = n
        pub[P_TDRAW_COUNT + k] -= 1
        log_event(ctx.log, ev.EV_DRAW, a, k, 0)
        if k == WATERS_RISE:
            waters_rise(ctx)
            if pub[P_STATUS] != PLAYING:
                return
        else:
            pub[hand_at(a, k)] += 1
        if n == 0:
            treasure_reshuffle(ctx)
        enforce_hand_limit(ctx, a)
        if pub[P_STATUS] != PLAYING:
            return
        window(ctx)
        if pub[P_STATUS] != PLAYING:
            return


def sink(ctx, cell):
    """R-FLOOD-1 on a flooded tile: it sinks; check R-LOSE; pawns on it swim (R-SWIM-1..3)."""
    pub, geo, cfg = ctx.pub, ctx.geo, ctx.cfg
    tile = pub[P_TILE_AT + cell]
    pub[P_EXISTS] &= ~(1 << cell)
    pub[P_FLOODED] &= ~(1 << cell)
    pub[P_SUNK_COUNT] += 1
    log_event(ctx.log, ev.EV_SINK, cell, 0, 0)
    players = pub[P_PLAYERS]
    rescue = cfg[C_NO_HELI_RESCUE] == 0 and holders_mask(pub, HELI) != 0
    conditions = 0
    if tile == FOOLS_LANDING:
        conditions |= LANDING_SUNK
    if tile < 2 * N_TREASURES:
        t = tile >> 1
        twin = pub[P_CELL_OF + (tile ^ 1)]
        if not (pub[P_CAPTURED] >> t) & 1 and not (pub[P_EXISTS] >> twin) & 1:
            conditions |= TREASURE_LOST
    if conditions:
        if not rescue:
            for s in range(players):
                if pub[P_POS + s] == cell and swim_reach(pub, geo, cfg, s, cell) == 0:
                    conditions |= DROWNED
        lose(ctx, conditions)
        return
    pub[P_SUNK_CELL] = cell
    for k in range(players):
        s = (pub[P_ACTIVE] + k) % players
        if pub[P_POS + s] != cell:
            continue
        c = ask(ctx, SWIM, s)
        if c < 0:
            return
        if otype(c) == PASS:        # R-SWIM-3: nowhere to swim, and no lift
            log_event(ctx.log, ev.EV_DROWN, s, 0, 0)
            lose(ctx, DROWNED)
            return
        if otype(c) == O_HELI:
            play_special(ctx, SWIM, c)
        else:
            log_event(ctx.log, ev.EV_CHOICE, SWIM, s, c)
            pub[P_POS + s] = field1(c)


def flood_phase(ctx):
    """R-FLOOD-1 / R-FLOOD-EMPTY: draw the meter's count of flood cards, one at a time."""
    pub, hid = ctx.pub, ctx.hid
    count = ctx.cfg[C_FLOODS + pub[P_LEVEL]]
    for _ in range(count):
        window(ctx)
        if pub[P_STATUS] != PLAYING:
            return
        if pub[P_FDRAW_N] == 0:
            return      # unreachable in a legal game: Fools' Landing sinks first
        n = pub[P_FDRAW_N] - 1
        t = hid[H_FPILE + n]
        pub[P_FDRAW_N] = n
        pub[P_FLAYER + t] = 0
        cell = pub[P_CELL_OF + t]
        if (pub[P_FLOODED] >> cell) & 1:
            sink(ctx, cell)
            if pub[P_STATUS] != PLAYING:
                return
        else:
            pub[P_FLOODED] |= 1 << cell
            pub[P_FDISC] |= 1 << t
            log_event(ctx.log, ev.EV_FLOOD, cell, 0, 0)
        if n == 0 and pub[P_FDISC] != 0:
            k = flood_pile_add_discard(ctx)
            log_event(ctx.log, ev.EV_FLOOD_RESHUFFLE, k, 0, 0)


def play_turn(ctx):
    """R-TURN: one player's turn; the next seat becomes active if the game goes on."""
    pub = ctx.pub
    pub[P_TURN] += 1
    pub[P_ACTIONS_LEFT] = ctx.cfg[C_ACTIONS]
    pub[P_FLIGHT_USED] = 0
    log_event(ctx.log, ev.EV_TURN, pub[P_TURN], pub[P_ACTIVE], 0)
    action_phase(ctx)
    if pub[P_STATUS] == PLAYING:
        draw_phase(ctx)
    if pub[P_STATUS] == PLAYING:
        flood_phase(ctx)
    if pub[P_STATUS] == PLAYING:
        pub[P_ACTIVE] = (pub[P_ACTIVE] + 1) % pub[P_PLAYERS]


def play_game(ctx, seed):
    """Set up and play one whole game (R-SETUP, then R-TURN until R-WIN or R-LOSE)."""
    setup_game(ctx, seed)
    pub = ctx.pub
    while pub[P_STATUS] == PLAYING:
        if pub[P_TURN] >= MAX_TURNS:
            pub[P_STATUS] = ERROR
            break
        play_turn(ctx)


@njit(cache=True, inline="always")
def result_row(pub, out):
    out[R_STATUS] = pub[P_STATUS]
    out[R_CAUSE] = pub[P_CAUSE]
    out[R_CONDITIONS] = pub[P_CONDITIONS]
    out[R_TURNS] = pub[P_TURN]
    out[R_LEVEL] = pub[P_LEVEL]
    out[R_CAPTURED] = popcount(pub[P_CAPTURED])
    out[R_SUNK] = pub[P_SUNK_COUNT]
    out[R_FIRST] = pub[P_FIRST]
    for s in range(4):
        out[R_ROLE + s] = pub[P_ROLE + s]
    out[R_ERROR] = pub[P_ERROR]


