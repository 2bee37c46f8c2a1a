"""Ctrl-C (issue 47, 1): every command, while it compiles, plays or writes, stops at once, says what
it keeps and that the same command goes on from there, and ends with exit status 130."""
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest
from support.commands import FISIM, as_from_a_terminal
from support.commands import in_process as cli

import fisim

# Ctrl-C leaves within a second or two on an idle machine; a shared, loaded one may stall any
# process for seconds. An uninterrupted run below takes minutes, and a first compile over a minute.
LEAVES_WITHIN = 15
STOPS = re.compile(r"fisim: interrupted; ([\d,]+) games \(the finished chunks\) are kept in (.+): "
                   r"run the same command to resume")


def cpu_seconds(pid):
    """The processor time a running process has used (Linux's /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children(pid):
    """The processes whose parent is `pid`."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if stat.read_text().rsplit(")", 1)[1].split()[1] == str(pid):
                found.append(int(stat.parent.name))
        except (OSError, IndexError):       # it ended meanwhile
            continue
    return found


def interrupted(proc):
    """Send Ctrl-C to a running command: (exit status, seconds it took to leave, its stderr)."""
    assert proc.poll() is None, proc.stderr.read()
    start = time.monotonic()
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    return proc.returncode, time.monotonic() - start, err


def start(*args, **env):
    return subprocess.Popen(as_from_a_terminal(FISIM, *args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, **env})


def wait_for(condition, proc, timeout=300):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None and not condition():
        time.sleep(0.1)


@pytest.mark.compiles
@pytest.mark.slow
def test_ctrl_c_during_a_sweeps_play_says_the_games_kept_and_the_same_command_resumes(tmp_path):
    out = tmp_path / "out"
    # two cells of 3 million random games: minutes of play, in chunks of 1,000 ... 50,000 games
    args = ("sweep", "--levels", "normal", "--players", "3,4", "--policies", "random", "--games", "3000000",
            "--out", out, "--no-report")
    proc = start(*args)
    wait_for(lambda: len(list((out / "chunks").glob("*.parquet"))) >= 3, proc)
    status, seconds, err = interrupted(proc)
    assert status == 130 and seconds < LEAVES_WITHIN, (status, seconds, err)
    kept = STOPS.fullmatch(err.splitlines()[-1])
    assert kept and kept[2] == str(out), err
    stored = int(fisim.load(out)["games"].sum())
    assert int(kept[1].replace(",", "")) == stored and 0 < stored < 6_000_000
    proc = start(*args)         # the same command goes on from the games kept
    wait_for(lambda: False, proc, timeout=5)
    status, _, err = interrupted(proc)
    assert status == 130 and f"fisim: resuming: {stored:,} of 6,000,000 games stored" in err, err
    assert int(STOPS.fullmatch(err.splitlines()[-1])[1].replace(",", "")) >= stored


@pytest.mark.compiles
def test_ctrl_c_during_a_first_compile_stops_it_and_its_children_at_once(tmp_path):
    """A first compile (an empty cache) takes a minute or more: the engine here, the policy in a
    child process. Ctrl-C stops both within seconds, and the store is as it was."""
    out = tmp_path / "out"
    proc = start("sweep", "--levels", "normal", "--players", "3", "--policies", "expert", "--games", "1000",
                 "--out", out, "--no-report", FISIM_CACHE_DIR=str(tmp_path / "cache"))
    wait_for(lambda: children(proc.pid) and cpu_seconds(proc.pid) > 3, proc)
    compiling = children(proc.pid)
    assert compiling, "a first run compiles the policy in a child process"
    status, seconds, err = interrupted(proc)
    assert status == 130 and seconds < LEAVES_WITHIN, (status, seconds, err)
    assert err.splitlines()[-1] == (f"fisim: interrupted; no game was played; the store {out} is as it was: run "
                                    "the same command to go on")
    time.sleep(1)
    assert not [pid for pid in compiling if Path(f"/proc/{pid}").exists()]
    assert not list(out.glob("chunks/*.parquet"))


@pytest.mark.compiles
@pytest.mark.parametrize("write", [False, True], ids=["printed", "--out"])
def test_ctrl_c_during_simulate_stops_it_and_writes_nothing(tmp_path, write):
    out = tmp_path / "games.parquet"
    proc = start("simulate", "--policy", "random", "--games", "100000000", *(["--out", out] if write else []))
    wait_for(lambda: cpu_seconds(proc.pid) > 6, proc)    # a cached start takes under 2 s: it is playing
    status, seconds, err = interrupted(proc)
    assert status == 130 and seconds < LEAVES_WITHIN, (status, seconds, err)
    assert err.splitlines()[-1] == "fisim: interrupted; nothing was written: run the same command again"
    assert list(tmp_path.iterdir()) == []


def _stopped(monkeypatch, module, name):
    """Ctrl-C when `module`.`name` is called."""
    def stop(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(module, name, stop)


def test_each_stage_says_what_ctrl_c_keeps(tmp_path, capsys, monkeypatch):
    """What each command keeps when it is stopped while writing or playing (the stage stopped
    stands in for the Ctrl-C)."""
    from fisim import comparison, designing, reporting, sweeping, tuning
    from fisim.cli import ladder
    from fisim.reporting import ladder as ladder_report
    store = tmp_path / "store"
    _stopped(monkeypatch, reporting, "write_report")
    said = {"report": cli(capsys, "report", store),
            "sweep's report": cli(capsys, "sweep", "--levels", "normal", "--players", "2", "--policies", "random",
                                  "--games", "10", "--out", store)}
    _stopped(monkeypatch, tuning, "tune")
    said["tune"] = cli(capsys, "tune", "--param", "hand_limit", "--target", "0.5", "--policy", "random",
                       "--out", store)
    _stopped(monkeypatch, designing, "run")
    said["design's start"] = cli(capsys, "design", "--set", "sandbags=1..2", "--target", "normal=0.5", "--policy",
                                 "random", "--out", tmp_path / "design")
    _stopped(monkeypatch, comparison, "compare")
    said["compare"] = cli(capsys, "compare", store)
    monkeypatch.setattr(ladder, "run_cells", lambda *a, **k: None)
    _stopped(monkeypatch, ladder_report, "build")
    said["ladder's report"] = cli(capsys, "ladder", "--levels", "normal", "--players", "2", "--policies", "random",
                                  "--no-deals", "--quiet", "--out", store)
    _stopped(monkeypatch, sweeping, "run_sweep")
    said["sweep's start"] = cli(capsys, "sweep", "--policies", "random", "--out", store, "--no-report")
    assert {what: (code, err.splitlines()[-1]) for what, (code, _, err) in said.items()} == {
        "report": (130, f"fisim: interrupted; the results in {store} are untouched; each report file is whole, "
                        "old or new: run the same command to write them all"),
        "sweep's report": (130, f"fisim: interrupted; the store {store} is complete: run the same command (or "
                                f"fisim report {store}) to write its report"),
        "tune": (130, f"fisim: interrupted; the finished chunks are kept in {store}: run the same command to resume"),
        "compare": (130, "fisim: interrupted; nothing was written: run the same command again"),
        "ladder's report": (130, f"fisim: interrupted; every game is kept in {store}: run the same command to write "
                                 "the report"),
        "sweep's start": (130, f"fisim: interrupted; no game was played; the store {store} is as it was: run the "
                               "same command to go on"),
        "design's start": (130, f"fisim: interrupted; no game was played; {tmp_path / 'design'} is as it was: run "
                                "the same command to go on"),
    }
