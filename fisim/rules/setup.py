"""R-SETUP-1..6: a new game from its seed, in the stream order fixed by docs/model.md."""
from fisim.jit.modes import compiled
from fisim.rules import events as ev
from fisim.rules.config import C_DECK, C_FIRST, C_INITIAL_FLOODS, C_LEVEL, C_PLAYERS, C_TEAM
from fisim.rules.constants import (
    MAX_PLAYERS,
    N_KINDS,
    N_ROLES,
    N_TILES,
    START_TILE,
    WATERS_RISE,
)
from fisim.rules.events import log_event
from fisim.rules.rng import FIRST, FLOOD, PLACEMENT, TEAM, TREASURE, init_streams, randbelow, shuffle
from fisim.rules.state import (
    ALL_CELLS,
    H_FPILE,
    H_TPILE,
    LOG,
    MEM,
    MEM_SIZE,
    OPTS,
    P_ACTIVE,
    P_CELL_OF,
    P_CFG,
    P_EXISTS,
    P_FDISC,
    P_FDRAW_N,
    P_FIRST,
    P_FLOODED,
    P_LEVEL,
    P_PLAYERS,
    P_POS,
    P_ROLE,
    P_SIZE,
    P_TDRAW_COUNT,
    P_TDRAW_N,
    P_TILE_AT,
    X_TEMPLE_CLOSE,
    hand_at,
)


@compiled(counted=False)
def setup_game(g, rng, seed):
    """Start game `seed` in the game array g (whose geometry and config are already set)."""
    g[P_TILE_AT:P_SIZE] = 0
    g[MEM:MEM + MEM_SIZE] = 0
    g[LOG] = g[X_TEMPLE_CLOSE] = 0
    init_streams(seed, rng)
    players = g[P_CFG + C_PLAYERS]
    g[P_PLAYERS] = players
    _place_tiles(g, rng)
    _seat_team(g, rng, players)
    _flood_first_tiles(g, rng)
    _deal_treasures(g, rng, players)
    # R-SETUP-5: the water level; R-SETUP-6: the first player.
    g[P_LEVEL] = g[P_CFG + C_LEVEL]
    first = g[P_CFG + C_FIRST]
    if first < 0:
        first = randbelow(rng[FIRST:FIRST + 1], players)
    g[P_FIRST] = first
    g[P_ACTIVE] = first
    log_event(g, ev.EV_FIRST, first, g[P_LEVEL], 0)


@compiled(counted=False)
def _place_tiles(g, rng):
    """R-SETUP-1 / R-LAYOUT-2: tiles placed uniformly at random, all dry."""
    for c in range(N_TILES):
        g[P_TILE_AT + c] = c
    shuffle(g[P_TILE_AT:P_TILE_AT + N_TILES], N_TILES, rng[PLACEMENT:PLACEMENT + 1])
    for c in range(N_TILES):
        g[P_CELL_OF + g[P_TILE_AT + c]] = c
        log_event(g, ev.EV_PLACE, c, g[P_TILE_AT + c], 0)
    g[P_EXISTS] = ALL_CELLS


@compiled(counted=False)
def _seat_team(g, rng, players):
    """R-SETUP-3: one adventurer per seat, fixed or dealt at random; pawns on their start tiles."""
    roles = g[OPTS:OPTS + N_ROLES]          # the options area serves as scratch here
    for r in range(N_ROLES):
        roles[r] = r
    if g[P_CFG + C_TEAM] < 0:
        shuffle(roles, N_ROLES, rng[TEAM:TEAM + 1])
    else:
        for s in range(players):
            roles[s] = g[P_CFG + C_TEAM + s]
    for s in range(MAX_PLAYERS):
        if s < players:
            g[P_ROLE + s] = roles[s]
            g[P_POS + s] = g[P_CELL_OF + START_TILE[roles[s]]]
            log_event(g, ev.EV_TEAM, s, roles[s], g[P_POS + s])
        else:
            g[P_ROLE + s] = -1
            g[P_POS + s] = -1


@compiled(counted=False)
def _flood_first_tiles(g, rng):
    """R-SETUP-2: the flood deck shuffled, the first tiles (6, or the variant's) flooded."""
    for t in range(N_TILES):
        g[H_FPILE + t] = t
    shuffle(g[H_FPILE:H_FPILE + N_TILES], N_TILES, rng[FLOOD:FLOOD + 1])
    n = N_TILES
    for _ in range(g[P_CFG + C_INITIAL_FLOODS]):
        n -= 1
        t = g[H_FPILE + n]
        c = g[P_CELL_OF + t]
        g[P_FLOODED] |= 1 << c
        g[P_FDISC] |= 1 << t
        log_event(g, ev.EV_SETUP_FLOOD, c, 0, 0)
    g[P_FDRAW_N] = n


@compiled(counted=False)
def _deal_treasures(g, rng, players):
    """R-SETUP-4: the treasure deck (R-TDECK, or the variant's) shuffled, 2 cards dealt per seat,
    Waters Rise! replaced."""
    n = 0
    for k in range(N_KINDS):
        for _ in range(g[P_CFG + C_DECK + k]):
            g[H_TPILE + n] = k
            n += 1
    shuffle(g[H_TPILE:H_TPILE + n], n, rng[TREASURE:TREASURE + 1])
    aside = 0
    for s in range(players):
        got = 0
        while got < 2:
            n -= 1
            k = g[H_TPILE + n]
            if k == WATERS_RISE:
                aside += 1
                log_event(g, ev.EV_DEAL_WR, s, 0, 0)
            else:
                g[hand_at(s, k)] += 1
                got += 1
                log_event(g, ev.EV_DEAL, s, k, 0)
    if aside:
        for _ in range(aside):
            g[H_TPILE + n] = WATERS_RISE
            n += 1
        shuffle(g[H_TPILE:H_TPILE + n], n, rng[TREASURE:TREASURE + 1])
        log_event(g, ev.EV_DEAL_RESHUFFLE, n, 0, 0)
    g[P_TDRAW_N] = n
    for i in range(n):
        g[P_TDRAW_COUNT + g[H_TPILE + i]] += 1
