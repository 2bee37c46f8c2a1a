"""Compiled runners: the rules engine, compiled once for every policy, and each policy's decide,
compiled on its own; both cached on disk; and the calls that play batches of games or record one.

fisim writes small modules into its cache directory, which Numba caches and compiles on first use:
- the engine (`engine_<key>.py`), one for every policy: the rules of fisim.rules.turn and .runner
  specialised (`specialise`) to call the policy whose compiled entry the game array points to
  (fisim.rules.policy_call), with the entry points run_games (bulk play), record_game (a
  transcript), play_out (a game continued: rollouts) and run_phase (rule tests);
- per policy (`policy_<name>_<key>.py`), its decide behind that entry, handed pub (or, as
  `seer_<name>_<key>.py`, for a built-in clairvoyant reference only, the game array through the
  hidden piles: policies.sees_decks): a new or edited policy compiles only its own code.
A policy that plays games on with another inside its decisions (search plays expert) calls the
engine's play_out with that policy's entry, which it finds by a symbol (`exported`).
A file's name carries a hash of the sources it compiles and of the Numba version, so any change
compiles afresh (DESIGN: "key the cache on the package version").
"""
import contextlib
import hashlib
import importlib.util
import inspect
import logging
import os
import signal
import sys
import threading
import types
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

import numba
import numpy as np

import fisim
import policies
from fisim.errors import EngineError
from fisim.rules import policy_call, turn
from fisim.rules import runner as runner_entry
from fisim.rules import state as st
from fisim.rules.actions import list_options
from fisim.rules.constants import MAX_PLAYERS, N_HAND_KINDS, N_KINDS
from fisim.rules.options import DECISION_NAMES, LIFT_DEST, field1
from fisim.rules.rng import N_STREAMS, init_streams
from fisim.rules.state import P_SIZE, R_SIZE, SEEN_DECKS

_RULES_DIR = Path(__file__).parent / "rules"
_POLICIES_DIR = Path(policies.__file__).parent
_ENGINE = '''"""fisim: the rules engine, for every policy (generated; safe to delete)."""
from numba import njit
from fisim.engine import specialise

_turn = specialise(__name__ + "_turn")


@njit(cache=True, nogil=True)
def run_games(geometry, cfg, policy_arg, policy, master_seed, first_game, repeat, lo, hi, out):
    _turn.run_block(geometry, cfg, policy_arg, policy, master_seed, first_game, repeat, lo, hi, out)


@njit(cache=True)
def record_game(g, rng, policy, master_seed, game, repeat, out):
    _turn.record_game(g, rng, policy, master_seed, game, repeat, out)


@njit(cache=True)
def play_out(g, rng, policy, c):
    _turn.play_out_with(g, rng, policy, c)


@njit(cache=True)
def run_phase(g, rng, policy, phase, arg):
    _turn.run_phase(g, rng, policy, phase, arg)
'''
_POLICY = '''"""fisim: policy {name}'s decide, behind the entry the engine calls (generated; safe to delete)."""
from numba import carray, njit
from fisim.rules.policy_call import HANDED, handed
from fisim.rules.rng import N_STREAMS
{import_decide}

SEEN = {seen}     # how much of the game array decide is handed: pub, or the decks too (policies.sees_decks)


@njit(cache=True)
def entry(game, n, streams):
    pub, options, mem, stream = handed(carray(game, HANDED), carray(streams, N_STREAMS), n, SEEN)
    return decide(pub, options, n, mem, stream)
'''
_generated_modules = {}
log = logging.getLogger(__name__)   # the command line shows its INFO messages on stderr
MIN_BLOCK = 64            # games a thread plays at a time, at least ...
BLOCKS_PER_THREAD = 8     # ... and about this many blocks per thread, for an even finish
# kept as functions when the rest is inlined: the entry points; `choose`, which calls the policy
# (inlined at its call sites it costs a quarter more compile time and memory, for no speed); the
# game and turn loops, called once per game or turn; and the three phases of a turn, which
# run_phase also runs one by one. Numba inlines a function by copying its code, with all that is
# inlined into it, at each call site: inlining the whole game into the entry points copied the
# largest code twice more (random's first run: 123 s of processor time to compile against 66 s),
# and the entry points share the game loop, the turn loop and the phases, compiled once.
_NOT_INLINED = ("run_block", "record_game", "run_phase", "play_out", "play_out_with", "choose", "play_game", "play_on",
                "finish_turn", "action_phase", "draw_phase", "flood_phase")
