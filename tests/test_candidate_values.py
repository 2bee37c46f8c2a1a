"""scripts/candidate_values.py (issue 45 items 2 and 3): what the published player's own candidates
are worth, each played on in the same sampled worlds (R-INFO). Expert stands in for the player
(its candidates are the evaluation's best-scored options, as search takes them)."""
import numpy as np
import pandas as pd
import pytest
from support.scripts import script

from fisim.rules.options import ACTION, decode
from fisim.stats import mean_interval

SETTING = ("--player", "expert", "--levels", "novice", "--players", "3", "--worlds", "4", "--seed", "64")


def _script():
    return script("candidate_values")


@pytest.mark.compiles
def test_each_decision_values_the_players_candidates_its_choice_first_and_a_run_resumes(tmp_path, capsys):
    """A row per action decision with two or more candidates, each candidate's outcome in every
    world; the first row's first candidate is what expert played at the game's first action; a run
    with more games plays only those missing, the same rows a run of them all from scratch writes."""
    from fisim.engine import record
    from fisim.rules.config import GameConfig
    from fisim.rules.layouts import builtin_layout
    from policies import resolve
    out, fresh = tmp_path / "values.csv", tmp_path / "fresh.csv"
    _script().main([*SETTING, "--games", "1", "--out", str(out)])
    first = pd.read_csv(out, dtype=str)
    _script().main([*SETTING, "--games", "2", "--out", str(out)])
    _script().main([*SETTING, "--games", "2", "--out", str(fresh)])
    rows, again = pd.read_csv(out, dtype=str), pd.read_csv(fresh, dtype=str)
    assert rows.iloc[:len(first)].equals(first) and rows.equals(again) and set(rows["game"]) == {"0", "1"}
    assert (rows["candidates"].astype(int) >= 2).all() and (rows["player"] == "expert@1").all()
    for j in range(2):
        assert rows[f"won_{j}"].str.fullmatch("[01]{4}").all()
    played = record(builtin_layout("standard"), GameConfig(players=3, level="novice"), resolve("expert"), 64, 0,
                    decisions=True)
    kind, _, options, chosen = next(d for d in played.decisions if d[0] == ACTION)
    assert rows.loc[0, "option_0"] == " ".join(map(str, decode(options[chosen])))
    assert rows.loc[0, "turn"] == "1" and rows.loc[0, "actions_left"] == "3" and rows.loc[0, "captured"] == "0"
    assert "| 3 | 0 |" in capsys.readouterr().out


def test_the_room_is_the_first_halfs_best_measured_on_the_second_half():
    """Two decisions of four worlds: in the first the second candidate wins both worlds of the first
    half where the choice wins one, and one of the second half's where the choice wins none (+0.5); in
    the second the halves tie, so the choice stays (0): the gain is paired by decision."""
    rows = [{"players": "3", "captured": "1", "candidates": "2", "won_0": "1000", "won_1": "1110"},
            {"players": "3", "captured": "1", "candidates": "3", "won_0": "1010", "won_1": "1001", "won_2": "0011"}]
    table = _script().room(rows)
    n, value, gain = table[(3, 1)]
    assert n == 2 and value == np.mean([0.25, 0.5])
    assert gain == mean_interval([0.5, 0.0])
    assert table[(3, "all")] == table[("all", "all")] == table[(3, 1)] and len(table) == 3


def test_kinds_of_choice_compare_each_other_candidate_with_the_choice_in_the_same_worlds():
    """A pair of option types (the choice's, another candidate's) counts each comparison once; the
    other's wins per world less the choice's, in standard errors; pairs seen too rarely left out."""
    rows = [{"candidates": "3", "option_0": "move 1 0 0", "option_1": "shore 2 0 0", "option_2": "give 0 1 0",
             "won_0": "1100", "won_1": "1110", "won_2": "0000"},
            {"candidates": "2", "option_0": "move 3 0 0", "option_1": "shore 4 0 0", "won_0": "1000", "won_1": "1000"}]
    pairs = _script().kinds(rows, least=1)
    n, mean, z = pairs[("move", "shore")]
    assert n == 2 and mean == 0.125 and np.isclose(z, 0.125 / (np.std([0.25, 0.0], ddof=1) / np.sqrt(2)))
    assert list(pairs) == [("move", "shore"), ("move", "give")] and pairs[("move", "give")][:2] == (1, -0.5)
    assert list(_script().kinds(rows, least=2)) == [("move", "shore")]


def test_bad_options_and_a_file_of_other_settings_are_one_line(tmp_path, capsys):
    """A player without candidates, an odd number of worlds, an --out holding another seed's
    decisions, a folder or a file in no folder are refused in one line, before a game is played."""
    other = tmp_path / "other.csv"
    row = "expert@1,novice,3,1,4,0,1,3,0,2,end 0 0 0,move 1 0 0,,,1111,0000,,"
    other.write_text(",".join(_script().COLUMNS) + "\n" + row + "\n")
    for options, says in ((["--player", "greedy"], "--player greedy ranks no candidates"),
                          (["--worlds", "3"], "--worlds an even number from 2"),
                          (["--out", str(other)], f"{other} holds decisions of seed 1, not 64: give another --out"),
                          (["--out", str(tmp_path)], f"--out {tmp_path} must be a file in a folder that exists"),
                          (["--out", str(tmp_path / "no" / "v.csv")], "must be a file in a folder that exists")):
        with pytest.raises(SystemExit) as exit_info:
            _script().main([*SETTING, "--out", str(tmp_path / "values.csv"), *options])
        assert exit_info.value.code == 2 and says in capsys.readouterr().err.strip().splitlines()[-1]
    assert not (tmp_path / "values.csv").exists()
