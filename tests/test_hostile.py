"""Hostile input (issue 17): a store nothing can silently corrupt, and every bad input, damaged
file or failing run ends in one line, never a traceback or a wrong number."""
import dataclasses
import errno
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.commands import FISIM, as_from_a_terminal, run
from support.commands import in_process as cli

import fisim
from fisim import grid, sweeping
from fisim.comparison import compare
from fisim.reporting import data
from fisim.results.chunks import chunk_record
from fisim.rules.config import ConfigError
from fisim.rules.options import DECISION_NAMES
from fisim.rules.state import R_SIZE
from fisim.store import Store, StoreError, manifest_for
from fisim.sweeping import run_sweep
from policies import PolicyError, load_policy

pytestmark = pytest.mark.compiles      # needs the compiled engine: games at its speed

ROOT = Path(__file__).resolve().parent.parent
CELLS = grid.expand(["standard"], ["normal", "elite"], [2], "random", ["random"], [()])
TARGET = {"games": 3000}




def refused(result, *words, code=2):
    status, _, err = result
    lines = err.strip().splitlines()
    assert status == code and len(lines) == 1 and lines[0].startswith("fisim"), (status, err)
    for w in words:
        assert w in lines[0], (w, lines[0])
    return lines[0]


def cpu_seconds(pid):
    """The processor time a running process has used (Linux's /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def chunk_files(store):
    return sorted((Path(store) / "chunks").glob("*.parquet"))


def contents(store):
    return {f.name: f.read_bytes() for f in chunk_files(store)}


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    """A small sweep (2 cells x 3 chunks), the same sweep with another seed, with more games, and
    with --per-game (of both seeds)."""
    root = tmp_path_factory.mktemp("stores")
    run_sweep(CELLS, root / "good", 1, TARGET, chunk_games=1000)
    run_sweep(CELLS, root / "seed2", 2, TARGET, chunk_games=1000)
    run_sweep(CELLS, root / "games4000", 1, {"games": 4000}, chunk_games=1000)
    run_sweep(CELLS, root / "per-game", 1, TARGET, per_game=True, chunk_games=1000)
    run_sweep(CELLS, root / "per-game-seed2", 2, TARGET, per_game=True, chunk_games=1000)
    return root


@pytest.fixture
def good(stores, tmp_path):
    shutil.copytree(stores / "good", tmp_path / "store")
    return tmp_path / "store"


# --- 1. one writer at a time -------------------------------------------------------------------

def test_a_second_writer_is_refused_in_one_line(good, capsys):
    with Store(good).lock():
        with pytest.raises(StoreError, match=rf"being written by another fisim sweep \(pid {os.getpid()} on host"):
            run_sweep(CELLS, good, 1, TARGET, chunk_games=1000)
        refused(cli(capsys, "sweep", "--levels", "normal,elite", "--players", "2", "--policies", "random",
                    "--games", "3000", "--chunk-games", "1000", "--seed", "1", "--trace-games", "0", "--out", good,
                    "--no-report"), "being written by another fisim sweep")


def test_a_lock_left_by_a_killed_sweep_is_taken_over(good):
    code = f"import os, signal\nfrom fisim.store import Store\nwith Store({str(good)!r}).lock():\n" \
           "    os.kill(os.getpid(), signal.SIGKILL)\n"
    r = subprocess.run([sys.executable, "-c", code], timeout=120)
    assert r.returncode == -signal.SIGKILL
    assert "pid" in (good / "lock").read_text()
    before = contents(good)
    frame = run_sweep(CELLS, good, 1, TARGET, chunk_games=1000)
    assert (good / "lock").read_text().startswith(f"pid {os.getpid()} ")
    assert contents(good) == before and list(frame["games"]) == [3000, 3000]


def test_two_sweeps_of_different_seeds_started_together_never_mix(tmp_path):
    out = tmp_path / "out"
    common = ["sweep", "--levels", "normal,elite", "--players", "2", "--policies", "random", "--games", "4000",
              "--chunk-games", "1000", "--threads", "1", "--no-report", "--quiet", "--out", str(out)]
    procs = [subprocess.Popen([str(FISIM), *common, "--seed", str(s)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for s in (0, 1)]
    results = [(p.wait(timeout=900), p.stderr.read()) for p in procs]
    assert sorted(code for code, _ in results) == [0, 2], results
    err = next(e for code, e in results if code == 2)
    assert len(err.strip().splitlines()) == 1 and ("being written" in err or "differs in: seed" in err)
    frame = fisim.load(out)                                     # every chunk verified against one manifest
    assert list(frame["games"]) == [4000, 4000]


# --- 2. chunks describe themselves and every reader checks them --------------------------------

def _tamper(store, stores, how):
    """Damage `store` as `how` says; the name of the chunk file a reader must blame."""
    files = chunk_files(store)
    a0, a1, b0 = files[0], files[1], files[3]                   # cell A chunks 0, 1; cell B chunk 0
    if how == "chunk of another seed":
        shutil.copy(stores / "seed2" / "chunks" / a1.name, a1)
        return a1.name, "seed 2"
    if how == "chunk of a --per-game sweep":
        shutil.copy(stores / "per-game" / "chunks" / a1.name, a1)
        return a1.name, "another configuration"
    if how == "a chunk beyond the target":
        beyond = a1.with_name(a1.name.replace("-000001", "-000003"))
        shutil.copy(stores / "games4000" / "chunks" / beyond.name, beyond)
        return beyond.name, "beyond this sweep's target (--games 3000)"
    if how == "one cell's chunk over another's":
        shutil.copy(a0, b0)
        return b0.name, "not what its name says"
    if how == "a chunk under a later name":
        later = a0.with_name(a0.name.replace("-000000", "-000007"))
        shutil.copy(a0, later)
        return later.name, "not what its name says"
    if how == "a foreign file":
        (store / "chunks" / "notes.parquet").write_bytes(a0.read_bytes())
        return "notes.parquet", "not named like a chunk"
    if how == "a chunk of the old format":
        pq.write_table(pq.read_table(a1).replace_schema_metadata(None), a1)
        return a1.name, "older fisim"
    if how == "a deleted chunk":
        a1.unlink()
        return a1.name, "missing"
    raise AssertionError(how)


TAMPERINGS = ["chunk of another seed", "chunk of a --per-game sweep", "a chunk beyond the target",
              "one cell's chunk over another's", "a chunk under a later name", "a foreign file",
              "a chunk of the old format", "a deleted chunk"]


@pytest.mark.parametrize("how", TAMPERINGS)
def test_every_reader_names_a_chunk_that_does_not_belong(good, stores, how, capsys):
    name, words = _tamper(good, stores, how)
    for read in (fisim.load, lambda p: compare(p, "level"), data.read):
        with pytest.raises(StoreError) as info:
            read(good)
        assert name in str(info.value) and words in str(info.value) and "\n" not in str(info.value)
    refused(cli(capsys, "compare", good, "--by", "level"), name)
    refused(cli(capsys, "report", good, "--format", "md"), name)
    assert not (good / "report" / "report.md").exists()


@pytest.mark.parametrize("how", [h for h in TAMPERINGS if h != "a foreign file"])
def test_resume_replaces_what_it_can_prove_wrong(good, stores, how):
    name, _ = _tamper(good, stores, how)
    warnings = []
    frame = run_sweep(CELLS, good, 1, TARGET, chunk_games=1000, warn=warnings.append)
    assert contents(good) == contents(stores / "good")
    assert frame.equals(fisim.load(stores / "good"))
    assert how == "a deleted chunk" or any(name in w for w in warnings)


def test_a_chunk_of_a_longer_sweep_is_the_same_chunk(good, stores):
    """Chunk k holds the same games whatever the target, so extending a store never mixes."""
    for name, content in contents(good).items():
        assert (stores / "games4000" / "chunks" / name).read_bytes() == content


def test_resume_will_not_delete_a_file_it_did_not_write(good, stores):
    name, _ = _tamper(good, stores, "a foreign file")
    with pytest.raises(StoreError, match=name):
        run_sweep(CELLS, good, 1, TARGET, chunk_games=1000)
    assert (good / "chunks" / name).exists()


@settings(max_examples=150, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@pytest.mark.slow
@given(which=st.integers(0, 5), where=st.floats(0, 1, exclude_max=True), bit=st.integers(0, 7))
def test_a_flipped_bit_in_a_chunk_is_refused_or_harmless(stores, which, where, bit):
    """load gives the true numbers or a StoreError naming the file, never other numbers."""
    store = stores / "good"
    truth = fisim.load(store)
    victim = chunk_files(store)[which]
    original = victim.read_bytes()
    damaged = bytearray(original)
    damaged[int(where * len(original))] ^= 1 << bit
    victim.write_bytes(bytes(damaged))
    try:
        assert fisim.load(store).equals(truth)
    except StoreError as exc:
        assert victim.name in str(exc) and "\n" not in str(exc)
    finally:
        victim.write_bytes(original)


@pytest.mark.parametrize("text, words", [
    ("{}", "no 'fisim_version'"), ("[1, 2]", "not a JSON object"), ('{"store_format": 1}', "older fisim"),
    ("", "cannot be read"),
])
def test_a_damaged_or_old_manifest_is_refused_by_every_command(good, capsys, text, words):
    manifest = good / "manifest.json"
    if text == '{"store_format": 1}':                           # the store of the previous fisim
        old = json.loads(manifest.read_text())
        del old["store_format"]
        text = json.dumps(old)
    manifest.write_text(text)
    for args in (["compare", good], ["report", good], ["sweep", "--levels", "normal,elite", "--players", "2",
                                                       "--policies", "random", "--games", "3000", "--out", good]):
        refused(cli(capsys, *args), "manifest.json")
    with pytest.raises(StoreError, match="manifest.json"):
        fisim.load(good)


def test_a_deleted_chunks_directory_is_named_and_resume_rebuilds_it(good, stores):
    shutil.rmtree(good / "chunks")
    with pytest.raises(StoreError, match="no chunks directory"):
        fisim.load(good)
    run_sweep(CELLS, good, 1, TARGET, chunk_games=1000)
    assert contents(good) == contents(stores / "good")


def test_a_sweep_that_failed_before_its_first_chunk_does_not_block_the_corrected_command(tmp_path, capsys):
    out = tmp_path / "out"
    Store(out).open(manifest_for(CELLS, 9, TARGET, False, 1000))      # what a failed sweep leaves
    frame = run_sweep(CELLS, out, 1, TARGET, chunk_games=1000)
    assert list(frame["games"]) == [3000, 3000] and json.loads((out / "manifest.json").read_text())["seed"] == 1


@pytest.mark.slow
@pytest.mark.parametrize("text", ['{"cells": []}', "{", ""])
def test_a_store_with_a_damaged_manifest_and_no_results_takes_the_corrected_command(tmp_path, text):
    """What a sweep of no cells left (`ladder --policies ""` once did) does not block the next."""
    (tmp_path / "out" / "chunks").mkdir(parents=True)
    (tmp_path / "out" / "manifest.json").write_text(text)
    frame = run_sweep(CELLS[:1], tmp_path / "out", 1, {"games": 100}, chunk_games=1000)
    assert list(frame["games"]) == [100]


def test_an_edited_policy_file_is_not_mixed_into_a_store(tmp_path):
    policy = tmp_path / "mine.py"
    policy.write_text("from numba import njit\nNAME = 'mine'\n@njit\ndef decide(pub, options, n, mem, rng):\n"
                      "    return 0\n")
    cells = grid.expand(["standard"], ["normal"], [2], "random", grid.parse_policies(str(policy)), [()])
    store = Store(tmp_path / "out")
    store.open(manifest_for(cells, 0, {"games": 2000}, False, 1000))
    rows = np.zeros((1000, R_SIZE), np.int32)
    rows[:, 0] = 2                                              # LOST, without running the engine
    store.write_chunk(chunk_record(cells[0].key, 0, 0, rows))
    policy.write_text(policy.read_text() + "# edited\n")
    again = grid.expand(["standard"], ["normal"], [2], "random", grid.parse_policies(str(policy)), [()])
    with pytest.raises(StoreError, match="its file edited since"):      # a new run reads the edited file
        run_sweep(again, tmp_path / "out", 0, {"games": 2000}, chunk_games=1000)


def test_an_adaptive_cap_below_a_chunk_plays_only_the_cap(tmp_path):
    frame = run_sweep(CELLS[:1], tmp_path / "out", 0, {"ci": 1e-9, "max_games": 700}, chunk_games=1000)
    assert list(frame["games"]) == [700]


# --- 3. one line for every bad input ----------------------------------------------------------

@pytest.mark.parametrize("args, words", [
    (["simulate", "--threads", "999"], ["--threads 999", "at most"]),
    (["sweep", "--threads", "999"], ["--threads 999"]),
    (["simulate", "--seed", str(2**63)], ["--seed"]),
    (["sweep", "--seed", str(2**64)], ["--seed"]),
    (["replay", "--game", str(10**20)], ["--game"]),
    (["simulate", "--games", str(10**18)], ["--games"]),
    (["sweep", "--games", str(10**18)], ["chunks"]),
    (["sweep", "--chunk-games", str(10**18)], ["--chunk-games"]),
    (["sweep", "--ci", "nan"], ["--ci must be a number above 0 and at most 0.5", "not nan"]),
    (["sweep", "--dask-local", "999"], ["--dask-local 999: this machine runs at most", "worker processes"]),
    (["simulate", "--out", "missing-dir/games.parquet"], ["does not exist"]),
    (["simulate", "--out", "not-empty.csv"], ["is a directory"]),       # once refused after every game
    (["sweep", "--rules", "heli-all+heli-all,heli-all", "--levels", "normal", "--players", "2",
      "--out", "not-empty"], ["not empty"]),
])
def test_bad_values_get_one_line_before_any_game_is_played(tmp_path, monkeypatch, capsys, args, words):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "not-empty").mkdir()
    (tmp_path / "not-empty" / "x").write_text("")
    (tmp_path / "not-empty.csv").mkdir()
    refused(cli(capsys, *args), *words)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["not-empty", "not-empty.csv"]


def test_a_read_only_output_is_refused_before_playing(tmp_path, capsys):
    locked = tmp_path / "ro"
    locked.mkdir()
    if os.geteuid() == 0:
        pytest.skip("root writes anywhere; a read-only mount is checked by hand")
    locked.chmod(0o500)
    refused(cli(capsys, "simulate", "--out", locked / "g.parquet"), "not writable")
    refused(cli(capsys, "sweep", "--out", locked / "store"), "cannot write")


def test_duplicate_rule_switches_are_one_cell():
    assert grid.parse_rules("heli-all+heli-all,heli-all") == [("heli-all",)]


@pytest.mark.slow
def test_a_dask_scheduler_that_is_not_there_is_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(sweeping, "DASK_TIMEOUT", 2)     # the wait is the same, shorter
    for address in ("bogus://x", "tcp://127.0.0.1:1"):
        start = time.time()
        line = refused(cli(capsys, "sweep", "--levels", "normal", "--players", "2", "--policies", "random",
                           "--games", "100", "--scheduler", address, "--out", tmp_path / "out", "--quiet"),
                       "Dask", code=1)
        assert address in line and time.time() - start < 60


def test_disk_full_is_one_line_and_leaves_no_partial_file(tmp_path, monkeypatch, capsys):
    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(pq.ParquetWriter, "write_table", full)       # every Parquet file fisim writes
    refused(cli(capsys, "simulate", "--games", "50", "--policy", "random", "--out", tmp_path / "g.parquet"),
            "No space left on device", code=1)
    refused(cli(capsys, "sweep", "--levels", "normal", "--players", "2", "--policies", "random", "--games", "100",
                "--per-game", "--out", tmp_path / "s", "--quiet", "--no-report"), "No space left on device", code=1)
    assert [p.name for p in tmp_path.iterdir()] == ["s"] and chunk_files(tmp_path / "s") == []
    assert not any(p.name.endswith(".tmp") for p in tmp_path.rglob("*"))


def test_a_full_disk_while_writing_a_report_leaves_no_truncated_file(stores, tmp_path, monkeypatch, capsys):
    def full(self, data):
        with open(self, "wb") as f:
            f.write(data[:100])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(Path, "write_bytes", full)
    line = refused(cli(capsys, "report", stores / "good", "--out", tmp_path / "r", "--format", "png"),
                   "No space left on device", code=1)
    assert "None" not in line
    assert [p for p in (tmp_path / "r").rglob("*") if p.is_file()] == []


# --- failing policies: one line, non-zero ------------------------------------------------------

@pytest.mark.parametrize("players, words", [(2, "not offered"), (3, "raised ValueError")])
def test_a_failing_policy_is_one_line_in_sweep_and_replay(tmp_path, capsys, misbehaving, players, words):
    """tests/support/misbehaving.py chooses an option not on offer with 2 players, raises with 3."""
    refused(cli(capsys, "sweep", "--levels", "normal", "--players", players, "--policies", misbehaving, "--games", "50",
                "--out", tmp_path / "out", "--quiet", "--no-report"), words)
    refused(cli(capsys, "replay", "--players", players, "--policy", misbehaving), words)


@pytest.mark.parametrize("out", [None, "games.parquet", "games.csv"])
def test_ctrl_c_stops_a_policy_stuck_in_a_loop(misbehaving, tmp_path, out):
    """... and leaves no file behind, not even a temporary one (--out's, once named as it was written)."""
    from fisim.simulation import simulate
    assert len(simulate(players=1, rules="solo", policy=str(misbehaving), games=1)) == 1  # compiled; alone it returns
    proc = subprocess.Popen(as_from_a_terminal(FISIM, "simulate", "--players", "4", "--policy", misbehaving,
                                               "--games", "10", "--threads", "1", *(["--out", out] if out else [])),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp_path)
    # a cached start uses under 2 s of processor time: past 5 s, the child is in the policy's loop
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None and cpu_seconds(proc.pid) < 5:
        time.sleep(0.1)
    assert proc.poll() is None, "with 4 players the policy never returns"
    proc.send_signal(signal.SIGINT)
    try:    # a stuck process never exits; a minute leaves room for a start-up slowed by a busy machine
        assert proc.wait(timeout=60) in (-signal.SIGINT, 130)
    finally:
        proc.kill()
    assert list(tmp_path.iterdir()) == []


# --- a policy file cannot touch the game (issue 32: 3, 4, 10; issue 31: 7) ---------------------

def _policy_file(tmp_path, name, body, imports=""):
    """A policy file `name`.py whose decide() is `body`."""
    path = tmp_path / f"{name}.py"
    path.write_text(f"from numba import njit\n{imports}NAME = {name!r}\n@njit\n"
                    f"def decide(pub, options, n, mem, rng):\n    {body}\n")
    return path


def _fisim(*args):
    """(exit status, stdout, stderr) of fisim in a child process: a crash is a status, not the tests'."""
    done = run(*map(str, args))
    return done.returncode, done.stdout, done.stderr


def test_a_policy_cannot_forge_an_option(tmp_path):
    """A policy once wrote a CAPTURE code into its options and the engine played it (R-ACT-CAPTURE:
    treasures captured without cards, on any tile); the options are handed read-only, as pub is."""
    forger = _policy_file(tmp_path, "forger", "options[0] = code(CAPTURE, 0)\n    return 0",
                          "from fisim.rules.options import CAPTURE, code\n")
    refused(_fisim("simulate", "--policy", forger, "--games", "20", "--threads", "1"),
            "policy forger", "does not compile", "read-only", "the options may only be read")


@pytest.mark.parametrize("body", ["mem[404] = 1", "mem[MEM_SIZE + 6] = 1", "mem[-MEM_SIZE - 1] = 1",
                                  "mem[0] = pub[H_TPILE]", "mem[0] = options[n]"])
def test_an_index_past_what_a_policy_is_handed_stops_the_run_in_one_line(tmp_path, body):
    """mem lies in the game array, before the options and the hidden piles: a write past it once
    rewrote them silently, or (mem[404]) killed fisim with a segfault. A policy file is compiled
    with bounds checks (fisim.jit.modes.bounds_checked): reading the hidden pile through pub
    (R-INFO) is stopped the same way. In a child process, so that a crash would show."""
    path = _policy_file(tmp_path, "trespasser", f"{body}\n    return 0",
                        "from fisim.rules.state import H_TPILE, MEM_SIZE\n")
    refused(_fisim("simulate", "--policy", path, "--games", "20", "--threads", "1"),
            "policy trespasser", "raised IndexError", "mem holds 64 ints")


def test_mems_last_int_by_a_negative_index_is_mem(tmp_path):
    """mem[-1] is mem's last int, as in Python: a policy writing it plays the games of the same
    policy without the write (random's rule: a uniform option)."""
    path = _policy_file(tmp_path, "tidy", "mem[-1] = 7\n    mem[-MEM_SIZE] = 7\n    return randbelow(rng, n)",
                        "from fisim.rules.rng import randbelow\nfrom fisim.rules.state import MEM_SIZE\n")
    play = {name: fisim.simulate(players=3, policy=name, games=200, seed=3, threads=1)
            for name in ("random", str(path))}
    assert play["random"].drop(columns="policy").equals(play[str(path)].drop(columns="policy"))


@pytest.mark.parametrize("body, returned", [("return 0, 1", "UniTuple(int64 x 2)"), ("return 0.5", "float64"),
                                            ("if n > 2:\n        return 0", "OptionalType(int64)")])
def test_a_decide_that_does_not_return_an_int_is_refused_before_it_plays(tmp_path, body, returned):
    """A tuple once ran, its second int written past the engine's; a float would be read as an index."""
    path = _policy_file(tmp_path, "wrong_type", body)
    refused(_fisim("simulate", "--policy", path, "--games", "20", "--threads", "1"),
            "policy wrong_type", "decide() must return an int", f"it returns {returned}")


@pytest.mark.parametrize("body, index", [("return n", "n"), ("return -1", "-1"),
                                         ("return 2**40", "2147483647 or more")])
def test_an_index_out_of_range_is_named_with_n(tmp_path, capsys, body, index):
    """Issue 31: the one line names the policy, the game, the decision kind, the index and n."""
    path = _policy_file(tmp_path, "off_by_one", body)
    line = refused(cli(capsys, "simulate", "--policy", path, "--games", "20", "--seed", "4"), "policy off_by_one")
    game, returned, kind, n = re.search(r"game (\d+): decide\(\) returned (.+), an option not offered: the "
                                        r"(\S+) decision offered n = (\d+), indices 0 to (?:\d+)$", line).groups()
    assert game == "0" and kind in DECISION_NAMES and returned == (n if index == "n" else index)


# --- the Python API ---------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, words", [
    ({"policy": None}, "policy must be a name"),
    ({"seed": 1.5}, "seed must be a whole number"),
    ({"games": "100"}, "games must be a whole number"),
    ({"seed": 2**63}, "seed must be"),
    ({"threads": 999}, "threads must be"),
    ({"layout": None}, "layout must be"),
    ({"rules": None}, "rules must be a list of rule switch names"),
    ({"rules": 5}, "rules must be a list of rule switch names"),
    ({"team": ("diver", 5)}, "team must be None (a random team each game)"),
    ({"team": 5}, "team must be None (a random team each game)"),
])
def test_simulate_refuses_bad_arguments_in_one_line(kwargs, words):
    from fisim.simulation import simulate
    with pytest.raises((ConfigError, PolicyError)) as info:
        simulate(**{"games": 10, **kwargs})
    assert words in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize("path", [None, 5, b"store"])
