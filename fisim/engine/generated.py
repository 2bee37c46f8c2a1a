"""The small modules fisim writes into its cache directory for Numba to compile and cache.

Numba's cache (cache=True) notices a change in the file of the function it caches, not in the
files that function calls into; so only these generated modules are cached, and each file's name
carries a hash of every source it compiles and of the Numba version (`source_key`): a change
anywhere compiles afresh (DESIGN: "key the cache on the package version").
- the engine (`engine_<key>.py`), one for every policy: the entry points of fisim.engine.entries,
  which play games (and trace the win chance over them) calling the policy whose compiled entry
  they are handed (fisim.rules.asking); and play_out, which a search's rollouts call at the
  address the engine exports (fisim.jit.policy_call.call_play_out);
- per policy (`policy_<name>_<key>.py`), its decide behind the entry the engine calls, handed pub
  (or, as `seer_<name>_<key>.py`, for a built-in clairvoyant reference only, the game array through
  the hidden piles: policies.sees_decks): a new or edited policy compiles only its own code.
"""
import hashlib
from pathlib import Path

import numba

from fisim.jit.cache import cached_module, safe
from fisim.version import VERSION

_PACKAGE_DIR = Path(__file__).parent.parent       # fisim/
ENGINE = '''"""fisim: the rules engine, for every policy (generated; safe to delete)."""
from numba import njit
from fisim.engine import entries
from fisim.jit.intrinsics import array_at
from fisim.rules.rng import N_STREAMS


@njit(cache=True, nogil=True)
def run_games(geometry, cfg, policy_arg, policy, master_seed, first_game, repeat, lo, hi, out):
    entries.run_block(geometry, cfg, policy_arg, policy, master_seed, first_game, repeat, lo, hi, out)


@njit(cache=True, nogil=True)
def trace_games(geometry, cfg, policy_arg, policy, master_seed, first_game, repeat, worlds, lo, hi, out, rows):
    entries.trace_block(geometry, cfg, policy_arg, policy, master_seed, first_game, repeat, worlds, lo, hi, out, rows)


@njit(cache=True)
def record_game(g, rng, policy, master_seed, game, repeat, out):
    entries.record_game(g, rng, policy, master_seed, game, repeat, out)


@njit(cache=True)
def play_out(game, size, streams, policy, c):
    entries.play_out_with(array_at(game, size), array_at(streams, N_STREAMS), policy, c)
    return 0


@njit(cache=True)
def run_phase(g, rng, policy, phase, arg):
    entries.run_phase(g, rng, policy, phase, arg)
'''
POLICY = '''"""fisim: policy {name}'s decide, behind the entry the engine calls (generated; safe to delete)."""
from numba import njit
from fisim.jit.intrinsics import array_at
from fisim.jit.policy_call import chosen
from fisim.rules.asking import HANDED, handed
from fisim.rules.rng import N_STREAMS
{import_decide}

SEEN = {seen}     # how much of the game array decide is handed: pub, or the decks too (policies.sees_decks)


@njit(cache=True)
def entry(game, n, streams):
    pub, options, mem, stream = handed(array_at(game, HANDED), array_at(streams, N_STREAMS), n, SEEN)
    return chosen(decide(pub, options, n, mem, stream))
'''
_digests = {}       # an engine source file -> the hash of its bytes as first read (_digest)


def _engine_sources():
    """The files the engine compiles: the rules, the Numba toolkit, the entry points and the
    generated modules' text."""
    return (sorted((_PACKAGE_DIR / "rules").glob("*.py")) + sorted((_PACKAGE_DIR / "jit").glob("*.py"))
            + [_PACKAGE_DIR / "engine" / "entries.py", Path(__file__)])


def source_key(policy=None):
    """A hash of everything a generated module compiles: the engine's sources, and the policy's if
    given (a policies.Policy: every file its code and data are read from, as it read them)."""
    h = hashlib.sha256(f"{VERSION} numba {numba.__version__}".encode())
    for path in _engine_sources():
        h.update(_digest(path))
    if policy:
        for _, digest in policy.sources:
            h.update(digest.encode())
        # the module imports the policy's decide by module name: a user's copy of a built-in
        # policy's file (same name, same source) must not share the built-in's
        h.update(policy.module.__name__.encode())
    return h.hexdigest()[:16]


def _digest(path):
    """The hash of an engine source file's bytes when first read, as its module was imported. A
    process compiles the code it imported: a file edited under it must not put that code in the
    cache under the key of the new text (a policy's files are hashed as it was resolved:
    policies.Policy.sources)."""
    if path not in _digests:
        _digests[path] = hashlib.sha256(path.read_bytes()).digest()
    return _digests[path]


for _path in _engine_sources():     # read as the engine's modules are imported, before any edit
    _digest(_path)


def engine_module():
    return cached_module(f"engine_{source_key()}", ENGINE)


def policy_stem(policy, seer=False):
    """The name of the generated module of a policy (a policies.Policy), without loading anything."""
    return safe(f"{'seer' if seer else 'policy'}_{policy.code_name}_{source_key(policy)}")


def policy_module(policy, seer, seen):
    """The generated module of a policy's entry, importing its decide (a user's file or a composed
    search by the module name it was made as), handed the game array's first `seen` ints."""
    name = policy.module.__name__
    if name.startswith("policies."):
        import_decide = f"from {name} import decide"
    else:
        import_decide = f"import sys\ndecide = sys.modules[{name!r}].decide"
    text = POLICY.format(name=policy.NAME, import_decide=import_decide, seen=seen)
    return cached_module(policy_stem(policy, seer), text)
