"""A first run says that it compiles (it takes a while), once per engine entry point, policy and
cache, on stderr unless --quiet; the library itself only logs it. Every legal policy plays on one
compiled engine."""
import logging
import os
import pty
import shutil
import subprocess
import sys
import types
from pathlib import Path

from fisim import engine
from fisim.rules.config import GameConfig
from fisim.rules.layouts import builtin_layout
from policies import load_policy


def test_a_first_compile_is_logged_once_per_engine_entry_point_and_policy(tmp_path, caplog):
    run = types.SimpleNamespace(engine=types.SimpleNamespace(__file__=str(tmp_path / "engine_k.py")),
                                decide=types.SimpleNamespace(__file__=str(tmp_path / "policy_demo_k.py")))
    policy, other = types.SimpleNamespace(NAME="demo"), types.SimpleNamespace(NAME="other")
    with caplog.at_level(logging.INFO, logger="fisim"):
        for _ in range(2):
            with engine.first_use(run, "run_games", policy):
                pass
        with engine.first_use(run, "record_game", policy):
            pass
        run.decide.__file__ = str(tmp_path / "policy_other_k.py")
        for _ in range(2):
            with engine.first_use(run, "run_games", other):
                pass
    assert [r.getMessage() for r in caplog.records] == [
        "compiling the engine for policy demo (first run only, a minute or two)...",
        "compiling the engine for policy demo (first run only, a minute or two)...",
        "compiling policy other (its first run only)..."]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "engine_k.record_game.compiled", "engine_k.run_games.compiled", "policy_demo_k.compiled",
        "policy_other_k.compiled"]


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
    shown = b""
    while True:
        try:
            chunk = os.read(main, 4096)
        except OSError:          # the terminal closed: everything has been read
            break
        if not chunk:
            break
        shown += chunk
    os.close(main)
    return done.returncode, done.stdout, shown.decode(errors="replace")


def _private_cache(run, directory):
    """A copy of the cache with only this runner's engine and policy (their files keep their mtimes,
    which key Numba's cache): tests running at the same time (xdist) use them but never touch this
    copy's markers. The engine's run_games marker."""
    stems = (Path(run.engine.__file__).stem, Path(run.decide.__file__).stem, "__pycache__")
    shutil.copytree(Path(run.engine.__file__).parent, directory / "runners",
                    ignore=lambda _, names: [n for n in names if not n.startswith(stems)])
    return directory, directory / "runners" / f"{stems[0]}.run_games.compiled"


def test_a_terminal_is_told_unless_quiet_and_piped_output_stays_as_it_was(tmp_path):
    pol = load_policy("random")
    engine.play_batch(builtin_layout("standard"), GameConfig(), pol, 0, 0, 1)       # compiled and cached
    cache, marker = _private_cache(engine.runner(pol), tmp_path / "cache")
    assert marker.exists()
    marker.unlink()                      # as on a machine that has not compiled this runner yet
    status, out, shown = _fisim(cache, "simulate", "--policy", "random", "--games", "20")
    assert status == 0 and "fisim: compiling the engine for policy random (first run only" in shown
    status, again, shown = _fisim(cache, "simulate", "--policy", "random", "--games", "20")
    assert status == 0 and "compiling" not in shown and again == out
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
    code = ("import pathlib\nfrom fisim import engine\nfrom policies import load_policy\n"
            "pathlib.Path.exists = lambda self: False\n"         # as if another process had not written it yet
            "run = engine.runner(load_policy('random'))\n"
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
    """Policies differ only in their compiled decide (fisim.rules.policy_call): random and passive
    play on the same compiled run_games, compiled once, and so does the clairvoyant reference
    (its entry hands its decide more than pub)."""
    layout, config = builtin_layout("standard"), GameConfig(players=2)
    for name in ("random", "passive"):
        engine.play_batch(layout, config, load_policy(name), 0, 0, 70)
    run, other = engine.runner(load_policy("random")), engine.runner(load_policy("passive"))
    assert run.engine is other.engine and len(run.engine.run_games.overloads) == 1
    assert run.address != other.address and run.decide is not other.decide
    assert engine.runner(load_policy("clairvoyant:4")).engine is run.engine
