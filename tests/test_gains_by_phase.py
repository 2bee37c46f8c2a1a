"""scripts/gains_by_phase.py (issue 45 item 2): where a stronger player gains over the published
one, phase by phase. Greedy stands in for the published player, random for the stronger one and a
copy of greedy (another name, the same play) for a player that gains nothing."""
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from support.scripts import script

from fisim.comparison import mean_difference
from fisim.simulation import simulate

ROOT = Path(__file__).resolve().parent.parent
SETTING = ("--level", "novice", "--players", "3", "--seed", "46")


def _script():
    return script("gains_by_phase")


def _copy_of_greedy(tmp_path):
    path = tmp_path / "greedy_copy.py"
    path.write_text('NAME = "greedy-copy"\nVERSION = 1\nfrom policies.greedy import decide  # noqa: E402,F401\n')
    return str(path)


def test_playing_on_with_the_same_play_gains_nothing_from_any_capture(tmp_path, capsys):
    """A continuation from each turn start after a capture is the player's own game when the same
    play goes on: every game's outcome from every capture reached is the player's, every gain 0;
    the player's games are simulate's."""
    out = tmp_path / "gains.csv"
    _script().main(["--player", "greedy", "--stronger", _copy_of_greedy(tmp_path), *SETTING, "--games", "4",
                    "--out", str(out)])
    rows = pd.read_csv(out).sort_values("game")
    own = simulate(level="novice", players=3, policy="greedy", games=4, seed=46)["won"].to_numpy()
    assert list(rows["player_won"]) == list(own)
    assert rows["from_0"].notna().all()
    for k in range(5):
        reached = rows[f"from_{k}"].notna()
        assert (rows.loc[reached, f"from_{k}"].astype(bool) == rows.loc[reached, "player_won"]).all()
    table = capsys.readouterr().out
    assert "| the start | 4 |" in table and table.count("+0.0 [+0.0 to +0.0]") == 10


def test_from_the_start_the_stronger_players_games_are_its_own_and_a_run_resumes(tmp_path, capsys):
    """From the start, the stronger player (random) plays its own games (simulate's); a run with
    more games plays only those missing; a file of other settings is refused in one line."""
    out = tmp_path / "gains.csv"
    script = _script()
    script.main(["--player", "greedy", "--stronger", "random", *SETTING, "--games", "3", "--out", str(out)])
    before = pd.read_csv(out)
    script.main(["--player", "greedy", "--stronger", "random", *SETTING, "--games", "5", "--out", str(out)])
    rows = pd.read_csv(out)
    assert len(rows) == 5 and rows.iloc[:3].equals(before)
    rows = rows.sort_values("game")
    own = simulate(level="novice", players=3, policy="random", games=5, seed=46)["won"].to_numpy()
    assert list(rows["from_0"].astype(bool)) == list(own)
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_info:
        script.main(["--player", "greedy", "--stronger", "random", "--level", "normal", "--players", "3",
                     "--seed", "46", "--games", "5", "--out", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert exit_info.value.code == 2 and err[-1].endswith(
        f"{out} holds games of level novice, not normal: give another --out")


def test_the_phases_add_up_to_the_gain_from_the_start_and_a_game_that_never_got_there_counts_zero():
    """Four hand-made games: the gain from the k-th capture counts the games that got there, the
    others as 0; each phase adds the difference of two gains, paired game by game."""
    def row(player, *after):
        return {"player_won": str(player), **{f"from_{k}": "" if w is None else str(w)
                                              for k, w in enumerate([*after, *[None] * (5 - len(after))])}}
    rows = {0: row(False, True, True, False), 1: row(True, True), 2: row(False, False, True, True, True, True),
            3: row(True, True, True, True, True, False)}
    table = _script().gains(rows, 4)
    assert [r["games"] for r in table] == [4, 3, 3, 2, 2]
    assert np.allclose(table[1]["gain"], mean_difference(np.array([1., 1, 1, 1]), np.array([0., 1, 0, 1])))
    assert np.isclose(sum(r["adds"][0] for r in table), table[0]["gain"][0])
    assert np.isclose(table[3]["gain"][0], 0.25) and np.isclose(table[3]["adds"][0], 0.25)
    assert np.isclose(table[4]["gain"][0], 0.0)         # game 2 gains after the 4th, game 3 loses
    assert table[3]["stronger_rate"] == 1.0 and table[3]["player_rate"] == 0.5


def test_processes_play_the_games_one_process_plays(tmp_path):
    """--jobs 2 (the script run as a command, its games in two processes, finishing in any order):
    the same outcomes, game by game, as one process."""
    import subprocess
    import sys
    outs = [tmp_path / f"jobs{jobs}.csv" for jobs in (1, 2)]
    for jobs, out in zip((1, 2), outs):
        r = subprocess.run([sys.executable, str(ROOT / "scripts" / "gains_by_phase.py"), "--player", "greedy",
                            "--stronger", "random", *SETTING, "--games", "4", "--jobs", str(jobs), "--out", str(out)],
                           capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stderr
    one, two = (pd.read_csv(out).sort_values("game").reset_index(drop=True) for out in outs)
    assert one.equals(two)
