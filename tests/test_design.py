"""`fisim design`: the race on synthetic games whose answer is known (a monotone number checked
against its full grid, a grid raced in order of change against the brute-force order of its true
rates, an unreachable target, ties to the smaller change, the feel constraints, the budget), the
feel measures and the verification's size, the options' one-line refusals, and, with the engine,
a design against a full sweep, resumption, the same answer from the same seed, best.toml played by
simulate, Ctrl-C, and the design's report opened in headless Chromium."""
import inspect
import itertools
import json
import math

import numpy as np
import pandas as pd
import pytest
from support.commands import run

import fisim
from fisim import defaults
from fisim.designing import constraints, race, request, verification
from fisim.designing.race import FIRST_ROUND, LARGER, Evidence
from fisim.designing.request import Candidate, Goal
from fisim.errors import ConfigError

NORMAL = (("normal", 0.5),)


def candidates(*tuples, keys=("waters_rise",), base=(3,)):
    """Candidates of the given tuples of numbers (no cells: the games are synthetic)."""
    return [Candidate(i, tuple(zip(keys, t)), tuple(zip(keys, base))) for i, t in enumerate(tuples)]


def games_of(rates, seed=1, size=1 << 20, feel=None):
    """evidence(candidate, n) of candidates with the given win rates per level ({index: {level:
    rate}}), dealt alike: game i is won wherever the rate is above the same uniform draw (common
    random numbers, as the engine's deals); `feel` ({index: {name: value}}) the feel measures'
    estimates (default: 15 turns, a third of wins close, 1.5 treasures in a lost game, drama 0.5,
    decided after 0.6 of the game),
    each with the standard error of n games, but drama's and decisiveness's, of a fixed sample of
    traced games."""
    draws = np.random.default_rng(seed).random(size)

    def evidence(candidate, n):
        values = {(level, 3): draws[:n] < rate for level, rate in rates[candidate.index].items()}
        mine = {"turns": 15.0, "close_wins": 1 / 3, "lost_treasures": 1.5, "drama": 0.5, "decided": 0.6,
                **(feel or {}).get(candidate.index, {})}
        errors = {"turns": 3.0 / np.sqrt(n), "close_wins": 0.5 / np.sqrt(n), "lost_treasures": 1.2 / np.sqrt(n),
                  "drama": 0.1, "decided": 0.1}
        return Evidence(values, {name: (value, errors[name]) for name, value in mine.items()})
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
        result = race.race(pool, goal, 2_000_000, games_of(rates))
        assert result.ranked[0] is order_of(rates, goal, pool), target
        assert result.settled and result.games <= 2_000_000


def test_a_grid_is_raced_in_order_of_change_and_a_small_change_that_fits_leaves_the_rest_unplayed():
    """Three numbers of a made-up game whose win rate is logistic in each; targets that one
    number's two steps reach: the answer is the brute-force best of the grid's true rates, and the
    candidates with a larger change than it are never played."""
    keys, base = ("sandbags", "waters_rise", "hand_limit"), (2, 3, 5)
    grid = list(itertools.product(range(0, 5), range(1, 6), range(4, 8)))
    pool = candidates(*grid, keys=keys, base=base)
    levels, offsets, effects = ("novice", "elite"), (1.27, -0.69), ((0.2, 0.13), (-1.5, -1.5), (0.42, 0.5))

    def rate(values, level):
        i = levels.index(level)
        x = offsets[i] + sum(e[i] * (v - b) for e, v, b in zip(effects, values, base))
        return 1 / (1 + math.exp(-x))
    rates = {c.index: {level: rate(grid[c.index], level) for level in levels} for c in pool}
    goal = Goal((("novice", rate((4, 3, 5), "novice")), ("elite", rate((4, 3, 5), "elite"))), (3,))
    result = race.race(pool, goal, 2_000_000, games_of(rates))
    assert result.ranked[0] is order_of(rates, goal, pool) and result.settled and result.reached == "reached"
    assert dict(result.ranked[0].values) == {"sandbags": 4, "waters_rise": 3, "hand_limit": 5}
    unplayed = [c for c in pool if c not in result.readings]
    assert len(unplayed) > len(pool) / 2
    assert all(c.change > result.ranked[0].change and result.dropped[c][1] == LARGER for c in unplayed)
    assert max(c.change for c in result.readings) > result.ranked[0].change     # the next groups entered meanwhile


