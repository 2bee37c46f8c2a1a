"""`fisim design`: the race on synthetic games whose answer is known (a monotone number checked
against its full grid, an unreachable target, ties to the smaller change, a constraint, the
budget), the options' one-line refusals, and, with the engine, a design against a full sweep,
resumption, the same answer from the same seed, and best.toml played by simulate."""
import inspect
import itertools
import json

import numpy as np
import pandas as pd
import pytest
from support.commands import run

import fisim
from fisim import defaults, designing
from fisim.designing import FIRST_ROUND, Candidate, Goal, race

NORMAL = (("normal", 0.5),)


def candidates(*tuples, keys=("waters_rise",), base=(3,)):
    """Candidates of the given tuples of numbers (no cells: the games are synthetic)."""
    return [Candidate(i, tuple(zip(keys, t)), tuple(zip(keys, base))) for i, t in enumerate(tuples)]


def games_of(rates, seed=1, size=1 << 20, turns=None):
    """evidence(candidate, n) of candidates with the given win rates per level ({index: {level:
    rate}}), dealt alike: game i is won wherever the rate is above the same uniform draw (common
    random numbers, as the engine's deals); `turns` ({index: mean}) a feel measure's estimate."""
    draws = np.random.default_rng(seed).random(size)

    def evidence(candidate, n):
        values = {(level, 3): draws[:n] < rate for level, rate in rates[candidate.index].items()}
        mean = (turns or {}).get(candidate.index, 15.0)
        return values, {"turns": (mean, 3.0 / np.sqrt(n))}
    return evidence


def order_of(rates, goal, pool):
    """The design's order on true rates: the best candidate of `pool` ({index: Candidate})."""
    def key(c):
        miss = max(abs(rates[c.index][level] - t) for level, t in goal.targets)
        return max(0.0, miss - goal.tolerance), c.change, miss, c.index
    return min(pool, key=key)


# === the race, on synthetic games ==============================================================

def test_one_monotone_number_finds_what_its_full_grid_says():
    """A number whose win rate falls as it rises (waters_rise, R-TDECK): the race's answer is the
    grid's best by the design's order, for targets between, on and beyond the values."""
    rates = {i: {"normal": r} for i, r in enumerate((0.92, 0.81, 0.64, 0.45, 0.30, 0.18))}
    pool = candidates(*[(v,) for v in range(1, 7)])
    for target in (0.62, 0.45, 0.37, 0.05):
        goal = Goal((("normal", target),), (3,))
        result = race(pool, goal, 2_000_000, games_of(rates))
        assert result.ranked[0] is order_of(rates, goal, pool), target
        assert result.settled and result.games <= 2_000_000


def test_the_race_spends_its_games_where_candidates_are_close():
    """Far candidates leave after the first round; only close ones play on."""
    rates = {i: {"normal": r} for i, r in enumerate((0.95, 0.9, 0.53, 0.47, 0.1, 0.05))}
    goal = Goal(NORMAL, (3,), tolerance=0.0)
    result = race(candidates(*[(v,) for v in range(1, 7)]), goal, 2_000_000, games_of(rates))
    games = {c.index: result.readings[c].games for c in result.ranked}
    assert games[0] == games[5] == FIRST_ROUND
    assert min(games[2], games[3]) > 8 * FIRST_ROUND


def test_an_unreachable_target_is_said_so_with_the_closest():
    rates = {i: {"novice": r, "normal": r / 2} for i, r in enumerate((0.3, 0.4, 0.5))}
    goal = Goal((("novice", 0.95), ("normal", 0.9)), (3,))
    result = race(candidates((1,), (2,), (3,)), goal, 500_000, games_of(rates))
    assert result.reached == "unreachable" and result.settled
    answer = result.ranked[0]
    assert answer.index == 2 and result.readings[answer].worst == ("normal", 3)


def test_ties_go_to_the_smaller_change():
    """Two candidates on the target: the one that changes one number by one step answers, settled
    once both are shown to fit; a third, as good but changing two numbers, is dropped for it."""
    keys, base = ("sandbags", "hand_limit"), (2, 5)
    pool = candidates((4, 5), (3, 5), (3, 6), keys=keys, base=base)
    rates = {0: {"normal": 0.5}, 1: {"normal": 0.5}, 2: {"normal": 0.5}}
    result = race(pool, Goal(NORMAL, (3,), tolerance=0.03), 2_000_000, games_of(rates))
    assert result.ranked[0].index == 1 and result.settled and result.reached == "reached"
    assert all(why == designing.SHOWN for _, why in result.dropped.values())


