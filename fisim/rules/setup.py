"""R-SETUP-1..6: a new game from its seed, in the stream order fixed by docs/model.md."""
import numpy as np
from numba import njit

from fisim.rules import events as ev
from fisim.rules.config import C_FIRST, C_LEVEL, C_PLAYERS, C_TEAM
from fisim.rules.constants import (DECK_COUNTS, MAX_PLAYERS, N_KINDS, N_ROLES, N_TILES,
                                   START_TILE, WATERS_RISE)
from fisim.rules.rng import FIRST, FLOOD, PLACEMENT, TEAM, TREASURE, init_streams, randbelow, shuffle
from fisim.rules.state import (ALL_CELLS, H_FPILE, H_TPILE, P_ACTIVE, P_CELL_OF, P_EXISTS, P_FDISC,
                               P_FDRAW_N, P_FIRST, P_FLOODED, P_LEVEL, P_PLAYERS, P_POS, P_ROLE,
                               P_TDRAW_COUNT, P_TDRAW_N, P_TILE_AT, hand_at, log_event)


@njit(cache=True)
def setup_game(ctx, seed):
    pub, hid, cfg, rng, log = ctx.pub, ctx.hid, ctx.cfg, ctx.rng, ctx.log
    pub[:] = 0
    ctx.mem[:] = 0
    init_streams(seed, rng)
    players = cfg[C_PLAYERS]
    pub[P_PLAYERS] = players

    # R-SETUP-1 / R-LAYOUT-2: tiles placed uniformly at random, all dry.
    perm = np.arange(N_TILES, dtype=np.int32)
    shuffle(perm, N_TILES, rng[PLACEMENT:PLACEMENT + 1])
    for c in range(N_TILES):
        pub[P_TILE_AT + c] = perm[c]
        pub[P_CELL_OF + perm[c]] = c
        log_event(log, ev.EV_PLACE, c, perm[c], 0)
    pub[P_EXISTS] = ALL_CELLS

    # R-SETUP-3: one adventurer per seat, fixed or dealt at random; pawns on their start tiles.
    roles = np.arange(N_ROLES, dtype=np.int32)
    if cfg[C_TEAM] < 0:
        shuffle(roles, N_ROLES, rng[TEAM:TEAM + 1])
    else:
        for s in range(players):
            roles[s] = cfg[C_TEAM + s]
    for s in range(MAX_PLAYERS):
        if s < players:
            pub[P_ROLE + s] = roles[s]
            pub[P_POS + s] = pub[P_CELL_OF + START_TILE[roles[s]]]
            log_event(log, ev.EV_TEAM, s, roles[s], pub[P_POS + s])
        else:
            pub[P_ROLE + s] = -1
            pub[P_POS + s] = -1

    # R-SETUP-2: the flood deck shuffled, 6 tiles flooded.
    for t in range(N_TILES):
        hid[H_FPILE + t] = t
    shuffle(hid[H_FPILE:H_FPILE + N_TILES], N_TILES, rng[FLOOD:FLOOD + 1])
    n = N_TILES
    for _ in range(6):
        n -= 1
        t = hid[H_FPILE + n]
        c = pub[P_CELL_OF + t]
        pub[P_FLOODED] |= 1 << c
        pub[P_FDISC] |= 1 << t
        log_event(log, ev.EV_SETUP_FLOOD, c, 0, 0)
    pub[P_FDRAW_N] = n

    # R-SETUP-4: the treasure deck shuffled, 2 cards dealt per seat, Waters Rise! replaced.
    n = 0
    for k in range(N_KINDS):
        for _ in range(DECK_COUNTS[k]):
            hid[H_TPILE + n] = k
            n += 1
    tpile = hid[H_TPILE:H_TPILE + n]
    shuffle(tpile, n, rng[TREASURE:TREASURE + 1])
    aside = 0
    for s in range(players):
        got = 0
        while got < 2:
            n -= 1
            k = tpile[n]
            if k == WATERS_RISE:
                aside += 1
                log_event(log, ev.EV_DEAL_WR, s, 0, 0)
            else:
                pub[hand_at(s, k)] += 1
                got += 1
                log_event(log, ev.EV_DEAL, s, k, 0)
    if aside:
        for _ in range(aside):
            tpile[n] = WATERS_RISE
            n += 1
        shuffle(tpile, n, rng[TREASURE:TREASURE + 1])
        log_event(log, ev.EV_DEAL_RESHUFFLE, n, 0, 0)
    pub[P_TDRAW_N] = n
    for i in range(n):
        pub[P_TDRAW_COUNT + tpile[i]] += 1

    # R-SETUP-5/6: water level and first player.
    pub[P_LEVEL] = cfg[C_LEVEL]
    first = cfg[C_FIRST]
    if first < 0:
        first = randbelow(rng[FIRST:FIRST + 1], players)
    pub[P_FIRST] = first
    pub[P_ACTIVE] = first
    log_event(log, ev.EV_FIRST, first, pub[P_LEVEL], 0)