def test_the_readers_refuse_what_is_not_a_path_in_one_line(path):
    for read in (fisim.load, fisim.load_tiles):
        with pytest.raises(StoreError, match="a results directory is a path"):
            read(path)


def test_rules_given_as_one_string_are_one_switch():
    from fisim.simulation import simulate
    frame = simulate(players=1, rules="solo", games=20, policy="random")
    assert set(frame["rules"]) == {"solo"}


# --- user files are never mistaken for built-ins ----------------------------------------------

def test_a_layout_file_named_like_a_built_in_island_keeps_its_own_name(tmp_path, capsys):
    """In a store's cells, and in simulate's rates and games, as in a sweep's (one label)."""
    shutil.copy(_standard_file(tmp_path), tmp_path / "standard.txt")
    names = grid.parse_layouts(f"standard,{tmp_path / 'standard.txt'}")
    cells = grid.expand(names, ["normal"], [2], "random", ["random"], [()])
    labels = [c["layout"] for c in manifest_for(cells, 0, TARGET, False)["cells"]]
    assert labels == ["standard", "standard.txt"]
    code, out, err = cli(capsys, "simulate", "--layout", tmp_path / "standard.txt", "--games", "20", "--policy",
                         "random", "--format", "csv", "--out", tmp_path / "games.csv")
    assert code == 0, err
    assert set(pd.read_csv(io.StringIO(out))["layout"]) == set(pd.read_csv(tmp_path / "games.csv")["layout"]) \
        == {"standard.txt"}
    assert Path(names[1]).is_absolute()                         # Dask workers started elsewhere find it
    shutil.copy(tmp_path / "standard.txt", tmp_path / "standard")
    with pytest.raises(ConfigError, match="name of a built-in island"):
        grid.parse_layouts(str(tmp_path / "standard"))