def test_the_race_spends_its_games_where_candidates_are_close():
    """Far candidates leave after their first look; only close ones play on."""
    rates = {i: {"normal": r} for i, r in enumerate((0.95, 0.9, 0.53, 0.47, 0.1, 0.05))}
    goal = Goal(NORMAL, (3,), tolerance=0.0)
    result = race.race(candidates(*[(v,) for v in range(1, 7)]), goal, 2_000_000, games_of(rates))
    games = {c.index: result.readings[c].games for c in result.ranked}
    assert games[0] == games[5] == FIRST_ROUND
    assert min(games[2], games[3]) > 8 * FIRST_ROUND


def test_an_unreachable_target_is_said_so_with_the_closest():
    rates = {i: {"novice": r, "normal": r / 2} for i, r in enumerate((0.3, 0.4, 0.5))}
    goal = Goal((("novice", 0.95), ("normal", 0.9)), (3,))
    result = race.race(candidates((1,), (2,), (3,)), goal, 500_000, games_of(rates))
    assert result.reached == "unreachable" and result.settled
    answer = result.ranked[0]
    assert answer.index == 2 and result.readings[answer].worst == ("normal", 3)


def test_ties_go_to_the_smaller_change():
    """Three candidates on the target: the one that changes one number by one step answers, settled
    once it is shown to fit; the one that changes two numbers is never played."""
    keys, base = ("sandbags", "hand_limit"), (2, 5)
    pool = candidates((4, 5), (3, 5), (3, 6), keys=keys, base=base)
    rates = {0: {"normal": 0.5}, 1: {"normal": 0.5}, 2: {"normal": 0.5}}
    result = race.race(pool, Goal(NORMAL, (3,), tolerance=0.03), 2_000_000, games_of(rates))
    assert result.ranked[0].index == 1 and result.settled and result.reached == "reached"
    assert {c.index: why for c, (_, why) in result.dropped.items()} == {0: LARGER, 2: LARGER}
    assert pool[2] not in result.readings


@pytest.mark.parametrize("name,window,values,answer", [
    ("turns", (10.0, 20.0), (25.0, 15.0), 1),
    ("close_wins", (0.3, math.inf), (0.1, 0.45), 1),
    ("lost_treasures", (1.0, math.inf), (0.8, 1.6), 1),
    ("drama", (0.0, 0.4), (0.52, 0.35), 1),
    ("decided", (0.6, 1.0), (0.55, 0.7), 1),
])
def test_a_constraint_drops_the_candidates_that_break_it(name, window, values, answer):
    """--turns 10..20, --close-wins 0.3.., --lost-treasures 1.., --drama ..0.4, --decided 0.6..: the
    closer candidate breaks it; the one that meets it answers though it misses the target by more. Drama and
    decisiveness come from a fixed sample of traced games (their errors do not shrink with the
    looks): judged by their estimates, the race still settles."""
    rates = {0: {"normal": 0.5}, 1: {"normal": 0.46}}
    goal = Goal(NORMAL, (3,), windows=((name, window),))
    feel = {i: {name: v} for i, v in enumerate(values)}
    result = race.race(candidates((2,), (4,)), goal, 1_000_000, games_of(rates, feel=feel))
    assert result.ranked[0].index == answer and result.settled
    assert result.readings[result.ranked[1]].shown_violating


def test_a_traced_measure_is_judged_by_its_estimate_and_an_unmeasured_one_breaks_its_window():
    """Drama 0.35 with an interval across the window's end meets ..0.4 by its estimate (no look
    could narrow it), as a bounded measure would not; drama with no traced game won breaks it."""
    goal = Goal(NORMAL, (3,), windows=(("drama", (0.0, 0.4)),))
    wins = {("normal", 3): np.ones(100, bool)}
    for estimate, meets in ((0.35, True), (0.45, False), (math.nan, False)):
        evidence = Evidence(wins, {"turns": (15, 1), "close_wins": (0.3, 0.1), "lost_treasures": (1, 0.1),
                                   "drama": (estimate, 0.1), "decided": (0.6, 0.1)})
        judged = race.Reading(100, evidence, goal, 2.0, goal.traced)
        assert (judged.shown_meeting, judged.shown_violating, judged.violates) == (meets, not meets, not meets)
    bounded = race.Reading(100, Evidence(wins, {**evidence.feel, "drama": (0.35, 0.1)}), goal, 2.0)
    assert not bounded.shown_meeting and not bounded.shown_violating


def test_a_near_tie_is_not_settled_and_the_budget_holds():
    """0.51 and 0.49 are alike far from 0.5 with no tolerance: the budget runs out, and says so."""
    rates = {0: {"normal": 0.51}, 1: {"normal": 0.49}}
    goal = Goal(NORMAL, (3,), tolerance=0.0)
    result = race.race(candidates((2,), (4,)), goal, 60_000, games_of(rates))
    assert not result.settled and len(result.alive) == 2 and result.games <= 60_000
    assert [r["most"] for r in result.rounds][:9] == [100, 200, 400, 800, 1800, 2800, 4800, 8800, 16800]


