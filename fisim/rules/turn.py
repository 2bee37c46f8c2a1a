"""R-TURN and everything a turn sets off: actions, draws, Waters Rise!, floods, sinking, swimming,
the hand limit, special-card windows, the win and the losses. The event order is docs/model.md's.

Compiled once into the engine every policy shares (fisim.engine.runners), which asks the policy
whose compiled entry the game array points to (fisim.rules.asking). Every function here handles
only views of the game array and the streams that an entry point keeps alive
(fisim.jit.intrinsics.uncounted): they are compiled without reference counting.
"""
from fisim.jit.modes import compiled, inlined
from fisim.rules import events as ev
from fisim.rules.actions import actor_of, apply_action, apply_special, list_options, swim_reach, win_available
from fisim.rules.asking import policy_at
from fisim.rules.config import (
    C_ACTIONS,
    C_DRAWS,
    C_FLOODS,
    C_HAND_AFTER_DRAW,
    C_HAND_LIMIT,
    C_NO_HELI_RESCUE,
    C_SKULL,
    C_SUNK_CARD_STAYS,
)
from fisim.rules.constants import (
    CLOSE_LANDING,
    CLOSE_SKULL,
    CLOSE_TEMPLE,
    DROWNED,
    FOOLS_LANDING,
    HELI,
    LANDING_SUNK,
    MAX_PLAYERS,
    N_KINDS,
    N_TILES,
    N_TREASURES,
    SAND,
    SKULL_REACHED,
    TREASURE_LOST,
    WATERS_RISE,
)
from fisim.rules.events import log_event
from fisim.rules.options import (
    ACTION,
    DISCARD,
    DROP,
    END,
    LIFT,
    LIFT_DEST,
    PASS,
    SANDBAG,
    SWIM,
    WINDOW,
    code,
    field1,
    field2,
    otype,
)
from fisim.rules.rng import FLOOD, TREASURE, repeat_policy_stream, shuffle
from fisim.rules.setup import setup_game
from fisim.rules.state import (
    ALL_CELLS,
    ERROR,
    H_FPILE,
    H_TPILE,
    LOST,
    OPTS,
    P_ACTIONS_LEFT,
    P_ACTIVE,
    P_CAPTURED,
    P_CAUSE,
    P_CELL_OF,
    P_CFG,
    P_CONDITIONS,
    P_DECIDER,
    P_DECISION,
    P_ERROR,
    P_ERROR_INDEX,
    P_ERROR_N,
    P_EXISTS,
    P_FDISC,
    P_FDRAW_N,
    P_FIRST,
    P_FIRST_SUNK,
    P_FLAYER,
    P_FLIGHT_USED,
    P_FLOODED,
    P_LAYER_TOP,
    P_LEVEL,
    P_LIFT,
    P_LIFT_FROM,
    P_PLAYERS,
    P_POS,
    P_ROLE,
    P_STATUS,
    P_SUNK_CELL,
    P_SUNK_COUNT,
    P_TDISC,
    P_TDRAW_COUNT,
    P_TDRAW_N,
    P_TILE_AT,
    P_TURN,
    PLAYING,
    R_CAPTURED,
    R_CAUSE,
    R_CLOSE,
    R_CONDITIONS,
    R_ERROR,
    R_ERROR_INDEX,
    R_ERROR_N,
    R_FIRST,
    R_FIRST_SUNK,
    R_FIRST_SUNK_TILE,
    R_LAST_SUNK,
    R_LAST_SUNK_TILE,
    R_LEVEL,
    R_ROLE,
    R_STATUS,
    R_SUNK,
    R_SUNK_MASK,
    R_SUNK_TILES,
    R_TURNS,
    WON,
    X_DECLOG,
    X_TEMPLE_CLOSE,
    copy_into,
    hand_at,
    hand_size,
    holders_mask,
    popcount,
)

MAX_TURNS = 10_000
INT32_MAX = 2**31 - 1


@inlined
def ask(g, rng, kind, decider):
    """The option chosen at a decision, or -1 after an illegal choice. A Helicopter Lift's
    destination is a decision of its own (docs/model.md): for a LIFT chosen, the LIFT_DEST
    decision follows, and the code returned is the lift played (LIFT holder seats dest)."""
    c = choose(g, rng, kind, decider)
    if c >= 0 and otype(c) == LIFT:
        g[P_LIFT] = c
        g[P_LIFT_FROM] = kind
        d = choose(g, rng, LIFT_DEST, field1(c))
        g[P_LIFT] = 0
        g[P_LIFT_FROM] = 0
        if d < 0:
            return -1
        c = code(LIFT, field1(c), field2(c), field1(d))
    return c