def _standard_file(tmp_path):
    from fisim.rules.layouts import load_layout
    path = tmp_path / "shape.txt"
    path.write_text("\n".join(load_layout("standard").rows) + "\n")
    return path


@pytest.mark.parametrize("code", ["0", "1", "'bye'"])
def test_a_policy_file_that_exits_at_import_is_one_line(tmp_path, capsys, code):
    """sys.exit(0) in a policy file once ended fisim with status 0 and no output."""
    path = tmp_path / "quits.py"
    path.write_text(f"import sys\nsys.exit({code})\n")
    refused(cli(capsys, "simulate", "--policy", path, "--games", "1"), "quits.py", "failed to load: SystemExit")


def test_a_policy_file_cannot_take_a_built_in_name(tmp_path):
    for file_name, name in (("mine.py", "random"), ("random.py", "mine")):
        path = tmp_path / file_name
        path.write_text(f"NAME = {name!r}\ndef decide(pub, options, n, mem, rng):\n    return 0\n")
        with pytest.raises(PolicyError, match="name of a built-in policy"):
            load_policy(str(path))


# --- property tests: no text on the command line or in a layout file ends in a traceback ------

@settings(max_examples=200, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(option=st.sampled_from(["--levels", "--players", "--teams", "--layouts", "--policies", "--rules", "--games",
                               "--ci", "--seed", "--chunk-games", "--max-games", "--threads"]),
       value=st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=30))
