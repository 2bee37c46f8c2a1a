"""The installed `fisim` command: results, files, transcripts, and one-line errors with exit 2."""
import fcntl
import io
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pandas as pd
import pytest
from support.commands import run, shown_on

ROOT = Path(__file__).resolve().parent.parent


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


# --- issue 47: a variant against the printed rules, sweep --format, --rules help, progress bars --

RISING_TIDE = ROOT / "docs" / "variants" / "rising-tide.toml"


@pytest.mark.compiles
def test_simulate_with_rules_shows_the_difference_from_the_printed_rules_on_the_same_deals():
    """Issue 47, 3: the variant's rate, and the paired difference from the printed rules' games of
    the same seed, the same as two runs compared game by game."""
    import fisim
    from fisim.comparison import paired_difference
    setting = ["--level", "novice", "--policy", "expert", "--games", "2000", "--seed", "4"]
    r = run("simulate", "--rules", str(RISING_TIDE), *setting)
    assert r.returncode == 0, r.stderr
    variant = fisim.simulate(level="novice", policy="expert", games=2000, seed=4, rules=str(RISING_TIDE))
    printed = fisim.simulate(level="novice", policy="expert", games=2000, seed=4)
    diff, low, high = paired_difference(variant["won"].to_numpy(), printed["won"].to_numpy())
    assert diff < 0 and high < 0          # rising tide is harder (docs/cli.md, "Variant files")
    lines = r.stdout.splitlines()
    assert lines[2] == (f"vs the printed rules  {100 * diff:+.2f} points (95% CI {100 * low:+.2f} to "
                        f"{100 * high:+.2f}): harder")
    assert lines[3].startswith(f"  the printed rules win {100 * printed['won'].mean():.2f}% (95% CI ")
    assert lines[3].endswith("of the same 2,000 deals, paired game by game")
    alone = run("simulate", "--rules", str(RISING_TIDE), *setting, "--alone")
    assert alone.returncode == 0 and "printed rules" not in alone.stdout
    assert alone.stdout.splitlines() == lines[:2] + lines[4:]      # the variant's own numbers, unchanged
    rows = pd.read_csv(io.StringIO(run("simulate", "--rules", str(RISING_TIDE), *setting, "--format", "csv").stdout))
    official = rows[(rows["rules"] == "official") & (rows["measure"] == "win")]
    difference = rows[rows["measure"] == "win difference vs official"]
    assert official["value"].tolist() == [printed["won"].mean()] and official["games"].tolist() == [2000]
    numbers = difference[["value", "ci_low", "ci_high"]].to_numpy()
    assert len(numbers) == 1 and list(numbers[0]) == pytest.approx([diff, low, high], abs=1e-4)    # as printed


@pytest.mark.compiles
def test_simulate_says_when_the_printed_rules_cannot_play_the_setting():
    r = run("simulate", "--rules", "solo", "--players", "1", "--policy", "random", "--games", "100")
    assert r.returncode == 0 and "printed rules" not in r.stdout
    assert r.stderr == "fisim: note: no difference from the printed rules, which do not play 1 player at normal\n"
    official = run("simulate", "--policy", "random", "--games", "100")
    assert official.returncode == 0 and "printed rules" not in official.stdout + official.stderr


def test_sweep_writes_the_report_formats_it_is_given(tmp_path, capsys):
    """Issue 47, 7: the README's `--format` on sweep, as `fisim report --format` takes it; a bad
    one is refused before any game is played."""
    from support.commands import in_process
    readme = (ROOT / "README.md").read_text()
    assert "(`--format html,md,png,csv,json` adds the tables as data)" in readme
    grid = ["sweep", "--levels", "normal", "--players", "2", "--policies", "random", "--games", "20"]
    code, _, err = in_process(capsys, *grid, "--out", tmp_path / "out", "--format", "html,md,png,csv,json")
    assert code == 0, err
    report = tmp_path / "out" / "report"
    assert {"report.html", "report.md", "tables.json", "figures", "tables"} <= {p.name for p in report.iterdir()}
    assert list((report / "tables").glob("*.csv"))
    for args, message in ((["--format", "pdf"], "unknown report format 'pdf'; choose from: html, md, png, svg, "
                                                "csv, json"),
                          (["--format", "csv", "--no-report"], "give --format or --no-report, not both")):
        code, _, err = in_process(capsys, *grid, "--out", tmp_path / "bad", *args)
        assert (code, err) == (2, f"fisim: error: {message}\n")
        assert not (tmp_path / "bad").exists()


def test_the_rules_help_is_a_short_list_and_a_pointer():
    """Issue 47, 7: the --rules help names the switches and points to docs/cli.md, where each is
    explained (test_outputs), instead of explaining them all in about 25 lines."""
    for command in ("simulate", "sweep"):
        text = run(command, "--help").stdout
        entry = text[text.index("  --rules"):]
        entry = entry[:entry.index("\n  --", 1)]
        assert len(entry.splitlines()) <= 12 and "docs/cli.md" in entry, entry


def test_a_terminal_that_gives_no_width_still_shows_the_progress_bar():
    """Issue 47, 7: a terminal of 0 columns and 0 lines (one nobody sized) made tqdm draw nothing
    for minutes; every bar of fisim's (the commands' fisim.cli.options.progress_bar, the Python
    API's) takes 80 columns there (fisim.progress.sized)."""
    main, side = pty.openpty()
    fcntl.ioctl(side, termios.TIOCSWINSZ, struct.pack("HHHH", 0, 0, 0, 0))
    code = ("import sys, time; from fisim.cli.options import progress_bar; from fisim import progress\n"
            "with progress_bar(True, total=100, unit='game', desc='0/2 cells', mininterval=0) as bar:\n"
            "    bar.update(40); time.sleep(0.2)\n"
            "progress.DELAY = 0\n"
            "with progress.games(True, 100) as (update, describe):\n"
            "    describe('round 1'); update(30); time.sleep(0.2)\n")
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    done = subprocess.run([sys.executable, "-c", code], stdin=side, stdout=side, stderr=side, env=env, timeout=60)
    os.close(side)
    text = shown_on(main)
    assert done.returncode == 0 and "0/2 cells:  40%|" in text and " 40/100 " in text, text
    assert "round 1:  30%|" in text and " 30.0/100 " in text, text
    width = max(len(line) for line in re.split(r"[\r\n]", re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", text)))
    assert 60 <= width <= 80, text


def test_the_readme_says_its_first_compile_was_timed_on_idle_cores():
    """Issue 47, 7: "under a minute" holds on an idle machine; a busy one takes several."""
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert "once (under a minute on two idle cores, several minutes on a busy machine;" in readme