def test_a_race_the_budget_cannot_afford_is_cut_to_its_best_by_rank():
    """60 candidates of one change, half a point apart: the race alone would outrun 60,000 games,
    so rounds keep what the budget allows, best first, never fewer than FINALISTS; the closest
    stays in."""
    pool = [Candidate(i, (("sandbags", 1),), (("sandbags", 0),)) for i in range(60)]
    rates = {i: {"normal": 0.2 + 0.005 * i} for i in range(60)}
    result = race.race(pool, Goal((("normal", 0.4015),), (3,), tolerance=0.0), 60_000, games_of(rates))
    assert result.cut > 0 and result.games <= 60_000 and len(result.alive) >= race.FINALISTS
    answer = result.ranked[0]
    spread = 3 * np.sqrt(0.25 / result.readings[answer].games)     # three standard errors of its rate
    assert 40 in {c.index for c in result.alive} and abs(rates[answer.index]["normal"] - 0.4015) <= spread


def test_every_look_ends_where_a_chunk_of_its_store_ends():
    """A look plays whole chunks (no chunk holds games past it), however long the budget lets it
    grow: the screen's chunks of FIRST_ROUND, then the race store's doubling ones."""
    from fisim.results.chunks import chunk_slot
    looks = race.schedule(100_000_000, 1)          # the largest --budget, one cell
    ends = {sum(chunk_slot(k, race.RACE_CHUNK)) for k in range(len(looks))}
    assert looks[:4] == [100, 200, 400, 800] and looks[-1] > 98_000_000
    assert all(n - race.SCREEN in ends for n in looks[4:])


def test_pooled_player_counts_average_each_deals_wins():
    """pooled: a level's rate is the mean of its counts' rates, its interval that of per-game means."""
    goal = Goal((("normal", 0.5),), (2, 3, 4), pooled=True)
    draws = np.random.default_rng(2).random((3, 4000))
    values = {("normal", "pooled"): (draws < np.array([[0.3], [0.5], [0.7]])).mean(axis=0)}
    reading = race.Reading(4000, Evidence(values, {}), goal, 1.96)
    assert reading.rate[("normal", "pooled")] == pytest.approx(0.5, abs=0.02)
    low, high = reading.low[("normal", "pooled")], reading.high[("normal", "pooled")]
    assert 0.005 < (high - low) / 2 < 0.0155          # narrower than 4,000 games' 0.0155


# === the feel measures and the verification's size =============================================

def cell_totals(turns, close, wins, games):
    """A cell's totals with the given histogram of turns and of close wins' masks."""
    return {"games": games, "wins": wins, "turns_hist": np.asarray(turns), "won_close_hist": np.asarray(close),
            "treasures_hist": np.asarray([games - wins, 0, 0, 0, wins])}


def test_the_feel_measures_weigh_each_cell_alike_and_pool_the_wins():
    """Mean turns: the mean of each cell's mean, its standard error from each cell's spread; the
    share of close wins: the close wins of all cells over their wins."""
    a = cell_totals([0] * 10 + [10, 0, 10], [5, 5], 10, 20)              # 10 and 12 turns: mean 11, sd 1
    b = cell_totals([0] * 20 + [40], [10, 30], 40, 40)                   # 20 turns every game
    mean, error = constraints.mean_turns([a, b], 0)
    assert mean == pytest.approx(15.5) and error == pytest.approx(math.sqrt(1 / 20) / 2)
    share, error = constraints.close_wins([a, b], 0)
    assert share == pytest.approx(35 / 50) and error == pytest.approx(math.sqrt(0.7 * 0.3 / 50))
    assert math.isnan(constraints.close_wins([cell_totals([0, 5], [0], 0, 5)], 0)[0])


def test_lost_treasures_pool_the_losses_of_every_cell():
    """Of a's 10 losses none had a treasure, of b's 10 losses all had two (a won game has all
    four, R-WIN): a mean of 1 over the 20 losses, its standard error from their spread."""
    a = cell_totals([0, 20], [5, 5], 10, 20)
    a["treasures_hist"] = np.asarray([10, 0, 0, 0, 10])
    b = cell_totals([0, 20], [5, 5], 10, 20)
    b["treasures_hist"] = np.asarray([0, 0, 10, 0, 10])
    mean, error = constraints.lost_treasures([a, b], 0)
    assert mean == pytest.approx(1.0) and error == pytest.approx(math.sqrt(20 / 19 / 20))
    won = cell_totals([0, 5], [5], 5, 5)
    assert math.isnan(constraints.lost_treasures([won], 0)[0])