def test_any_sweep_option_value_is_accepted_or_refused_in_one_line(tmp_path_factory, capsys, option, value):
    out = tmp_path_factory.mktemp("busy")
    (out / "somebody-elses-file").write_text("")                # so that nothing is ever played
    status, _, err = cli(capsys, "sweep", option, value, "--out", out, "--quiet", "--no-report")
    assert status == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err


@settings(max_examples=200, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(st.sampled_from("#.x \n\t\r"), max_size=80) | st.binary(max_size=60).map(
    lambda b: b.decode("latin-1")))
def test_any_layout_file_is_accepted_or_refused_in_one_line(tmp_path_factory, capsys, text):
    path = tmp_path_factory.mktemp("layout") / "island.txt"
    path.write_text(text, encoding="latin-1")
    status, out, err = cli(capsys, "layouts", path)
    assert (status == 0 and "tiles" in out) or (status == 2 and len(err.strip().splitlines()) == 1), err


BAD_VARIANTS = [   # (file text, words of the one line: the line, the key, the allowed range)
    ("hand_limit = 1\n", ["line 1", "hand_limit = 1", "from 2 to 10"]),
    ("# a comment\n\nwaters = 4\n", ["line 3", "unknown key 'waters'", "waters_rise"]),
    ('actions = "3"\n', ["line 1", 'actions = "3"', "from 1 to 6"]),
    ("draws = 2.5\n", ["line 1", "draws = 2.5", "from 1 to 5"]),
    ("sandbags = true\n", ["line 1", "sandbags = true", "from 0 to 6"]),
    ("capture = 4\nhand_limit = [5]\n", ["line 2", "hand_limit = [5]", "from 2 to 10"]),
    ("meter = [2, 2, 3, 3, 3, 4, 4, 5, 5]\n", ["line 1", "meter", "no skull", '"skull"']),
    ('meter = [2, "skull", 3]\n', ["line 1", "meter", "no skull"]),
    ('meter = [2, 0, "skull"]\n', ["line 1", "meter", "position 2", "from 1 to 12"]),
    ('meter = ["skull"]\n', ["line 1", "meter", "position 1"]),
    (f'meter = [{"2, " * 16}"skull"]\n', ["line 1", "meter", "position 17"]),
    ('meter = [2, 2, "skull"]\n', ["line 1", "meter", "skull at position 3", "starting position 4", "5 to 16"]),
    ("treasure_cards = 1\ncapture = 1\nhand_limit = 2\nhelicopter_lifts = 1\nsandbags = 0\n",
     ["line 1", "treasure_cards", "cannot deal 2 to each of 4 players", "at least 8"]),
    ("capture = 6\n", ["line 1", "capture", "at most treasure_cards"]),
    ("hand_limit = 3\n", ["line 1", "hand_limit", "the 4 cards a capture takes"]),
    ("waters_rise = 0\n", ["line 1", "waters_rise = 0", "from 1 to 6"]),
    ("initial_floods = 13\n", ["line 1", "initial_floods = 13", "from 0 to 12"]),
    ("[deck]\nwaters_rise = 4\n", ["line 1", "unknown key 'deck'"]),
    ('name = "heli-all"\n', ["line 1", "name 'heli-all'", "rule switch"]),
    ('name = "Two Words"\n', ["line 1", "name 'Two Words'", "lower-case"]),
    ("waters_rise = \n", ["not valid TOML", "line 1"]),
    ("waters_rise = 4\nwaters_rise = 5\n", ["not valid TOML", "line 2"]),
]


@pytest.mark.parametrize("text, words", BAD_VARIANTS)
def test_a_bad_variant_file_is_one_line_naming_the_file_line_and_key_and_nothing_is_written(
        tmp_path, monkeypatch, capsys, text, words):
    """Each command refuses the file before any game: one line naming the file, with exit status 2;
    no results file, store or report is made."""
    monkeypatch.chdir(tmp_path)
    Path("bad.toml").write_text(text)
    setting = ["--players", "4", "--level", "legendary", "--policy", "random", "--rules", "bad.toml"]
    for args in (["simulate", *setting, "--games", "10", "--out", "games.parquet"], ["replay", *setting],
                 ["sweep", "--levels", "legendary", "--players", "4", "--policies", "random", "--rules",
                  "official,bad.toml", "--games", "10", "--out", "store"]):
        line = refused(cli(capsys, *args), "variant file", "bad.toml", *words)
        assert "Traceback" not in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.toml"]


