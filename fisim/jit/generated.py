"""The small modules fisim writes into its cache directory for Numba to compile and cache.

Numba's cache (cache=True) notices a change in the file of the function it caches, not in the
files that function calls into; so only these generated modules are cached, and each file's name
carries a hash of every source it compiles and of the Numba version (`source_key`): a change
anywhere compiles afresh (DESIGN: "key the cache on the package version").
- the engine (`engine_<key>.py`), one for every policy: the entry points of fisim.jit.entries,
  which play games calling the policy whose compiled entry they are handed (fisim.jit.policy_call);
- per policy (`policy_<name>_<key>.py`), its decide behind the entry the engine calls, handed pub
  (or, as `seer_<name>_<key>.py`, for a built-in clairvoyant reference only, the game array through
  the hidden piles: policies.sees_decks): a new or edited policy compiles only its own code.
"""
import hashlib
import importlib.util
import os
import sys
import types
from pathlib import Path

import numba

import policies
from fisim.version import VERSION

_PACKAGE_DIR = Path(__file__).parent.parent       # fisim/
_POLICIES_DIR = Path(policies.__file__).parent
ENGINE = '''"""fisim: the rules engine, for every policy (generated; safe to delete)."""
from numba import njit
from fisim.jit import entries


@njit(cache=True, nogil=True)
def run_games(geometry, cfg, policy_arg, policy, master_seed, first_game, repeat, lo, hi, out):
    entries.run_block(geometry, cfg, policy_arg, policy, master_seed, first_game, repeat, lo, hi, out)


@njit(cache=True)
def record_game(g, rng, policy, master_seed, game, repeat, out):
    entries.record_game(g, rng, policy, master_seed, game, repeat, out)


@njit(cache=True)
def play_out(g, rng, policy, c):
    entries.play_out_with(g, rng, policy, c)


@njit(cache=True)
def run_phase(g, rng, policy, phase, arg):
    entries.run_phase(g, rng, policy, phase, arg)
'''
POLICY = '''"""fisim: policy {name}'s decide, behind the entry the engine calls (generated; safe to delete)."""
from numba import njit
from fisim.jit.intrinsics import array_at
from fisim.jit.policy_call import HANDED, chosen, handed
from fisim.rules.rng import N_STREAMS
{import_decide}

SEEN = {seen}     # how much of the game array decide is handed: pub, or the decks too (policies.sees_decks)


@njit(cache=True)
def entry(game, n, streams):
    pub, options, mem, stream = handed(array_at(game, HANDED), array_at(streams, N_STREAMS), n, SEEN)
    return chosen(decide(pub, options, n, mem, stream))
'''
_loaded = {}
_digests = {}       # (source file, module) -> the hash of its bytes as first read (_digest)


def cache_dir():
    """Where the compiled engine and policies live: $FISIM_CACHE_DIR, else the user's cache directory."""
    base = os.environ.get("FISIM_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "fisim")
    return Path(base)


def _engine_sources():
    """The files the engine compiles: the rules and the Numba machinery."""
    return sorted((_PACKAGE_DIR / "rules").glob("*.py")) + sorted((_PACKAGE_DIR / "jit").glob("*.py"))


def _policy_sources(policy):
    """The policy's own file and the files of the built-in policy modules it uses, and they use
    (shared helpers; search plays expert), with a module's data file (DATA: tuned's weights): (path,
    the module that read it) pairs."""
    files, todo = {}, [policy]
    while todo:
        module = todo.pop()
        files[Path(module.__file__)] = module
        if getattr(module, "DATA", None):
            files[Path(module.DATA)] = module
        for value in vars(module).values():
            used = (value if isinstance(value, types.ModuleType)
                    else sys.modules.get(getattr(value, "__module__", "") or ""))
            path = getattr(used, "__file__", None)
            if path and Path(path).parent == _POLICIES_DIR and Path(path) not in files:
                todo.append(used)
    return sorted(files.items(), key=lambda item: item[0])


def source_key(policy=None):
    """A hash of everything a generated module compiles: the engine's sources, and the policy's if
    given, each as this process first read it (_digest)."""
    h = hashlib.sha256(f"{VERSION} numba {numba.__version__}".encode())
    for path in _engine_sources():
        h.update(_digest(path))
    for path, module in _policy_sources(policy) if policy else []:
        h.update(_digest(path, module))
    if policy:
        # the module imports the policy by module name: a user's copy of a built-in policy's file
        # (same NAME, same source) must not share the built-in's
        h.update(policy.__name__.encode())
    return h.hexdigest()[:16]


def _digest(path, module=None):
    """The hash of a source file's bytes when first read for `module` (the policy module that read
    it; None: the engine's), near when it was imported. A process compiles the code it imported:
    a file edited under it (a long sweep while a policy is being changed) must not put that code in
    the cache under the key of the new text; a policy file loaded again is a new module, read anew."""
    if (path, module) not in _digests:
        _digests[path, module] = hashlib.sha256(path.read_bytes()).digest()
    return _digests[path, module]


for _path in _engine_sources():     # read as the engine's modules are imported, before any edit
    _digest(_path)


def _safe(stem):
    return "".join(ch if ch.isalnum() else "_" for ch in stem)


def module(stem, text):
    """The module `stem` of the cache directory (loaded once per process), written with `text`
    if it is not there yet."""
    safe = _safe(stem)
    if safe in _loaded:
        return _loaded[safe]
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
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = loaded       # Numba's cache finds a function's module by name
    spec.loader.exec_module(loaded)
    _loaded[safe] = loaded
    return loaded


def engine_module():
    return module(f"engine_{source_key()}", ENGINE)


def policy_stem(policy, seer=False):
    """The name of the generated module of a policy (module), without loading anything."""
    return _safe(f"{'seer' if seer else 'policy'}_{policy.NAME}_{source_key(policy)}")


def policy_module(policy, seer, seen):
    """The generated module of a policy's entry, importing its decide (a user's file by the module
    name it was loaded as), handed the game array's first `seen` ints."""
    if policy.__name__ in sys.modules and not policy.__name__.startswith("fisim_user_policy_"):
        import_decide = f"from {policy.__name__} import decide"
    else:
        import_decide = f"import sys\ndecide = sys.modules[{policy.__name__!r}].decide"
    return module(policy_stem(policy, seer), POLICY.format(name=policy.NAME, import_decide=import_decide, seen=seen))