@compiled(counted=False)
def choose(g, rng, kind, decider):
    """List the legal options of a decision and pick one: alone, or by the policy (R-INFO: it
    sees `pub` only, read-only; the clairvoyant reference sees the hidden piles too: its entry
    chooses what it is handed, fisim.engine).
    Returns the option code, or -1 after an illegal choice (the game is marked ERROR, with the
    index returned and n kept for the message)."""
    g[P_DECISION] = kind
    g[P_DECIDER] = decider
    n = list_options(g, g, OPTS)
    i = 0
    if n > 1:
        i = policy_at(g, rng, n)
        if i < 0 or i >= n:
            g[P_STATUS] = ERROR
            g[P_ERROR] = kind + 1
            g[P_ERROR_INDEX] = max(min(i, INT32_MAX), -INT32_MAX - 1)
            g[P_ERROR_N] = n
            return -1
        record = g[X_DECLOG]
        if record:
            j = record + 1 + g[record]
            if j + n + 4 <= g.shape[0]:
                g[j] = kind
                g[j + 1] = decider
                g[j + 2] = n
                copy_into(g[j + 3:j + 3 + n], g[OPTS:OPTS + n])
                g[j + 3 + n] = i
                g[record] += n + 4
    return g[OPTS + i]


@compiled(counted=False)
def lose(g, conditions):
    """R-LOSE / R-LOSE-CAUSE: record every condition and the primary cause (lowest bit first)."""
    g[P_STATUS] = LOST
    g[P_CONDITIONS] = conditions
    g[P_CAUSE] = conditions & -conditions
    log_event(g, ev.EV_LOSE, g[P_CAUSE], conditions, 0)


@compiled(counted=False)
def claim_win(g):
    """R-WIN: the first seat from the active one holding a Helicopter Lift lifts the team off."""
    players = g[P_PLAYERS]
    for k in range(players):
        s = (g[P_ACTIVE] + k) % players
        if g[hand_at(s, HELI)] > 0:
            g[hand_at(s, HELI)] -= 1
            g[P_TDISC + HELI] += 1
            g[P_STATUS] = WON
            log_event(g, ev.EV_WIN, s, 0, 0)
            return


@compiled(counted=False)
def check_win(g):
    if win_available(g, g[P_CELL_OF + FOOLS_LANDING]):
        claim_win(g)
        return True
    return False


@compiled(counted=False)
def play_special(g, kind, c):
    log_event(g, ev.EV_CHOICE, kind, actor_of(g, c), c)
    apply_special(g, c)


@compiled(counted=False)
def window(g, rng):
    """R-SPECIAL-WINDOWS: the team may play Helicopter Lifts and Sandbags, one after another."""
    while True:
        if check_win(g):
            return
        if holders_mask(g, HELI) == 0 and holders_mask(g, SAND) == 0:
            return
        c = ask(g, rng, WINDOW, g[P_ACTIVE])
        if c < 0 or otype(c) == PASS:
            return
        play_special(g, WINDOW, c)


@compiled(counted=False)
def enforce_hand_limit(g, rng, seat):
    """R-HAND: a player over the limit discards (or plays specials) until back at the limit."""
    while hand_size(g, seat) > g[P_CFG + C_HAND_LIMIT]:
        if check_win(g):
            return
        c = ask(g, rng, DISCARD, seat)
        if c < 0:
            return
        if otype(c) == DROP:
            log_event(g, ev.EV_CHOICE, DISCARD, seat, c)
            k = field1(c)
            g[hand_at(seat, k)] -= 1
            g[P_TDISC + k] += 1
        else:
            play_special(g, DISCARD, c)


@inlined
def action_phase(g, rng):
    """R-TURN (1): up to the configured number of actions; special cards cost none."""
    while g[P_ACTIONS_LEFT] > 0:
        if check_win(g):
            return
        c = ask(g, rng, ACTION, g[P_ACTIVE])
        if c < 0 or not take_action(g, rng, c):
            return
    check_win(g)        # R-WIN: the last action may have made the win available