def test_a_missing_variant_file_and_two_files_in_one_setting_are_one_line(tmp_path, capsys):
    (tmp_path / "a.toml").write_text("waters_rise = 4\n")
    (tmp_path / "b.toml").write_text("waters_rise = 5\n")
    refused(cli(capsys, "simulate", "--rules", tmp_path / "nothere.toml"), "nothere.toml", "does not exist")
    refused(cli(capsys, "simulate", "--rules", tmp_path / "a.toml", "--rules", tmp_path / "b.toml"),
            "two variant files")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.toml").write_text("waters_rise = 5\n")
    refused(cli(capsys, "sweep", "--rules", f"{tmp_path / 'a.toml'},{tmp_path / 'sub' / 'a.toml'}",
                "--out", tmp_path / "store"), "two variants are both called 'a'")
    assert not (tmp_path / "store").exists()


@given(st.dictionaries(st.sampled_from(["name", "waters_rise", "meter", "hand_limit", "capture", "draws", "other"]),
                       st.one_of(st.integers(-3, 20), st.text(max_size=5), st.lists(st.integers(0, 13), max_size=18),
                                 st.booleans(), st.floats(allow_nan=False)), max_size=4))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_any_variant_file_is_accepted_or_refused_in_one_line(tmp_path_factory, data):
    """Whatever a TOML file holds, loading it as a setting gives a playable config or one line."""
    from fisim.rules.config import make_config
    path = tmp_path_factory.mktemp("variant") / "any.toml"
    path.write_text("".join(f"{key} = {json.dumps(value)}\n" for key, value in data.items()))
    try:
        config = make_config("legendary", 4, None, [str(path)])
    except ConfigError as exc:
        assert "\n" not in str(exc) and str(path) in str(exc)
    else:
        assert config.skull > 4 and len(config.to_array()) == len(make_config().to_array())


# --- issue 32: a sweep's shape, a variant file, a per-game file ---------------------------------

@pytest.mark.parametrize("rules, axis", [("official,heli-all", "waters_rise=4"),
                                         ("official,tide.toml", "hand_limit=4")])
def test_a_report_of_a_set_axis_over_several_rules_is_written(tmp_path, monkeypatch, capsys, rules, axis):
    """--set over more than one --rules item (switches or a variant file) gets its table of rule
    numbers, not a KeyError (the table once looked one table's rows up in another)."""
    monkeypatch.chdir(tmp_path)
    Path("tide.toml").write_text("waters_rise = 4\n")
    status, _, err = cli(capsys, "sweep", "--levels", "normal", "--players", "2", "--policies", "random", "--rules",
                         rules, "--set", axis, "--games", "100", "--out", "store", "--quiet", "--no-report")
    assert status == 0, err
    status, _, err = cli(capsys, "report", "store", "--format", "md")
    assert status == 0 and err == "", err
    key, value = axis.split("=")
    assert f"| {key} | {value} | normal |" in Path("store/report/report.md").read_text()


@pytest.mark.parametrize("sets", [[], ["--set", "hand_limit=4"]])
def test_an_edited_variant_file_is_not_mixed_into_a_store(tmp_path, monkeypatch, capsys, sets):
    """Rerun after editing tide.toml, a sweep would add a second cell also shown as 'tide' (or
    'tide/hand_limit=4'), pooled with the first by every report: refused as an edited policy file is."""
    monkeypatch.chdir(tmp_path)
    Path("tide.toml").write_text("waters_rise = 4\n")
    sweep = ["sweep", "--levels", "normal", "--players", "2", "--policies", "random", "--rules", "official,tide.toml",
             *sets, "--games", "100", "--out", "store", "--quiet", "--no-report"]
    assert cli(capsys, *sweep)[0] == 0
    before = Path("store/manifest.json").read_text(), contents("store")
    Path("tide.toml").write_text("waters_rise = 5\n")
    refused(cli(capsys, *sweep), "differs in: variant")
    assert (Path("store/manifest.json").read_text(), contents("store")) == before
    Path("tide.toml").write_text("waters_rise = 4\n")
    assert cli(capsys, *sweep)[0] == 0


@pytest.mark.parametrize("how", ["deleted", "of another seed", "of another chunk", "of another cell", "cut short"])
def test_a_per_game_file_that_does_not_belong_is_named_and_resume_replays_it(stores, tmp_path, how):
    """Per-game files (DIR/games/, read by pd.read_parquet) are checked against their chunks as
    chunks are against the manifest: load names a wrong one, a resumed sweep plays its chunk again."""
    store = tmp_path / "store"
    shutil.copytree(stores / "per-game", store)
    files = sorted((store / "games").glob("*.parquet"))
    victim = files[1]
    if how == "deleted":
        victim.unlink()
    elif how == "of another seed":
        shutil.copy(stores / "per-game-seed2" / "games" / victim.name, victim)
    elif how == "of another chunk":
        shutil.copy(files[0], victim)
    elif how == "of another cell":
        shutil.copy(files[4], victim)
    else:
        pq.write_table(pq.read_table(victim).slice(0, 999), victim)
    for read in (fisim.load, lambda p: compare(p, "level"), data.read):
        with pytest.raises(StoreError, match=f"per-game file {victim.name} ") as info:
            read(store)
        assert "\n" not in str(info.value)
    warnings = []
    frame = run_sweep(CELLS, store, 1, TARGET, per_game=True, chunk_games=1000, warn=warnings.append)
    assert any(victim.name in w for w in warnings)
    assert frame.equals(fisim.load(stores / "per-game"))
    assert victim.read_bytes() == (stores / "per-game" / "games" / victim.name).read_bytes()


@pytest.mark.parametrize("how", ["another seed's file under a chunk's name", "a file under another name",
                                 "a per-game file in a store without them"])
def test_a_per_game_file_that_belongs_to_no_chunk_is_named_by_every_reader(stores, tmp_path, capsys, how):
    """Issue 48 item 4: another seed's per-game file copied into games/ under a new name passed
    resume, report, load and compare unnoticed, and pd.read_parquet(DIR/games), the documented way
    to read the rows, returned its rows mixed in. Every reader names it; a resumed sweep deletes one
    named as a chunk of its own (fisim would write there), and refuses to touch any other."""
    store = tmp_path / "store"
    shutil.copytree(stores / ("good" if "without" in how else "per-game"), store)
    source = sorted((stores / "per-game-seed2" / "games").glob("*.parquet"))[0]
    name = source.name.replace("-000000", "-000009") if "chunk's name" in how else "extra.parquet"
    (store / "games").mkdir(exist_ok=True)
    shutil.copy(source, store / "games" / name)
    assert len(pd.read_parquet(store / "games")) > 1000 * (6 if "without" not in how else 0)     # the rows it mixes in
    for read in (fisim.load, lambda p: compare(p, "level"), data.read):
        with pytest.raises(StoreError, match=f"per-game file {re.escape(name)} in .* belongs to no chunk") as info:
            read(store)
        assert "\n" not in str(info.value)
    refused(cli(capsys, "report", store, "--format", "md"), name, "belongs to no chunk")
    warnings = []
    resume = lambda: run_sweep(CELLS, store, 1, TARGET, per_game="without" not in how,  # noqa: E731
                               chunk_games=1000, warn=warnings.append)
    if name == "extra.parquet":
        with pytest.raises(StoreError, match=name):
            resume()
        assert (store / "games" / name).exists()
    else:
        assert resume().equals(fisim.load(stores / "per-game"))
        assert not (store / "games" / name).exists() and any(name in w and "deleting it" in w for w in warnings)