def test_drama_and_decisiveness_are_the_traced_games_means():
    """Traces of 4 worlds (the worlds won at the start of each round, then the end): drama is the
    mean lowest chance of the games won (0.25 and 0.5), decided the mean share of the game before
    the chance stayed on the outcome's side (won from round 2 of 3: 2/3; won and lost from round 1
    of 2: 1/2), pooled over the cells; with no game won, drama unmeasured."""
    a = {"traces": [[1, 2, 4, 4], [2, 4, 4]]}
    b = {"traces": [[2, 0, 0]]}
    drama, error = constraints.FEEL["drama"].measure([a, b], 4)
    assert drama == pytest.approx(0.375) and error == pytest.approx(0.125)
    decided, _ = constraints.FEEL["decided"].measure([a, b], 4)
    assert decided == pytest.approx((2 / 3 + 1 / 2 + 1 / 2) / 3)
    assert constraints.FEEL["drama"].measure([b], 4)[1] == math.inf
    assert math.isnan(constraints.FEEL["drama"].measure([b], 4)[0])


def test_the_verification_is_sized_to_the_tolerance():
    """A 95% interval at most half the tolerance on either side at the target nearest one half."""
    goal = Goal((("novice", 0.85), ("elite", 0.4)), (3,))
    assert verification.fresh_games(goal) == 10_000                          # 1.96^2 0.24 / 0.01^2 = 9,220
    assert verification.fresh_games(Goal(goal.targets, (3,), tolerance=0.04)) == 3000     # 2,305
    assert verification.fresh_games(goal, 4000) == 4000
    assert verification.fresh_games(Goal(goal.targets, (3,), tolerance=0.0)) == defaults.DESIGN_VERIFY_GAMES


@pytest.mark.parametrize("settled,reached,first", [
    (True, "reached", "The answer: sandbags 2->4."),
    (False, "open", "The best estimate: sandbags 2->4 (the search is not settled)."),
    (True, "unreachable", "Target out of reach: no candidate reaches novice 85%, elite 40%; the closest, sandbags "
                          "2->4, misses by 3.2 points (elite)."),
])
def test_at_a_glance_names_the_answer_or_says_what_the_search_could_not(settled, reached, first):
    from fisim.reporting.design import glance
    record = {"request": {"targets": {"novice": 0.85, "elite": 0.4}, "players": [3], "pooled": False},
              "outcome": {"settled": settled, "reached": reached, "verdict": "the words of the verdict"}}
    verified = pd.DataFrame([{"rank": 1, "changes": "sandbags 2->4", "largest_miss": 0.032, "worst": "elite",
                              "verified_within_tolerance": False, "verified_largest_miss": 0.035,
                              "verified_worst": "elite", "verified_mean_turns": 18.8, "verified_close_any_share": 0.59,
                              "verified_traced": 20, "verified_drama": 0.53}])
    fresh = pd.DataFrame([{"rank": 1, "level": level, "players": "3", "rate": rate, "ci_low": rate - 0.01,
                           "ci_high": rate + 0.01, "target": target}
                          for level, rate, target in (("novice", 0.84, 0.85), ("elite", 0.365, 0.4))])
    lines = glance(record, verified, fresh)
    assert lines[0] == first and lines[1] == "The words of the verdict."
    assert lines[2].startswith("On fresh deals it wins novice 84.0% [83.0, 85.0] (target 85%); elite 36.5%")
    assert lines[3] == ("How it feels: games last 18.8 player turns, 59% of wins came close, a won game's chance of "
                        "winning fell to 53% at its lowest.")


# === options ===================================================================================

def test_targets_players_and_windows_parse():
    assert request.parse_targets("legendary=0.2,novice=0.85,3=.4") == (
        ("novice", 0.85), ("elite", 0.4), ("legendary", 0.2))
    assert request.parse_players("3") == ((3,), False)
    assert request.parse_players("each") == ((2, 3, 4), False)
    assert request.parse_players("pooled") == ((2, 3, 4), True)
    assert request.parse_players("2,4") == ((2, 4), False)
    assert request.parse_players([2, 4]) == ((2, 4), False)
    assert request.parse_window("--turns", "10..20") == (10.0, 20.0)
    assert request.parse_window("--turns", "12.5..") == (12.5, float("inf"))
    assert request.parse_window("--close-wins", (0.3, 1)) == (0.3, 1.0)


