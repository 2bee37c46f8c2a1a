"""The installed `fisim` command: results, files, transcripts, and one-line errors with exit 2."""
import subprocess
import sys

import pandas as pd
import pytest
from support.commands import run


@pytest.mark.compiles
def test_simulate_prints_rate_interval_causes_and_writes_parquet(tmp_path):
    out = tmp_path / "games.parquet"
    r = run("simulate", "--games", "2000", "--players", "2", "--seed", "3", "--policy", "passive",
            "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "win rate" in r.stdout and "95% CI" in r.stdout
    for cause in ("landing-sunk", "treasure-lost", "drowned", "skull"):
        assert cause in r.stdout
    frame = pd.read_parquet(out)
    assert len(frame) == 2000 and frame["game"].tolist() == list(range(2000))
    assert {"won", "cause", "turns", "team", "first_player", "layout", "level", "policy", "rules"} <= set(frame)


@pytest.mark.compiles
def test_simulate_csv_is_the_same_games_as_the_python_api(tmp_path):
    from fisim.simulation import simulate
    out = tmp_path / "games.csv"
    r = run("simulate", "--games", "500", "--team", "diver,pilot,engineer", "--layout", "bone-island",
            "--level", "elite", "--rules", "heli-all", "--seed", "8", "--out", str(out))
    assert r.returncode == 0, r.stderr
    frame = pd.read_csv(out)
    api = simulate(level="elite", players=3, team="diver,pilot,engineer", layout="bone-island",
                   rules=("heli-all",), games=500, seed=8)
    assert frame["turns"].tolist() == api["turns"].tolist()
    assert set(frame["team"]) == {"diver+pilot+engineer"} and set(frame["rules"]) == {"heli-all"}


@pytest.mark.parametrize("args, words", [
    (["--level", "hard"], ["level", "novice"]),
    (["--players", "5"], ["players", "2, 3 or 4"]),
    (["--players", "0"], ["players"]),
    (["--players", "1"], ["solo"]),
    (["--team", "diver,pilot"], ["team has 2", "3 players"]),
    (["--team", "diver,diver,pilot"], ["twice"]),
    (["--team", "diver,wizard,pilot"], ["wizard", "navigator"]),
    (["--layout", "atlantis"], ["atlantis", "skull-island"]),
    (["--policy", "genius"], ["genius", "random"]),
    (["--rules", "house"], ["house", "heli-all"]),
    (["--rules", "diver-flooded-only", "--rules", "diver-sunk-only"], ["'diver-flooded-only'", "'diver-sunk-only'"]),
    (["--rules", "swim-seed000", "--rules", "swim-seed001"], ["'swim-seed000'", "'swim-seed001'"]),
    (["--games", "-5"], ["--games"]),
    (["--games", "2.5"], ["--games"]),
    (["--seed", "-1"], ["--seed"]),
    (["--out", "games.xlsx"], [".parquet", ".csv"]),
])
def test_bad_input_gives_one_line_and_exit_2_and_writes_nothing(tmp_path, args, words):
    r = run("simulate", "--games", "10", *args, "--out", str(tmp_path / "x.parquet"), cwd=tmp_path) \
        if "--out" not in args else run("simulate", *args, cwd=tmp_path)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    for w in words:
        assert w in lines[0]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args", [
    ["simulate", "--level", "hard"], ["simulate", "--team", "diver,diver,pilot"], ["simulate", "--rules", "house"],
    ["sweep", "--levels", "novice..hard"], ["sweep", "--players", "5"], ["sweep", "--policies", "genius"],
])
def test_a_bad_setting_is_refused_before_pandas_or_numba_is_loaded(args):
    """A mistyped setting is answered at once: the command checks it before it loads the heavy
    modules (a quarter of a second against more than one)."""
    probe = ("import sys\nfrom fisim.cli import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit as exc:\n"
             "    print(exc.code, sorted({'pandas', 'numba'} & set(sys.modules)))")
    r = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, timeout=120)
    assert r.stdout.split() == ["2", "[]"], (r.stdout, r.stderr)


def test_new_rule_switches_combine_with_the_others_in_simulate_and_sweep(tmp_path):
    """Every switch is accepted alone and with the others (one of each incompatible pair); a sweep
    refuses an incompatible pair in one line, before writing anything."""
    combined = ["--rules", "swim-seed001", "--rules", "diver-sunk-only", "--rules", "sunk-card-stays",
                "--rules", "hand-after-draw", "--rules", "heli-all", "--rules", "diver-sunk-only"]
    r = run("simulate", "--games", "50", "--policy", "random", *combined)
    assert r.returncode == 0, r.stderr
    assert "diver-sunk-only+hand-after-draw+heli-all+sunk-card-stays+swim-seed001" in r.stdout
    r = run("sweep", "--rules", "official,diver-flooded-only+diver-sunk-only", "--games", "10",
            "--out", str(tmp_path / "store"), cwd=tmp_path)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "diver-sunk-only" in r.stderr
    assert list(tmp_path.iterdir()) == []


def test_layout_file_errors_name_line_and_column(tmp_path):
    """R-LAYOUT-4 from the command line."""
    bad = tmp_path / "bad.txt"
    bad.write_text("######\n##x###\n" + "######\n" * 3)
    r = run("simulate", "--layout", str(bad))
    assert r.returncode == 2 and "line 2, column 3" in r.stderr
    short = tmp_path / "short.txt"
    short.write_text("######\n######\n")
    r = run("layouts", str(short))
    assert r.returncode == 2 and "12" in r.stderr and "24" in r.stderr


def test_a_disconnected_custom_layout_is_played_and_reported(tmp_path):
    two = tmp_path / "two-islands.txt"
    two.write_text("######.######\n######.######\n")
    r = run("simulate", "--layout", str(two), "--games", "100", "--policy", "passive")
    assert r.returncode == 0, r.stderr
    assert "not one connected island" in r.stderr and "two-islands" in r.stdout


def test_replay_prints_a_whole_readable_game():
    r = run("replay", "--seed", "3", "--game", "5", "--players", "4", "--level", "novice")
    assert r.returncode == 0, r.stderr
    text = r.stdout
    assert text.startswith("Game 5 of seed 3") and "Turn 1:" in text
    assert "Setup:" in text and "draws" in text and ("the team LOSES" in text or "WINS" in text)


def test_layouts_lists_all_18_and_draws_one():
    r = run("layouts")
    assert r.returncode == 0 and len(r.stdout.strip().splitlines()) == 18
    r = run("layouts", "atoll-of-decisions-arena")
    assert r.returncode == 0
    assert r.stdout.splitlines()[1:] == ["..###..", ".##.##.", "##...##", "#.....#", "##...##", ".##.##.", "..###.."]


def test_help_is_fast_and_lists_the_commands():
    r = run("--help")
    assert r.returncode == 0
    for command in ("simulate", "replay", "layouts"):
        assert command in r.stdout
