"""Entry points that play games with a policy; fisim.engine compiles them once per policy
(they are plain functions here, specialised like those of fisim.rules.turn).

`run_block` plays consecutive game indices into result rows; each game's randomness comes only
from (master seed, game index), so a block's results do not depend on which thread plays it.
"""
import numpy as np

from fisim.rules.options import MAX_OPTIONS
from fisim.rules.rng import N_STREAMS, game_seed
from fisim.rules.state import H_SIZE, MEM_SIZE, P_SIZE, Ctx
from fisim.rules.turn import flood_phase, draw_phase, action_phase, play_game, play_turn, result_row, sink


def run_block(geo, cfg, master_seed, first_game, lo, hi, out):
    """Play games first_game+lo .. first_game+hi-1 into out[lo:hi]."""
    ctx = Ctx(np.zeros(P_SIZE, np.int32), np.zeros(H_SIZE, np.int32), geo, cfg,
              np.zeros(N_STREAMS, np.uint64), np.zeros(MAX_OPTIONS, np.int32),
              np.zeros(MEM_SIZE, np.int32), np.zeros(1, np.int32), np.zeros(1, np.int32))
    for i in range(lo, hi):
        play_game(ctx, game_seed(master_seed, first_game + i))
        result_row(ctx.pub, out[i])


def record_game(geo, cfg, master_seed, game, pub, hid, rng, opts, mem, log, declog, out):
    """Play one game with its events (and, if declog is large, every decision) recorded."""
    ctx = Ctx(pub, hid, geo, cfg, rng, opts, mem, log, declog)
    play_game(ctx, game_seed(master_seed, game))
    result_row(pub, out)


PHASE_ACTIONS, PHASE_DRAW, PHASE_FLOOD, PHASE_TURN, PHASE_SINK = range(5)


def run_phase(geo, cfg, phase, arg, pub, hid, rng, opts, mem, log, declog):
    """Run one part of a turn from a given position (for rule tests on hand-built positions)."""
    ctx = Ctx(pub, hid, geo, cfg, rng, opts, mem, log, declog)
    if phase == PHASE_ACTIONS:
        action_phase(ctx)
    elif phase == PHASE_DRAW:
        draw_phase(ctx)
    elif phase == PHASE_FLOOD:
        flood_phase(ctx)
    elif phase == PHASE_TURN:
        play_turn(ctx)
    elif phase == PHASE_SINK:
        sink(ctx, arg)