@compiled(counted=False)
def take_action(g, rng, c):
    """Play option c (a whole code: a lift with its destination) chosen at an action decision.
    False when the action phase ends with it: END chosen, or the game over."""
    t = otype(c)
    if t == LIFT or t == SANDBAG:
        play_special(g, ACTION, c)
        return True
    log_event(g, ev.EV_CHOICE, ACTION, g[P_ACTIVE], c)
    if t == END:
        return False
    receiver = apply_action(g, c)
    g[P_ACTIONS_LEFT] -= 1
    if receiver >= 0:
        enforce_hand_limit(g, rng, receiver)
        if g[P_STATUS] != PLAYING:
            return False
    return True


@compiled(counted=False)
def flood_pile_add_discard(g, rng):
    """Shuffle the flood discard (listed by ascending tile id) onto the top of the flood draw pile."""
    n = g[P_FDRAW_N]
    k = 0
    disc = g[P_FDISC]
    t = 0
    while disc:
        if disc & 1:
            g[H_FPILE + n + k] = t
            k += 1
        disc >>= 1
        t += 1
    shuffle(g[H_FPILE + n:H_FPILE + n + k], k, rng[FLOOD:FLOOD + 1])
    g[P_FDISC] = 0
    g[P_FDRAW_N] = n + k
    return k


@compiled(counted=False)
def waters_rise(g, rng):
    """R-DRAW-WR: raise the meter; the flood discard, shuffled, goes on top of the flood pile."""
    g[P_LEVEL] += 1
    log_event(g, ev.EV_WATERS_RISE, g[P_LEVEL], 0, 0)
    if g[P_LEVEL] >= g[P_CFG + C_SKULL]:
        lose(g, SKULL_REACHED)
        return
    if g[P_FDISC] != 0:
        n = g[P_FDRAW_N]
        k = flood_pile_add_discard(g, rng)
        g[P_LAYER_TOP] += 1
        for i in range(n, n + k):
            g[P_FLAYER + g[H_FPILE + i]] = g[P_LAYER_TOP]
        log_event(g, ev.EV_FLOOD_ON_TOP, k, 0, 0)
    g[P_TDISC + WATERS_RISE] += 1


@compiled(counted=False)
def treasure_reshuffle(g, rng):
    """R-DRAW-EMPTY: the treasure discard (listed by ascending kind) becomes the new draw pile."""
    n = 0
    for k in range(N_KINDS):
        cnt = g[P_TDISC + k]
        for _ in range(cnt):
            g[H_TPILE + n] = k
            n += 1
        g[P_TDRAW_COUNT + k] = cnt
        g[P_TDISC + k] = 0
    shuffle(g[H_TPILE:H_TPILE + n], n, rng[TREASURE:TREASURE + 1])
    g[P_TDRAW_N] = n
    log_event(g, ev.EV_TREASURE_RESHUFFLE, n, 0, 0)


@compiled(counted=False)
def draw_phase(g, rng):
    """R-DRAW-1: draw cards one at a time; each may raise the water, fill a hand, empty the pile."""
    a = g[P_ACTIVE]
    draws = g[P_CFG + C_DRAWS]
    after_draw = g[P_CFG + C_HAND_AFTER_DRAW] != 0
    for i in range(draws):
        if g[P_TDRAW_N] == 0:
            return      # unreachable in a legal game: the discard always refills the pile
        n = g[P_TDRAW_N] - 1
        k = g[H_TPILE + n]
        g[P_TDRAW_N] = n
        g[P_TDRAW_COUNT + k] -= 1
        log_event(g, ev.EV_DRAW, a, k, 0)
        if k == WATERS_RISE:
            waters_rise(g, rng)
            if g[P_STATUS] != PLAYING:
                return
        else:
            g[hand_at(a, k)] += 1
        if n == 0:
            treasure_reshuffle(g, rng)
        if not after_draw or i == draws - 1:    # R-HAND (switch hand-after-draw: the last card only)
            enforce_hand_limit(g, rng, a)
            if g[P_STATUS] != PLAYING:
                return
        window(g, rng)
        if g[P_STATUS] != PLAYING:
            return


