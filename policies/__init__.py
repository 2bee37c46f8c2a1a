"""The policies: who plays. A built-in policy is declared once in policies/specs.py and its code is a
module of this package; a user's policy is a .py file; a search over any of them is composed.

A policy's code defines a Numba-jitted

    decide(pub, options, n, mem, rng) -> int

returning the index (0..n-1) of its choice among options[:n]. `pub` is the public game record
(fisim.rules.state: the island's geometry, the rules in force, the board, hands, piles as counts),
`mem` a per-game int32 scratch array the policy may use between decisions (policies/memory.py lays
out the built-ins' use of it), `rng` the game's policy random stream. A policy reads, and never
writes, `pub` and the options (they are handed read-only: a write does not compile); the
functions of fisim.rules.actions work on a copy of pub for lookahead. A policy file declares its
NAME and VERSION beside decide; its own functions are compiled with bounds checks
(fisim.jit.modes.bounds_checked): an index past mem, pub or the options stops the run.

A policy may take one whole-number parameter after a colon (`search:32`), which its decide reads in
pub (P_POLICY_ARG); a policy file declares it as PARAMETER = (what it counts, default, lowest,
highest). `search:N/BASE` is search over BASE, a built-in or a policy file (`search:8/planner`,
`search:16/my_policy.py`): BASE's choice and its best alternatives are the candidates, BASE plays
the rollouts (policies/search.py). `tuned-search:N` and `planner-search:N` are the older names of
search:N/tuned and search:N/planner.

`resolve` turns a name into a Policy once per run: its code loaded (a file executed once), its
version and the digest of every file its code and data are made of. A cell carries the Policy; a
Dask worker that receives one resolves it again and refuses it if a file changed since.

`clairvoyant:N` is not a player: it is search with the hidden order of the draw piles in view, a
measuring stick for how much perfect foresight of the cards is worth (specs: sees_decks). It is
the only policy the engine hands more than pub, and every output that shows it carries
CLAIRVOYANT_NOTE.
"""
import hashlib
import importlib
import importlib.util
import os
import sys
import types
from dataclasses import dataclass
from pathlib import Path

from fisim.errors import ConfigError
from fisim.limits import is_whole
from policies.specs import BY_NAME, SPECS, Parameter, Spec

BUILTIN = tuple(BY_NAME)
MODULE_SPECS = {spec.module: spec for spec in SPECS}
ALIASES = {"tuned-search": "search/tuned", "planner-search": "search/planner"}    # older names
SEES_DECKS = tuple(spec.name for spec in SPECS if spec.sees_decks)
LEGAL = tuple(name for name in BUILTIN if name not in SEES_DECKS)
# the skill ladder, weakest to strongest (fisim ladder): every spec's rungs by rank
LADDER = tuple(name for name, _ in sorted(((name, rank) for spec in SPECS for name, rank in spec.rungs.items()),
                                           key=lambda rung: rung[1]))
# built-ins that never draw on their random stream: every replay of a deal is one game
REPLAYS_ALIKE = tuple(spec.name for spec in SPECS if not spec.stochastic)
PUBLISHED = "planner"       # who played the published reports (reports/), expert's games beside its own
CLAIRVOYANT_NOTE = "sees the decks: not a legal player; bounds what perfect foresight of the cards could achieve"
_DIR = Path(__file__).parent
# not a player: plays a list of option codes, to reach a chosen position (policies/scripted.py)
SCRIPTED = str(_DIR / "scripted.py")


class PolicyError(ConfigError):
    pass


