"""scripts/departures.py (issue 45 item 2): where search departs from its base. Greedy stands in
for the base and search:8 over it for the search, on one game."""

import pandas as pd
import pytest
from support.scripts import script

from fisim.simulation import simulate

SETTING = ("--level", "novice", "--players", "3", "--games", "1", "--seed", "2045")


def _script():
    return script("departures")


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
    assert any(line.split()[:2] == ["all", f"{len(rows):.2f}"] for line in summary.splitlines())
    module = _script()
    gifts = module.gifts(rows, [3]).set_index("side")["gifts"]
    for side, column in (("base", "own_option"), ("search", "theirs_option")):
        given = rows[column].str.split()
        assert gifts[side] == sum(o[0] == "give" and int(o[1]) < 4 for o in given)


def test_departures_are_counted_per_game_by_kind_with_games_without_one_as_zero():
    """Two games: a gift and a walk in the first, a Helicopter Lift in the second; per game, with
    the kinds overlapping ('all' counts each once)."""
    frame = pd.DataFrame({"players": [3, 3, 3], "game": [0, 0, 1], "own": ["give", "move", "heli"],
                          "theirs": ["give", "shore", "move"]})
    table = _script().kinds(frame, [3], 2)["3 players"]
    assert table["all"].startswith("1.50 [") and table["a gift on either side"].startswith("0.50 [")
    assert table["moves and shores only (flights, dives, double shores)"].startswith("0.50 [")
    assert table["a Helicopter Lift on either side"].startswith("0.50 [")
    assert table["an END on either side"] == "0.00 [0.00, 0.00]"


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