@compiled(counted=False)
def sink(g, rng, cell):
    """R-FLOOD-1 on a flooded tile: it sinks; check R-LOSE; pawns on it swim (R-SWIM-1..3)."""
    tile = g[P_TILE_AT + cell]
    g[P_EXISTS] &= ~(1 << cell)
    g[P_FLOODED] &= ~(1 << cell)
    g[P_SUNK_COUNT] += 1
    g[P_SUNK_CELL] = cell
    if g[P_SUNK_COUNT] == 1:
        g[P_FIRST_SUNK] = cell + 1
    log_event(g, ev.EV_SINK, cell, 0, 0)
    players = g[P_PLAYERS]
    rescue = g[P_CFG + C_NO_HELI_RESCUE] == 0 and holders_mask(g, HELI) != 0
    conditions = 0
    if tile == FOOLS_LANDING:
        conditions |= LANDING_SUNK
    if tile < 2 * N_TREASURES:
        t = tile >> 1
        twin = g[P_CELL_OF + (tile ^ 1)]
        if not (g[P_CAPTURED] >> t) & 1 and not (g[P_EXISTS] >> twin) & 1:
            conditions |= TREASURE_LOST
    if conditions:
        if not rescue:
            for s in range(players):
                if g[P_POS + s] == cell and swim_reach(g, s, cell) == 0:
                    conditions |= DROWNED
        lose(g, conditions)
        return
    watch_temple(g, tile ^ 1)
    for k in range(players):
        s = (g[P_ACTIVE] + k) % players
        if g[P_POS + s] != cell:
            continue
        c = ask(g, rng, SWIM, s)
        if c < 0:
            return
        if otype(c) == PASS:        # R-SWIM-3: nowhere to swim, and no lift
            log_event(g, ev.EV_DROWN, s, 0, 0)
            lose(g, DROWNED)
            return
        if otype(c) == LIFT:
            play_special(g, SWIM, c)
        else:
            log_event(g, ev.EV_CHOICE, SWIM, s, c)
            g[P_POS + s] = field1(c)


@compiled(counted=False)
def watch_temple(g, tile):
    """Note (X_TEMPLE_CLOSE) a treasure one flood card from being lost: tile `tile`, a temple of a
    treasure not captured, is flooded and its other temple has sunk (R-FLOOD-1, R-LOSE
    treasure-lost). Called where that can begin: the tile floods, or its twin sinks."""
    if tile < 2 * N_TREASURES and not (g[P_CAPTURED] >> (tile >> 1)) & 1:
        if (g[P_FLOODED] >> g[P_CELL_OF + tile]) & 1 and not (g[P_EXISTS] >> g[P_CELL_OF + (tile ^ 1)]) & 1:
            g[X_TEMPLE_CLOSE] = 1


@compiled(counted=False)
def flood_phase(g, rng):
    """R-FLOOD-1 / R-FLOOD-EMPTY: draw the meter's count of flood cards, one at a time."""
    count = g[P_CFG + C_FLOODS + g[P_LEVEL]]
    for _ in range(count):
        window(g, rng)
        if g[P_STATUS] != PLAYING:
            return
        if g[P_FDRAW_N] == 0:
            return      # unreachable in a legal game: Fools' Landing sinks first
        n = g[P_FDRAW_N] - 1
        t = g[H_FPILE + n]
        g[P_FDRAW_N] = n
        g[P_FLAYER + t] = 0
        cell = g[P_CELL_OF + t]
        if not (g[P_EXISTS] >> cell) & 1:       # switch sunk-card-stays: a sunk tile's card does nothing
            g[P_FDISC] |= 1 << t
            log_event(g, ev.EV_FLOOD_SUNK, cell, 0, 0)
        elif (g[P_FLOODED] >> cell) & 1:
            if g[P_CFG + C_SUNK_CARD_STAYS] != 0:   # R-FLOOD-1: its card leaves the game, or stays
                g[P_FDISC] |= 1 << t
            sink(g, rng, cell)
            if g[P_STATUS] != PLAYING:
                return
        else:
            g[P_FLOODED] |= 1 << cell
            g[P_FDISC] |= 1 << t
            log_event(g, ev.EV_FLOOD, cell, 0, 0)
            watch_temple(g, t)
        if n == 0 and g[P_FDISC] != 0:
            k = flood_pile_add_discard(g, rng)
            log_event(g, ev.EV_FLOOD_RESHUFFLE, k, 0, 0)


@compiled(counted=False)
def play_turn(g, rng):
    """R-TURN: one player's turn; the next seat becomes active if the game goes on."""
    begin_turn(g)
    action_phase(g, rng)
    finish_turn(g, rng)