def test_a_constraint_drops_the_candidates_that_break_it():
    """--turns 10..20: the closer candidate's games last 25 turns; the one that meets it answers."""
    rates = {0: {"normal": 0.5}, 1: {"normal": 0.46}}
    goal = Goal(NORMAL, (3,), windows=(("turns", (10.0, 20.0)),))
    result = race(candidates((2,), (4,)), goal, 1_000_000, games_of(rates, turns={0: 25.0, 1: 15.0}))
    assert result.ranked[0].index == 1 and result.settled
    assert result.readings[result.ranked[1]].shown_violating


def test_a_near_tie_is_not_settled_and_the_budget_holds():
    """0.51 and 0.49 are alike far from 0.5 with no tolerance: the budget runs out, and says so."""
    rates = {0: {"normal": 0.51}, 1: {"normal": 0.49}}
    goal = Goal(NORMAL, (3,), tolerance=0.0)
    result = race(candidates((2,), (4,)), goal, 60_000, games_of(rates))
    assert not result.settled and len(result.alive) == 2 and result.games <= 60_000
    assert result.rounds == [100, 200, 400, 800, 1800, 2800, 4800, 8800, 16800]     # 2 n in all: 33,600


def test_a_race_the_budget_cannot_afford_is_cut_to_its_best_by_rank():
    """60 candidates half a point apart: the race alone would outrun 200,000 games, so rounds keep
    what the budget allows, best first, never fewer than FINALISTS; the closest stays in."""
    pool = candidates(*[(v,) for v in range(60)], base=(0,))
    rates = {i: {"normal": 0.2 + 0.005 * i} for i in range(60)}
    result = race(pool, Goal((("normal", 0.4015),), (3,), tolerance=0.0), 200_000, games_of(rates))
    assert result.cut > 0 and result.games <= 200_000 and len(result.alive) >= designing.FINALISTS
    answer = result.ranked[0]
    spread = 3 * np.sqrt(0.25 / result.readings[answer].games)     # three standard errors of its rate
    assert 40 in {c.index for c in result.alive} and abs(rates[answer.index]["normal"] - 0.4015) <= spread


def test_pooled_player_counts_average_each_deals_wins():
    """pooled: a level's rate is the mean of its counts' rates, its interval that of per-game means."""
    goal = Goal((("normal", 0.5),), (2, 3, 4), pooled=True)
    draws = np.random.default_rng(2).random((3, 4000))
    values = {("normal", "pooled"): (draws < np.array([[0.3], [0.5], [0.7]])).mean(axis=0)}
    reading = designing.Reading(4000, values, {}, goal, 1.96)
    assert reading.rate[("normal", "pooled")] == pytest.approx(0.5, abs=0.02)
    low, high = reading.low[("normal", "pooled")], reading.high[("normal", "pooled")]
    assert 0.005 < (high - low) / 2 < 0.0155          # narrower than 4,000 games' 0.0155


# === options ===================================================================================

def test_targets_players_and_windows_parse():
    assert designing.parse_targets("legendary=0.2,novice=0.85,3=.4") == (
        ("novice", 0.85), ("elite", 0.4), ("legendary", 0.2))
    assert designing.parse_players("3") == ((3,), False)
    assert designing.parse_players("each") == ((2, 3, 4), False)
    assert designing.parse_players("pooled") == ((2, 3, 4), True)
    assert designing.parse_players("2,4") == ((2, 4), False)
    assert designing.parse_window("turns", "10..20") == (10.0, 20.0)
    assert designing.parse_window("turns", "12.5..") == (12.5, float("inf"))


