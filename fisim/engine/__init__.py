"""Playing games with the compiled engine: batches of games into result rows, the same with the
team's win chance traced over each, one game with its transcript, and a hand-built position for the
rule tests. The engine's assembly, above the policies: the entry points the rules are compiled
into with every policy (entries), the modules generated for Numba's cache (generated) and the
runners that compile and call them (runners), built with the toolkit of fisim.jit (docs/engine.md).
"""
import contextlib
import logging
import signal
import threading
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass

import numba
import numpy as np

from fisim.engine.runners import bulk_arguments, first_use, policy_arg, prepare, runner
from fisim.errors import ConfigError, EngineError
from fisim.limits import MAX_ENGINE_SEED, MAX_GAME, MAX_REPEAT, TRACE_ROUNDS
from fisim.rules import state as st
from fisim.rules.actions import list_options
from fisim.rules.config import GameConfig
from fisim.rules.constants import MAX_PLAYERS, N_HAND_KINDS, N_KINDS
from fisim.rules.options import DECISION_NAMES, LIFT_DEST, field1
from fisim.rules.rng import N_STREAMS, init_streams
from fisim.rules.state import R_SIZE

MIN_BLOCK = 64            # games a thread plays at a time, at least ...
BLOCKS_PER_THREAD = 8     # ... and about this many blocks per thread, for an even finish
INTERPRETED_NOTE = 100    # a batch of this many games or more, interpreted, is said to be (once)
log = logging.getLogger("fisim.engine")     # the command line shows its INFO messages on stderr
_said_interpreted = []


