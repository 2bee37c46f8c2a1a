"""A first run says that it compiles (it takes a while), once per engine entry point, policy and
cache, on stderr unless --quiet; the library itself only logs it. Every legal policy plays on one
compiled engine."""
import json
import logging
import os
import pty
import re
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest
from support.commands import shown_on

from fisim import engine
from fisim.engine import runners
from fisim.rules.config import GameConfig
from fisim.rules.layouts import builtin_layout
from policies import load_policy

pytestmark = pytest.mark.compiles      # needs the compiled engine: games at its speed


def test_a_compile_where_a_unit_is_used_is_logged_once_per_engine_entry_point_and_policy(tmp_path, caplog):
    """first_use: what `prepare` left to the place of use (a policy no other process can load) is
    said there, once per entry point and policy, and marked compiled."""
    def marker(stem):
        return lambda entry=None: tmp_path / (f"{stem}.{entry}.compiled" if entry else f"{stem}.compiled")
    run = types.SimpleNamespace(marker=marker("engine_k"))
    policy, other = types.SimpleNamespace(NAME="demo"), types.SimpleNamespace(NAME="other")
    with caplog.at_level(logging.INFO, logger="fisim"):
        for _ in range(2):
            with runners.first_use(run, "run_games", policy):
                pass
        with runners.first_use(run, "record_game", policy):
            pass
        engine_marker = run.marker
        run.marker = lambda entry=None: engine_marker(entry) if entry else tmp_path / "policy_other_k.compiled"
        for _ in range(2):
            with runners.first_use(run, "run_games", other):
                pass
    assert [r.getMessage() for r in caplog.records] == [
        "compiling the engine for policy demo (first run only)...",
        "compiling the engine for policy demo (first run only)...",
        "compiling policy other (its first run only)..."]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "engine_k.compiled", "engine_k.record_game.compiled", "engine_k.run_games.compiled",
        "policy_other_k.compiled"]


PREPARE = """
import json, logging, sys
from fisim.engine import runners
from policies import load_policy
records = []
handler = logging.Handler()
handler.emit = lambda r: records.append([r.getMessage(), getattr(r, "compiling", None)])
logging.getLogger("fisim").addHandler(handler)
logging.getLogger("fisim").setLevel(logging.INFO)
policy = load_policy("random")
runners.prepare([policy])
run = runners.runner(policy)
apart = not run.decide.entry.overloads        # compiled by a child, not loaded here yet
runners.prepare([policy])
print(json.dumps({"records": records, "apart": apart, "marked": [run.marker("run_games").exists(),
                                                                  run.marker().exists()]}))
"""


