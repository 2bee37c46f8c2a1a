"""Would a stronger team agree? (`fisim report --stronger`, fisim.stronger, issue 45 item 4): a
sweep's conclusions played again on a sample of the same deals by a stronger player, stored beside
the sweep (resumable), and set in its report, a conclusion that does not hold flagged in At a
glance. Expert is the published player of small real sweeps; the stand-in for a stronger one is
expert except under heli-all, where it does nothing (tests/support/heli_passive.py), so heli-all's
effect turns around under it and every other conclusion is expert's own."""
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from support.commands import run
from support.reports import documented_tables, md_tables, run_chromium

from fisim import grid
from fisim.comparison import mean_difference, paired_difference
from fisim.simulation import simulate
from fisim.stronger import FAILS, HOLDS, UNSETTLED, sign_verdict, size_verdict, worst
from fisim.sweeping import run_sweep

STANDIN = str(Path(__file__).resolve().parent / "support" / "heli_passive.py")
STANDIN_LABEL = "heli-passive@1"
STANDIN_FOLDER = Path("stronger") / "heli-passive"        # the check's stores: DIR/stronger/NAME/KIND
SEED, GAMES, DEALS = 3, 600, 200
CONCLUSIONS = f"The report's conclusions under {STANDIN_LABEL}"
CLAIMS = "Each claim: the difference A − B in points (95% CI), in the report and on the sample"


# --- the verdicts ------------------------------------------------------------------------------

@pytest.mark.parametrize("report, stronger, verdict", [
    ((0.05, 0.02, 0.08), (0.04, 0.01, 0.07), HOLDS),           # confirmed on the report's side
    ((0.05, 0.02, 0.08), (-0.04, -0.07, -0.01), FAILS),        # reversed
    ((0.05, 0.02, 0.08), (0.01, -0.02, 0.04), UNSETTLED),      # the sample cannot tell
    ((0.01, -0.01, 0.03), (0.00, -0.03, 0.03), HOLDS),         # neither orders the two
    ((0.01, -0.01, 0.03), (-0.05, -0.08, -0.02), FAILS),       # an order against the report's point estimate
    ((-0.03, -0.05, -0.01), (-0.2, -0.3, -0.1), HOLDS),        # a rule reading's effect below 0, kept
])
def test_a_claims_verdict_follows_the_documented_rule(report, stronger, verdict):
    assert sign_verdict(report, stronger) == verdict


def test_a_size_holds_unless_its_change_excludes_zero_and_the_worst_verdict_counts():
    assert size_verdict((0.01, -0.005, 0.025)) == HOLDS and size_verdict((0.0, 0.0, 0.0)) == HOLDS
    assert size_verdict((0.03, 0.01, 0.05)) == FAILS and size_verdict((-0.03, -0.05, -0.01)) == FAILS
    assert worst([HOLDS, UNSETTLED]) == UNSETTLED and worst([UNSETTLED, FAILS, HOLDS]) == FAILS
    assert worst([]) == HOLDS


def test_mean_difference_is_the_paired_difference_of_wins_and_pools_independent_samples():
    rng = np.random.default_rng(5)
    a, b = rng.random(400) < 0.6, rng.random(400) < 0.4
    assert np.allclose(mean_difference(a, b), paired_difference(a, b))
    c = rng.random(300) < 0.5
    diff, low, high = mean_difference(a, c, paired=False)
    half = 1.959963984540054 * np.sqrt(a.var() / 400 + c.var() / 300)
    assert np.allclose((diff, low, high), (a.mean() - c.mean(), diff - half, diff + half))


