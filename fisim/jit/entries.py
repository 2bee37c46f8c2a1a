"""What the engine's entry points do (fisim.jit.runners compiles them once for every policy, the
address of the policy's compiled entry given as `policy`: fisim.jit.policy_call). Each is inlined
into the one entry point that calls it.

`run_block` plays consecutive game indices into result rows; each game's randomness comes only
from (master seed, game index, repeat), so a block's results do not depend on which thread plays
it.
"""
import numpy as np

from fisim.jit.intrinsics import uncounted
from fisim.jit.modes import inlined
from fisim.jit.policy_call import put_policy
from fisim.rules.rng import N_STREAMS, game_seed
from fisim.rules.state import LOG, P_CFG, P_GEO, P_POLICY_ARG, copy_into
from fisim.rules.turn import (
    ACTIONS_DONE,
    IN_ACTIONS,
    action_phase,
    draw_phase,
    flood_phase,
    play_game,
    play_on,
    play_turn,
    result_row,
    sink,
    take_action,
)


@inlined
def run_block(geometry, cfg, policy_arg, policy, master_seed, first_game, repeat, lo, hi, out):
    """Play games first_game+lo .. first_game+hi-1 (their repeat `repeat`) into out[lo:hi]."""
    game_array = np.zeros(LOG + 1, np.int32)
    streams = np.zeros(N_STREAMS, np.uint64)
    g, rng = uncounted(game_array), uncounted(streams)
    cells = geometry.shape[0]
    for c in range(cells):
        g[P_GEO + 2 * c] = geometry[c, 0]
        g[P_GEO + 2 * c + 1] = geometry[c, 1]
    copy_into(g[P_CFG:P_CFG + cfg.shape[0]], cfg)
    g[P_POLICY_ARG] = policy_arg
    put_policy(g, policy)
    for i in range(lo, hi):
        play_game(g, rng, game_seed(master_seed, first_game + i), repeat)
        result_row(g, out[i])
    game_array[0] = streams[0] = 0     # keeps both arrays alive until here (the views own nothing)


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