@dataclass(frozen=True, eq=False)
class Policy:
    """A policy resolved: its code loaded, named and fingerprinted, once per run."""
    given: str          # as a cell names it (a file by its absolute path): stores key cells by it
    NAME: str           # as results show it, with its parameter (search:8, search:8/planner)
    VERSION: str        # a composite's made from its parents' (specs: builds_on; search's and its base's)
    ARG: int            # its parameter's value, 0 without one
    spec: Spec          # a built-in's, or one made from a policy file's declarations
    module: object      # where its compiled decide is
    code_name: str      # its code's name, without the parameter: search:16 and search:64 share their code
    plays: tuple        # the Policies whose compiled entries its code calls
    sources: tuple      # (path, sha256) of every file its code and data are read from
    content: str        # the sha256 of the data or policy file it plays ("" for none): a store's "files"

    @property
    def label(self):
        """NAME@VERSION: its one name in every result."""
        return f"{self.NAME}@{self.VERSION}"

    @property
    def decide(self):
        return self.module.decide

    @property
    def symbol(self):
        """The name its compiled entry is exported under, for the compiled code of a policy that
        plays it (search's rollouts): fisim.engine.runners.exported."""
        return f"fisim_{_safe(self.code_name)}_{self.digest[:16]}"

    @property
    def digest(self):
        """A hash of everything its code and data are read from."""
        return hashlib.sha256("".join(digest for _, digest in self.sources).encode()).hexdigest()

    def __reduce__(self):
        """A Dask worker resolves the policy again, and refuses it if a file changed since."""
        return _resolved_again, (self.given, self.digest)


def _resolved_again(given, digest):
    policy = resolve(given)
    if policy.digest != digest:
        raise PolicyError(f"policy {given}: a file of its code or data changed since the run began; "
                          "run again to play the new one")
    return policy


_resolved = {}          # given -> Policy, while its files are unchanged


def resolve(name):
    """The Policy of a registry name (optionally `name@version`), a composite `search:N/BASE` or a
    .py file path. A built-in is resolved once per process, as its modules are imported once; a
    policy file again when its content changed (a new module: a notebook's edited policy plays
    anew, while a run holds the Policy it began with)."""
    if isinstance(name, Policy):
        return name
    if not isinstance(name, str) or not name.strip():
        raise PolicyError(f"policy must be a name ({', '.join(choices())}) or a .py file path, not {name!r}")
    given = normalized(name)
    cached = _resolved.get(given)
    if cached is not None and all(_sha256(path) == digest for path, digest in cached.sources if path.parent != _DIR):
        return cached
    policy = _compose(given) if _composite(given) else _file(given) if given.endswith(".py") else _builtin(given)
    _resolved[given] = policy
    return policy


load_policy = resolve   # the name the scripts and tests know


def normalized(name):
    """A policy's name as a cell keeps it: with its parameter (search is search:64), a file by its
    absolute path (so that a Dask worker started elsewhere finds it), an older name as what it is
    now (tuned-search:8 is search:8/tuned), a search over its default base without it."""
    name = name.strip()
    if _composite(name):
        head, _, base = name.partition("/")
        head, base = normalized(head), normalized(base)
        spec = BY_NAME[head.partition("@")[0].partition(":")[0]]
        return head if base in spec.plays else f"{head}/{base}"     # search:8/expert is search:8
    if name.endswith(".py"):
        return str(Path(name).resolve())
    named, at, pinned = name.partition("@")
    base, colon, arg = named.partition(":")
    if base in ALIASES:
        search, _, over = ALIASES[base].partition("/")
        return normalized(f"{search}{colon}{arg}{at}{pinned}/{over}")
    spec = BY_NAME.get(base)
    if spec and spec.parameter and not colon:
        named = f"{base}:{spec.parameter.default}"
    return f"{named}{at}{pinned}"


def choices():
    """The names a policy may be given as, for errors and help."""
    return [f"{s.name}:N" + ("[/BASE]" if s.composes else "") if s.parameter else s.name for s in SPECS]


def _composite(name):
    """Whether `name` is NAME[:N]/BASE of a policy that composes (search)."""
    head = name.partition("/")[0].partition("@")[0].partition(":")[0]
    return "/" in name and head in BY_NAME and BY_NAME[head].composes


def _builtin(name):
    named, _, pinned = name.partition("@")
    base, colon, arg = named.partition(":")
    spec = BY_NAME.get(base)
    if spec is None:
        if os.sep in name and Path(name).exists():     # a path given as a policy file
            raise PolicyError(f"policy file {name} is not a regular file" if not Path(name).is_file()
                              else f"policy file {name}: a policy file's name ends in .py")
        raise PolicyError(f"unknown policy {name!r}; choose one of: {', '.join(choices())}, or a .py file")
    module = _import(spec)
    value = _argument(spec, arg if colon else None)
    plays = tuple(resolve(p) for p in spec.plays)
    sources = _sources(module, spec)
    version = _version(spec, module, sources)
    if pinned and pinned != version:
        raise PolicyError(f"policy {base} is at version {version}, not {pinned}")
    return Policy(name, f"{base}:{value}" if spec.parameter else base, version, value if spec.parameter else 0,
                  spec, module, base, plays, sources, _content(sources))