def test_an_arms_games_of_one_deal_count_once():
    """Twenty team cells that play the same 14 deals alike are 14 observations, not 280: the
    interval is the one of the 14 deals' differences, as wide as a single cell's, however many
    cells an arm pools (the flaw a pooled sample of 14 games a team had)."""
    from fisim.stronger import Arm, Claim, _claim_row
    rng = np.random.default_rng(7)
    a, b = rng.random(14) < 0.6, rng.random(14) < 0.4

    def arm(won, cells):
        return {(f"team {k}",): won for k in range(cells)}, {(f"team {k}",): (won, won) for k in range(cells)}
    many = _claim_row(Claim("player-counts", "3 > 4", Arm("3", {}), Arm("4", {}), False), arm(a, 20), arm(b, 15))
    one = _claim_row(Claim("player-counts", "3 > 4", Arm("3", {}), Arm("4", {}), False), arm(a, 1), arm(b, 1))
    assert many["games_above"] == many["games_below"] == 14
    for name in ("report", "published", "stronger"):
        assert np.allclose([many[f"{name}_difference{end}"] for end in ("", "_ci_low", "_ci_high")],
                           mean_difference(a, b))
        assert many[f"{name}_difference_ci_low"] == one[f"{name}_difference_ci_low"]


# --- a real sweep checked ----------------------------------------------------------------------

def _sweep(path):
    cells = grid.expand(["standard"], ["novice"], [2, 4], "random", ["expert"],
                        [(), ("heli-all",), ("sunk-card-stays",)])
    run_sweep(cells, path, seed=SEED, target={"games": GAMES})
    return path


def _check(store, *options, games=DEALS):
    return run("report", str(store), "--stronger", STANDIN, "--stronger-games", str(games), "--format",
               "md,html,csv", *options)


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    store = _sweep(tmp_path_factory.mktemp("stronger") / "sweep")
    r = _check(store)
    assert r.returncode == 0, r.stderr
    return store


def _table(store, name):
    return pd.read_csv(store / "report" / "tables" / f"stronger-{name}-heli-passive-1.csv")


@pytest.mark.compiles
def test_a_conclusion_that_does_not_hold_is_flagged_at_a_glance(checked, tmp_path):
    md = (checked / "report" / "report.md").read_text()
    glance = md.split("**At a glance**")[1].split("Contents:")[0]
    assert f"- Does not hold under {STANDIN_LABEL}: heli-all against official (" in glance
    assert "Does not hold" not in glance.replace(f"Does not hold under {STANDIN_LABEL}: heli-all", "")
    assert f"Would a stronger team agree? Under {STANDIN_LABEL}" in glance and "1 does not hold" in glance
    assert "## Would a stronger team agree?" in md and "[Would a stronger team agree?](#" in md
    verdicts = {r["Conclusion"]: r["Verdict"] for r in md_tables(md)[CONCLUSIONS]}
    assert verdicts["heli-all against official"] == FAILS
    assert verdicts["sunk-card-stays against official"] == HOLDS       # its games are expert's own: no change
    assert set(verdicts) == {"heli-all against official", "sunk-card-stays against official",
                             next(c for c in verdicts if c.startswith("novice: "))}
    html = (checked / "report" / "report.html").read_text()
    assert html.count('<tr class="does-not-hold">') == 2 and "Does not hold under" in html
    page = (checked / "report" / "report.html").as_uri()
    r = run_chromium(tmp_path, "--virtual-time-budget=5000", "--dump-dom", page)
    assert r.returncode == 0, r.stderr[-2000:]
    shown = re.search(r'<section id="stronger-heli-passive-1".*?</section>', r.stdout, flags=re.S)
    assert shown and shown.group(0).count('class="does-not-hold"') == 2
    documented = documented_tables()
    for name in ("conclusions", "claims"):
        assert list(_table(checked, name).columns) == documented[f"stronger-{name}-<S>"]


def _won(policy, players, rules, games):
    return simulate(level="novice", players=players, policy=policy, rules=rules, games=games,
                    seed=SEED)["won"].to_numpy()