@compiled(counted=False)
def begin_turn(g):
    g[P_TURN] += 1
    g[P_ACTIONS_LEFT] = g[P_CFG + C_ACTIONS]
    g[P_FLIGHT_USED] = 0
    log_event(g, ev.EV_TURN, g[P_TURN], g[P_ACTIVE], 0)


@inlined
def finish_turn(g, rng):
    """R-TURN (2, 3): after the action phase, the draws and the floods; then the next seat."""
    if g[P_STATUS] == PLAYING:
        draw_phase(g, rng)
    if g[P_STATUS] == PLAYING:
        flood_phase(g, rng)
    if g[P_STATUS] == PLAYING:
        g[P_ACTIVE] = (g[P_ACTIVE] + 1) % g[P_PLAYERS]     # R-SETUP-6: play passes clockwise


NEW_TURN, IN_ACTIONS, ACTIONS_DONE = range(3)


@inlined
def out_of_turns(g):
    """True, the game marked ERROR, once it has begun MAX_TURNS turns: the safety stop every loop
    over turns makes before it begins one."""
    if g[P_TURN] >= MAX_TURNS:
        g[P_STATUS] = ERROR
        return True
    return False


@inlined
def play_on(g, rng, stage):
    """Play turns until R-WIN or R-LOSE (a game past MAX_TURNS is marked ERROR), the first from
    its start (NEW_TURN), from inside its action phase (IN_ACTIONS) or from after it
    (ACTIONS_DONE). One loop for the three, so a compiled entry point holds one copy of the turn."""
    while g[P_STATUS] == PLAYING:
        if stage == NEW_TURN:
            if out_of_turns(g):
                break
            begin_turn(g)
        if stage != ACTIONS_DONE:
            action_phase(g, rng)
        finish_turn(g, rng)
        stage = NEW_TURN


@inlined
def play_game(g, rng, seed, repeat):
    """Set up and play one whole game (R-SETUP, then R-TURN until R-WIN or R-LOSE), the policy
    playing with the stream of repeat `repeat` (fisim.rules.rng: 0 is the game as dealt)."""
    setup_game(g, rng, seed)
    repeat_policy_stream(rng, repeat)
    play_on(g, rng, NEW_TURN)


@compiled(counted=False)
def result_row(g, out):
    out[R_STATUS] = g[P_STATUS]
    out[R_CAUSE] = g[P_CAUSE]
    out[R_CONDITIONS] = g[P_CONDITIONS]
    out[R_TURNS] = g[P_TURN]
    out[R_LEVEL] = g[P_LEVEL]
    out[R_CAPTURED] = popcount(g[P_CAPTURED])
    out[R_SUNK] = g[P_SUNK_COUNT]
    out[R_FIRST] = g[P_FIRST]
    for s in range(MAX_PLAYERS):
        out[R_ROLE + s] = g[P_ROLE + s]
    out[R_ERROR] = g[P_ERROR]
    out[R_ERROR_INDEX] = g[P_ERROR_INDEX]
    out[R_ERROR_N] = g[P_ERROR_N]
    out[R_SUNK_MASK] = ALL_CELLS & ~g[P_EXISTS]
    out[R_FIRST_SUNK] = g[P_FIRST_SUNK] - 1
    out[R_LAST_SUNK] = g[P_SUNK_CELL] if g[P_SUNK_COUNT] > 0 else -1
    sunk_tiles = 0
    for cell in range(N_TILES):
        if not (g[P_EXISTS] >> cell) & 1:
            sunk_tiles |= 1 << g[P_TILE_AT + cell]
    out[R_SUNK_TILES] = sunk_tiles
    out[R_FIRST_SUNK_TILE] = g[P_TILE_AT + out[R_FIRST_SUNK]] if out[R_FIRST_SUNK] >= 0 else -1
    out[R_LAST_SUNK_TILE] = g[P_TILE_AT + out[R_LAST_SUNK]] if out[R_LAST_SUNK] >= 0 else -1
    landing = g[P_CELL_OF + FOOLS_LANDING]
    out[R_CLOSE] = ((CLOSE_SKULL if g[P_LEVEL] == g[P_CFG + C_SKULL] - 1 else 0)
                    | (CLOSE_LANDING if (g[P_FLOODED] >> landing) & 1 else 0)
                    | (CLOSE_TEMPLE if g[X_TEMPLE_CLOSE] else 0))