def checked(config, seed=0, first_game=0, n_games=0, repeat=0, check=GameConfig.validate):
    """`config` validated (`check`: GameConfig.validate, or for a hand-built position
    GameConfig.check_playable), and the numbers of a batch in the ranges the engine
    plays: a ConfigError in one line for anything else, whoever calls the engine (the compiled code
    trusts what it is handed: a config it cannot play once crashed the process). Once a batch, never
    per game."""
    if not isinstance(config, GameConfig):
        raise ConfigError(f"the engine plays a fisim.rules.config.GameConfig, not {type(config).__name__}")
    check(config)
    for name, value, high in (("seed", seed, MAX_ENGINE_SEED), ("first game", first_game, MAX_GAME),
                              ("games", n_games, MAX_GAME), ("repeat", repeat, MAX_REPEAT)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value <= high:
            raise ConfigError(f"{name} must be a whole number from 0 to {high:,}, not {value!r}")
    if first_game + n_games - 1 > MAX_GAME:
        raise ConfigError(f"games {first_game:,}..{first_game + n_games - 1:,} go past the last game {MAX_GAME:,}")
    return config


def _say_if_interpreted(n_games):
    """Under NUMBA_DISABLE_JIT the engine runs as plain Python, hundreds of times slower: a large
    batch says so once (an INFO message, which the command line shows on a terminal)."""
    if numba.config.DISABLE_JIT and n_games >= INTERPRETED_NOTE and not _said_interpreted:
        _said_interpreted.append(True)
        log.info("the engine runs interpreted (NUMBA_DISABLE_JIT is set): games are hundreds of times slower "
                 "than compiled")


@contextlib.contextmanager
def policy_errors(policy, compiling=False):
    """A policy whose decide() does not compile, or raises (an index out of bounds in a policy
    file too), stops the run with one line naming the policy (fisim.errors.EngineError, which the
    command line reports as a one-line error). `compiling`: what fails inside is the compile (a
    typo can fail there as a plain Python error), never a game."""
    try:
        yield
    except numba.core.errors.NumbaError as exc:
        text = str(exc)
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        detail = next((ln for ln in lines if not ln.startswith(("Failed in", "-", "During:", "File"))),
                      lines[0] if lines else "")
        if "setitem" in detail and "readonly" in text:
            detail = ("it writes to a read-only array: pub and the options may only be read (R-INFO); "
                      "look ahead on pub.copy()")
        raise EngineError(_not_compiled(policy, detail)) from None
    except Exception as exc:
        if isinstance(exc, EngineError):
            raise
        cause = exc.__cause__ or exc.__context__ or exc
        first = (str(cause).splitlines() or [""])[0]
        if compiling:
            raise EngineError(_not_compiled(policy, f"{type(cause).__name__}: {first}")) from None
        if isinstance(cause, IndexError):       # a policy file's bounds checks (fisim.jit.modes.bounds_checked)
            first += f" (mem holds {st.MEM_SIZE} ints, pub {st.P_SIZE}, the options n)"
        raise EngineError(f"policy {policy.NAME}: decide() raised {type(cause).__name__} during a "
                          f"game: {first}") from None


def _not_compiled(policy, detail):
    return (f"policy {policy.NAME}: its decide() does not compile with Numba "
            f"(decisions: {', '.join(DECISION_NAMES)}): {detail}")


def in_workers(task, jobs, threads=1, done=None):
    """task(*job) for every job, on `threads` worker threads, while this thread waits for them and
    calls done(result) as each finishes. Compiled code never returns to Python before it ends, so
    it never runs in the thread that Ctrl-C interrupts: the waiting thread takes the
    KeyboardInterrupt at once, hands out no more jobs and leaves; the jobs in flight are abandoned
    (they end in the background, or with the process: the command line exits at once)."""
    pool = ThreadPoolExecutor(threads, thread_name_prefix="fisim-engine")
    try:
        for future in as_completed([pool.submit(task, *job) for job in jobs]):
            result = future.result()
            if done:
                done(result)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


@contextlib.contextmanager
def interruptible():
    """While a game is recorded (record_game, compiled code that holds the GIL: a waiting thread
    would never run Python's Ctrl-C), Ctrl-C ends the process at once, as it ends any native
    program; a game takes milliseconds, one whose policy loops for ever would never return.
    Files fisim writes are whole or absent."""
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        yield
        return
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def compiled(run, policy):
    """Compile (or load from the cache) the policy's entry on a worker thread (in_workers), a
    failure reported as a compile's, not a game's."""
    with policy_errors(policy, compiling=True):
        in_workers(lambda: run.address, [()])


def play_batch(layout, config, policy, seed, first_game, n_games, threads=None, progress=None, repeat=0):
    """Result rows (int32[n_games, R_SIZE], columns fisim.rules.state.R_*) of games
    first_game .. first_game+n_games-1 under master `seed`, each played with the policy stream of
    its repeat `repeat` (fisim.rules.rng; 0: the game as dealt). Independent of `threads`: each
    game is played from its own seed into its own row, whichever thread plays its block.
    `progress(k)` is called (in the calling thread) as each block of k games finishes.

    The blocks are played on worker threads (in_workers) running the compiled engine without the
    GIL: the engine then needs no parallel compilation (Numba's parallel=True makes a first run's
    compile much longer: docs/benchmarks.md), and the calling thread stays free for Ctrl-C. A
    config or a number the engine cannot play is a ConfigError (checked)."""
    checked(config, seed, first_game, n_games, repeat)
    _say_if_interpreted(n_games)
    prepare([policy])
    run = runner(policy)
    out = np.zeros((n_games, R_SIZE), dtype=np.int32)
    fixed = bulk_arguments(layout, config, policy, seed, first_game, repeat)
    threads, blocks = blocks_of(n_games, threads, MIN_BLOCK)

    def play(lo, hi):
        run.run_games(*fixed, np.int64(lo), np.int64(hi), out)
        return hi - lo

    with first_use(run, "run_games", policy):
        compiled(run, policy)
        with policy_errors(policy):
            in_workers(play, blocks, threads, progress)
    return out


def trace_batch(layout, config, policy, seed, first_game, n_games, worlds, threads=None, repeat=0):
    """The team's chance of winning over games first_game .. first_game+n_games-1 (as play_batch
    plays them), estimated at the start of each round from `worlds` sampled worlds the policy plays
    on (fisim.engine.entries.trace_block): (traces, rows), traces[i] the worlds won at the start of
    each round of game i (at most TRACE_ROUNDS rounds), then its end (`worlds` won, 0 lost), then
    -1; rows[i] its result row. Independent of `threads`, as play_batch is; checked as it is."""
    checked(config, seed, first_game, n_games, repeat)
    if isinstance(worlds, bool) or not isinstance(worlds, (int, np.integer)) or worlds < 1:
        raise ConfigError(f"worlds must be a whole number of at least 1, not {worlds!r}")
    prepare([policy], "trace_games")
    run = runner(policy)
    traces = np.zeros((n_games, TRACE_ROUNDS + 1), dtype=np.int32)
    rows = np.zeros((n_games, R_SIZE), dtype=np.int32)
    geometry, cfg, arg, master, first, again = bulk_arguments(layout, config, policy, seed, first_game, repeat)

    threads, blocks = blocks_of(n_games, threads, 1)      # (a traced game is slow: blocks of one or more)

    def trace(lo, hi):
        run.engine.trace_games(geometry, cfg, arg, run.address, master, first, again, np.int64(worlds),
                               np.int64(lo), np.int64(hi), traces, rows)

    with first_use(run, "trace_games", policy):
        compiled(run, policy)
        with policy_errors(policy):
            in_workers(trace, blocks, threads)
    return traces, rows


def blocks_of(n_games, threads, smallest):
    """(threads, blocks): n_games as blocks (lo, hi) of at least `smallest` games each but the last,
    about BLOCKS_PER_THREAD per thread, and the threads (at most `threads`, default Numba's count)
    worth starting for them."""
    threads = min(threads or numba.config.NUMBA_NUM_THREADS, max(1, n_games // smallest))
    size = max(smallest, -(-n_games // (threads * BLOCKS_PER_THREAD)))
    return threads, [(lo, min(n_games, lo + size)) for lo in range(0, n_games, size)]


@dataclass
class Recording:
    """One game as the engine played it: events (int32[m, 4]), decisions, final public state."""

    events: np.ndarray
    decisions: list        # (decision kind, seat, options tuple, chosen index) per policy call
    result: np.ndarray
    pub: np.ndarray


def events_of(g):
    return g[st.LOG + 1:st.LOG + 1 + g[st.LOG]].reshape(-1, 4).copy()


def decisions_of(g):
    """(kind, seat, options, chosen index) for every decision recorded in game array g."""
    out, start = [], g[st.X_DECLOG]
    if not start:
        return out
    i, end = start + 1, start + 1 + g[start]
    while i < end:
        kind, seat, n = int(g[i]), int(g[i + 1]), int(g[i + 2])
        out.append((kind, seat, tuple(int(x) for x in g[i + 3:i + 3 + n]), int(g[i + 3 + n])))
        i += n + 4
    return out


def record(layout, config, policy, seed, game, decisions=False, repeat=0):
    """Play game `game` of master `seed` (its repeat `repeat`) with its transcript (and every
    policy decision) kept."""
    settings = checked(config, seed, game, 1, repeat).to_array()
    g = st.new_game_array(layout.geometry, settings, 1 << 18, (1 << 22) if decisions else 0, policy_arg(policy))
    rng = np.zeros(N_STREAMS, np.uint64)
    out = np.zeros(R_SIZE, dtype=np.int32)
    prepare([policy], "record_game")
    run = runner(policy)
    with first_use(run, "record_game", policy):
        compiled(run, policy)
        with policy_errors(policy), interruptible():
            run.record_game(g, rng, np.uint64(seed), np.int64(game), np.int64(repeat), out)
    return Recording(events_of(g), decisions_of(g), out, g[:st.P_SIZE].copy())


class EngineGame:
    """The engine's game array built from a hand-made Position (fisim.position), to list legal
    options or run part of a turn from it; used by the rule tests."""

    def __init__(self, g, rng):
        self.g, self.rng = g, rng

    @property
    def pub(self):
        return self.g[:st.P_SIZE]

    @classmethod
    def from_position(cls, position, seed=0):
        p = position
        g = st.new_game_array(p.layout.geometry, checked(p.config, check=GameConfig.check_playable).to_array(), 1 << 16)
        for cell, tile in enumerate(p.tile_at):
            g[st.P_TILE_AT + cell] = tile
            g[st.P_CELL_OF + tile] = cell
            if p.status[cell] != 2:
                g[st.P_EXISTS] |= 1 << cell
            if p.status[cell] == 1:
                g[st.P_FLOODED] |= 1 << cell
        g[st.P_PLAYERS] = len(p.roles)
        for s in range(MAX_PLAYERS):
            seated = s < len(p.roles)
            g[st.P_ROLE + s] = p.roles[s] if seated else -1
            g[st.P_POS + s] = p.pos[s] if seated else -1
            for k in range(N_HAND_KINDS):
                g[st.hand_at(s, k)] = p.hands[s][k] if seated else 0
        g[st.P_CAPTURED] = sum(1 << t for t in p.captured)
        g[st.P_LEVEL] = p.level
        g[st.P_TDRAW_N] = len(p.treasure_draw)
        for i, k in enumerate(p.treasure_draw):
            g[st.H_TPILE + i] = k
            g[st.P_TDRAW_COUNT + k] += 1
        for k in range(N_KINDS):
            g[st.P_TDISC + k] = p.treasure_discard[k]
        g[st.P_FDRAW_N] = len(p.flood_draw)
        for i, t in enumerate(p.flood_draw):
            g[st.H_FPILE + i] = t
        g[st.P_FDISC] = sum(1 << t for t in p.flood_discard)
        for layer, group in enumerate(p.flood_on_top, start=1):
            for t in group:
                g[st.P_FLAYER + t] = layer
        g[st.P_LAYER_TOP] = len(p.flood_on_top)
        g[st.P_SUNK_COUNT] = sum(1 for s in p.status if s == 2)
        for field, value in ((st.P_ACTIVE, p.active), (st.P_FIRST, p.active), (st.P_TURN, p.turn),
                             (st.P_ACTIONS_LEFT, p.actions_left), (st.P_FLIGHT_USED, p.flight_used),
                             (st.P_DECISION, p.decision), (st.P_DECIDER, p.decider),
                             (st.P_SUNK_CELL, p.sunk_cell)):
            g[field] = value
        rng = np.zeros(N_STREAMS, np.uint64)
        init_streams(np.uint64(seed), rng)
        return cls(g, rng)

    def legal_options(self):
        n = list_options(self.g, self.g, st.OPTS)
        return [int(x) for x in self.g[st.OPTS:st.OPTS + n]]

    def lift_options(self, lift):
        """The LIFT_TO options of the destination decision that follows choosing `lift` (a LIFT
        option of the current decision)."""
        g = self.g
        saved = g[st.P_DECISION], g[st.P_DECIDER]
        g[st.P_DECISION], g[st.P_DECIDER], g[st.P_LIFT] = LIFT_DEST, field1(lift), lift
        try:
            return self.legal_options()
        finally:
            g[st.P_DECISION], g[st.P_DECIDER] = saved
            g[st.P_LIFT] = 0

    def run(self, phase, policy, arg=0, script=()):
        """Run a part of a turn (fisim.engine.entries.PHASE_*) with a policy; `script` (option codes)
        is put in the policy's memory for a scripted policy. Returns the events it logged."""
        self.g[st.MEM:st.MEM + st.MEM_SIZE] = 0
        self.g[st.P_POLICY_ARG] = policy_arg(policy)
        self.g[st.MEM + 1:st.MEM + 1 + len(script)] = script
        self.g[st.LOG] = 0
        with policy_errors(policy):
            runner(policy).run_phase(self.g, self.rng, np.int64(phase), np.int64(arg))
        return events_of(self.g)