def test_the_plan_skips_tuples_the_rules_forbid_and_measures_change():
    """capture above treasure_cards cannot be played (R-TDECK, R-ACT-CAPTURE): such tuples are
    left out, and a change is measured from the printed rules."""
    plan = designing.plan(["treasure_cards=3..5", "capture=3..4"], "normal=0.5", policy="greedy")
    assert plan.unplayable == 1 and len(plan.candidates) == 5
    changes = {c.label: c.change for c in plan.candidates}
    assert changes["treasure_cards 5->3, capture 4->3"] == (2, 3) and changes["no change"] == (0, 0)
    keys = {c.cells[0][1].key for c in plan.candidates}
    assert len(keys) == 5


def test_a_tuple_is_one_cell_whatever_the_order_of_the_sets():
    one = designing.plan(["sandbags=3", "hand_limit=6"], "normal=0.5", policy="greedy")
    other = designing.plan(["hand_limit=6", "sandbags=3"], "normal=0.5", policy="greedy")
    assert one.candidates[0].cells[0][1].key == other.candidates[0].cells[0][1].key


def test_the_feel_measures_are_the_command_line_options():
    from fisim.cli.design import design as command
    options = {o.name for o in command.params}
    assert {f"feel_{name}" for name in designing.FEEL} <= options


def test_defaults_come_from_the_defaults_module():
    signature = inspect.signature(fisim.design).parameters
    assert signature["policy"].default == defaults.POLICY and signature["out"].default == defaults.DESIGN_OUT
    assert signature["budget"].default == defaults.DESIGN_BUDGET
    assert signature["verify_games"].default == defaults.DESIGN_VERIFY_GAMES


GOOD = ["--set", "sandbags=1..3", "--target", "normal=0.5"]


@pytest.mark.parametrize("args,message", [
    (["--set", "speed=1..3", "--target", "normal=0.5"], "--set speed=1..3: choose a rule number from"),
    (["--set", "sandbags=3..1", "--target", "normal=0.5"], "the range 3..1 is empty"),
    (["--set", "sandbags=1..x", "--target", "normal=0.5"], "give whole numbers"),
    (["--set", "sandbags=5..9", "--target", "normal=0.5"], "sandbags = 7: give a whole number from 0 to 6"),
    (["--set", "hand_limit=2..3", "--target", "normal=0.5"], "--set hand_limit=2: no candidate with it can be played"),
    (["--set", "sandbags=1..3", "--target", "normal=1.2"], "--target normal=1.2: give a win rate strictly between"),
    (["--set", "sandbags=1..3", "--target", "normal=0"], "strictly between 0 and 1"),
    (["--set", "sandbags=1..3", "--target", "hard=0.5"], "unknown level 'hard'"),
    (["--set", "sandbags=1..3", "--target", "normal"], "give LEVEL=RATE pairs"),
    (["--set", "sandbags=1..3", "--target", "normal=0.5,2=0.4"], "level normal is given twice"),
    ([*GOOD, "--players", "5"], "--players 5: unknown player count"),
    ([*GOOD, "--players", "each", "--team", "diver,pilot"], "--team fixes the adventurers of one player count"),
    ([*GOOD, "--tolerance", "0.7"], "--tolerance 0.7: give a distance"),
    ([*GOOD, "--turns", "20..10"], "--turns 20..10: give a window LOW..HIGH with 0 <= LOW <= HIGH"),
    ([*GOOD, "--turns", "long"], "--turns long: give a window LOW..HIGH of numbers"),
    ([*GOOD, "--budget", "200"], "--budget 200: the first round alone plays"),
    ([*GOOD, "--verify-games", "2500"], "--verify-games 2500: give a multiple of 1,000"),
    ([*GOOD, "--policy", "genius"], "genius"),
])
def test_bad_input_is_one_line_and_writes_nothing(tmp_path, args, message):
    r = run("design", *args, "--out", str(tmp_path / "d"))
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and message in r.stderr, r.stderr
    assert not (tmp_path / "d").exists()


def test_a_bad_option_is_refused_before_pandas_or_numba_is_loaded():
    import subprocess
    import sys
    probe = ("import sys\nfrom fisim.cli import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit as exc:\n"
             "    print(exc.code, sorted({'pandas', 'numba'} & set(sys.modules)))")
    r = subprocess.run([sys.executable, "-c", probe, "design", "--set", "sandbags=1..3", "--target", "normal=2"],
                       capture_output=True, text=True, timeout=120)
    assert r.stdout.split() == ["2", "[]"], (r.stdout, r.stderr)