def test_the_plan_skips_tuples_the_rules_forbid_and_measures_change():
    """capture above treasure_cards cannot be played (R-TDECK, R-ACT-CAPTURE): such tuples are
    left out, and a change is measured from the printed rules."""
    plan = request.plan(["treasure_cards=3..5", "capture=3..4"], "normal=0.5", policy="greedy")
    assert plan.unplayable == 1 and len(plan.candidates) == 5
    changes = {c.label: c.change for c in plan.candidates}
    assert changes["treasure_cards 5->3, capture 4->3"] == (2, 3) and changes["no change"] == (0, 0)
    keys = {c.cells[0][1].key for c in plan.candidates}
    assert len(keys) == 5


def test_a_candidates_cells_are_those_a_sweep_of_its_variant_plays():
    """The cell of sandbags=3 at Elite is the sweep's cell of --set sandbags=3 (one key: one store
    chunk serves both)."""
    from fisim.grid import sweep_cells
    plan = request.plan(["sandbags=3"], "elite=0.4,normal=0.5", players="2,3", policy="greedy",
                        rules=["heli-all"])
    swept = {(c.level, c.players): c.key for c in sweep_cells("normal,elite", "2,3", policies="greedy",
                                                              rules="heli-all", sets=["sandbags=3"])
             if c.variant is not None}
    assert {m: cell.key for m, cell in plan.candidates[0].cells} == swept


def test_a_tuple_is_one_cell_whatever_the_order_of_the_sets():
    one = request.plan(["sandbags=3", "hand_limit=6"], "normal=0.5", policy="greedy")
    other = request.plan(["hand_limit=6", "sandbags=3"], "normal=0.5", policy="greedy")
    assert one.candidates[0].cells[0][1].key == other.candidates[0].cells[0][1].key


def test_the_feel_measures_are_the_command_line_options():
    from fisim.cli.design import design as command
    options = {o.name: o.opts for o in command.params}
    assert {f"feel_{name}" for name in constraints.FEEL} <= set(options)
    assert options["feel_close_wins"] == ["--close-wins"] and options["feel_turns"] == ["--turns"]


def test_defaults_come_from_the_defaults_module():
    signature = inspect.signature(fisim.design).parameters
    assert signature["policy"].default == defaults.POLICY and signature["out"].default == defaults.DESIGN_OUT
    assert signature["budget"].default == defaults.DESIGN_BUDGET
    assert signature["trace_games"].default == defaults.TRACE_GAMES
    assert signature["tolerance"].default == defaults.DESIGN_TOLERANCE
    assert signature["best"].default == defaults.DESIGN_BEST
    from fisim.cli.design import design as command
    options = {o.name: o.default for o in command.params}
    assert (options["tolerance"], options["best"], options["budget"]) == (
        defaults.DESIGN_TOLERANCE, defaults.DESIGN_BEST, defaults.DESIGN_BUDGET)


GOOD = ["--set", "sandbags=1..3", "--target", "normal=0.5"]


@pytest.mark.parametrize("args,message", [
    (["--set", "speed=1..3", "--target", "normal=0.5"], "--set speed=1..3: choose a rule number from"),
    (["--set", "sandbags=3..1", "--target", "normal=0.5"], "the range 3..1 is empty"),
    (["--set", "sandbags=1..x", "--target", "normal=0.5"], "give whole numbers"),
    (["--set", "sandbags=5..9", "--target", "normal=0.5"], "sandbags = 7: give a whole number from 0 to 6"),
    (["--set", "hand_limit=2..3", "--target", "normal=0.5"], "--set hand_limit=2: no candidate with it can be played"),
    (["--set", "sandbags=1..3", "--target", "normal=1.2"], "--target normal must be a number above 0 and below 1"),
    (["--set", "sandbags=1..3", "--target", "normal=0"], "above 0 and below 1"),
    (["--set", "sandbags=1..3", "--target", "hard=0.5"], "unknown level 'hard'"),
    (["--set", "sandbags=1..3", "--target", "normal"], "give LEVEL=RATE pairs"),
    (["--set", "sandbags=1..3", "--target", "normal=0.5,2=0.4"], "level normal is given twice"),
    ([*GOOD, "--players", "5"], "--players 5: unknown player count"),
    ([*GOOD, "--players", "each", "--team", "diver,pilot"], "--team fixes the adventurers of one player count"),
    ([*GOOD, "--tolerance", "0.7"], "--tolerance 0.7: give a distance"),
    ([*GOOD, "--turns", "20..10"], "--turns 20..10: give a window LOW..HIGH with 0 <= LOW <= HIGH"),
    ([*GOOD, "--turns", "long"], "--turns long: give a window LOW..HIGH of numbers"),
    ([*GOOD, "--close-wins", "x.."], "--close-wins x..: give a window LOW..HIGH of numbers"),
    ([*GOOD, "--drama", "..0.5", "--trace-games", "0"], "--drama is measured on traced games: give --trace-games 2"),
    ([*GOOD, "--budget", "50"], "--budget 50: the first round alone plays"),
    ([*GOOD, "--verify-games", "2500"], "--verify-games 2500: give a multiple of 1,000"),
    ([*GOOD, "--policy", "genius"], "genius"),
    ([*GOOD, "--format", "pdf"], "unknown report format 'pdf'"),
])
def test_bad_input_is_one_line_and_writes_nothing(tmp_path, args, message):
    r = run("design", *args, "--out", str(tmp_path / "d"))
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and message in r.stderr, r.stderr
    assert not (tmp_path / "d").exists()