def _within(seconds, call):
    """call(), or TimeoutError if it takes longer (a read of a FIFO blocks for ever)."""
    def expire(*_):
        raise TimeoutError(f"still running after {seconds} s")
    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return call()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("kind, words", [
    ("a FIFO", "is not a regular file"), ("a link to /dev/zero", "is not a regular file"),
    ("a directory", "is not a regular file"), ("278 KB of keys", "larger than 65,536 bytes"),
    ("5,000 keys", "line 1: unknown key 'k0'"), ("arrays nested 5,000 deep", "nest too deeply"),
])
def test_a_variant_file_that_no_one_would_write_is_refused_at_once(tmp_path, capsys, kind, words):
    """Refused in one line within seconds, not a hang, a MemoryError, a RecursionError or minutes
    of line lookups (each key's line was once found by a pass over every line)."""
    path = tmp_path / "x.toml"
    if kind == "a FIFO":
        os.mkfifo(path)
    elif kind == "a link to /dev/zero":
        path.symlink_to("/dev/zero")
    elif kind == "a directory":
        path.mkdir()
    elif kind == "278 KB of keys":
        path.write_text("".join(f"key{i:05d} = {i}\n" for i in range(20_000)))
    elif kind == "5,000 keys":
        path.write_text("".join(f"k{i} = 1\n" for i in range(5_000)))
    else:
        path.write_text("waters_rise = " + "[" * 5_000 + "]" * 5_000 + "\n")
    line = _within(10, lambda: refused(cli(capsys, "simulate", "--rules", path, "--games", "1"), "x.toml", words))
    assert len(line) < 300


@pytest.mark.parametrize("text, words", [
    ("meter = [" + "2, " * 20_000 + '"skull"]\n', "... 19981 more] puts the skull at position 20001"),
    ("hand_limit = [" + "[1], " * 1_000 + "1]\n", "hand_limit = [[...], [...]"),
    (f"name = '{'a' * 20_000}'\n", 'name "aaaaaaaaaaaaaaaaaaaa..." cannot label'),
])
def test_a_long_value_in_a_variant_file_is_shown_cut_short(tmp_path, text, words):
    """A 20,000-entry meter was echoed whole, a line of megabytes for a larger one."""
    from fisim.rules.variant import load_variant
    path = tmp_path / "x.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_variant(path)
    assert words in str(info.value) and len(str(info.value)) < 400


TUNE = ["tune", "--param", "waters_rise", "--target", ".5"]


@pytest.mark.parametrize("args, words", [
    (["simulate", "--level", "³"], "unknown level '³'"),
    (["replay", "--level", "³"], "unknown level '³'"),
    (["sweep", "--levels", "1..³"], "unknown level '³'"),
    (["ladder", "--levels", "³"], "unknown level '³'"),
    ([*TUNE, "--level", "³"], "unknown level '³'"),
    (["simulate", "--level", "1" * 5_000], "unknown level '111"),       # more digits than int() reads
    (["simulate", "--policy", "search:³"], "a whole number from 1 to 4096, not '³'"),
    (["sweep", "--policies", "search:³"], "a whole number from 1 to 4096, not '³'"),
    (["ladder", "--replayer", "search:³"], "a whole number from 1 to 4096, not '³'"),
    (["sweep", "--set", "waters_rise=³"], "give whole numbers"),
    ([*TUNE, "--values", "1..³"], "give whole numbers"),
    (["sweep", "--set", "waters_rise=1..100000000"], "waters_rise = 7: give a whole number from 1 to 6"),
    ([*TUNE, "--values", "1..100000000000"], "waters_rise = 7: give a whole number from 1 to 6"),
    ([*TUNE, "--values", f"{10**11}..{10**12}"], f"waters_rise = {10**11}: give a whole number from 1 to 6"),
])
def test_digits_int_cannot_read_and_huge_ranges_are_one_line(tmp_path, monkeypatch, capsys, args, words):
    """'³' passes str.isdigit() and int() refuses it (a ValueError traceback); a range to 10^8 was
    built as a list before its values were checked (a MemoryError)."""
    monkeypatch.chdir(tmp_path)
    refused(cli(capsys, *args), words)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
@pytest.mark.parametrize("server", ["a web server", "a port that never answers"])
def test_a_scheduler_address_of_something_else_is_one_line_within_its_timeout(tmp_path, capsys, server, monkeypatch):
    """distributed's Client waited for ever on a server that accepts the connection and never
    speaks Dask; the sweep gives up after its timeout (DASK_TIMEOUT, shortened here), in one line."""
    monkeypatch.setattr(sweeping, "DASK_TIMEOUT", 2)
    import http.server
    import socket
    import threading
    if server == "a web server":
        class Quiet(http.server.SimpleHTTPRequestHandler):
            def log_message(self, *args):              # not on this test's stderr
                pass
        httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        port, stop = httpd.server_address[1], httpd.shutdown
    else:
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen()                               # connections complete in the backlog, unanswered
        port, stop = listener.getsockname()[1], listener.close
    try:
        start = time.time()
        refused(cli(capsys, "sweep", "--levels", "normal", "--players", "2", "--policies", "random", "--games", "100",
                    "--scheduler", f"tcp://127.0.0.1:{port}", "--out", tmp_path / "out", "--quiet"),
                "Dask", f"127.0.0.1:{port}", code=1)
        assert time.time() - start < 40
    finally:
        stop()


def test_a_dask_scheduler_passes_the_check_of_its_address(tmp_path):
    from distributed import LocalCluster

    from fisim.sweeping import DaskBackend
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        frame = run_sweep(CELLS[:1], tmp_path / "out", 1, {"games": 1000}, chunk_games=1000,
                          backend=DaskBackend(cluster.scheduler_address))
    assert list(frame["games"]) == [1000]


def test_every_output_that_shows_the_clairvoyant_reference_carries_its_note(tmp_path, capsys):
    """compare --by policy and tune printed clairvoyant:N as if it were a player."""
    from policies import CLAIRVOYANT_NOTE
    assert cli(capsys, "sweep", "--levels", "novice", "--players", "2", "--policies", "random,clairvoyant:2",
               "--games", "100", "--out", tmp_path / "store", "--quiet", "--no-report")[0] == 0
    for by in ("policy", "role"):
        status, out, err = cli(capsys, "compare", tmp_path / "store", "--by", by)
        assert status == 0 and f"clairvoyant:2@2: {CLAIRVOYANT_NOTE}." in out, (out, err)
    status, out, err = cli(capsys, "tune", "--param", "start_level", "--values", "1", "--target", ".5", "--players",
                           "2", "--policy", "clairvoyant:2", "--max-games", "1000", "--out", tmp_path / "tune",
                           "--quiet")
    assert status == 0 and f"policy clairvoyant:2@2 ({CLAIRVOYANT_NOTE})" in out, (out, err)


def test_tuning_the_start_under_a_low_skull_blames_no_level_the_user_never_gave(tmp_path, capsys):
    """With the skull at 2 only start 1 is playable; the setting was checked at the default --level
    normal (2) and refused, naming a starting position no one asked for."""
    (tmp_path / "low.toml").write_text('meter = [2, "skull"]\n')
    status, out, err = cli(capsys, "tune", "--param", "start_level", "--target", ".5", "--rules", tmp_path / "low.toml",
                           "--policy", "random", "--players", "2", "--out", tmp_path / "tune", "--quiet")
    assert status == 0 and "answer: start_level 1 (novice)" in out, err


def test_agreement_by_team_on_a_sweep_of_random_teams_is_refused(tmp_path, capsys):
    """Every cell's team is 'random': the correlation printed ranked the levels, not teams."""
    assert cli(capsys, "sweep", "--levels", "novice,normal", "--players", "2", "--policies", "random,passive",
               "--games", "100", "--out", tmp_path / "store", "--quiet", "--no-report")[0] == 0
    refused(cli(capsys, "compare", tmp_path / "store", "--by", "team", "--agreement", "random,passive"),
            "one team (random) in every cell", "--teams all")


