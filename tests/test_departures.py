"""scripts/departures.py (issue 45 item 2): where search departs from its base. Greedy stands in
for the base and search:8 over it for the search, on one game."""
import importlib.util
from pathlib import Path

import pandas as pd
import pytest

from fisim.simulation import simulate

ROOT = Path(__file__).resolve().parent.parent
SETTING = ("--level", "novice", "--players", "3", "--games", "1", "--seed", "2045")


def _script():
    spec = importlib.util.spec_from_file_location("departures", ROOT / "scripts" / "departures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_policy_never_departs_from_itself(tmp_path, capsys):
    """The base's action phase replayed from each turn's start is the turn it played."""
    out = tmp_path / "departures.csv"
    _script().main(["--search", "greedy", "--base", "greedy", *SETTING, "--out", str(out)])
    assert "3 players, game 1/1: 0 departures" in capsys.readouterr().err
    assert out.read_text().strip() == ""


def test_the_departures_of_search_are_in_the_games_it_plays(tmp_path, capsys):
    """search:8 over greedy departs from greedy in its game; the game is the one simulate plays
    (the same outcome), each departure is a different choice among the same options, and the
    summary counts them per game by the pair of option types."""
    out = tmp_path / "departures.csv"
    _script().main(["--search", "search:8/greedy", "--base", "greedy", *SETTING, "--out", str(out)])
    summary = capsys.readouterr().out
    rows = pd.read_csv(out)
    assert len(rows) > 0
    played = simulate(level="novice", players=3, policy="search:8/greedy", games=1, seed=2045)
    assert set(rows["won"]) == {bool(played["won"].iloc[0])}
    assert (rows["own_option"] != rows["theirs_option"]).all()
    assert rows["actions_left"].between(1, 3).all() and rows["turn"].is_monotonic_increasing
    assert rows["turn"].max() <= played["turns"].iloc[0]
    for (own, theirs), n in rows[["own", "theirs"]].value_counts().items():
        assert any(line.split()[:3] == [own, "->", theirs] and float(line.split()[3]) == n
                   for line in summary.splitlines())


@pytest.mark.parametrize("options, says", [
    (("--level", "novice..elite"), "--level takes one level"),
    (("--players", "7"), "unknown player count '7'"),
    (("--base", "nobody"), "unknown policy 'nobody'"),
    (("--games", "0"), "--games must be at least 1"),
])
def test_bad_options_are_refused(capsys, options, says):
    with pytest.raises(SystemExit) as exit_:
        _script().main(list(options))
    assert exit_.value.code == 2 and says in capsys.readouterr().err