@pytest.mark.parametrize("arguments,message", [
    ({"sets": 5}, "sets must be 'NUMBER=A..B'"),
    ({"target": 0.5}, "target must be LEVEL=RATE pairs"),
    ({"target": {"normal": "high"}}, "target normal=high: give LEVEL=RATE pairs"),
    ({"target": {"normal": True}}, "target normal must be a number above 0 and below 1"),
    ({"players": 2.5}, "players must be a count"),
    ({"budget": "lots"}, "budget must be a whole number of at least 1"),
    ({"best": 0}, "best must be a whole number from 1 to 100"),
    ({"seed": -1}, "seed must be a whole number from 0"),
    ({"turns": "long"}, "turns long: give a window"),
    ({"close_wins": [0.3]}, "close_wins must be 'LOW..HIGH' or a pair of numbers"),
    ({"decided": "0.5..", "trace_games": 1}, "decided is measured on traced games: give trace_games 2 or more"),
    ({"out": 3}, "out must be a path"),
    ({"report": "yes"}, "report must be True or False"),
    ({"progress": "yes"}, "progress must be True"),
    ({"rules": 4}, "rules must be a str such as 'heli-all' or a list of str"),
])
def test_the_api_checks_its_arguments_as_the_command_line_does(tmp_path, arguments, message):
    given = {"sets": "sandbags=1..3", "target": "normal=0.5", "policy": "greedy", "out": tmp_path / "d", **arguments}
    with pytest.raises(ConfigError) as caught:
        fisim.design(given.pop("sets"), given.pop("target"), **given)
    assert message in str(caught.value) and "\n" not in str(caught.value)
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


def test_the_default_folder_is_ignored_by_git():
    from pathlib import Path
    ignored = (Path(__file__).resolve().parent.parent / ".gitignore").read_text().splitlines()
    assert f"/{defaults.DESIGN_OUT}/" in ignored


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
    from fisim.designing import run
    target = grid[4]
    plan = request.plan(WATERS, f"normal={target:.3f}", policy="expert", budget=300_000, verify_games=2000,
                        trace_games=0, seed=3, tolerance=0.0)
    result = run(plan, tmp_path / "d")
    assert dict(result.answer.values)["waters_rise"] == 4 and result.played == result.asked
    rates = result.race.readings
    assert all(rates[c].rate[("normal", 3)] >= rates[d].rate[("normal", 3)] - 0.05
               for c, d in itertools.combinations(sorted(rates, key=lambda c: c.index), 2))
    curves = result.curves
    assert set(curves.loc[curves["phase"] == "verify", "seed"]) == {4}
    manifest = json.loads((tmp_path / "d" / "verify" / "manifest.json").read_text())
    assert manifest["seed"] == 4


@pytest.mark.compiles
def test_a_design_resumes_to_the_same_answer_and_a_seed_repeats_it(tmp_path):
    args = ["--set", "sandbags=1..3", "--set", "hand_limit=5..6", "--target", "novice=0.7,normal=0.5",
            "--policy", "expert", "--budget", "100000", "--verify-games", "1000", "--trace-games", "2", "--seed", "7",
            "--quiet", "--no-report"]
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
    from fisim.designing import run
    from fisim.designing.text import format_design
    plan = request.plan(["sandbags=0..2"], "legendary=0.99", policy="expert", budget=30_000, verify_games=1000,
                        trace_games=0)
    result = run(plan, tmp_path / "d")
    assert result.race.reached == "unreachable" and result.race.settled
    assert dict(result.answer.values)["sandbags"] == 2
    text = format_design(result, tmp_path / "d")
    assert "target out of reach" in text and "the closest misses by" in text