def test_a_folder_that_is_not_a_designs_is_refused(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    r = run("design", *GOOD, "--policy", "greedy", "--out", str(tmp_path))
    assert r.returncode == 2 and "holds notes.txt, which a design does not write" in r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


# === with the engine ===========================================================================

WATERS = ["waters_rise=1..5"]


@pytest.fixture(scope="module")
def grid(tmp_path_factory):
    """A full sweep of waters_rise 1..5 at Normal, 3 players, expert, 8,000 games each: the rates
    the design's answer is checked against."""
    from fisim.grid import sweep_cells
    from fisim.sweeping import run_sweep
    out = tmp_path_factory.mktemp("grid") / "sweep"
    cells = sweep_cells("normal", "3", policies="expert", sets=WATERS)
    rates = run_sweep(cells, out, seed=3, target={"games": 8000}).set_index("cell")["rate"]
    return {cell.config.parameters["waters_rise"]: rates[cell.key] for cell in cells}


@pytest.mark.compiles
def test_a_design_finds_what_a_full_sweep_of_its_grid_says(grid, tmp_path):
    """waters_rise (R-TDECK) lowers the win rate; the target set on one value's swept rate is
    answered by that value, and the answer's fresh games are another seed's."""
    target = grid[4]
    plan = designing.plan(WATERS, f"normal={target:.3f}", policy="expert", budget=300_000, verify_games=2000,
                          seed=3, tolerance=0.0)
    result = designing.run(plan, tmp_path / "d")
    assert dict(result.answer.values)["waters_rise"] == 4
    rates = result.race.readings
    assert all(rates[c].rate[("normal", 3)] >= rates[d].rate[("normal", 3)] - 0.05
               for c, d in itertools.combinations(sorted(result.race.ranked, key=lambda c: c.index), 2))
    curves = result.curves
    assert set(curves.loc[curves["phase"] == "verify", "seed"]) == {4}
    manifest = json.loads((tmp_path / "d" / "verify" / "manifest.json").read_text())
    assert manifest["seed"] == 4


@pytest.mark.compiles
def test_a_design_resumes_to_the_same_answer_and_a_seed_repeats_it(tmp_path):
    args = ["--set", "sandbags=1..3", "--set", "hand_limit=5..6", "--target", "novice=0.7,normal=0.5",
            "--policy", "expert", "--budget", "100000", "--verify-games", "1000", "--seed", "7", "--quiet"]
    first = run("design", *args, "--out", str(tmp_path / "a"))
    assert first.returncode == 0, first.stderr
    table = pd.read_csv(tmp_path / "a" / "candidates.csv")
    lost = sorted((tmp_path / "a" / "screen" / "chunks").glob("*.parquet"))[-1]
    lost.unlink()
    resumed = run("design", *args, "--out", str(tmp_path / "a"))
    assert resumed.returncode == 0 and "(100 played now" in resumed.stdout, resumed.stdout
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "a" / "candidates.csv"), table)
    again = run("design", *args, "--out", str(tmp_path / "b"))
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "b" / "candidates.csv"), table)
    assert again.stdout.replace(str(tmp_path / "b"), "") == first.stdout.replace(str(tmp_path / "a"), "")
    record = json.loads((tmp_path / "a" / "design.json").read_text())
    assert record["request"]["targets"] == {"novice": 0.7, "normal": 0.5}
    assert (record["request"]["verify_seed"], record["request"]["race_seed"]) == (8, 9)
    curves = json.loads((tmp_path / "a" / "curves.json").read_text())
    assert {row["phase"] for row in curves} == {"search", "verify"}


@pytest.mark.compiles
def test_a_target_the_grid_cannot_reach_is_said_so_with_the_closest(tmp_path):
    """No number of Sandbags (R-TDECK) makes expert win 99% at Legendary: the design says so and
    answers the most Sandbags, the closest."""
    plan = designing.plan(["sandbags=0..2"], "legendary=0.99", policy="expert", budget=30_000, verify_games=1000)
    result = designing.run(plan, tmp_path / "d")
    assert result.race.reached == "unreachable" and result.race.settled
    assert dict(result.answer.values)["sandbags"] == 2
    text = designing.format_design(result, tmp_path / "d")
    assert "no candidate reaches the targets" in text and "the closest misses by" in text


