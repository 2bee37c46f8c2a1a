"""`fisim tune`: the decision logic on synthetic games, a planted answer found with the engine,
resumption, starting positions as levels, and one-line errors."""
import json
import shutil

import numpy as np
import pytest
from support.commands import run

from fisim import tuning
from fisim.cell import Cell
from fisim.grid import parse_levels
from fisim.rules.config import ConfigError, GameConfig, level_order, parse_level
from fisim.rules.variant import make_variant
from fisim.store import read_store
from fisim.sweeping import run_sweep
from fisim.tables import load, win_bits

pytestmark = pytest.mark.compiles      # needs the compiled engine: games at its speed



def games_of(rates, seed=1, size=200_000):
    """wins(value, n) of values with the given win rates, dealt alike: game i is won at every value
    whose rate is above the same uniform draw (common random numbers, as the engine's deals)."""
    draws = np.random.default_rng(seed).random(size)
    return lambda value, n: draws[:n] < rates[value]


# === the decision logic, on synthetic games ====================================================

def test_schedule_doubles_up_to_the_budget():
    assert tuning.schedule(64_000) == [1000, 2000, 4000, 8000, 16000, 32000, 64000]
    assert tuning.schedule(5000) == [1000, 2000, 4000, 5000]
    assert tuning.schedule(300) == [300]


def test_error_is_spread_over_rounds_and_intervals():
    """Bonferroni: 5% over 7 rounds x 7 intervals, two-sided: z = Phi^-1(1 - 0.05 / 98)."""
    assert tuning.critical_z(7) == pytest.approx(3.285, abs=1e-3)
    assert tuning.critical_z(1) == pytest.approx(2.690, abs=1e-3)


def test_bisection_probes_the_ends_then_halves_the_bracket():
    values = list(range(1, 10))
    rates = {1: .95, 2: .9, 3: .8, 4: .7, 5: .55, 6: .45, 7: .3, 8: .2, 9: .1}
    probed = {}
    while (v := tuning.next_probe(values, probed, 0.5)) is not None:
        probed[v] = rates[v]
    assert list(probed) == [1, 9, 5, 7, 6]          # ends, then the middle of the straddling pair
    assert tuning.next_probe(values, {1: .4, 9: .1}, 0.5) is None     # beyond an end: nothing to bracket


def test_stops_after_one_round_when_the_answer_is_clear():
    rates = {1: .9, 2: .75, 3: .5, 4: .3, 5: .1}
    answer, settled, rounds, asked, beyond = tuning.search(list(rates), .5, 64_000, games_of(rates))
    assert (answer, settled, rounds, beyond) == (3, True, 1, False)
    assert set(asked.values()) == {1000}


def test_keeps_going_while_the_neighbours_are_close():
    """0.53 against 0.45 for a target of 0.5: closer by 3 points, not settled on 1,000 games."""
    rates = {1: .8, 2: .53, 3: .45, 4: .2}
    answer, settled, rounds, asked, beyond = tuning.search(list(rates), .5, 64_000, games_of(rates))
    assert answer == 2 and settled and 1 < rounds < 7
    assert asked[2] == asked[1] == asked[3] == tuning.schedule(64_000)[rounds - 1]


def test_a_tie_is_never_settled_and_the_budget_holds():
    """0.52 and 0.48 are equally far from 0.5: the budget runs out, no value plays more games."""
    rates = {1: .7, 2: .52, 3: .48, 4: .3}
    answer, settled, rounds, asked, beyond = tuning.search(list(rates), .5, 6000, games_of(rates))
    assert not settled and answer in (2, 3) and rounds == 4
    assert max(asked.values()) == 6000


def test_a_target_beyond_the_range_settles_on_the_end():
    rates = {1: .4, 2: .3, 3: .2}
    answer, settled, rounds, _, beyond = tuning.search(list(rates), .9, 64_000, games_of(rates))
    assert (answer, settled, rounds, beyond) == (1, True, 1, True)