def test_a_first_run_compiles_the_engine_here_and_the_policy_in_a_child_at_once_and_says_so(tmp_path):
    """prepare: the engine's entry point and the policy, both missing, are compiled at the same
    time, the policy by a child process (this one has not compiled or loaded it), and said as one
    compile that starts and ends; marked, they are not compiled again."""
    pol = load_policy("random")
    engine.play_batch(builtin_layout("standard"), GameConfig(), pol, 0, 0, 1)       # compiled and cached
    cache, marker = _private_cache(runners.runner(pol), tmp_path / "cache")
    for old in marker.parent.glob("*.compiled"):
        old.unlink()                     # as on a machine that has not compiled them yet
    done = subprocess.run([sys.executable, "-c", PREPARE], env=_using(cache), capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["apart"] and result["marked"] == [True, True]
    assert [compiling for _, compiling in result["records"]] == [True, False]
    assert result["records"][0][0] == "compiling the engine and policy random (first run only)"
    assert result["records"][1][0].startswith("compiled the engine and policy random in ")


def _using(cache):
    """The environment of a fisim command that uses the compile cache `cache`."""
    return {**os.environ, "FISIM_CACHE_DIR": str(cache)}


def _fisim(cache, *args):
    """(exit status, stdout, what a terminal on stderr showed) of a fisim command using `cache`."""
    main, side = pty.openpty()
    try:
        done = subprocess.run([sys.executable, "-m", "fisim", *args], stdout=subprocess.PIPE, stderr=side,
                              text=True, env=_using(cache), timeout=600)
    finally:
        os.close(side)
    return done.returncode, done.stdout, shown_on(main)


def _private_cache(run, directory):
    """A copy of the cache with only this runner's engine and policy (their files keep their mtimes,
    which key Numba's cache): tests running at the same time (xdist) use them but never touch this
    copy's markers. The engine's run_games marker."""
    stems = (Path(run.engine.__file__).stem, Path(run.decide.__file__).stem, "__pycache__")
    shutil.copytree(Path(run.engine.__file__).parent, directory / "runners",
                    ignore=lambda _, names: [n for n in names if not n.startswith(stems)])
    return directory, directory / "runners" / f"{stems[0]}.run_games.compiled"


@pytest.mark.slow
def test_a_terminal_is_told_unless_quiet_and_piped_output_stays_as_it_was(tmp_path):
    pol = load_policy("random")
    engine.play_batch(builtin_layout("standard"), GameConfig(), pol, 0, 0, 1)       # compiled and cached
    cache, marker = _private_cache(runners.runner(pol), tmp_path / "cache")
    assert marker.exists()
    marker.unlink()                      # as on a machine that has not compiled this runner yet
    status, out, shown = _fisim(cache, "simulate", "--policy", "random", "--games", "20")
    assert status == 0 and "fisim: compiling the engine (first run only) 0:0" in shown
    assert "fisim: compiled the engine in " in shown
    status, again, shown = _fisim(cache, "simulate", "--policy", "random", "--games", "20")
    assert status == 0 and "compiling" not in shown and again == out
    marker.unlink()
    status, _, shown = _fisim(cache, "sweep", "--levels", "novice", "--players", "2", "--policies", "random",
                              "--games", "100", "--out", str(tmp_path / "shown"), "--no-report")
    line = re.escape("\r\x1b[Kfisim: ")        # each update rewrites the line
    assert status == 0 and re.search(rf"{line}compiling the engine \(first run only\) 0:\d\d(.*{line})?"
                                     rf"{line}compiled the engine in \d+ s\r?\n", shown, re.S)   # a line of its own
    marker.unlink()
    status, _, shown = _fisim(cache, "sweep", "--levels", "novice", "--players", "2", "--policies", "random",
                              "--games", "100", "--out", str(tmp_path / "s"), "--quiet", "--no-report")
    assert status == 0 and "compiling" not in shown
    for command, entry in ((["simulate", "--games", "20"], "run_games"), (["replay"], "record_game")):
        marker.with_name(marker.name.replace("run_games", entry)).unlink(missing_ok=True)
        status, _, shown = _fisim(cache, *command, "--policy", "random", "--quiet")
        assert status == 0 and "compiling" not in shown
    marker.unlink()
    piped = subprocess.run([sys.executable, "-m", "fisim", "simulate", "--policy", "random", "--games", "20"],
                           capture_output=True, text=True, env=_using(cache), timeout=600)
    assert piped.returncode == 0 and piped.stderr == "" and piped.stdout == out


def test_two_first_runs_at_once_keep_the_generated_files_the_first_wrote(tmp_path):
    """Processes starting together on a fresh cache (Dask workers, xdist) all find no engine or
    policy module and write one; the first file stays, its mtime unchanged, since Numba's cache is
    keyed on it."""
    code = ("import pathlib\nfrom fisim.engine import runners\nfrom policies import load_policy\n"
            "pathlib.Path.exists = lambda self: False\n"         # as if another process had not written it yet
            "run = runners.runner(load_policy('random'))\n"
            "print(run.engine.__file__, run.decide.__file__)\n")
    env = _using(tmp_path)
    paths, stamps = [], []
    for _ in range(2):
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        paths.append([Path(p) for p in done.stdout.split()])
        stamps.append([p.stat().st_mtime_ns for p in paths[-1]])
    assert paths[0] == paths[1] and stamps[0] == stamps[1]
    assert sorted(p.name for p in paths[0][0].parent.iterdir() if p.is_file()) == sorted(p.name for p in paths[0])


def test_every_legal_policy_plays_on_one_compiled_engine():
    """Policies differ only in their compiled decide (fisim.jit.policy_call): random and passive
    play on the same compiled run_games, compiled once, and so does the clairvoyant reference
    (its entry hands its decide more than pub)."""
    layout, config = builtin_layout("standard"), GameConfig(players=2)
    for name in ("random", "passive"):
        engine.play_batch(layout, config, load_policy(name), 0, 0, 70)
    run, other = runners.runner(load_policy("random")), runners.runner(load_policy("passive"))
    assert run.engine is other.engine and len(run.engine.run_games.overloads) == 1
    assert run.address != other.address and run.decide is not other.decide
    assert runners.runner(load_policy("clairvoyant:4")).engine is run.engine


IMPORTS = """
import importlib, json, pkgutil, sys
from numba.core import event
import fisim, policies, pytest
compiled = []
class Seen(event.Listener):
    def on_start(self, ev):
        compiled.append(ev.data["dispatcher"].py_func.__qualname__)
    def on_end(self, ev):
        pass
with event.install_listener("numba:compile", Seen()):
    for package in (fisim, policies):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if not info.name.endswith("__main__"):
                importlib.import_module(info.name)
    pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", sys.argv[1]])
with open(sys.argv[2], "w") as f:
    json.dump(compiled, f)
"""


def test_importing_any_module_and_collecting_the_tests_compiles_nothing(tmp_path):
    """Every module of fisim and policies (search included: it finds expert's entry when it first
    plays) and every test module import without compiling a function, so `pytest --collect-only`
    takes seconds on a cold cache."""
    seen = tmp_path / "compiled.json"
    done = subprocess.run([sys.executable, "-c", IMPORTS, str(Path(__file__).parent), str(seen)],
                          env=_using(tmp_path / "cache"), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert json.loads(seen.read_text()) == []


def test_a_policy_file_edited_under_a_process_keeps_the_key_of_the_code_it_imported(tmp_path):
    """The cache key is made from the sources as the process read them when it imported them: code
    compiled from the old text is never cached under the new text's key; loading the file again
    reads it anew."""
    from fisim.engine.generated import source_key
    path = tmp_path / "always_first.py"
    path.write_text("from numba import njit\n\n\n@njit\ndef decide(pub, options, n, mem, rng):\n    return 0\n")
    imported = load_policy(str(path))
    key = source_key(imported)
    path.write_text(path.read_text().replace("return 0", "return n - 1"))
    assert source_key(imported) == key
    assert source_key(load_policy(str(path))) != key
