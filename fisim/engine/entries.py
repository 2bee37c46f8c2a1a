"""What the engine's entry points do (fisim.engine.runners compiles them once for every policy, the
address of the policy's compiled entry given as `policy`: fisim.rules.asking). Each is inlined
into the one entry point that calls it.

`run_block` plays consecutive game indices into result rows; each game's randomness comes only
from (master seed, game index, repeat), so a block's results do not depend on which thread plays
it. `trace_block` plays them too, and estimates at the start of each round the team's chance of
winning from there (docs/model.md, "The win chance over a game"), as reproducibly.
"""
import numpy as np

from fisim.jit.intrinsics import uncounted
from fisim.jit.modes import inlined
from fisim.rules.asking import put_policy
from fisim.rules.rng import N_STREAMS, game_seed, keyed_hash, repeat_policy_stream
from fisim.rules.setup import setup_game
from fisim.rules.state import (
    LOG,
    MEM,
    MEM_SIZE,
    P_CFG,
    P_GEO,
    P_PLAYERS,
    P_POLICY_ARG,
    P_SIZE,
    P_STATUS,
    P_TURN,
    PLAYING,
    WON,
    copy_into,
)
from fisim.rules.turn import (
    ACTIONS_DONE,
    IN_ACTIONS,
    action_phase,
    draw_phase,
    flood_phase,
    out_of_turns,
    play_game,
    play_on,
    play_turn,
    result_row,
    sink,
    take_action,
)
from fisim.rules.worlds import WORLD_SIZE, sample_world

TRACE_KEY = np.uint64(0x74726163655F6B79)      # keys the hash that gives a traced game's worlds their seeds


@inlined
def run_block(geometry, cfg, policy_arg, policy, master_seed, first_game, repeat, lo, hi, out):
    """Play games first_game+lo .. first_game+hi-1 (their repeat `repeat`) into out[lo:hi]."""
    game_array = np.zeros(LOG + 1, np.int32)
    streams = np.zeros(N_STREAMS, np.uint64)
    g, rng = uncounted(game_array), uncounted(streams)
    set_rules(g, geometry, cfg, policy_arg, policy)
    for i in range(lo, hi):
        play_game(g, rng, game_seed(master_seed, first_game + i), repeat)
        result_row(g, out[i])
    game_array[0] = streams[0] = 0     # keeps both arrays alive until here (the views own nothing)


@inlined
def set_rules(g, geometry, cfg, policy_arg, policy):
    """Write into game array g what stays the same for a batch of games: the island's geometry,
    the config array, the policy's parameter and where its compiled entry is."""
    for c in range(geometry.shape[0]):
        g[P_GEO + 2 * c] = geometry[c, 0]
        g[P_GEO + 2 * c + 1] = geometry[c, 1]
    copy_into(g[P_CFG:P_CFG + cfg.shape[0]], cfg)
    g[P_POLICY_ARG] = policy_arg
    put_policy(g, policy)


@inlined
def trace_block(geometry, cfg, policy_arg, policy, master_seed, first_game, repeat, worlds, lo, hi, out, rows):
    """Play games first_game+lo .. first_game+hi-1 (their repeat `repeat`) as run_block does, their
    result rows into rows[lo:hi], and trace the team's chance of winning over each: out[i, r] is
    how many of `worlds` sampled worlds the policy won, played on from the start of round r (every
    player having taken r turns), for the rounds the game began, at most out.shape[1] - 1 of them;
    then the end (`worlds`: won, 0: lost); then -1. A world is the game as the team knows it, the
    hidden order of the draw piles dealt at random (fisim.rules.worlds.sample_world, R-INFO), its
    seed drawn one-way from the game's and the repeat, so the trace too depends on nothing but the
    game and the number of worlds."""
    game_array = np.zeros(LOG + 1, np.int32)
    world_array = np.zeros(WORLD_SIZE, np.int32)
    streams = np.zeros(N_STREAMS, np.uint64)
    world_streams = np.zeros(N_STREAMS, np.uint64)
    g, rng = uncounted(game_array), uncounted(streams)
    world, world_rng = uncounted(world_array), uncounted(world_streams)
    set_rules(g, geometry, cfg, policy_arg, policy)
    put_policy(world, policy)        # (a world's pub, its config included, is copied from g's)
    for i in range(lo, hi):
        seed = game_seed(master_seed, first_game + i)
        setup_game(g, rng, seed)
        repeat_policy_stream(rng, repeat)
        seeds = keyed_hash(seed, TRACE_KEY, repeat)
        r = 0
        while g[P_STATUS] == PLAYING:
            if r < out.shape[1] - 1:
                out[i, r] = win_chance(g, world, world_rng, game_seed(seeds, r), worlds)
                r += 1
            play_round(g, rng)
        out[i, r] = worlds if g[P_STATUS] == WON else 0
        for j in range(r + 1, out.shape[1]):
            out[i, j] = -1
        result_row(g, rows[i])
    game_array[0] = world_array[0] = streams[0] = world_streams[0] = 0     # (alive until here)