def test_a_target_out_of_reach_on_a_plateau_stops_at_once_and_names_the_closest():
    """Issue 47, 4: the rate tops out at 36.6% on a plateau of identical games (a hand limit above
    what hands hold changes nothing), so no value is closer than its neighbour and the tune would
    play its whole budget; both ends' intervals lie below 50%: out of reach, after one round."""
    rates = {1: .15, 2: .25, 3: .32, 4: .366, 5: .366, 6: .366, 7: .366}
    answer, settled, rounds, asked, beyond = tuning.search(list(rates), .5, 64_000, games_of(rates))
    assert beyond and not settled and rounds == 1 and answer == 4      # the first of the tied, closest values
    assert set(asked.values()) == {1000}          # one round: not the budget of 64,000 a value
    rates[7] = .45              # the far end's interval holds the target: the rate may reach it
    *_, beyond = tuning.search(list(rates), .5, 2000, games_of(rates))
    assert not beyond


def test_a_target_within_reach_is_never_out_of_reach():
    """A target between the ends' rates is bracketed: however the tune ends, not out of reach."""
    for target in (.2, .3, .6):
        rates = {1: .1, 2: .3, 3: .31, 4: .7}
        *_, beyond = tuning.search(list(rates), target, 4000, games_of(rates))
        assert not beyond


def test_closer_asks_both_sides_while_an_interval_holds_the_target():
    """A rate whose interval holds the target may lie on either side: both are checked."""
    n = 1000
    a = np.arange(n) < 500                      # 0.50
    assert tuning.sides(a, .5, 2.0) == [1, -1]
    assert tuning.closer(a, np.arange(n) < 300, .5, 3.0)
    assert not tuning.closer(a, np.arange(n) < 470, .5, 3.0)


# === starting positions as levels ==============================================================

def test_levels_are_names_or_meter_positions():
    """R-METER, R-SETUP-5: any position below the skull starts a game; a named one keeps its name."""
    assert parse_level("2") == "normal" and parse_level("6") == "6" and GameConfig(level=7).level == "7"
    assert GameConfig(level="6").validate().start_level == 6
    assert parse_levels("elite..6") == ["elite", "legendary", "5", "6"]
    assert parse_levels("7,novice") == ["7", "novice"]
    assert level_order(["9", "5"]) == ["novice", "normal", "elite", "legendary", "5", "9"]
    with pytest.raises(ConfigError, match="skull is at position 10; start below it, at a position from 1 to 9"):
        GameConfig(level="10").validate()
    with pytest.raises(ConfigError, match="unknown level 'hard'"):
        parse_level("hard")
    with pytest.raises(ConfigError, match="empty level range"):
        parse_levels("6..elite")
    tall = make_variant({"meter": [2] * 11 + ["skull"]}, "tall", "test")
    assert GameConfig(level="11", variant=tall).validate().start_level == 11


def test_allowed_values_follow_the_setting():
    base = Cell("standard", "normal", 3, None, "greedy", ())
    assert tuning.allowed_values(base, "start_level") == list(range(1, 10))
    assert tuning.allowed_values(base, "hand_limit") == list(range(4, 11))     # at least capture (4)
    with pytest.raises(ConfigError, match="this setting allows start_level from 1 to 9"):
        tuning.tune_cells(base, "start_level", [8, 9, 10])
    assert tuning.parse_values("3..5", [1, 9]) == [3, 4, 5]
    with pytest.raises(ConfigError, match="give whole numbers"):
        tuning.parse_values("3..x", [1, 9])


# === a planted answer, with the engine =========================================================

def _base():
    return Cell("standard", "normal", 3, None, "greedy", ())


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """A sweep of greedy at the starting positions 1..6, 4,000 games each, and the position whose
    rate is closest to 15%."""
    out = tmp_path_factory.mktemp("planted") / "sweep"
    cells = [Cell("standard", level, 3, None, "greedy", ()) for level in parse_levels("1..6")]
    frame = run_sweep(cells, out, seed=5, target={"games": 4000})
    rates = dict(zip(range(1, 7), frame["rate"]))
    return out, rates, min(rates, key=lambda v: abs(rates[v] - .15))


def test_tune_finds_the_planted_answer_and_stops_early(planted, tmp_path):
    sweep, rates, expected = planted
    result = tuning.tune(_base(), "start_level", .15, list(range(1, 7)), 16_000, tmp_path / "t", seed=5)
    assert result.answer == expected and result.settled and result.rounds < result.max_rounds == 5
    assert result.played == sum(games for games, _ in result.probes.values()) and result.reused == 0
    manifest, chunks = read_store(sweep)
    keys = {c["level"]: c["key"] for c in manifest["cells"]}
    for value, (games, wins) in result.probes.items():      # the sweep's games, game for game
        assert wins == win_bits(chunks, keys[parse_level(str(value))], manifest["target"])[:games].sum()
    table = load(tmp_path / "t")
    assert list(table["level"].cat.categories) == ["novice", "normal", "elite", "legendary", "5", "6"]


