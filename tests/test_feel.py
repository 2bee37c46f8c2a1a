"""How the game feels (docs/model.md, "Game record" and "The win chance over a game"): the
measures' definitions on made-up traces and histograms, the close calls and outcomes over many
games, the win-chance traces of the engine (the games played, whatever the threads; a known
answer; the win rate), and the store, the table and the report that carry them."""
import json
import math

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from support.commands import run

import fisim
from fisim import engine, grid
from fisim.crosscheck import crosscheck_game, switch_sets
from fisim.errors import ConfigError
from fisim.results import feel
from fisim.results.chunks import CLOSE_MASKS
from fisim.rules.config import GameConfig
from fisim.rules.constants import CLOSE_LANDING, CLOSE_SKULL, CLOSE_TEMPLE, LANDING_SUNK, N_TREASURES, TREASURE_LOST
from fisim.rules.layouts import builtin_layout
from fisim.rules.state import (
    R_CAPTURED,
    R_CAUSE,
    R_CLOSE,
    R_LEVEL,
    R_STATUS,
    R_TURNS,
    WON,
)
from fisim.rules.variant import make_variant
from fisim.stats import Z95, mean_interval
from fisim.store import Store, read_store
from fisim.sweeping import run_sweep
from policies import load_policy

compiles = pytest.mark.compiles

# --- the measures, on made-up traces and histograms -------------------------------------------


def test_drama_and_decisiveness_follow_their_definitions():
    """A trace is the worlds won (of 10 here) at the start of each round, then the end (10: won, 0:
    lost). Drama: the lowest chance of a game won; decided: the first round from which every
    chance, the end's included, stays at least 90% (won) or at most 10% (lost)."""
    games = feel.traced_games([[6, 2, 9, 10, 10], [6, 9, 8, 10], [4, 1, 0, 0], [5, 5, 0]], 10)
    assert games["won"].tolist() == [True, True, False, False]
    assert games["rounds"].tolist() == [4, 3, 3, 2]
    assert games["start"].tolist() == [0.6, 0.6, 0.4, 0.5]
    assert games["low"].tolist() == [0.2, 0.6, 0.0, 0.5]
    assert games["decided"].tolist() == [2, 3, 1, 2]          # the last: only the end decided it
    assert games["decided_share"].tolist() == [0.5, 1.0, 1 / 3, 1.0]
    summary = feel.chance_summary(games)
    assert (summary["traced"], summary["traced_wins"]) == (4, 2)
    assert summary["drama"] == pytest.approx(0.4) and summary["start_chance"] == pytest.approx(0.525)
    half = Z95 * np.std([0.2, 0.6], ddof=1) / math.sqrt(2)
    assert (summary["drama_low"], summary["drama_high"]) == pytest.approx((max(0.4 - half, 0), 0.4 + half))
    none = feel.chance_summary(feel.traced_games([], 10))
    assert none["traced"] == 0 and math.isnan(none["drama"]) and math.isnan(none["start_chance_low"])


def test_the_arc_reads_each_game_along_its_rounds():
    """Round r of k at r / k, the end at 1, linearly between; the mean over the games of each outcome."""
    arcs = feel.arc(feel.traced_games([[5, 10], [0, 10, 10], [5, 0]], 10)).set_index(["outcome", "played"])
    assert arcs.loc[("won", 0.0), "chance"] == pytest.approx(0.25)      # (0.5 + 0) / 2
    assert arcs.loc[("won", 0.5), "chance"] == pytest.approx(0.875)     # (0.75 + 1) / 2
    assert arcs.loc[("lost", 0.5), "chance"] == pytest.approx(0.25)
    assert set(arcs["games"]) == {1, 2} and len(arcs) == 2 * len(feel.ARC_POINTS)


def test_closeness_counts_wins_by_their_close_calls_and_losses_by_treasures():
    """won_close_hist[m]: the wins whose close mask is m; a won game holds all 4 treasures (R-WIN),
    so the losses' treasures are the games' histogram less the wins at 4."""
    hist = np.zeros(CLOSE_MASKS, np.int64)
    hist[0], hist[CLOSE_SKULL], hist[CLOSE_SKULL | CLOSE_TEMPLE], hist[CLOSE_LANDING] = 5, 2, 3, 1
    close = feel.closeness(hist, [4, 3, 2, 1, 11 + 7], wins=11, games=39)
    assert (close["close_skull"], close["close_landing"], close["close_temple"], close["close_any"]) == (5, 1, 3, 6)
    assert close["lost"] == 28 and close["lost_treasures"] == [4, 3, 2, 1, 7]
    assert close["lost_mean_treasures"] == pytest.approx((3 + 4 + 3 + 28) / 17)


