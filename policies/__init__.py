"""The policies: one module each, found by name in the registry or loaded from a user's file.

A policy module defines NAME, VERSION and a Numba-jitted

    decide(pub, options, n, mem, rng) -> int

returning the index (0..n-1) of its choice among options[:n]. `pub` is the public game record
(fisim.rules.state: the island's geometry, the rules in force, the board, hands, piles as counts),
`mem` a per-game int32 scratch array the policy may use between decisions, `rng` the game's
policy random stream. A policy reads, and never writes, `pub` and the options (they are handed
read-only: a write does not compile); the functions of fisim.rules.actions work on a copy of pub
for lookahead. A policy file's own functions are compiled with bounds checks
(fisim.jit.modes.bounds_checked): an index past mem, pub or the options stops the run.

A policy may take one whole-number parameter, given after a colon in its name (`search:32`): the
module declares PARAMETER = (what it counts, default, lowest, highest), and its decide reads the
value in pub (P_POLICY_ARG). The name with the value is the policy's name in every result.

A built-in policy may declare DATA, the path of a data file its values come from (tuned's learned
weights, policies/tuned.json): the file's content is part of its compiled code's cache key
(fisim.jit.generated) and of a store's fingerprint (fisim.store), as a policy file's is.

`clairvoyant:N` is not a player: it is search with the hidden order of the draw piles in view, a
measuring stick for how much perfect foresight of the cards is worth. It is the only policy the
engine hands more than pub (sees_decks), and every output that shows it carries CLAIRVOYANT_NOTE.
"""
import importlib
import importlib.util
import sys
from pathlib import Path

from fisim.errors import ConfigError
from fisim.limits import is_whole

BUILTIN = {"random": "policies.random", "passive": "policies.passive", "greedy": "policies.greedy",
           "expert": "policies.expert", "tuned": "policies.tuned", "planner": "policies.planner",
           "search": "policies.search", "tuned-search": "policies.tuned_search",
           "planner-search": "policies.planner_search", "clairvoyant": "policies.clairvoyant"}
SEES_DECKS = ("clairvoyant",)   # built-in references handed the hidden piles (R-INFO does not hold)
LEGAL = tuple(name for name in BUILTIN if name not in SEES_DECKS)
CLAIRVOYANT_NOTE = "sees the decks: not a legal player; bounds what perfect foresight of the cards could achieve"
PUBLISHED = "planner"       # who played the published reports (reports/), expert's games beside its own
# weakest to strongest: fisim ladder
LADDER = ("random", "passive", "greedy", "expert", "tuned", "planner", "search:8", "tuned-search:8", "search:32",
          "planner-search:8")
# built-ins that never draw on their random stream: every repeat is one game
REPLAYS_ALIKE = ("greedy", "expert", "tuned", "planner")


class PolicyError(ConfigError):
    pass


def sees_decks(policy):
    """Whether the engine hands this policy (a module, Configured or a name) the hidden piles: a
    built-in clairvoyant reference only; never a policy file, whatever it declares."""
    if isinstance(policy, str):
        return policy.partition("@")[0].partition(":")[0] in SEES_DECKS
    module = getattr(policy, "module", policy)
    return module.__name__ in {BUILTIN[name] for name in SEES_DECKS}


def full_name(policy):
    """NAME@VERSION of a loaded policy: its one name in every result (a policy file's path is kept
    in a store's manifest, as provenance)."""
    return f"{policy.NAME}@{policy.VERSION}"


def labelled(name):
    """A policy's name as outputs show it: a clairvoyant one with CLAIRVOYANT_NOTE."""
    return f"{name} ({CLAIRVOYANT_NOTE})" if sees_decks(name) else name


def seer_notes(names):
    """The lines a table of these policies (names) ends with: one CLAIRVOYANT_NOTE per clairvoyant one."""
    return [f"{name}: {CLAIRVOYANT_NOTE}." for name in dict.fromkeys(names) if sees_decks(str(name))]


def load_policy(name):
    """The policy module for a registry name (optionally `name@version`) or a .py file path."""
    if not isinstance(name, str):
        raise PolicyError(f"policy must be a name ({', '.join(BUILTIN)}) or a .py file path, not {name!r}")
    if name.endswith(".py"):
        return _load_file(Path(name))
    named, _, version = name.partition("@")
    base, colon, arg = named.partition(":")
    if base not in BUILTIN:
        raise PolicyError(f"unknown policy {name!r}; choose one of: {', '.join(BUILTIN)}, or a .py file")
    module = importlib.import_module(BUILTIN[base])
    if version and version != str(module.VERSION):
        raise PolicyError(f"policy {base} is at version {module.VERSION}, not {version}")
    parameter = getattr(module, "PARAMETER", None)
    if parameter is None:
        if colon:
            raise PolicyError(f"policy {base} takes no parameter (not {name!r}); give it as {base}")
        return module
    return Configured(module, _argument(base, parameter, arg if colon else None))


def _argument(base, parameter, text):
    what, default, lo, hi = parameter
    if text is None:
        return default
    if not is_whole(text) or not lo <= int(text) <= hi:
        raise PolicyError(f"policy {base}:N takes N = {what}, a whole number from {lo} to {hi}, not {text!r}")
    return int(text)


class Configured:
    """A policy module with the value of its parameter; reads as the module otherwise."""

    def __init__(self, module, arg):
        self.module, self.ARG = module, arg
        self.NAME = f"{module.NAME}:{arg}"

    def __getattr__(self, name):
        return getattr(self.module, name)


def _load_file(path):
    if not path.is_file():
        raise PolicyError(f"policy file {path} does not exist")
    module_name = f"fisim_user_policy_{path.stem}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as exc:  # a user's file: report any failure, an exit too, as one line
        raise PolicyError(f"policy file {path} failed to load: {exc.__class__.__name__}: {exc}") from None
    if not hasattr(module, "decide"):
        raise PolicyError(f"policy file {path} defines no decide() function")
    module.NAME = getattr(module, "NAME", path.stem)
    module.VERSION = getattr(module, "VERSION", 1)
    taken = next((n for n in (module.NAME, path.stem) if n in BUILTIN), None)
    if taken:       # results would show it as the built-in policy
        raise PolicyError(f"policy file {path} is called {taken!r}, the name of a built-in policy; "
                          "give it another NAME and file name")
    interpreted = "numba" in sys.modules and sys.modules["numba"].config.DISABLE_JIT
    if not hasattr(module.decide, "py_func") and not interpreted:       # (a Numba dispatcher has py_func)
        raise PolicyError(f"policy file {path}: decide() is not compiled: decorate it with @njit "
                          "(from numba import njit)")
    # an index past mem, pub or the options stops the run, never touches the game (imported here:
    # the command line checks a policy's name before it loads Numba)
    from fisim.jit.modes import bounds_checked
    bounds_checked(module)
    return module
