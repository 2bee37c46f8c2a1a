"""Shared fixtures, and the compiling split between pytest-xdist workers.

Compiling is most of the suite's time on a fresh cache: a minute or two for the engine (shared by
every policy), and up to a minute for expert's, greedy's and search's decide. When the whole
suite runs under pytest-xdist (README's test command), each worker first claims and compiles units
from COMPILED until none is left, then waits for the other workers' ones: nothing is compiled
twice, and every test finds what it needs in the shared cache ($FISIM_CACHE_DIR).
Anything left out of COMPILED is compiled by the first test that uses it, as without xdist.
"""
import os
import time
from pathlib import Path

import numba
import pytest

from fisim.engine import runners
from policies import LADDER, SCRIPTED, SPECS, load_policy

ROOT = Path(__file__).parent.parent
SUPPORT = Path(__file__).parent / "support"
README = ROOT / "README.md"


def _policy_units():
    """The built-in policies' compile units, from their specs (policies/specs.py): each policy that
    plays no other alone, the searches and references that play one together (clairvoyant's decide
    is search's: it reuses what search's compiled), and each search over a base on the ladder with
    its base (it reuses the base's compiled code), each at the smallest budget."""
    def smallest(spec):
        return f"{spec.name}:{spec.parameter.lowest + 1}" if spec.parameter else spec.name
    units = {spec.name: [smallest(spec)] for spec in SPECS if not spec.plays}
    for spec in SPECS:
        if spec.plays:
            units.setdefault(spec.plays, []).append(smallest(spec))
    for rung in LADDER:
        search, _, base = rung.partition("/")
        if base:
            units[base].append(f"{search.partition(':')[0]}:2/{base}")
    return [tuple(unit) if len(unit) > 1 else unit[0] for unit in units.values()]


# the units of compiling the tests need, the largest first: the engine's entry points (one unit:
# record_game, play_out, run_phase and trace_games reuse, in the same process, the game loop and
# the phases run_games compiled), each built-in policy's (_policy_units) and the policy files'
# ("README": the README's example policy)
COMPILED = ("engine", *sorted(_policy_units(), key=lambda unit: -len(unit) if isinstance(unit, tuple) else 0),
            str(SUPPORT / "misbehaving.py"), SCRIPTED, str(SUPPORT / "view_probe.py"),
            str(SUPPORT / "invariant_random.py"), str(ROOT / "docs" / "example_policy.py"), "README")
WAIT = 1800         # seconds a worker waits for another's units (then its tests compile what they need)


@pytest.fixture(scope="session")
def scripted():
    return load_policy(SCRIPTED)


@pytest.fixture(scope="session")
def invariant_random():
    return load_policy(str(SUPPORT / "invariant_random.py"))


@pytest.fixture(scope="session")
def misbehaving():
    """The file of a policy that fails as the number of players says (one compiled policy for the
    tests of failing policies)."""
    return SUPPORT / "misbehaving.py"


def save_readme_policy(directory):
    """The README's 'Writing a policy' example saved as its file, as a reader would."""
    section = README.read_text().split("## Writing a policy", 1)[1]
    path = Path(directory) / "always_shore.py"
    path.write_text(section.split("```python\n", 1)[1].split("```", 1)[0])
    return path


@pytest.fixture
def readme_policy(tmp_path):
    return save_readme_policy(tmp_path)


def compile_unit(unit, directory):
    """Compile (or load from the cache) one unit of COMPILED: the engine's entry points, or
    policies' entries (a tuple: one after the other, in one process)."""
    if unit == "engine":
        for entry in ("run_games", "record_game", "play_out", "run_phase", "trace_games"):
            runners.compile_engine_entry(entry)
    else:
        for name in unit if isinstance(unit, tuple) else (unit,):
            runners.runner(load_policy(str(save_readme_policy(directory)) if name == "README" else name)).address


def pytest_configure(config):
    if "not compiles" in (config.option.markexpr or "") and not numba.config.DISABLE_JIT:
        raise pytest.UsageError('the lane that compiles nothing runs the engine interpreted: '
                                'NUMBA_DISABLE_JIT=1 python -m pytest -m "not compiles"')


def pytest_collection_modifyitems(config, items):
    """Interpreted (NUMBA_DISABLE_JIT=1), the tests that need the compiled engine are skipped."""
    if numba.config.DISABLE_JIT:
        for item in items:
            if "compiles" in item.keywords:
                item.add_marker(pytest.mark.skip(reason="needs the compiled engine (NUMBA_DISABLE_JIT=1)"))


@pytest.fixture(scope="session", autouse=True)
def compiled_runners(request, tmp_path_factory):
    """Under xdist, with the whole suite collected: the workers split COMPILED between them (a claim
    is a file created exclusively in the run's shared temporary directory) and all is compiled
    before the first test."""
    options = request.config.option
    if ("PYTEST_XDIST_WORKER" not in os.environ or options.file_or_dir or options.keyword
            or options.markexpr not in ("", "compiles") or numba.config.DISABLE_JIT):
        return
    shared = tmp_path_factory.getbasetemp().parent / "compiling"
    shared.mkdir(exist_ok=True)
    names = {unit: f"unit-{i}" for i, unit in enumerate(COMPILED)}
    for unit in COMPILED:
        try:
            (shared / f"{names[unit]}.claimed").open("x").close()
        except FileExistsError:
            continue
        try:
            compile_unit(unit, shared)
        except Exception:       # what does not compile fails in the tests that use it
            pass
        finally:
            (shared / f"{names[unit]}.done").touch()
    deadline = time.time() + WAIT
    while time.time() < deadline and not all((shared / f"{n}.done").exists() for n in names.values()):
        time.sleep(0.5)