@pytest.mark.compiles
def test_best_toml_plays_in_simulate_and_the_api_returns_tables(tmp_path):
    result = fisim.design(["sandbags=2..4"], {"normal": 0.55}, players=2, policy="expert", budget=50_000,
                          verify_games=1000, best=2, out=tmp_path / "d", turns="5..40")
    assert isinstance(result.candidates, pd.DataFrame) and isinstance(result.curves, pd.DataFrame)
    assert list(result.candidates["rank"]) == [1, 2, 3] and result.candidates["verified"].sum() == 2
    answer = dict(result.answer.values)["sandbags"]
    text = (tmp_path / "d" / "best.toml").read_text()
    assert f"sandbags = {answer}\n" in text
    play = next(line for line in text.splitlines() if line.startswith("# play it: fisim "))
    words = play.removeprefix("# play it: fisim ").replace("best.toml", str(tmp_path / "d" / "best.toml")).split()
    assert words[-4:] == ["--players", "2", "--level", "normal"] and "--policy" in words
    r = run(*words, "--games", "200")
    assert r.returncode == 0 and "rules best" in r.stdout and "policy expert" in r.stdout, r.stderr


def test_the_default_folder_is_ignored_by_git():
    from pathlib import Path
    ignored = (Path(__file__).resolve().parent.parent / ".gitignore").read_text().splitlines()
    assert f"/{defaults.DESIGN_OUT}/" in ignored


@pytest.mark.compiles
@pytest.mark.parametrize("players", ["2,4", "pooled"])
def test_several_player_counts_are_each_held_to_the_targets_or_pooled(tmp_path, players):
    """Each: a rate per level and count, the largest miss over all; pooled: a level's rate the mean
    of its counts' rates on the same deals (here the verification's, read back from its store)."""
    result = fisim.design("sandbags=1..3", "normal=0.5", players=players, policy="expert", budget=20_000,
                          verify_games=1000, best=1, out=tmp_path / "d")
    table, verified = result.candidates, result.verified[result.answer]
    if players == "2,4":
        assert {"rate_normal_2p", "rate_normal_4p"} <= set(table.columns)
        assert verified.largest_miss == max(abs(verified.rate[("normal", p)] - 0.5) for p in (2, 4))
    else:
        cells = fisim.load(tmp_path / "d" / "verify")
        assert sorted(cells["players"]) == [2, 3, 4] and set(cells["games"]) == {1000}
        assert verified.rate[("normal", "pooled")] == pytest.approx(cells["rate"].mean())
        assert set(result.curves["players"]) == {"2, 3, 4 players pooled"}


@pytest.mark.compiles
def test_ctrl_c_keeps_the_finished_chunks_and_the_same_command_resumes_to_the_same_answer(tmp_path):
    import signal
    import subprocess
    import time

    from support.commands import FISIM, as_from_a_terminal
    args = ["--set", "sandbags=0..4", "--set", "hand_limit=4..6", "--target", "normal=0.45,elite=0.2",
            "--policy", "expert", "--budget", "200000", "--verify-games", "1000", "--seed", "5", "--quiet"]
    out = tmp_path / "a"
    chunks = out / "screen" / "chunks"
    proc = subprocess.Popen(as_from_a_terminal(FISIM, "design", *args, "--out", out), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 300
    while time.time() < deadline and proc.poll() is None and len(list(chunks.glob("*.parquet"))) < 10:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    # Ctrl-C ends compiled code at once (the signal's default action) or is caught between chunks
    assert proc.returncode in (-signal.SIGINT, 130), err
    assert proc.returncode == -signal.SIGINT or "run the same command to resume" in err, err
    assert not (out / "candidates.csv").exists()
    kept = len(list(chunks.glob("*.parquet")))
    resumed = run("design", *args, "--out", str(out))
    assert resumed.returncode == 0 and kept >= 10, resumed.stderr
    assert run("design", *args, "--out", str(tmp_path / "b")).returncode == 0
    pd.testing.assert_frame_equal(pd.read_csv(out / "candidates.csv"), pd.read_csv(tmp_path / "b" / "candidates.csv"))