@pytest.mark.compiles
def test_the_checks_numbers_are_those_of_the_same_deals_played_again(checked):
    """Each claim's differences are those of simulate's games of the same deals, the deal the unit
    (game i of every cell is the same deal): a rule reading's per deal the mean of its two player
    counts' games (DEALS / 2 deals a cell), compared deal by deal with the official rules'; the
    player counts' deal by deal too."""
    claims = _table(checked, "claims").set_index("conclusion")
    n = DEALS // 2

    def per_deal(policy, rules, games):
        return np.mean([_won(policy, p, rules, games) for p in (2, 4)], axis=0)
    for reading, verdict in (("heli-all", FAILS), ("sunk-card-stays", HOLDS)):
        row = claims.loc[f"{reading} against official"]
        full, pub, strong = ([per_deal(policy, rules, games) for rules in ([reading], [])]
                             for policy, games in (("expert", GAMES), ("expert", n), (STANDIN, n)))
        for name, (a, b) in (("report", full), ("published", pub), ("stronger", strong)):
            assert np.allclose(row[[f"{name}_difference", f"{name}_difference_ci_low", f"{name}_difference_ci_high"]],
                               mean_difference(a, b))
        change = mean_difference(strong[0] - pub[0], strong[1] - pub[1])
        assert np.allclose(row[["change", "change_ci_low", "change_ci_high"]], change)
        assert row["games_above"] == row["games_below"] == n and row["verdict"] == verdict
    heli = claims.loc["heli-all against official"]
    assert heli["stronger_difference_ci_high"] < 0 and heli["change_ci_high"] < 0      # the stand-in loses there
    counts = claims[claims["kind"] == "player-counts"].iloc[0]
    above, below = (int(counts[side].split()[0]) for side in ("above", "below"))
    full = [_won("expert", p, [], GAMES) for p in (above, below)]
    assert full[0].mean() >= full[1].mean()                                 # the report's order
    assert np.allclose(counts[["stronger_difference", "stronger_difference_ci_low", "stronger_difference_ci_high"]],
                       mean_difference(*(_won(STANDIN, p, [], DEALS) for p in (above, below))))
    assert np.allclose(counts[["report_difference", "report_difference_ci_low", "report_difference_ci_high"]],
                       mean_difference(*full))
    note = (checked / "report" / "report.md").read_text()
    assert "expert@1's replay of the sample is the sweep's own games: the same outcome in all 1,000." in note
    spent = json.loads((checked / STANDIN_FOLDER / "seconds.json").read_text())
    assert spent[STANDIN_LABEL]["games"] == spent["expert@1"]["games"] == 2 * DEALS + 6 * n
    assert f"Cost: 1,000 games of {STANDIN_LABEL} and 1,000 of expert@1 in " in note


def _chunks(path):
    return {p.name: p.stat().st_mtime_ns for p in path.rglob("*.parquet")}