@pytest.mark.compiles
def test_every_candidate_says_how_it_feels_and_a_feel_constraint_chooses_the_answer(tmp_path):
    """The candidates' rows and the curves carry game length, close wins and, for the verified
    (traced), drama and decisiveness; a window on the game length no candidate's games reach
    leaves every one out, said so."""
    result = fisim.design(["sandbags=2..4"], {"normal": 0.55}, players=2, policy="expert", budget=50_000,
                          verify_games=1000, best=2, trace_games=12, out=tmp_path / "d", report=False, progress=False)
    table, curves = result.candidates, result.curves
    played = table[table["games"] > 0]
    assert played[["mean_turns", "sd_turns", "close_any_share", "turns", "close_wins"]].notna().all().all()
    verified = table[table["verified"]]
    assert (verified["verified_traced"] == 12).all() and verified["verified_drama"].between(0, 1).all()
    assert verified["verified_decided_round"].notna().all()
    fresh = curves[curves["phase"] == "verify"]
    assert (fresh["traced"] == 12).all() and fresh["mean_turns"].between(5, 40).all()
    short = fisim.design(["sandbags=2..4"], {"normal": 0.55}, players=2, policy="expert", budget=50_000,
                         verify_games=1000, best=1, trace_games=0, turns="1..3", out=tmp_path / "e", report=False,
                         progress=False)
    assert short.race.reached == "unreachable"
    assert all(r.shown_violating for r in short.race.readings.values())


@pytest.mark.compiles
def test_drama_and_decisiveness_constrain_the_search_on_its_traced_games(tmp_path):
    """--drama and --decided: the search traces its first games of each cell, each played
    candidate's drama is the one fisim.load reads from its cell of the search's store, a window
    every candidate meets gives the unconstrained answer on the same deals (and its folder serves
    a design without the window, playing nothing), and one none can meet
    (won games whose chance never fell below 99%) leaves every one out, said so."""
    from fisim.designing.text import format_design
    common = {"players": 2, "policy": "expert", "budget": 30_000, "verify_games": 1000, "best": 1, "trace_games": 6,
              "report": False, "progress": False}
    free = fisim.design(["sandbags=1..3"], {"normal": 0.45}, out=tmp_path / "free", **common)
    loose = fisim.design(["sandbags=1..3"], {"normal": 0.45}, drama="0..1", decided="0..1", out=tmp_path / "loose",
                         **common)
    assert dict(loose.answer.values) == dict(free.answer.values)
    again = fisim.design(["sandbags=1..3"], {"normal": 0.45}, out=tmp_path / "loose", **common)
    assert again.played == 0 and dict(again.answer.values) == dict(free.answer.values)    # traced games serve it
    stored = fisim.load(tmp_path / "loose" / "screen").set_index("rules")
    played = loose.candidates[loose.candidates["games"] > 0]
    for _, row in played.iterrows():
        cell = stored.loc["official" if row["sandbags"] == 2 else f"sandbags={row['sandbags']}"]
        assert row["traced"] == cell["traced"] == 6
        assert row["drama"] == pytest.approx(cell["drama"]) and row["decided"] == pytest.approx(cell["decided_share"])
    tense = fisim.design(["sandbags=1..3"], {"normal": 0.45}, drama="0.99..1", out=tmp_path / "tense", **common)
    assert tense.race.reached == "unreachable"
    assert all(r.shown_violating for r in tense.race.readings.values())
    assert "breaks drama" in format_design(tense, tmp_path / "tense")


@pytest.mark.compiles
def test_best_toml_plays_in_simulate_and_the_api_returns_tables(tmp_path):
    result = fisim.design(["sandbags=2..4"], {"normal": 0.55}, players=2, policy="expert", budget=50_000,
                          verify_games=1000, best=2, trace_games=0, out=tmp_path / "d", turns="5..40", report=False,
                          progress=False)
    assert isinstance(result.candidates, pd.DataFrame) and isinstance(result.curves, pd.DataFrame)
    assert result.arcs.empty and "chance" in result.arcs.columns             # nothing traced: no arc
    assert list(result.candidates["rank"]) == [1, 2, 3]
    assert result.candidates["verified"].sum() == min(2, len(result.race.readings))
    answer = dict(result.answer.values)["sandbags"]
    text = (tmp_path / "d" / "best.toml").read_text()
    assert f"sandbags = {answer}\n" in text
    play = next(line for line in text.splitlines() if line.startswith("# play it: fisim "))
    words = play.removeprefix("# play it: fisim ").replace("best.toml", str(tmp_path / "d" / "best.toml")).split()
    assert words[-4:] == ["--players", "2", "--level", "normal"] and "--policy" in words
    r = run(*words, "--games", "200")
    assert r.returncode == 0 and "rules best" in r.stdout and "policy expert" in r.stdout, r.stderr