def _import(spec):
    try:
        return importlib.import_module(spec.module)
    except PolicyError:     # its data file refused (one line, naming the file)
        raise
    except ImportError as exc:
        raise PolicyError(f"policy {spec.name} cannot be loaded: {exc}") from None


def _argument(spec, text):
    """The value of the policy's parameter, given as text after the colon (None: its default)."""
    if spec.parameter is None:
        if text is not None:
            raise PolicyError(f"policy {spec.name} takes no parameter (not {spec.name}:{text}); give it as {spec.name}")
        return 0
    p = spec.parameter
    if text is None:
        return p.default
    if not is_whole(text) or not p.lowest <= int(text) <= p.highest:
        raise PolicyError(f"policy {spec.name}:N takes N = {p.what}, a whole number from {p.lowest} to {p.highest}, "
                          f"not {text!r}")
    return int(text)


def _version(spec, module, sources):
    """A built-in's version: its own (or its data file's), with what changed under it since it was
    made: a policy it builds on at another version (+tuned@3), a data file other than the shipped
    one (+data:1a2b3c4d), so that a label never names two players."""
    version = str(spec.version if spec.version is not None else module.VERSION)
    for parent, made_over in spec.builds_on.items():
        now = resolve(parent).VERSION
        if now != str(made_over):
            version += f"+{parent}@{now}"
    if spec.data:
        digest = dict(sources)[Path(module.DATA)]
        if digest != spec.data_digest:
            version += f"+data:{digest[:8]}"
    return version


def _compose(given):
    """search:N/BASE: the search's code over BASE's (policies/search.py `composed`)."""
    head, _, base_name = given.partition("/")
    search = _builtin(head)
    base = resolve(base_name)
    if base.spec.composes or base.spec.sees_decks or base.spec.parameter:
        raise PolicyError(f"policy {given}: search runs over a policy without a parameter that does not search "
                          f"itself ({base.NAME} does not qualify)")
    module = search.module.composed(search, base)
    sources = tuple(sorted(set(search.sources) | set(base.sources)))
    return Policy(given, f"{search.NAME}/{base.NAME}", f"{search.spec.version}.{base.VERSION}", search.ARG,
                  search.spec, module, f"{search.code_name}/{base.code_name}", (base,), sources, _content(sources))


def _file(given):
    path = Path(given)
    if not path.exists():
        raise PolicyError(f"policy file {path} does not exist")
    if not path.is_file():
        raise PolicyError(f"policy file {path} is not a regular file")
    module = _execute(path)
    if not hasattr(module, "decide"):
        raise PolicyError(f"policy file {path} defines no decide() function")
    name = str(getattr(module, "NAME", path.stem))
    taken = next((n for n in (name, path.stem) if n in BY_NAME or n in ALIASES), None)
    if taken:       # results would show it as the built-in policy
        raise PolicyError(f"policy file {path} is called {taken!r}, the name of a built-in policy; "
                          "give it another NAME and file name")
    interpreted = "numba" in sys.modules and sys.modules["numba"].config.DISABLE_JIT
    if not hasattr(module.decide, "py_func") and not interpreted:       # (a Numba dispatcher has py_func)
        raise PolicyError(f"policy file {path}: decide() is not compiled: decorate it with @njit "
                          "(from numba import njit)")
    parameter = getattr(module, "PARAMETER", None)
    try:
        parameter = Parameter(*parameter) if parameter is not None else None
    except TypeError:
        raise PolicyError(f"policy file {path}: PARAMETER is (what it counts, default, lowest, highest), "
                          f"not {parameter!r}") from None
    spec = Spec(name, module.__name__, None, f"the policy file {path.name}", parameter=parameter, stochastic=True)
    value = _argument(spec, None)
    # an index past mem, pub or the options stops the run, never touches the game (imported here:
    # the command line checks a policy's name before it loads Numba)
    from fisim.jit.modes import bounds_checked
    bounds_checked(module)
    sources = _sources(module, spec)
    return Policy(given, f"{name}:{value}" if parameter else name, str(getattr(module, "VERSION", 1)), value, spec,
                  module, name, (), sources, _content(sources))