# --- issue 48: whoever enters the engine, whatever a script or an API call is handed -----------

def _variant(**values):
    from fisim.rules.variant import Variant
    return Variant("built-by-hand", tuple(values.items()))


@pytest.mark.parametrize("config, words", [
    ({"players": 7}, "players must be 2, 3 or 4"), ({"players": 0}, "players must be"),
    ({"players": "3"}, "players must be"), ({"players": 1}, "1 player needs the solo variant"),
    ({"level": "99"}, "unknown level '99'"), ({"level": "hard"}, "unknown level 'hard'"),
    ({"team": ("diver", "diver", "pilot")}, "appears twice"), ({"team": ("diver", 5, "pilot")}, "role names"),
    ({"first": 3}, "first player must be a seat from 0 to 2"), ({"switches": {"nope"}}, "unknown rule switch 'nope'"),
    ({"variant": _variant(hand_limit=99)}, "hand_limit = 99: give a whole number from 2 to 10"),
    ({"variant": _variant(meter=(2, 0, "skull"))}, "position 2 holds 0"),
    ({"variant": _variant(capture=6)}, "at most treasure_cards"),
    ({"variant": "hard.toml"}, "variant must be a fisim.rules.variant.Variant"),
])
def test_the_engine_refuses_a_config_it_cannot_play_whoever_builds_it(config, words):
    """scripts/train_tuned.py --players 7 once handed the engine a config it cannot play: the
    compiled code wrote past its arrays ("double free or corruption", SIGABRT). Every entry checks
    the config first, once a batch: play_batch, record, and a hand-built position (EngineGame)."""
    from fisim import engine
    from fisim.rules.config import GameConfig
    from fisim.rules.layouts import builtin_layout
    setting, policy, layout = GameConfig(**config), load_policy("random"), builtin_layout("standard")
    for call in (lambda: engine.play_batch(layout, setting, policy, 0, 0, 10),
                 lambda: engine.record(layout, setting, policy, 0, 0)):
        with pytest.raises(ConfigError) as info:
            call()
        assert words in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize("seed, first, games, repeat, words", [
    (-1, 0, 10, 0, "seed must be a whole number from 0"), (0, -5, 10, 0, "first game must be"),
    (0, 0, -1, 0, "games must be"), (0, 0, 10, 2**31, "repeat must be"), (1.5, 0, 10, 0, "seed must be"),
    (0, 2**63 - 5, 10, 0, "go past the last game"),
])
def test_the_engine_refuses_numbers_it_cannot_play(seed, first, games, repeat, words):
    from fisim import engine
    from fisim.rules.config import GameConfig
    from fisim.rules.layouts import builtin_layout
    with pytest.raises(ConfigError, match=words):
        engine.play_batch(builtin_layout("standard"), GameConfig(), load_policy("random"), seed, first, games,
                          repeat=repeat)


@pytest.mark.parametrize("config, words", [
    ({"switches": {"nope"}}, "unknown rule switch 'nope'"),
    ({"variant": _variant(hand_limit=99)}, "hand_limit = 99: give a whole number from 2 to 10"),
    ({"variant": _variant(actions=0)}, "actions = 0: give a whole number from 1 to 6"),
])
def test_a_hand_built_position_gets_the_same_check_of_its_rule_numbers(config, words):
    """EngineGame (the rule tests' hand-made positions) may seat one pawn without the solo variant,
    but not play a rule number out of range."""
    from fisim.engine import EngineGame
    from fisim.position import parse_position
    p = dataclasses.replace(parse_position(_one_pawn()), **{k: frozenset(v) if k == "switches" else v
                                                            for k, v in config.items()})
    with pytest.raises(ConfigError, match=re.escape(words)):
        EngineGame.from_position(p)
    EngineGame.from_position(parse_position(_one_pawn()))        # one pawn, official rules: played as before


def _one_pawn():
    from support.board import ISLAND
    return ISLAND + "pilot@FL:\n"


def test_a_small_master_seed_can_be_found_from_the_policy_stream_as_the_docs_say():
    """One-way is not secret (docs/policies.md): hashing the candidates, master seeds 0..3 and games
    0..99, finds the seed of a game from the policy stream's counter alone; the docs say so, and
    how a random master seed puts it out of reach."""
    from fisim.rules.rng import _GOLDEN, N_STREAMS, POLICY, game_seed, init_streams, keyed_hash
    streams = np.zeros(N_STREAMS, np.uint64)
    init_streams(np.uint64(game_seed(2, 57)), streams)         # what a policy of game 57 of seed 2 is handed
    found = [(s, i) for s in range(4) for i in range(100)
             if keyed_hash(np.uint64(game_seed(s, i)), _GOLDEN, np.uint64(POLICY)) == streams[POLICY]]
    assert found == [(2, 57)]
    docs = " ".join((ROOT / "docs" / "policies.md").read_text().split())
    assert "One-way is not secret" in docs and "secrets.randbelow(2**63)" in docs
    assert "tells nothing" not in docs