def test_length_gives_the_spread_and_percentiles_of_a_turns_histogram():
    hist = np.bincount([10, 12, 12, 14, 20, 20, 20, 21, 30, 31])
    length = feel.length(hist)
    turns = np.repeat(np.arange(len(hist)), hist)
    assert length["mean_turns"] == pytest.approx(turns.mean()) and length["sd_turns"] == pytest.approx(turns.std())
    assert (length["p10_turns"], length["median_turns"], length["p90_turns"]) == (10, 20, 30)
    assert math.isnan(feel.length(np.zeros(1))["mean_turns"])


def test_mean_interval():
    mean, low, high = mean_interval([1.0, 2.0, 3.0, 4.0])
    assert mean == 2.5 and high - mean == pytest.approx(Z95 * np.std([1, 2, 3, 4], ddof=1) / 2) == mean - low
    assert math.isnan(mean_interval([0.3])[1]) and math.isnan(mean_interval([])[0])


# --- close calls and outcomes over many games (the engine; the reference) ----------------------

@compiles
@pytest.mark.parametrize("policy", ["expert", "random"])
def test_close_calls_keep_their_invariants_over_many_games(policy):
    """Over 6,000 games on two islands, 2-4 players, every level and a variant meter: a won game
    holds every treasure (R-WIN) and ended below the skull (R-LOSE skull); the skull bit is the
    meter one below the skull at the end (R-METER); a loss to treasure-lost had a treasure's last
    temple flooded first (R-FLOOD-1), and a loss to landing-sunk cannot end on a flooded landing."""
    short = make_variant({"meter": [2, 3, 3, 4, "skull"]}, "short", "a four-step meter")
    seen = 0
    for i, (layout, players, level, variant) in enumerate(
            [(layout, players, level, variant) for layout in ("standard", "skull-island") for players in (2, 3, 4)
             for level, variant in (("novice", None), ("elite", None), ("normal", short))]):
        config = GameConfig(players=players, level=level, variant=variant).validate()
        rows = engine.play_batch(builtin_layout(layout), config, load_policy(policy), seed=11 + i, first_game=0,
                                 n_games=6000 // 18)
        won, close, skull = rows[:, R_STATUS] == WON, rows[:, R_CLOSE], config.skull
        assert (rows[won, R_CAPTURED] == N_TREASURES).all() and (rows[won, R_LEVEL] < skull).all()
        assert (((close & CLOSE_SKULL) != 0) == (rows[:, R_LEVEL] == skull - 1)).all()
        assert (close[rows[:, R_CAUSE] == TREASURE_LOST] & CLOSE_TEMPLE).all()
        assert not (close[rows[:, R_CAUSE] == LANDING_SUNK] & CLOSE_LANDING).any()
        assert ((close >= 0) & (close < CLOSE_MASKS)).all()
        seen |= np.bitwise_or.reduce(close)
    assert seen == CLOSE_MASKS - 1, "every close call happens somewhere"


@compiles
def test_engine_and_reference_agree_on_the_close_calls_of_expert_games():
    """The reference's result (fisim.crosscheck.result_of_row, its `close`) is the engine's, event for
    event, over expert games that win, across the rule switches; each close call occurs."""
    expert, seen, won = load_policy("expert"), 0, 0
    for k, switches in enumerate(switch_sets()):
        for game in range(4):
            config = GameConfig(players=2 + game % 3, level="novice", switches=switches)
            mismatch, _ = crosscheck_game(builtin_layout("standard"), config, expert, seed=k, game=game)
            assert mismatch is None, f"{config}:\n{mismatch}"
            row = engine.record(builtin_layout("standard"), config, expert, k, game).result
            seen |= int(row[R_CLOSE])
            won += row[R_STATUS] == WON
    assert won >= 10 and seen == CLOSE_MASKS - 1


# --- the win chance traced by the engine --------------------------------------------------------

@compiles
def test_a_traced_game_is_the_game_played_and_its_trace_does_not_depend_on_threads():
    """trace_batch plays the games play_batch plays (the same result rows), estimates at the start
    of each round (ceil(turns / players) of them) and ends each trace with the outcome; one thread
    or two, the same traces."""
    layout, expert = builtin_layout("standard"), load_policy("expert")
    for config in (GameConfig(players=3, level="normal"), GameConfig(players=2, level="elite", switches={"heli-all"})):
        one, rows = engine.trace_batch(layout, config, expert, 4, 10, 24, 8, threads=1)
        two, rows_two = engine.trace_batch(layout, config, expert, 4, 10, 24, 8, threads=2)
        assert np.array_equal(one, two) and np.array_equal(rows, rows_two)
        assert np.array_equal(rows, engine.play_batch(layout, config, expert, 4, 10, 24))
        part, _ = engine.trace_batch(layout, config, expert, 4, 17, 5, 8)
        assert np.array_equal(part, one[7:12]), "a game's trace does not depend on the games traced with it"
        rounds = (one >= 0).sum(axis=1) - 1
        assert (rounds == -(-rows[:, R_TURNS] // config.players)).all()
        ends = one[np.arange(len(one)), rounds]
        assert (ends == np.where(rows[:, R_STATUS] == WON, 8, 0)).all()
        assert ((one[:, :1] >= 0) & (one[:, :1] <= 8)).all() and 0 < one[:, 0].mean() < 8
    assert not np.array_equal(engine.trace_batch(layout, config, expert, 4, 10, 2, 8, repeat=1)[0], one[:2])


@compiles
def test_a_team_that_cannot_win_has_no_chance_at_any_round():
    """A known answer: passive never captures a treasure, so no world is ever won (R-WIN): every
    chance is exactly 0."""
    traces, rows = engine.trace_batch(builtin_layout("standard"), GameConfig(players=3, level="novice"),
                                      load_policy("passive"), 0, 0, 30, 16)
    assert (rows[:, R_STATUS] != WON).all() and traces.max() == 0 and (traces >= 0).sum() > 60


@compiles
@pytest.mark.slow
def test_the_chance_before_the_first_turn_is_the_win_rate_within_sampling_error():
    """A known answer: a world dealt from the public start of a game is a random deal of its hidden
    piles, as the game's own are (R-SETUP-2, R-SETUP-4), so the mean chance before the first turn
    over 400 games estimates the policy's win rate, here measured on 20,000 games. Tolerance: 4
    standard errors of the difference (the spread of the 400 estimates, the binomial error of the
    rate)."""
    layout, config, expert = builtin_layout("standard"), GameConfig(players=3, level="normal"), load_policy("expert")
    traces, _ = engine.trace_batch(layout, config, expert, 21, 0, 400, 8)
    start = traces[:, 0] / 8
    won = engine.play_batch(layout, config, expert, 21, 0, 20_000)[:, R_STATUS] == WON
    rate = won.mean()
    error = math.sqrt(start.var(ddof=1) / len(start) + rate * (1 - rate) / len(won))
    assert abs(start.mean() - rate) < 4 * error, (start.mean(), rate, error)
    assert 4 * error < 0.06, "a test that can fail: the tolerance is a few points"


# --- the store, fisim.load and the report -------------------------------------------------------

@pytest.fixture(scope="module")
def traced(tmp_path_factory):
    """A sweep of expert with 6 games traced per cell, in chunks of 4 games (so the traced games
    span two chunks), with per-game rows."""
    out = tmp_path_factory.mktemp("feel") / "store"
    cells = grid.expand(["standard"], ["novice", "elite"], [2, 3], "random", ["expert"], [()])
    run_sweep(cells, out, seed=5, target={"games": 40}, per_game=True, chunk_games=4, trace_games=6)
    return out


@compiles
def test_load_gives_how_the_game_feels_from_the_traces_and_close_calls(traced):
    manifest, chunks = read_store(traced)
    assert manifest["trace"] == {"games": 6, "worlds": fisim.defaults.TRACE_WORLDS}
    assert sorted(len(t) for t in chunks["traces"]) == [0] * (4 * 8) + [2] * 4 + [4] * 4
    cells = fisim.load(traced)
    for _, cell in cells.iterrows():
        mine = chunks[chunks["cell"] == cell["cell"]].sort_values("chunk")
        traces = [t for ts in mine["traces"] for t in ts]
        expected = feel.chance_summary(feel.traced_games(traces, manifest["trace"]["worlds"]))
        assert cell["traced"] == 6 and cell["traced_wins"] == sum(t[-1] > 0 for t in traces)
        for name in ("start_chance", "drama", "decided_round", "decided_share"):
            assert cell[name] == pytest.approx(expected[name], nan_ok=True)
        assert cell["close_any"] <= cell["wins"] and cell["close_skull"] <= cell["close_any"]
        assert cell["median_turns"] <= cell["p90_turns"] and cell["sd_turns"] > 0
    per_game = pd.read_parquet(traced / "games")
    won = per_game[per_game["won"]]
    assert int(cells["close_temple"].sum()) == int(won["close_temple"].sum())
    assert int(cells["close_any"].sum()) == int(won[["close_skull", "close_landing", "close_temple"]].any(axis=1).sum())


@compiles
def test_a_chunk_whose_traces_or_close_calls_do_not_fit_is_refused(traced, tmp_path):
    """The store checks a chunk's traces against the manifest (how many, how many worlds) and its
    own games (each ends as its game did), and its wins by close call against its wins."""
    from fisim.store import _inconsistency
    trace = Store(traced).read_manifest()["trace"]
    path = next(p for p in sorted((traced / "chunks").glob("*-000000.parquet")))
    record = pq.read_table(path).to_pylist()[0]
    assert _inconsistency(record, trace) is None and len(record["traces"]) == 4
    worlds = trace["worlds"]
    flipped = [*record["traces"][0][:-1], worlds - record["traces"][0][-1]]
    for changed, words in (({"traces": record["traces"][1:]}, "3 win-chance traces, not the 4"),
                           ({"traces": [flipped, *record["traces"][1:]]}, "a win-chance trace does not fit"),
                           ({"traces": [[worlds + 1, *record["traces"][0][1:]], *record["traces"][1:]]},
                            "a win-chance trace does not fit"),
                           ({"won_close_hist": [record["won_close_hist"][0] + 1, *record["won_close_hist"][1:]]},
                            "by how close they came")):
        assert words in _inconsistency({**record, **changed}, trace)
    assert "4 win-chance traces, not the 0" in _inconsistency(record, {"games": 0, "worlds": 0})


@compiles
def test_a_store_is_extended_only_with_the_same_trace_and_a_bad_count_is_one_line(tmp_path):
    out = tmp_path / "s"
    args = ["sweep", "--levels", "normal", "--players", "2", "--policies", "random", "--games", "1000", "--quiet",
            "--no-report", "--out", str(out)]
    assert run(*args, "--trace-games", "3").returncode == 0
    r = run(*args, "--trace-games", "4")
    assert r.returncode == 2 and "differs in: trace" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    r = run(*args, "--trace-games", "-1")
    assert r.returncode == 2 and "--trace-games" in r.stderr and "Traceback" not in r.stderr
    with pytest.raises(ConfigError, match="trace_games must be a whole number from 0 to 100,000, not 2.5"):
        fisim.sweep(tmp_path / "api", levels="normal", players=[2], policies="random", games=100, trace_games=2.5)
    assert not (tmp_path / "api").exists()
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["trace"] == {"games": 3, "worlds": fisim.defaults.TRACE_WORLDS}
    manifest["trace"] = {"games": 3}
    (out / "manifest.json").write_text(json.dumps(manifest))
    r = run("report", str(out))
    assert r.returncode == 2 and "win-chance trace" in r.stderr


@compiles
def test_the_report_says_how_the_game_feels(traced, tmp_path):
    """The section's numbers are the store's: each level's wins that came close and its traced
    games, as fisim.load gives them per cell (teams pooled: one cell each here); its figure is drawn."""
    from support.reports import md_tables, rate_ci

    from fisim.reporting import write_report
    write_report(traced, tmp_path / "r", ("md", "png", "csv"))
    md = (tmp_path / "r" / "report.md").read_text()
    assert "## How the game feels" in md and (tmp_path / "r" / "figures" / "feel.png").stat().st_size > 5000
    cells = fisim.load(traced).set_index(["players", "level"])
    close = md_tables(md)["How close the games came, per player count and level"]
    assert len(close) == 4
    for row in close:
        cell = cells.loc[(int(row["Players"]), row["Level"])]
        assert row["Won any of these (of wins)"] == (rate_ci(cell["close_any"], cell["wins"]) if cell["wins"] else "–")
    chance = pd.read_csv(tmp_path / "r" / "tables" / "win-chance.csv").set_index(["players", "level"])
    for key, cell in cells.iterrows():
        assert chance.loc[key, "traced"] == cell["traced"] == 6
        assert chance.loc[key, "start_chance"] == pytest.approx(cell["start_chance"])
    arc = pd.read_csv(tmp_path / "r" / "tables" / "win-chance-arc.csv")
    assert set(arc["outcome"]) <= {"won", "lost"} and arc["chance"].between(0, 1).all()
    assert (arc.loc[arc["played"] == 1, "chance"] == (arc.loc[arc["played"] == 1, "outcome"] == "won")).all()