def internal(module):
    """The Policy of a module of this package that is not a built-in (a training script's candidate,
    whose play changes under it: no store may record it, and no other process can resolve it)."""
    spec = Spec(module.NAME, module.__name__, module.VERSION, module.__doc__.splitlines()[0])
    sources = _sources(module, spec)
    return Policy("", module.NAME, str(module.VERSION), 0, spec, module, module.NAME, (), sources, _content(sources))


def _execute(path):
    """A policy file executed as a module of its own, from the bytes its digest is of (kept as the
    module's SOURCE_SHA256: a file edited as it loads is not mixed up); any failure, an exit too,
    is one line."""
    source = path.read_bytes()
    digest = hashlib.sha256(source).hexdigest()
    module = types.ModuleType(f"fisim_user_policy_{_safe(path.stem)}_{digest[:12]}")
    module.__file__, module.SOURCE_SHA256 = str(path), digest
    sys.modules[module.__name__] = module
    exit_now, os._exit = os._exit, _refuse_exit
    try:
        exec(compile(source, str(path), "exec"), vars(module))
    except (Exception, SystemExit) as exc:  # a user's file: report any failure, an exit too, as one line
        del sys.modules[module.__name__]
        raise PolicyError(f"policy file {path} failed to load: {exc.__class__.__name__}: {exc}") from None
    finally:
        os._exit = exit_now
    return module


def _refuse_exit(status):
    raise SystemExit(f"it calls os._exit({status}) as it is loaded")


def _sources(module, spec):
    """(path, sha256) of the policy's own file, the files of the modules of this package it uses (and
    they use), and the data files it reads."""
    files, todo, seen = {}, [module], set()
    while todo:
        used = todo.pop()
        if id(used) in seen:
            continue
        seen.add(id(used))
        path = Path(used.__file__)
        files[path] = getattr(used, "SOURCE_SHA256", None) or _sha256(path)
        data = getattr(used, "DATA", None) if used.__name__ in MODULE_SPECS else None
        if data:
            files[Path(data)] = _sha256(data)
        for value in vars(used).values():
            inner = value if isinstance(value, types.ModuleType) else sys.modules.get(
                getattr(value, "__module__", "") or "")
            where = getattr(inner, "__file__", None)      # (not this package's face: it holds every submodule)
            if where and Path(where).parent == _DIR and inner.__name__ != __name__ and id(inner) not in seen:
                todo.append(inner)
    return tuple(sorted(files.items()))


def _content(sources):
    """The sha256 of the data or policy files among `sources` (not this package's code), as a store
    records it: one file's own digest, several hashed together, "" for none."""
    outside = [digest for path, digest in sources if path.suffix != ".py" or path.parent != _DIR]
    if len(outside) == 1:
        return outside[0]
    return hashlib.sha256("".join(outside).encode()).hexdigest() if outside else ""


def _sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _safe(text):
    return "".join(ch if ch.isalnum() else "_" for ch in text)


def sees_decks(policy):
    """Whether the engine hands this policy (a Policy or a name) the hidden piles: a built-in
    clairvoyant reference only; never a policy file, whatever it declares."""
    if isinstance(policy, Policy):
        return policy.spec.sees_decks and policy.spec is BY_NAME.get(policy.spec.name)
    return policy.partition("@")[0].partition(":")[0] in SEES_DECKS


def labelled(name):
    """A policy's name as outputs show it: a clairvoyant one with CLAIRVOYANT_NOTE."""
    return f"{name} ({CLAIRVOYANT_NOTE})" if sees_decks(name) else name


def seer_notes(names):
    """The lines a table of these policies (names) ends with: one CLAIRVOYANT_NOTE per clairvoyant one."""
    return [f"{name}: {CLAIRVOYANT_NOTE}." for name in dict.fromkeys(names) if sees_decks(str(name))]


def help_text():
    """The --policy help: the names, and where the rest is said."""
    return (f"Who plays: {', '.join(choices())}, or a policy .py file (search:N/FILE.py searches over it); "
            f"{PUBLISHED} played the published reports. `fisim policies` says what each does.")