def test_an_interpreted_engine_says_so_once_on_a_large_run(tmp_path):
    """NUMBA_DISABLE_JIT=1 plays hundreds of times slower and once said nothing for minutes: on a
    terminal (here a pseudo-terminal), a large run says in one line that the engine runs
    interpreted, once, however many batches it plays."""
    import pty
    main_end, terminal = pty.openpty()
    proc = subprocess.Popen([str(FISIM), "simulate", "--games", "100000", "--policy", "random", "--players", "2"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=terminal, cwd=tmp_path,
                            env={**os.environ, "NUMBA_DISABLE_JIT": "1"})
    os.close(terminal)
    seen, deadline = b"", time.time() + 120
    try:
        while time.time() < deadline and b"runs interpreted" not in seen:
            seen += _read_some(main_end)
        end = time.time() + 3                                   # a second line would come with the first batches
        while time.time() < end:
            seen += _read_some(main_end)
    finally:
        proc.kill()
        proc.wait()
        os.close(main_end)
    text = seen.decode(errors="replace")
    assert text.count("runs interpreted") == 1, text
    assert "fisim: the engine runs interpreted (NUMBA_DISABLE_JIT is set)" in text


def _read_some(fd):
    import select
    ready, _, _ = select.select([fd], [], [], 0.2)
    try:
        return os.read(fd, 4096) if ready else b""
    except OSError:                                             # the child's end closed
        return b""


# --- issue 48 item 2: the Python API checks what the command line checks ------------------------

SMALL_SWEEP = {"levels": "novice", "players": 2, "policies": "random", "report": False, "progress": False}


@pytest.mark.parametrize("kwargs, words", [
    ({"games": "100"}, "games must be a whole number of at least 1, not '100'"),
    ({"games": float("nan")}, "games must be a whole number of at least 1, not nan"),
    ({"games": float("inf")}, "games must be a whole number"), ({"games": -5}, "not -5"),
    ({"games": True}, "not True"), ({"games": 10**18}, "chunks; play fewer games or raise chunk_games"),
    ({"games": 100, "ci": 0.01}, "give games or ci, not both"),
    ({"ci": -0.01}, "ci must be a number above 0 and at most 0.5, such as 0.005, not -0.01"),
    ({"ci": float("nan")}, "not nan"), ({"ci": "0.01"}, "ci must be a number"),
    ({"ci": 0.01, "max_games": 0}, "max_games must be a whole number of at least 1"),
    ({"chunk_games": 0}, "chunk_games must be a whole number from 1 to 1,000,000"),
    ({"seed": -1}, "seed must be a whole number from 0"), ({"threads": 999}, "threads must be a whole number from 1"),
    ({"per_game": "yes"}, "per_game must be True or False"), ({"report": None}, "report must be True or False"),
    ({"progress": "bar"}, "progress must be True"), ({"out": 5}, "out must be a path"),
    ({"rules": None}, "rules must be a str such as 'official', an int or a list of them, not None"),
    ({"players": [2.5]}, "players must be a str"), ({"levels": []}, "levels is empty"),
    ({"players": 5}, "unknown player count '5'"), ({"sets": 5}, "sets must be a str"),
])
def test_the_api_sweep_checks_what_the_command_line_checks_before_anything_is_written(tmp_path, kwargs, words):
    """fisim.sweep(games="100" / nan / -5 / True, rules=None, ci=-0.01) raised raw TypeErrors, wrote a
    manifest it then called damaged, or played toward ten million games a cell."""
    with pytest.raises(ConfigError) as info:
        fisim.sweep(kwargs.pop("out", tmp_path / "out"), **{**SMALL_SWEEP, **kwargs})
    assert words in str(info.value) and "\n" not in str(info.value), str(info.value)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("kwargs, words", [
    ({"formats": 5}, "formats must be a str such as 'html,md' or a list of str, not 5"),
    ({"formats": "pdf"}, "unknown report format 'pdf'"), ({"formats": ["md", 5]}, "formats must be a str"),
    ({"out": 5}, "out must be a path"), ({"title": 5}, "title must be a str or None"),
])
def test_the_api_report_checks_its_arguments_before_writing(good, tmp_path, kwargs, words):
    with pytest.raises(ConfigError, match=re.escape(words)):
        fisim.report(good, **{"out": tmp_path / "report", **kwargs})
    assert not (tmp_path / "report").exists() and not (good / "report").exists()
    with pytest.raises(StoreError, match="a results directory is a path"):
        fisim.report(5)


TUNE_API = {"values": "1..2", "players": 2, "policy": "random", "max_games": 1000, "progress": False}


@pytest.mark.parametrize("kwargs, words", [
    ({"target": "0.5"}, "target must be a number above 0 and below 1, such as 0.5, not '0.5'"),
    ({"target": 1}, "target must be a number above 0 and below 1"), ({"target": float("nan")}, "not nan"),
    ({"max_games": 0}, "max_games must be a whole number from 1"), ({"max_games": 1500.5}, "not 1500.5"),
    ({"seed": 2**63}, "seed must be"), ({"repeat": -1}, "repeat must be"), ({"threads": 0}, "threads must be"),
    ({"param": 5}, "param must be a str"), ({"param": "nope"}, "unknown --param 'nope'"),
    ({"layout": None}, "layout must be a str"), ({"policy": 5}, "policy must be a str"),
    ({"out": 5}, "out must be a path"), ({"progress": 1.5}, "progress must be True"),
    ({"players": "2"}, "players must be 2, 3 or 4"), ({"values": [1.5]}, "give whole numbers"),
])
def test_the_api_tune_checks_what_the_command_line_checks_before_anything_is_written(tmp_path, kwargs, words):
    arguments = {"param": "start_level", "target": 0.5, **TUNE_API, "out": tmp_path / "tune", **kwargs}
    with pytest.raises(ConfigError) as info:
        fisim.tune(arguments.pop("param"), arguments.pop("target"), **arguments)
    assert words in str(info.value) and "\n" not in str(info.value), str(info.value)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("kwargs, words", [
    ({"by": "nope"}, "cannot compare by 'nope'"), ({"by": 5}, "cannot compare by 5"),
    ({"agreement": "random"}, "agreement takes two different policies"),
    ({"agreement": ["random", "random"]}, "two different policies"),
    ({"agreement": "random,nobody"}, "agreement: unknown policy 'nobody'"),
    ({"by": "policy", "agreement": "random,passive"}, "by policy is not one"),
    ({"baseline": "passive"}, "baseline C goes with agreement A,B"), ({"disjoint": True}, "disjoint goes with"),
    ({"agreement": "random,passive", "disjoint": "yes"}, "disjoint must be True or False"),
    ({"agreement": "random,passive", "baseline": "random"}, "is one of agreement's policies"),
])
def test_the_api_compare_takes_and_checks_its_commands_options(good, kwargs, words):
    with pytest.raises(ConfigError, match=re.escape(words)):
        fisim.compare(good, **{"by": "level", **kwargs})


def test_agreement_by_players_or_rules_says_players_and_rules(tmp_path, capsys):
    """compare --agreement by players printed "playerss" (and by rules "ruless")."""
    cells = grid.expand(["standard"], ["novice"], [2, 3, 4], "random", ["random", "passive"], [()])
    run_sweep(cells, tmp_path / "store", 0, {"games": 200}, chunk_games=1000)
    status, out, err = cli(capsys, "compare", tmp_path / "store", "--by", "players", "--agreement", "random,passive")
    assert status == 0, err
    assert "rank the player counts alike?" in out and "playerss" not in out


# --- issue 48 item 7: the ladder's replayer is checked by its play, not its spelling --------------

LADDER_SMALL = ["ladder", "--levels", "novice", "--players", "2", "--games", "20", "--deals", "2", "--repeats", "2",
                "--policies", "random", "--no-clairvoyant", "--quiet"]


@pytest.mark.parametrize("replayer", ["expert@1", "a file that never draws"])
def test_a_replayer_that_never_draws_on_its_stream_is_refused_however_it_is_named(tmp_path, capsys, replayer):
    """`--replayer expert@1` and a policy file that ignores rng passed the check of bare names, and
    every replay of a deal was the same game. Deals played twice by it show it, before any game is
    stored."""
    if replayer != "expert@1":
        replayer = str(_policy_file(tmp_path, "first_option", "return 0"))
    refused(cli(capsys, *LADDER_SMALL, "--replayer", replayer, "--out", tmp_path / "ladder"),
            f"--replayer {replayer} plays every replay of a deal alike", "were the same game")
    assert not (tmp_path / "ladder").exists()


def test_replays_differ_for_a_policy_that_draws_on_its_stream_and_not_for_one_that_does_not(readme_policy):
    from fisim.skill import replays_differ
    assert replays_differ("random", "novice", 2) and replays_differ(str(readme_policy), "novice", 3, seed=4)
    assert not replays_differ("expert", "novice", 2) and not replays_differ("expert@1", "elite", 4)
    assert replays_differ("passive", "novice", 2)                           # its first 11 deals replay alike


def test_an_all_lost_replay_says_so_instead_of_a_deal_share_of_nan():
    """The deal's share of the outcome's variance is undefined when no replay won (or all did): the
    table said 'nan%'."""
    from fisim import skill as ladder
    from fisim.reporting.ladder import _deal_share
    outcomes = {("legendary", 4): ("expert@1", np.zeros((20, 5), bool)), ("novice", 2): ("expert@1", np.ones((20, 5),
                                                                                                             bool))}
    deals = ladder.deal_table({}, outcomes)
    assert deals["deal_share"].isna().all()
    assert sorted(_deal_share(row) for _, row in deals.iterrows()) == ["all won", "none won"]


@pytest.mark.parametrize("kind", ["a FIFO", "a link to /dev/zero", "a directory"])
def test_a_layout_that_is_not_a_regular_file_is_said_to_be_so_at_once(tmp_path, capsys, kind):
    """A FIFO or /dev/zero as --layout was an 'unknown layout' (a read of it would block, or never
    end): 'is not a regular file', as a variant file's, in every command that takes a layout."""
    path = tmp_path / "island.txt"
    if kind == "a FIFO":
        os.mkfifo(path)
    elif kind == "a directory":
        path.mkdir()
    else:
        path.symlink_to("/dev/zero")
    for args in (["simulate", "--layout", path, "--games", "1"], ["sweep", "--layouts", path, "--out", tmp_path / "s"],
                 ["layouts", path]):
        _within(10, lambda args=args: refused(cli(capsys, *args), f"layout file {path} is not a regular file"))
    assert not (tmp_path / "s").exists()
