"""Shared fixtures, and the compiling split between pytest-xdist workers.

Compiling the engine for a policy is most of the suite's time on a fresh cache (a minute or two
per runner entry point). When the whole suite runs under pytest-xdist (README's test command),
each worker first claims and compiles runners from RUNNERS until none is left, then waits for
the other workers' ones: no runner is compiled twice, and every test finds the runners it needs
in the shared cache ($FISIM_CACHE_DIR). A runner left out of RUNNERS is compiled by the first
test that uses it, as without xdist.
"""
import os
import time
from pathlib import Path

import numpy as np
import pytest

from fisim import engine
from fisim.rules import state as st
from fisim.rules.config import GameConfig
from fisim.rules.layouts import builtin_layout
from fisim.rules.rng import N_STREAMS
from policies import load_policy

ROOT = Path(__file__).parent.parent
SUPPORT = Path(__file__).parent / "support"
README = ROOT / "README.md"
# the runner entry points the tests use, per policy ("README": the README's example policy);
# run_games plays in bulk (the inlined engine), record_game and run_phase share the plain engine
# (compiled once for both in one process)
RUNNERS = {
    "expert": ("run_games", "record_game", "run_phase", "play_out"),
    "search:2": ("run_games", "run_phase"),      # its rollouts call expert's play_out
    "greedy": ("run_games", "run_phase"),
    "random": ("run_games", "record_game", "run_phase"),
    "passive": ("run_games", "record_game", "run_phase"),
    str(SUPPORT / "misbehaving.py"): ("run_games", "record_game"),
    str(SUPPORT / "scripted.py"): ("run_phase",),
    str(SUPPORT / "view_probe.py"): ("record_game",),
    str(SUPPORT / "invariant_random.py"): ("run_games",),
    str(ROOT / "docs" / "example_policy.py"): ("run_games",),
    "README": ("run_games",),
}
WAIT = 1800         # seconds a worker waits for another's runners (then its tests compile what they need)


@pytest.fixture(scope="session")
def scripted():
    return load_policy(str(SUPPORT / "scripted.py"))


@pytest.fixture(scope="session")
def invariant_random():
    return load_policy(str(SUPPORT / "invariant_random.py"))


@pytest.fixture(scope="session")
def misbehaving():
    """The file of a policy that fails as the number of players says (one compiled runner for the
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


def compile_runner(policy, entries):
    """Compile (or load from the cache) a policy's runner entry points: run_games on no game,
    record_game on one solo game, run_phase on a phase number that runs nothing, play_out on a
    game that is over."""
    layout, config = builtin_layout("standard"), GameConfig(players=1, switches={"solo"})
    if "run_games" in entries:
        engine.play_batch(layout, config, policy, 0, 0, 0)
    if "record_game" in entries:
        engine.record(layout, config, policy, 0, 0)
    g = st.new_game_array(layout.geometry, config.to_array(), 1 << 16)
    if "run_phase" in entries:
        engine.runner(policy).run_phase(g, np.zeros(N_STREAMS, np.uint64), np.int64(-1), np.int64(0))
    if "play_out" in entries:           # from a game already over: nothing is played
        g[st.P_STATUS] = st.WON
        engine.runner(policy).play_out(g, np.zeros(N_STREAMS, np.uint64), np.int64(0))


@pytest.fixture(scope="session", autouse=True)
def compiled_runners(request, tmp_path_factory):
    """Under xdist, with the whole suite collected: the workers split RUNNERS between them (a claim
    is a file created exclusively in the run's shared temporary directory) and all are compiled
    before the first test."""
    options = request.config.option
    if "PYTEST_XDIST_WORKER" not in os.environ or options.file_or_dir or options.keyword or options.markexpr:
        return
    shared = tmp_path_factory.getbasetemp().parent / "compiling"
    shared.mkdir(exist_ok=True)
    names = {name: f"runner-{i}" for i, name in enumerate(RUNNERS)}
    for name, entries in RUNNERS.items():
        try:
            (shared / f"{names[name]}.claimed").open("x").close()
        except FileExistsError:
            continue
        try:
            policy = load_policy(str(save_readme_policy(shared)) if name == "README" else name)
            compile_runner(policy, entries)
        except Exception:       # a runner that does not compile fails in the tests that use it
            pass
        finally:
            (shared / f"{names[name]}.done").touch()
    deadline = time.time() + WAIT
    while time.time() < deadline and not all((shared / f"{n}.done").exists() for n in names.values()):
        time.sleep(0.5)