@inlined
def win_chance(g, world, world_rng, seed, worlds):
    """How many of `worlds` sampled worlds of game g the policy wins, each played on from where g
    stands in game array `world`: g's pub and the policy's memory, the hidden piles dealt at
    random (fisim.rules.worlds.sample_world, R-INFO), world w seeded game_seed(seed, w)."""
    won = 0
    for w in range(worlds):
        sample_world(g[:P_SIZE], g[MEM:MEM + MEM_SIZE], world, world_rng, game_seed(seed, w))
        while world[P_STATUS] == PLAYING:
            play_round(world, world_rng)
        won += world[P_STATUS] == WON
    return won


@inlined
def play_round(g, rng):
    """Play turns until the game ends or the next round begins (P_TURN a multiple of the players:
    each has taken as many turns); a game past MAX_TURNS is marked ERROR, as play_on does."""
    while g[P_STATUS] == PLAYING:
        if out_of_turns(g):
            return
        play_turn(g, rng)
        if g[P_TURN] % g[P_PLAYERS] == 0:
            return


@inlined
def record_game(g, rng, policy, master_seed, game, repeat, out):
    """Play one game in a game array made with room for its transcript (and decisions)."""
    put_policy(g, policy)
    play_game(g, rng, game_seed(master_seed, game), repeat)
    result_row(g, out)


@inlined
def play_out(g, rng, c):
    """Continue a game from an action decision, option c (a whole code: a Helicopter Lift with its
    destination) chosen, to its end: the rest of that action phase and turn, then every turn after.
    Search plays its rollouts with it, on sampled copies of the game (fisim.rules.worlds); the
    caller keeps g and rng alive, so the game runs on views of them without reference counts."""
    g, rng = uncounted(g), uncounted(rng)
    play_on(g, rng, IN_ACTIONS if take_action(g, rng, c) else ACTIONS_DONE)


@inlined
def play_out_with(g, rng, policy, c):
    """play_out, the policy whose compiled entry is at address `policy` playing (search's rollouts:
    expert's)."""
    put_policy(g, policy)
    play_out(g, rng, c)


PHASE_ACTIONS, PHASE_DRAW, PHASE_FLOOD, PHASE_TURN, PHASE_SINK, PHASE_REST, PHASE_PLAY_OUT = range(7)


@inlined
def run_phase(g, rng, policy, phase, arg):
    """Run one part of a turn from a given position (for rule tests on hand-built positions): a
    phase, a whole turn, the sinking of cell `arg`, the rest of the game from an action decision
    (the policy deciding it), or play_out with option `arg` chosen there."""
    put_policy(g, policy)
    g, rng = uncounted(g), uncounted(rng)     # (the phases take views: fisim.rules.turn)
    if phase == PHASE_ACTIONS:
        action_phase(g, rng)
    elif phase == PHASE_DRAW:
        draw_phase(g, rng)
    elif phase == PHASE_FLOOD:
        flood_phase(g, rng)
    elif phase == PHASE_TURN:
        play_turn(g, rng)
    elif phase == PHASE_SINK:
        sink(g, rng, arg)
    elif phase == PHASE_REST:
        play_on(g, rng, IN_ACTIONS)
    elif phase == PHASE_PLAY_OUT:
        play_out(g, rng, arg)
