"""A test policy that checks fisim.rules.view on the positions a real game asks about: at every
decision it compares each accessor with the raw offsets of fisim.rules.state (and with what the
decision kind implies), then chooses uniformly at random, as `random` does.

A failed check ends the game as an error (an illegal choice), its number left in mem[FAILED];
mem[kind] counts the decisions of each kind that passed.
"""
from numba import njit

from fisim.rules import view
from fisim.rules.config import C_CAPTURE, C_DECK, C_FLOODS, C_HAND_LIMIT, C_SKULL, C_SUNK_CARD_STAYS
from fisim.rules.constants import FOOLS_LANDING, N_HAND_KINDS, N_KINDS, N_TILES, N_TREASURES
from fisim.rules.options import LIFT, LIFT_DEST, SWIM, field1, otype
from fisim.rules.rng import randbelow
from fisim.rules.state import (
    MEM_SIZE,
    P_ACTIONS_LEFT,
    P_ACTIVE,
    P_CAPTURED,
    P_CELL_OF,
    P_CFG,
    P_DECIDER,
    P_DECISION,
    P_EXISTS,
    P_FDISC,
    P_FDRAW_N,
    P_FLAYER,
    P_FLIGHT_USED,
    P_FLOODED,
    P_GEO,
    P_HAND,
    P_LEVEL,
    P_LIFT,
    P_LIFT_FROM,
    P_PLAYERS,
    P_POLICY_ARG,
    P_POS,
    P_ROLE,
    P_SUNK_CELL,
    P_TDISC,
    P_TDRAW_COUNT,
    P_TDRAW_N,
    P_TILE_AT,
    P_TURN,
)

NAME = "view-probe"
VERSION = 1
FAILED = MEM_SIZE - 1


@njit
def _decision_fails(pub):
    if view.decision(pub) != pub[P_DECISION] or view.decider(pub) != pub[P_DECIDER]:
        return 1
    if view.sunk_cell(pub) != pub[P_SUNK_CELL]:
        return 2
    if view.pending_lift(pub) != pub[P_LIFT] or view.lift_chosen_at(pub) != pub[P_LIFT_FROM]:
        return 3
    lift = view.pending_lift(pub)
    if view.decision(pub) == LIFT_DEST:      # a lift the decider chose at an earlier decision
        if otype(lift) != LIFT or field1(lift) != view.decider(pub) or not 0 <= view.lift_chosen_at(pub) <= SWIM:
            return 4
    elif lift != 0:
        return 4
    return 0


@njit
def _players_fail(pub):
    if view.players(pub) != pub[P_PLAYERS] or view.active(pub) != pub[P_ACTIVE] or view.turn(pub) != pub[P_TURN]:
        return 10
    if view.actions_left(pub) != pub[P_ACTIONS_LEFT] or view.flight_used(pub) != (pub[P_FLIGHT_USED] == 1):
        return 11
    if view.hand_limit(pub) != pub[P_CFG + C_HAND_LIMIT] or view.policy_arg(pub) != pub[P_POLICY_ARG]:
        return 12
    if view.capture_cards(pub) != pub[P_CFG + C_CAPTURE]:
        return 12
    for k in range(N_KINDS):
        if view.deck_cards(pub, k) != pub[P_CFG + C_DECK + k]:
            return 12
    for s in range(pub[P_PLAYERS]):
        if view.role(pub, s) != pub[P_ROLE + s] or view.position(pub, s) != pub[P_POS + s]:
            return 13
        held = 0
        for k in range(N_HAND_KINDS):
            held += pub[P_HAND + s * N_HAND_KINDS + k]
            if view.cards(pub, s, k) != pub[P_HAND + s * N_HAND_KINDS + k]:
                return 14
        if view.cards_in_hand(pub, s) != held:
            return 15
    return 0