@pytest.mark.compiles
@pytest.mark.parametrize("players", ["2,4", "pooled"])
def test_several_player_counts_are_each_held_to_the_targets_or_pooled(tmp_path, players):
    """Each: a rate per level and count, the largest miss over all; pooled: a level's rate the mean
    of its counts' rates on the same deals (here the verification's, read back from its store)."""
    result = fisim.design("sandbags=1..3", "normal=0.5", players=players, policy="expert", budget=20_000,
                          verify_games=1000, best=1, trace_games=0, out=tmp_path / "d", report=False, progress=False)
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
def test_ctrl_c_says_the_games_kept_and_the_same_command_resumes_to_the_same_answer(tmp_path):
    """Ctrl-C during the race: exit 130, the games its stores hold, no table written; the same
    command resumes from them to the answer of an uninterrupted run."""
    import re
    import signal
    import subprocess
    import time

    from support.commands import FISIM, as_from_a_terminal
    args = ["--set", "sandbags=0..4", "--set", "hand_limit=4..6", "--target", "normal=0.45,elite=0.2",
            "--policy", "expert", "--budget", "200000", "--verify-games", "1000", "--trace-games", "0", "--seed", "5",
            "--quiet", "--no-report"]
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
    said = re.fullmatch(r"fisim: interrupted; ([\d,]+) games \(the finished chunks\) are kept in (.+): run the same "
                        r"command to resume", err.splitlines()[-1])
    assert proc.returncode == 130 and said and said[2] == str(out), err
    stored = sum(int(fisim.load(out / name)["games"].sum()) for name in ("screen", "race") if (out / name).exists())
    assert int(said[1].replace(",", "")) == stored >= 10 * FIRST_ROUND
    assert not (out / "candidates.csv").exists()
    resumed = run("design", *args, "--out", str(out))
    assert resumed.returncode == 0, resumed.stderr
    assert run("design", *args, "--out", str(tmp_path / "b")).returncode == 0
    pd.testing.assert_frame_equal(pd.read_csv(out / "candidates.csv"), pd.read_csv(tmp_path / "b" / "candidates.csv"))


@pytest.mark.compiles
def test_the_report_of_a_design_names_the_answer_and_opens_in_chromium(tmp_path):
    """`fisim design` writes DIR/report (and `fisim report DIR` writes it again): At a glance
    names the answer; the curves' figure and table give the target and each verified candidate's
    rate with its interval; what each changes; how each feels, with the answer's typical arc of
    the win chance over its traced fresh games (arcs.csv); every image loads in Chromium."""
    from support.reports import documented_tables, images_in_chromium, md_tables
    out = tmp_path / "d"
    r = run("design", "--set", "sandbags=2..4", "--target", "normal=0.36", "--tolerance", "0.04", "--players", "2",
            "--policy", "expert", "--budget", "150000", "--verify-games", "2000", "--best", "2", "--trace-games", "6",
            "--quiet", "--out", str(out))
    assert r.returncode == 0 and f"report: {out / 'report'}" in r.stdout, r.stderr
    md = (out / "report" / "report.md").read_text()
    record = json.loads((out / "design.json").read_text())
    answer = record["outcome"]["answer_changes"]
    glance = md.split("**At a glance**", 1)[1].split("Contents:", 1)[0]
    assert f"The answer: {answer}." in glance and "Settled: the answer is within 4.0 points" in glance
    tables = md_tables(md)
    curves = next(rows for caption, rows in tables.items() if caption.startswith("Win rate per level"))
    fresh = pd.read_csv(out / "curves.csv").query("phase == 'verify'")
    assert len(curves) == fresh["level"].nunique()
    assert [row["Target"] for row in curves] == ["36.0%"]
    assert any(caption.startswith("What each candidate changes") for caption in tables)
    assert any(caption.startswith("How each candidate's games feel") for caption in tables)
    again = run("report", str(out), "--out", str(tmp_path / "again"), "--format", "md,png,csv")
    assert again.returncode == 0 and (tmp_path / "again" / "report.md").read_text() == md
    schema = documented_tables()
    written = sorted((tmp_path / "again" / "tables").glob("*.csv"))
    assert [p.stem for p in written] == ["design-candidates", "design-curves", "design-feel", "design-rounds"]
    for path in written:
        assert list(pd.read_csv(path).columns) == schema[path.stem], path.stem
    arcs = pd.read_csv(out / "arcs.csv")
    assert set(arcs["rank"]) == {1, 2} and arcs["chance"].between(0, 1).all()
    assert set(arcs["outcome"]) <= {"won", "lost"}
    assert (arcs.groupby(["rank", "outcome"])["games"].first().groupby("rank").sum() == 6).all()   # its traced games
    images = images_in_chromium(out / "report" / "report.html", tmp_path)
    assert len(images) == 2 and all(i["complete"] and i["width"] > 0 for i in images), images   # curves, the arc