# the loops and the phases handle only views of arrays an entry point keeps alive (state.uncounted):
# compiled without reference counting, calling them costs no reference count tests
_UNCOUNTED = ("play_game", "play_on", "finish_turn", "action_phase", "draw_phase", "flood_phase")


def specialise(name):
    """Jitted copies of the functions of fisim.rules.turn and .runner, in a module registered as
    `name` (Numba's cache finds their globals by module name). They call the policy whose compiled
    entry the game array points to.

    The turn's parts are inlined into the phases and loops (_NOT_INLINED): LLVM then sees a few
    large functions without calls or reference counting between them (random games a third
    faster than every part a function). The entry points share those functions: record_game plays
    the very code run_games plays, and the rule tests run it phase by phase (run_phase)."""
    module = types.ModuleType(name)
    namespace = module.__dict__
    namespace.update({**vars(turn), **vars(runner_entry), "__name__": name})
    bound = [key for key, f in namespace.items()
             if inspect.isfunction(f) and f.__module__ in (turn.__name__, runner_entry.__name__)]
    for key in bound:
        f = namespace[key]
        namespace[key] = numba.njit(types.FunctionType(f.__code__, namespace, key, f.__defaults__),
                                    inline="never" if key in _NOT_INLINED else "always", _nrt=key not in _UNCOUNTED)
    sys.modules[name] = module
    return module