@pytest.mark.compiles
def test_the_check_resumes_grows_and_finishes_what_was_interrupted(checked, tmp_path):
    store = tmp_path / "sweep"
    shutil.copytree(checked, store)
    before = _chunks(store / STANDIN_FOLDER)
    r = _check(store)                                          # the same command: nothing to play
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("nothing to play: the store is complete") == 4 and _chunks(store / STANDIN_FOLDER) == before
    spent = json.loads((store / STANDIN_FOLDER / "seconds.json").read_text())
    assert spent[STANDIN_LABEL]["games"] == 1000
    assert spent == json.loads((checked / STANDIN_FOLDER / "seconds.json").read_text())   # nor more seconds
    rules = store / STANDIN_FOLDER / "rules"
    lost = max(rules.glob("chunks/*.parquet"), key=lambda p: p.name)     # a chunk Ctrl-C did not let finish
    lost.unlink()
    r = run("report", str(store), "--format", "md")            # the report says what the check lacks
    assert r.returncode == 0 and "has not played 1 cell" in r.stderr
    assert "has not played 1 cell" in (store / "report" / "report.md").read_text()
    r = _check(store)
    assert r.returncode == 0 and "resuming" in r.stderr and lost.exists()
    grown = json.loads((store / STANDIN_FOLDER / "seconds.json").read_text())
    assert sum(v["games"] for v in grown.values()) == 2000 + DEALS // 2
    r = _check(store, games=2 * DEALS)                         # a larger sample grows each store
    assert r.returncode == 0, r.stderr
    claims = _table(store, "claims")
    assert set(claims["games_above"]) == {DEALS, 2 * DEALS}        # deals: a rule reading's two cells share them
    r = _check(store, games=DEALS // 2)                        # a smaller one keeps what is stored
    assert r.returncode == 0 and r.stderr.count("nothing to play") == 4
    assert set(_table(store, "claims")["games_above"]) == {DEALS, 2 * DEALS}


@pytest.mark.compiles
def test_each_stronger_player_has_its_own_sample(checked, tmp_path):
    """A second check, under greedy with twice the games, goes into a folder of its own: the
    report has a section for each, each with its sample, and the first check's stores keep their
    target (checking under the first player again plays nothing)."""
    store = tmp_path / "sweep"
    shutil.copytree(checked, store)
    before = _chunks(store / STANDIN_FOLDER)
    r = run("report", str(store), "--stronger", "greedy", "--stronger-games", str(2 * DEALS), "--format", "md,csv")
    assert r.returncode == 0, r.stderr
    assert _chunks(store / STANDIN_FOLDER) == before and (store / "stronger" / "greedy" / "rules").is_dir()
    r = _check(store)
    assert r.returncode == 0 and r.stderr.count("nothing to play: the store is complete") == 4, r.stderr
    md = (store / "report" / "report.md").read_text()
    assert f"## Would a stronger team agree? ({STANDIN_LABEL})" in md
    assert "## Would a stronger team agree? (greedy@" in md
    assert f"(section “Would a stronger team agree? ({STANDIN_LABEL})”)" in md.split("Contents:")[0]
    (greedy,) = (store / "report" / "tables").glob("stronger-claims-greedy-*.csv")
    assert set(pd.read_csv(greedy)["games_above"]) == {DEALS, 2 * DEALS}
    assert set(_table(store, "claims")["games_above"]) == {DEALS // 2, DEALS}
    pd.testing.assert_frame_equal(_table(store, "claims"), _table(checked, "claims"))


@pytest.mark.compiles
def test_a_check_an_earlier_fisim_kept_in_dir_stronger_is_read_and_grown_there(checked, tmp_path):
    """An earlier fisim kept a check's stores in DIR/stronger itself: the report reads them as
    before, and the same check grows them in place."""
    store = tmp_path / "sweep"
    shutil.copytree(checked, store, ignore=shutil.ignore_patterns("report"))
    for path in list((store / STANDIN_FOLDER).iterdir()):
        path.rename(store / "stronger" / path.name)
    (store / STANDIN_FOLDER).rmdir()
    r = run("report", str(store), "--format", "csv")
    assert r.returncode == 0, r.stderr
    pd.testing.assert_frame_equal(_table(store, "claims"), _table(checked, "claims"))
    r = _check(store, games=2 * DEALS)
    assert r.returncode == 0, r.stderr
    assert not (store / STANDIN_FOLDER).exists() and set(_table(store, "claims")["games_above"]) == {DEALS, 2 * DEALS}


@pytest.mark.compiles
def test_teams_and_islands_are_checked_in_the_reports_order(tmp_path):
    """A sweep of fixed teams on two islands: the strongest team above the next, the one before
    the last above the weakest (levels pooled, paired level by level), the islands easiest first."""
    store = tmp_path / "sweep"
    teams = "diver+pilot,engineer+explorer,messenger+navigator"
    cells = grid.expand(["standard", "skull-island"], ["novice", "normal"], [2], grid.parse_teams(teams), ["expert"],
                        [()])
    run_sweep(cells, store, seed=SEED, target={"games": 300})
    r = run("report", str(store), "--stronger", "greedy", "--stronger-games", "100", "--format", "csv")
    assert r.returncode == 0, r.stderr
    (found,) = (store / "report" / "tables").glob("stronger-claims-greedy-*.csv")
    claims = pd.read_csv(found)
    assert list(dict.fromkeys(claims["kind"])) == ["teams", "islands"]
    ranked = pd.read_csv(store / "report" / "tables" / "teams-ranked.csv")["team"].tolist()
    strongest, weakest = claims[claims["kind"] == "teams"].iloc[0], claims[claims["kind"] == "teams"].iloc[1]
    assert (strongest["above"], strongest["below"]) == tuple(ranked[:2])
    assert (weakest["above"], weakest["below"]) == tuple(ranked[-2:])
    assert strongest["games_above"] == 50         # 50 deals, each played at the two levels
    won = {(team, level): simulate(level=level, players=2, team=team.replace("+", ","), policy="greedy",
                                   games=50, seed=SEED)["won"].to_numpy()
           for team in ranked[:2] for level in ("novice", "normal")}
    a, b = (np.mean([won[(t, level)] for level in ("novice", "normal")], axis=0) for t in ranked[:2])
    assert np.allclose(strongest[["stronger_difference", "stronger_difference_ci_low", "stronger_difference_ci_high"]],
                       mean_difference(a, b))
    islands = claims[claims["kind"] == "islands"].iloc[0]
    order = pd.read_csv(store / "report" / "tables" / "island-win-rate.csv")["layout"].tolist()
    assert (islands["above"], islands["below"]) == (order[-1], order[0]) and islands["report_difference"] >= 0


@pytest.mark.compiles
def test_a_player_count_of_every_team_is_sampled_by_a_cell_of_random_teams(tmp_path):
    """A sweep of every team at 2 and 4 players: each count's sample is a cell with a team dealt
    at random each game (as many deals as games, one team each), where the first games of its
    fifteen team cells would be a few deals seen by every team; the report's difference is the
    sweep's own, its teams pooled deal by deal."""
    store = tmp_path / "sweep"
    cells = grid.expand(["standard"], ["novice"], [2, 4], "all", ["expert"], [()])
    run_sweep(cells, store, seed=SEED, target={"games": 100})
    r = run("report", str(store), "--stronger", "greedy", "--stronger-games", "60", "--format", "csv")
    assert r.returncode == 0, r.stderr
    (found,) = (store / "report" / "tables").glob("stronger-claims-greedy-*.csv")
    claims = pd.read_csv(found)
    counts = claims[claims["kind"] == "player-counts"].iloc[0]
    assert counts["random_teams"] and not claims[claims["kind"] == "teams"]["random_teams"].any()
    assert counts["games_above"] == counts["games_below"] == 60
    above, below = (int(counts[side].split()[0]) for side in ("above", "below"))
    for policy, name in (("expert", "published"), ("greedy", "stronger")):
        won = [simulate(level="novice", players=p, policy=policy, games=60, seed=SEED)["won"].to_numpy()
               for p in (above, below)]
        assert np.allclose(counts[[f"{name}_difference", f"{name}_difference_ci_low", f"{name}_difference_ci_high"]],
                           mean_difference(*won))
    ranked = pd.read_csv(store / "report" / "tables" / "teams-ranked.csv")
    assert len(ranked) == 30
    from fisim.store import read_store
    manifest, _ = read_store(store / "stronger" / "greedy" / "player-counts")
    assert sorted((c["players"], c["team"]) for c in manifest["cells"]) == \
        [(2, "random"), (2, "random"), (4, "random"), (4, "random")]
    full = {p: np.mean([simulate(level="novice", players=p, team=team.replace("+", ","), policy="expert", games=100,
                                 seed=SEED)["won"].to_numpy() for team in ranked.loc[ranked["players"] == p, "team"]],
                       axis=0) for p in (above, below)}
    assert np.allclose(counts[["report_difference", "report_difference_ci_low", "report_difference_ci_high"]],
                       mean_difference(full[above], full[below]))


@pytest.mark.compiles
@pytest.mark.parametrize("options, says", [
    (("--stronger-games", "100"), "--stronger-games goes with --stronger POLICY"),
    (("--threads", "1"), "--threads goes with --stronger POLICY"),
    (("--stronger", "expert"), "--stronger expert is the published player"),
    (("--stronger", "nobody"), "unknown policy 'nobody'"),
    (("--stronger", "greedy", "--stronger-games", "0"), "Invalid value for '--stronger-games'"),
    (("--stronger", "greedy", "--agreement", "expert,greedy"), "give --stronger or --agreement, not both"),
    (("--stronger", "greedy", "--format", "pdf"), "unknown report format 'pdf'"),
    (("--stronger", "greedy", "SECOND"), "one sweep store, not 2 directories"),
])
def test_bad_options_are_one_line_and_nothing_is_played_or_written(checked, tmp_path, options, says):
    store = tmp_path / "sweep"
    shutil.copytree(checked, store, ignore=shutil.ignore_patterns("stronger", "report"))
    options = [str(store) if o == "SECOND" else o for o in options]
    r = run("report", str(store), *options)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and says in r.stderr, r.stderr
    assert not (store / "stronger").exists() and not (store / "report").exists()


@pytest.mark.compiles
def test_a_sweep_with_nothing_to_check_is_refused(tmp_path):
    store = tmp_path / "one"
    run_sweep(grid.expand(["standard"], ["novice"], [2], "random", ["expert"], [()]), store, seed=SEED,
              target={"games": 100})
    r = run("report", str(store), "--stronger", "greedy")
    assert r.returncode == 2 and "nothing to check" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert not (store / "stronger").exists()


@pytest.mark.compiles
def test_the_python_api_checks_as_the_command_does(checked, tmp_path):
    """fisim.report(stronger=...) plays the command's games: a copy of the checked store, its check
    removed, checked again through the API holds the same conclusions, word for word."""
    import fisim
    store = tmp_path / "sweep"
    shutil.copytree(checked, store, ignore=shutil.ignore_patterns("stronger", "report"))
    written = fisim.report(store, formats="csv", stronger=STANDIN, stronger_games=DEALS, threads=1, progress=False)
    assert written and (store / "stronger").is_dir()
    ours = pd.read_csv(store / "report" / "tables" / "stronger-conclusions-heli-passive-1.csv")
    pd.testing.assert_frame_equal(ours, _table(checked, "conclusions"))


@pytest.mark.compiles
@pytest.mark.parametrize("arguments, says", [
    ({"stronger": 5}, "stronger must be a str"),
    ({"stronger": "greedy", "stronger_games": 0}, "stronger_games must be"),
    ({"stronger": "greedy", "threads": "2"}, "threads must be"),
    ({"stronger": "expert"}, "is the published player"),
    ({"stronger": "greedy", "formats": "pdf"}, "unknown report format 'pdf'"),
])
def test_the_python_api_refuses_bad_arguments_before_playing(checked, tmp_path, arguments, says):
    import fisim
    from fisim.errors import ConfigError
    store = tmp_path / "sweep"
    shutil.copytree(checked, store, ignore=shutil.ignore_patterns("stronger", "report"))
    with pytest.raises(ConfigError, match=re.escape(says)):
        fisim.report(store, progress=False, **arguments)
    assert not (store / "stronger").exists() and not (store / "report").exists()


def test_a_ladders_directory_is_refused(tmp_path):
    from fisim import stronger
    from fisim.errors import ConfigError
    from fisim.skill import LADDER_STORE
    store = tmp_path / "ladder"
    (store / LADDER_STORE).mkdir(parents=True)
    (store / LADDER_STORE / "manifest.json").write_text("{}")
    with pytest.raises(ConfigError, match="is a ladder's directory"):
        stronger.prepare(store, "greedy", 10)