def test_tune_reuses_stored_games_and_resumes_to_the_same_answer(planted, tmp_path):
    sweep, _, expected = planted
    again = tuning.tune(_base(), "start_level", .15, list(range(1, 7)), 16_000, sweep, seed=5)
    assert again.answer == expected and again.played == 0 and again.reused > 0
    out = tmp_path / "t"
    first = tuning.tune(_base(), "start_level", .15, list(range(1, 7)), 16_000, out, seed=5)
    lost = sorted((out / "chunks").glob("*.parquet"))[0]      # an interrupted run never wrote it
    lost.unlink()
    resumed = tuning.tune(_base(), "start_level", .15, list(range(1, 7)), 16_000, out, seed=5)
    assert (resumed.answer, resumed.settled, resumed.probes) == (first.answer, first.settled, first.probes)
    assert resumed.played == 1000


# === the command line ==========================================================================

def tune(*args):
    return run("tune", *args)


@pytest.mark.parametrize("args,message", [
    (("--param", "speed", "--target", ".5"), "unknown --param 'speed'; choose from: start_level, treasure_cards"),
    (("--param", "start_level", "--target", "1"), "--target 1.0: give a win rate strictly between 0 and 1"),
    (("--param", "start_level", "--target", ".5", "--values", "5..10"),
     "skull is at position 10; start below it, at a position from 1 to 9; this setting allows start_level from 1 to 9"),
    (("--param", "hand_limit", "--target", ".5", "--values", "2..6"), "this setting allows hand_limit from 4 to 10"),
    (("--param", "start_level", "--target", ".5", "--level", "elite"), "the starting level is what is tuned"),
    (("--param", "waters_rise", "--target", ".5", "--level", "hard"), "unknown level 'hard'"),
])
def test_bad_input_is_one_line_and_writes_nothing(tmp_path, args, message):
    r = tune(*args, "--out", str(tmp_path / "t"))
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and message in r.stderr, r.stderr
    assert not (tmp_path / "t").exists()


def test_command_prints_each_value_and_the_answer(planted, tmp_path):
    sweep, rates, expected = planted
    store = tmp_path / "copy"
    shutil.copytree(sweep, store)
    r = tune("--param", "start_level", "--values", "1..6", "--target", ".15", "--policy", "greedy", "--seed", "5",
            "--max-games", "16000", "--out", str(store), "--quiet")
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert f"answer: start_level {tuning.value_label('start_level', expected)}, win rate" in r.stdout
    assert "settled after 1 of at most 5 rounds" in r.stdout and "0 played now" in r.stdout
    r = tune("--param", "start_level", "--values", "1..6", "--target", ".15", "--policy", "greedy", "--seed", "5",
            "--max-games", "16000", "--out", str(store), "--quiet", "--format", "json")
    rows = json.loads(r.stdout)
    assert [row["value"] for row in rows if row["answer"]] == [expected]
    assert all(row["ci_low"] <= row["rate"] <= row["ci_high"] and row["games"] == 1000 for row in rows)


def test_command_says_when_the_target_is_out_of_reach(tmp_path):
    """Issue 47, 4: random wins a few games in a hundred whatever its hand limit: a target of 90%
    is out of reach, said after the first round, with the closest value."""
    r = tune("--param", "hand_limit", "--target", ".9", "--policy", "random", "--level", "novice", "--out",
             str(tmp_path / "t"), "--quiet")
    assert r.returncode == 0, r.stderr
    answer = next(line for line in r.stdout.splitlines() if line.startswith("answer: "))
    assert answer.endswith("the closest value; the target is out of reach: every value's win rate is below 90% at "
                           "95% confidence (the rate lies between the ends')")
    rows = json.loads(tune("--param", "hand_limit", "--target", ".9", "--policy", "random", "--level", "novice",
                           "--out", str(tmp_path / "t"), "--quiet", "--format", "json").stdout)
    assert {row["games"] for row in rows} == {1000} and [row["out_of_reach"] for row in rows].count(True) == 1