def cache_dir():
    """Where the compiled engine and policies live: $FISIM_CACHE_DIR, else the user's cache directory."""
    base = os.environ.get("FISIM_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "fisim")
    return Path(base)


def _policy_sources(policy):
    """The policy's own file and the files of the built-in policy modules it uses, and they use
    (shared helpers; search plays expert)."""
    files, todo = set(), [policy]
    while todo:
        module = todo.pop()
        files.add(Path(module.__file__))
        for value in vars(module).values():
            used = (value if isinstance(value, types.ModuleType)
                    else sys.modules.get(getattr(value, "__module__", "") or ""))
            path = getattr(used, "__file__", None)
            if path and Path(path).parent == _POLICIES_DIR and Path(path) not in files:
                todo.append(used)
    return sorted(files)


def _source_key(policy=None):
    """A hash of everything a generated module compiles: the rules engine's sources, and the
    policy's if given. Only the generated modules are cached on disk: a cached function would not
    notice a change in another file."""
    h = hashlib.sha256(f"{fisim.__version__} numba {numba.__version__}".encode())
    for path in sorted(_RULES_DIR.glob("*.py")) + [Path(__file__)] + (_policy_sources(policy) if policy else []):
        h.update(path.read_bytes())
    if policy:
        # the module imports the policy by module name: a user's copy of a built-in policy's file
        # (same NAME, same source) must not share the built-in's
        h.update(policy.__name__.encode())
    return h.hexdigest()[:16]


def _generated(stem, text):
    """The module `stem` of the cache directory (loaded once per process), written with `text`
    if it is not there yet."""
    safe = "".join(ch if ch.isalnum() else "_" for ch in stem)
    if safe in _generated_modules:
        return _generated_modules[safe]
    directory = cache_dir() / "runners"
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{safe}.py"
    if not path.exists():
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(text)
        try:        # never over another process's copy: Numba's cache is keyed on the file's mtime
            os.link(tmp, path)
        except FileExistsError:
            pass
        except OSError:     # a file system without hard links
            os.replace(tmp, path)
        tmp.unlink(missing_ok=True)
    spec = importlib.util.spec_from_file_location(f"fisim_runner_{safe}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module       # Numba's cache finds a function's module by name
    spec.loader.exec_module(module)
    _generated_modules[safe] = module
    return module


def _policy_module(policy, template, stem, **fields):
    """The generated module `stem` for a policy, importing its decide (a user's file by the module
    name it was loaded as)."""
    if policy.__name__ in sys.modules and not policy.__name__.startswith("fisim_user_policy_"):
        import_decide = f"from {policy.__name__} import decide"
    else:
        import_decide = f"import sys\ndecide = sys.modules[{policy.__name__!r}].decide"
    return _generated(f"{stem}_{policy.NAME}_{_source_key(policy)}",
                      template.format(name=policy.NAME, import_decide=import_decide, **fields))


def _engine_module():
    return _generated(f"engine_{_source_key()}", _ENGINE)


class Runner:
    """A policy's compiled entry with the engine's entry points, which it calls as the engine's
    without their `policy` argument (the entry's address)."""

    def __init__(self, policy):
        self.policy = policy
        self.engine = _engine_module()
        sees = policies.sees_decks(policy)      # (in the file's name: the file compiles what it is handed)
        self.decide = _policy_module(policy, _POLICY, "seer" if sees else "policy", seen=SEEN_DECKS if sees else P_SIZE)
        self._address = None

    @property
    def address(self):
        """Where the policy's entry is compiled (compiling it, or loading it from the cache, on
        first use)."""
        if self._address is None:
            compiled = self.decide.entry
            compiled.compile(policy_call.ENTRY_TYPES)
            result = compiled.overloads[policy_call.ENTRY_TYPES]
            self._address = np.int64(result.library.get_pointer_to_function(result.fndesc.llvm_func_name))
        return self._address

    def run_games(self, geometry, cfg, policy_arg, master_seed, first_game, repeat, lo, hi, out):
        self.engine.run_games(geometry, cfg, policy_arg, self.address, master_seed, first_game, repeat, lo, hi, out)

    def record_game(self, g, rng, master_seed, game, repeat, out):
        self.engine.record_game(g, rng, self.address, master_seed, game, repeat, out)

    def run_phase(self, g, rng, phase, arg):
        self.engine.run_phase(g, rng, self.address, phase, arg)


_runners = {}


def runner(policy):
    """The compiled runner for a policy (see policies/__init__.py): one per policy module, whatever
    its parameter (search:16 and search:64 share one)."""
    policy = getattr(policy, "module", policy)
    key = (policy.NAME, _source_key(policy))
    if key not in _runners:
        _runners[key] = Runner(policy)
    return _runners[key]


def exported(policy):
    """The name of a symbol at the policy's compiled entry, registered in this process: compiled
    code of another policy takes its address with policy_call.symbol_address and plays games on
    with it through the engine's play_out (search plays expert)."""
    run = runner(policy)
    name = f"fisim_{Path(run.decide.__file__).stem}"
    policy_call.export(name, run.address)
    return name


def policy_arg(policy):
    """The parameter a policy was named with (pub's P_POLICY_ARG), 0 for a policy without one."""
    return getattr(policy, "ARG", 0)


@contextlib.contextmanager
def first_use(run, entry, policy):
    """Say (as an INFO log message) what a first run compiles, the first time an engine entry point
    or a policy's decide is used with this cache: a first run is otherwise a minute of silence.
    Marker files beside the generated modules record what was compiled and cached."""
    markers = (Path(run.engine.__file__).with_suffix(f".{entry}.compiled"),
               Path(run.decide.__file__).with_suffix(".compiled"))
    if not markers[0].exists():
        log.info("compiling the engine for policy %s (first run only, a minute or two)...", policy.NAME)
    elif not markers[1].exists():
        log.info("compiling policy %s (its first run only)...", policy.NAME)
    yield
    for marker in markers:
        marker.touch()


@contextlib.contextmanager
def policy_errors(policy):
    """A policy whose decide() does not compile, or raises, stops the run with one line naming the
    policy (fisim.errors.EngineError, which the command line reports as a one-line error)."""
    try:
        yield
    except numba.core.errors.NumbaError as exc:
        text = str(exc)
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        detail = next((ln for ln in lines if not ln.startswith(("Failed in", "-", "During:", "File"))),
                      lines[0] if lines else "")
        if "setitem" in detail and "readonly" in text:
            detail = "it writes to a read-only array: pub may only be read (R-INFO); look ahead on pub.copy()"
        raise EngineError(f"policy {policy.NAME}: its decide() does not compile with Numba "
                          f"(decisions: {', '.join(DECISION_NAMES)}): {detail}") from None
    except Exception as exc:
        if isinstance(exc, EngineError):
            raise
        cause = exc.__cause__ or exc.__context__ or exc
        first = (str(cause).splitlines() or [""])[0]
        raise EngineError(f"policy {policy.NAME}: decide() raised {type(cause).__name__} during a "
                          f"game: {first}") from None


@contextlib.contextmanager
def interruptible():
    """Compiled code never sees Python's Ctrl-C (a policy stuck in a loop would never return), so
    while it runs in the main thread Ctrl-C ends the process at once, as it ends any native
    program. Files fisim writes are whole or absent, so finished work is kept."""
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        yield
        return
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def play_batch(layout, config, policy, seed, first_game, n_games, threads=None, progress=None, repeat=0):
    """Result rows (int32[n_games, R_SIZE], columns fisim.rules.state.R_*) of games
    first_game .. first_game+n_games-1 under master `seed`, each played with the policy stream of
    its repeat `repeat` (fisim.rules.rng; 0: the game as dealt). Independent of `threads`: each
    game is played from its own seed into its own row, whichever thread plays its block.
    `progress(k)` is called (in the calling thread) as each block of k games finishes.

    The threads are Python threads running the compiled engine without the GIL: the engine then
    needs no parallel compilation (Numba's parallel=True about doubles a first run's compile)."""
    run = runner(policy)
    out = np.zeros((n_games, R_SIZE), dtype=np.int32)
    fixed = (layout.geometry, config.to_array(), np.int64(policy_arg(policy)), np.uint64(seed),
             np.int64(first_game), np.int64(repeat))
    threads = min(threads or numba.config.NUMBA_NUM_THREADS, max(1, n_games // MIN_BLOCK))
    size = max(MIN_BLOCK, -(-n_games // (threads * BLOCKS_PER_THREAD)))
    blocks = [(lo, min(n_games, lo + size)) for lo in range(0, n_games, size)]

    def play(lo, hi):
        run.run_games(*fixed, np.int64(lo), np.int64(hi), out)
        return hi - lo

    with policy_errors(policy), interruptible(), first_use(run, "run_games", policy):
        if threads <= 1:
            finished = (play(lo, hi) for lo, hi in blocks)
        else:
            pool = ThreadPoolExecutor(threads)
            finished = (done.result() for done in as_completed([pool.submit(play, *b) for b in blocks]))
        try:
            for games in finished:
                if progress:
                    progress(games)
        finally:
            if threads > 1:
                pool.shutdown(cancel_futures=True)
    return out


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
    g = st.new_game_array(layout.geometry, config.to_array(), 1 << 18, (1 << 22) if decisions else 0,
                          policy_arg(policy))
    rng = np.zeros(N_STREAMS, np.uint64)
    out = np.zeros(R_SIZE, dtype=np.int32)
    with policy_errors(policy), interruptible():
        run = runner(policy)
        with first_use(run, "record_game", policy):
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
        g = st.new_game_array(p.layout.geometry, p.config.to_array(), 1 << 16)
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
        """Run a part of a turn (fisim.rules.runner.PHASE_*) with a policy; `script` (option codes)
        is put in the policy's memory for a scripted policy. Returns the events it logged."""
        self.g[st.MEM:st.MEM + st.MEM_SIZE] = 0
        self.g[st.P_POLICY_ARG] = policy_arg(policy)
        self.g[st.MEM + 1:st.MEM + 1 + len(script)] = script
        self.g[st.LOG] = 0
        with policy_errors(policy):
            runner(policy).run_phase(self.g, self.rng, np.int64(phase), np.int64(arg))
        return events_of(self.g)
