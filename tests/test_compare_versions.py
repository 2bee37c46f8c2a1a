"""scripts/compare_versions.py: a policy's two versions on the same deals, from two stores of one seed."""
import re

import pytest
from support.scripts import script

from fisim import grid
from fisim.sweeping import run_sweep

pytestmark = pytest.mark.compiles      # plays small sweeps

GAMES = 400


def _store(folder, version, decide_from, seed=3):
    """A store in `folder` of random and of `mine` (folder/../mine.py, the same path for every
    version, as a built-in's is: the policy file playing `decide_from`'s game as `version`), two
    levels, 2 and 3 players under two rule readings and one player under the solo rules."""
    policy = folder.parent / "mine.py"
    policy.write_text(f'NAME = "mine"\nVERSION = {version}\nfrom policies.{decide_from} import decide  # noqa\n')
    cells = grid.sweep_cells("novice,normal", "1..3", policies=f"random,{policy}", rules="official,heli-all,solo")
    run_sweep(cells, folder, seed, {"games": GAMES}, per_game=True, chunk_games=1000)
    return folder


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("versions")
    return _store(tmp_path / "v1", 1, "random"), _store(tmp_path / "v2", 2, "greedy")


def _compare(old, new):
    script("compare_versions").main([str(old), str(new), "--policy", str(old.parent / "mine.py")])


def _wins(store, **settings):
    """mine's per-game wins of the store's cells matching `settings`, concatenated."""
    import pandas as pd
    games = pd.read_parquet(store / "games")
    games = games[games["policy"].str.startswith("mine")]
    for key, value in settings.items():
        games = games[games[key] == value]
    return games.sort_values(["level", "players", "rules", "game"])["won"].to_numpy(float)


def test_the_difference_is_the_games_and_each_line_its_cells(stores, capsys):
    """Every line's difference is the mean over its games of the new version's wins less the old
    one's (the same deals, game by game): here greedy's play against random's, so far from 0."""
    old, new = stores
    _compare(old, new)
    out = capsys.readouterr().out
    assert out.startswith("mine@2 − mine@1 on the same deals (seed 3, 10 cells of 10)")
    lines = {m[1].strip(): float(m[2]) for m in re.finditer(r"^ {2,4}(\w[\w ,]*?)\s+([+-]\d+\.\d+) \(", out, re.M)}
    expected = {"all cells": {}, "novice": {"level": "novice"}, "normal, 3 players": {"level": "normal", "players": 3},
                "normal, 1 player": {"level": "normal", "players": 1}}
    for name, settings in expected.items():
        diff = 100 * (_wins(new, **settings) - _wins(old, **settings)).mean()
        assert lines[name] == pytest.approx(diff, abs=0.006), name
    assert lines["all cells"] > 10


def test_a_rule_readings_effect_under_each_version_and_its_change(stores, capsys):
    """heli-all's effect against the official rules at the same settings, under each version, and
    the change; solo, played only where the official rules were not, is said to have no pair."""
    old, new = stores
    _compare(old, new)
    out = capsys.readouterr().out.splitlines()
    assert next(x for x in out if x.strip().startswith("solo")).split() == [
        "solo", "no", "official", "cell", "of", "its", "settings", "to", "pair", "with"]
    line = next(x for x in out if x.strip().startswith("heli-all"))
    effects = [float(x) for x in re.findall(r"([+-]\d+\.\d+) \(", line)]
    each = [100 * (_wins(s, rules="heli-all") - _wins(s, rules="official")).mean() for s in (old, new)]
    assert effects == pytest.approx([*each, each[1] - each[0]], abs=0.006)


def test_stores_of_other_deals_or_no_store_are_refused_in_one_line(stores, tmp_path, capsys):
    other = _store(stores[0].parent / "v3", 3, "greedy", seed=4)
    for new, says in ((other, "seeds differ"), (tmp_path / "nothing", "not a fisim results directory")):
        with pytest.raises(SystemExit) as stopped:
            _compare(stores[0], new)
        err = capsys.readouterr().err
        assert stopped.value.code == 2 and says in err and len(err.strip().splitlines()) == 1, err
