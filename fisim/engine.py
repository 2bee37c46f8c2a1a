"""Compiled runners: the rules engine specialised for one policy, cached on disk, and the calls
that play batches of games or record one game.

For each policy fisim writes a tiny runner module into its cache directory: it binds the policy's
`decide` into the engine (`specialise`) and defines the jitted entry points, which Numba caches.
The runner's file name carries a hash of the engine's and the policy's source and of the Numba
version, so any change to either compiles afresh (DESIGN: "key the cache on the package version").
"""
import hashlib
import importlib.util
import inspect
import os
import sys
import types
from dataclasses import dataclass
from pathlib import Path

import numba
import numpy as np

import fisim
from fisim.rules import runner as runner_entry
from fisim.rules import state as st
from fisim.rules import turn
from fisim.rules.turn import R_SIZE

_RULES_DIR = Path(__file__).parent / "rules"
_TEMPLATE = '''"""fisim runner for policy {name} (generated; safe to delete)."""
from numba import njit, prange
from fisim.engine import specialise
{import_decide}

_engine = specialise(decide, __name__ + "_engine")
_run_block, _record_game, _run_phase = _engine.run_block, _engine.record_game, _engine.run_phase


@njit(cache=True, parallel=True)
def run_batch(geo, cfg, master_seed, first_game, n, out, block):
    blocks = (n + block - 1) // block
    for b in prange(blocks):
        lo = b * block
        _run_block(geo, cfg, master_seed, first_game, lo, min(n, lo + block), out)


@njit(cache=True)
def record_game(geo, cfg, master_seed, game, pub, hid, rng, opts, mem, log, declog, out):
    _record_game(geo, cfg, master_seed, game, pub, hid, rng, opts, mem, log, declog, out)


@njit(cache=True)
def run_phase(geo, cfg, phase, arg, pub, hid, rng, opts, mem, log, declog):
    _run_phase(geo, cfg, phase, arg, pub, hid, rng, opts, mem, log, declog)
'''
_runners = {}


def specialise(decide, name):
    """Jitted copies of the policy-bound functions of fisim.rules.turn and .runner whose global
    `decide` is the given policy's, in a module registered as `name` (Numba's cache finds their
    globals by module name). A jitted function passed as an argument instead would keep Numba from
    caching the runner; a global is resolved at compile time."""
    module = types.ModuleType(name)
    namespace = module.__dict__
    namespace.update({**vars(turn), **vars(runner_entry), "decide": decide, "__name__": name})
    bound = [key for key, f in namespace.items()
             if inspect.isfunction(f) and f.__module__ in (turn.__name__, runner_entry.__name__)]
    for key in bound:
        f = namespace[key]
        namespace[key] = numba.njit(types.FunctionType(f.__code__, namespace, key, f.__defaults__))
    sys.modules[name] = module
    return module


def cache_dir():
    """Where compiled runners live: $FISIM_CACHE_DIR, else the user's cache directory."""
    base = os.environ.get("FISIM_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "fisim")
    return Path(base)


def _source_key(policy):
    h = hashlib.sha256(f"{fisim.__version__} numba {numba.__version__}".encode())
    for path in sorted(_RULES_DIR.glob("*.py")) + [Path(__file__), Path(policy.__file__)]:
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def runner(policy):
    """The compiled runner module for a policy module (see policies/__init__.py)."""
    key = f"{policy.NAME}_{_source_key(policy)}"
    if key in _runners:
        return _runners[key]
    safe = "".join(ch if ch.isalnum() else "_" for ch in key)
    if policy.__name__ in sys.modules and not policy.__name__.startswith("fisim_user_policy_"):
        import_decide = f"from {policy.__name__} import decide"
    else:
        import_decide = f"import sys\ndecide = sys.modules[{policy.__name__!r}].decide"
    directory = cache_dir() / "runners"
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"run_{safe}.py"
    if not path.exists():
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(_TEMPLATE.format(name=policy.NAME, import_decide=import_decide))
        os.replace(tmp, path)
    spec = importlib.util.spec_from_file_location(f"fisim_runner_{safe}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module       # Numba's cache finds a function's module by name
    spec.loader.exec_module(module)
    _runners[key] = module
    return module


def play_batch(layout, config, policy, seed, first_game, n_games, threads=None, block=64):
    """Result rows (int32[n_games, R_SIZE], columns fisim.rules.turn.R_*) of games
    first_game .. first_game+n_games-1 under master `seed`. Independent of `threads`."""
    run = runner(policy)
    out = np.zeros((n_games, R_SIZE), dtype=np.int32)
    if n_games == 0:
        return out
    previous = numba.get_num_threads()
    numba.set_num_threads(threads or numba.config.NUMBA_NUM_THREADS)
    try:
        run.run_batch(layout.geometry, config.to_array(), np.uint64(seed), np.int64(first_game),
                      np.int64(n_games), out, np.int64(block))
    finally:
        numba.set_num_threads(previous)
    return out


@dataclass
class Recording:
    """One game as the engine played it: events (int32[m, 4]), decisions, final public state."""

    events: np.ndarray
    decisions: list        # (decision kind, seat, options tuple, chosen index) per policy call
    result: np.ndarray
    pub: np.ndarray


def parse_declog(declog):
    out, i = [], 1
    while i < declog[0] + 1:
        kind, seat, n = int(declog[i]), int(declog[i + 1]), int(declog[i + 2])
        opts = tuple(int(x) for x in declog[i + 3:i + 3 + n])
        out.append((kind, seat, opts, int(declog[i + 3 + n])))
        i += n + 4
    return out


def events_of(log):
    return log[1:1 + log[0]].reshape(-1, 4).copy()


def record(layout, config, policy, seed, game, decisions=False):
    """Play game `game` of master `seed` with its transcript (and every policy decision) kept."""
    run = runner(policy)
    pub, hid, rng, opts, mem, log, declog = st.new_buffers(1 << 20, (1 << 24) if decisions else 1)
    out = np.zeros(R_SIZE, dtype=np.int32)
    run.record_game(layout.geometry, config.to_array(), np.uint64(seed), np.int64(game),
                    pub, hid, rng, opts, mem, log, declog, out)
    return Recording(events_of(log), parse_declog(declog), out, pub)