@njit
def _island_fails(pub):
    if view.existing_cells(pub) != pub[P_EXISTS] or view.flooded_cells(pub) != pub[P_FLOODED]:
        return 20
    if view.fools_landing(pub) != pub[P_CELL_OF + FOOLS_LANDING]:
        return 21
    for c in range(N_TILES):
        if view.tile_at(pub, c) != pub[P_TILE_AT + c] or view.cell_of(pub, c) != pub[P_CELL_OF + c]:
            return 22
        exists, flooded = (pub[P_EXISTS] >> c) & 1, (pub[P_FLOODED] >> c) & 1
        status = view.SUNK if not exists else (view.FLOODED if flooded else view.DRY)
        if view.tile_status(pub, c) != status:
            return 23
        orth, diag = pub[P_GEO + 2 * c], pub[P_GEO + 2 * c + 1]
        if view.neighbours(pub, c, False) != orth or view.neighbours(pub, c, True) != orth | diag:
            return 24
    for t in range(N_TREASURES):
        temples = (1 << pub[P_CELL_OF + 2 * t]) | (1 << pub[P_CELL_OF + 2 * t + 1])
        if view.temple_cells(pub, t) != temples & pub[P_EXISTS]:
            return 25
        if view.captured(pub, t) != ((pub[P_CAPTURED] >> t) & 1 == 1):
            return 26
    if view.captured_mask(pub) != pub[P_CAPTURED]:
        return 26
    return 0


@njit
def _piles_fail(pub):
    level = pub[P_LEVEL]
    if view.water_level(pub) != level:
        return 30
    if view.skull(pub) != pub[P_CFG + C_SKULL] or not level <= view.skull(pub):
        return 31
    if view.flood_draws(pub) != (pub[P_CFG + C_FLOODS + level] if level < pub[P_CFG + C_SKULL] else 0):
        return 31
    for at in range(pub[P_CFG + C_SKULL]):
        if view.flood_draws_at(pub, at) != pub[P_CFG + C_FLOODS + at]:
            return 31
    if view.treasure_pile_size(pub) != pub[P_TDRAW_N] or view.flood_pile_size(pub) != pub[P_FDRAW_N]:
        return 32
    for k in range(N_KINDS):
        if (view.treasure_pile_count(pub, k) != pub[P_TDRAW_COUNT + k]
                or view.treasure_discard_count(pub, k) != pub[P_TDISC + k]):
            return 33
    pile = 0                          # the flood cards not in the discard, nor gone with their tile
    for t in range(N_TILES):
        if (view.in_flood_discard(pub, t) != ((pub[P_FDISC] >> t) & 1 == 1)
                or view.flood_layer(pub, t) != pub[P_FLAYER + t]):
            return 34
        gone = pub[P_CFG + C_SUNK_CARD_STAYS] == 0 and not (pub[P_EXISTS] >> pub[P_CELL_OF + t]) & 1
        if not (pub[P_FDISC] >> t) & 1 and not gone:
            pile |= 1 << t
    if view.flood_draw_mask(pub) != pile or view.flood_discard_mask(pub) != pub[P_FDISC]:
        return 35
    return 0


@njit
def _bits_fail(pub):
    m = pub[P_EXISTS]                 # never empty while a game asks (Fools' Landing stands)
    low = view.low_bit(m)
    if (m >> low) & 1 != 1 or m & ((1 << low) - 1) != 0:
        return 40
    count = 0
    for c in range(view.N_CELLS):
        count += (m >> c) & 1
    if view.popcount(m) != count:
        return 41
    return 0


@njit
def failed_check(pub):
    """0 if every accessor reads what the raw offsets hold, else the number of the first check
    that failed."""
    for fails in (_decision_fails(pub), _players_fail(pub), _island_fails(pub), _piles_fail(pub), _bits_fail(pub)):
        if fails:
            return fails
    return 0


@njit
def decide(pub, options, n, mem, rng):
    failed = failed_check(pub)
    if failed:
        mem[FAILED] = failed
        return n                      # not an option: the engine ends the game as an error
    mem[view.decision(pub)] += 1
    return randbelow(rng, n)
