"""`fisim compare --agreement A,B` (fisim.rankings): do two policies rank the cells of a sweep alike?
Spearman's correlation with a bootstrap interval, each policy's self correlation, significant flips,
on win records made to order and on a real sweep whose numbers must be the store's."""
import io
import re
import time

import numpy as np
import pandas as pd
import pytest
from support.commands import run

from fisim import rankings as ag
from fisim.comparison import paired_difference
from fisim.reporting.agreement import section
from fisim.rules.constants import ROLE_NAMES
from fisim.tables import load
from policies import load_policy

pytestmark = pytest.mark.compiles      # needs the compiled engine: games at its speed


def _items(rates_a, rates_b, n=400, groups=None, seed=1, alike=True, rates_c=None):
    """Synthetic items: per item the two policies' wins on the same n games at the given rates,
    decided by one uniform draw per game (alike: as correlated as can be) or by two; with rates_c,
    a baseline's wins too (by the first policy's draw)."""
    rng = np.random.default_rng(seed)
    items = pd.DataFrame({"group": groups or ["all"] * len(rates_a), "team": [f"t{i}" for i in range(len(rates_a))]})
    wins = []
    for i, (pa, pb) in enumerate(zip(rates_a, rates_b)):
        u = rng.random(n)
        wins.append(np.array([u < pa, (u if alike else rng.random(n)) < pb, *([u < rates_c[i]] if rates_c else [])]))
    return items, wins


def correlations(result):
    """{group: its row as people read it} of the section's table of correlations."""
    table = section([result]).tables[0].people
    return {row[0]: dict(zip(table.headings, row)) for row in table.rows}


def test_spearman_uses_average_ranks_of_ties():
    x, y = np.array([1.0, 2.0, 2.0, 3.0]), np.array([1.0, 3.0, 2.0, 4.0])
    rx, ry = np.array([1, 2.5, 2.5, 4]), np.array([1, 3, 2, 4])
    assert ag._spearman(x, y) == pytest.approx(np.corrcoef(rx, ry)[0, 1])
    assert ag._spearman(x, x) == pytest.approx(1) and ag._spearman(x, -x) == pytest.approx(-1)
    assert np.isnan(ag._spearman(np.ones(4), y))
    both = ag._spearman(np.stack([x, np.ones(4)]), np.stack([y, y]))
    assert both[0] == pytest.approx(ag._spearman(x, y)) and np.isnan(both[1])


def test_the_same_ranking_agrees_fully_and_flips_nothing():
    rates = [0.1, 0.3, 0.5, 0.7, 0.9]
    items, wins = _items(rates, rates)
    result = ag.agreement(items, wins, "team", ("expert", "search:8"), boots=500)
    g = result.groups.iloc[0]
    assert g["spearman"] == pytest.approx(1) and g["high"] == pytest.approx(1) and g["low"] > 0.5
    assert result.flips.empty and (result.items["rank_change"] == 0).all()
    assert list(result.items["rank_expert"]) == [5, 4, 3, 2, 1]


def test_a_reversed_ranking_flips_every_clear_pair():
    """Rates 20 points apart over 400 games: every pair's paired difference is clear for both
    policies, so all 10 pairs flip; two close items (1 point apart) do not."""
    a, b = [0.1, 0.3, 0.5, 0.7, 0.9], [0.9, 0.7, 0.5, 0.3, 0.1]
    items, wins = _items(a, b)
    result = ag.agreement(items, wins, "team", ("expert", "search:8"), boots=500)
    assert result.groups.iloc[0]["spearman"] == pytest.approx(-1) and len(result.flips) == 10
    flip = result.flips.iloc[0]
    assert (flip["team_1"], flip["team_2"]) == ("t0", "t1")
    assert (flip["difference_expert"], flip["low_expert"], flip["high_expert"]) == pytest.approx(
        paired_difference(wins[0][0], wins[1][0]))
    close_items, close_wins = _items([0.50, 0.51], [0.51, 0.50])
    assert ag.agreement(close_items, close_wins, "team", ("expert", "search:8"), boots=200).flips.empty


def test_noise_caps_the_self_correlation_and_the_interval_holds_it():
    """Items 1 point apart over 400 games are ranked mostly by noise: even a policy against a
    resample of itself agrees weakly, and the interval is wide; items 20 points apart agree fully."""
    close = [0.40, 0.41, 0.42, 0.43, 0.44, 0.45]
    items, wins = _items(close, close, alike=False)
    g = ag.agreement(items, wins, "team", ("expert", "search:8"), boots=1000).groups.iloc[0]
    assert g["self_expert"] < 0.9 and g["high"] - g["low"] > 0.5
    spread = [0.1, 0.3, 0.5, 0.7, 0.9]
    items, wins = _items(spread, spread)
    assert ag.agreement(items, wins, "team", ("expert", "search:8"), boots=500).groups.iloc[0]["self_expert"] == 1


def test_groups_are_ranked_apart_and_pooled_and_the_bootstrap_is_seeded():
    groups = ["players 2"] * 3 + ["players 3"] * 2
    items, wins = _items([0.1, 0.5, 0.9, 0.2, 0.6], [0.2, 0.4, 0.8, 0.6, 0.3], groups=groups)
    one = ag.agreement(items, wins, "team", ("expert", "search:8"), boots=300, seed=5)
    assert list(one.groups["group"]) == ["players 2", "players 3", "all"]
    assert list(one.groups["items"]) == [3, 2, 5]
    assert list(one.items["rank_expert"]) == [3, 2, 1, 2, 1] and list(one.items["rank_search:8"]) == [3, 2, 1, 1, 2]
    assert one.groups.iloc[1]["spearman"] == pytest.approx(-1)
    assert all(f["group"] == "players 3" for _, f in one.flips.iterrows())      # never across groups
    again = ag.agreement(items, wins, "team", ("expert", "search:8"), boots=300, seed=5)
    pd.testing.assert_frame_equal(one.groups, again.groups)
    rows = correlations(one)
    assert rows["players 3"]["Teams"] == "2" and rows["players 3"]["Spearman (95% CI)"].startswith("-1.00 [")
    assert rows["all"]["Teams"] == "5"


def test_a_baseline_is_compared_on_the_same_resamples():
    """A ranks as B does and the baseline C in reverse: A's correlation with B less C's is 2, its
    interval tight; a baseline playing A's very games differs by 0 in every resample (paired)."""
    rates = [0.1, 0.3, 0.5, 0.7, 0.9]
    items, wins = _items(rates, rates, rates_c=rates[::-1])
    g = ag.agreement(items, wins, "team", ("tuned", "search:8"), "expert", boots=500).groups.iloc[0]
    assert g["spearman_expert"] == pytest.approx(-1) and g["difference"] == pytest.approx(2)
    assert g["difference_low"] > 1.5
    close = [0.40, 0.41, 0.42, 0.43, 0.44, 0.45]
    items, wins = _items(close, close, alike=False, rates_c=close)
    result = ag.agreement(items, wins, "team", ("tuned", "search:8"), "expert", boots=500)
    g = result.groups.iloc[0]
    assert g["high"] - g["low"] > 0.5        # each correlation alone is noisy ...
    assert (g["difference"], g["difference_low"], g["difference_high"]) == (0, 0, 0)     # ... their difference not
    assert correlations(result)["all"]["tuned less expert (95% CI)"] == "+0.00 [+0.00, +0.00]"


def test_disjoint_deals_keep_noise_the_two_policies_share_out_of_their_agreement():
    """B wins exactly A's games: on the same deals their rankings agree fully however close the
    items; ranked on disjoint halves of the deals, the noise of each shows (B on the second half)."""
    close = [0.40, 0.41, 0.42, 0.43, 0.44, 0.45]
    items, wins = _items(close, close, n=400, seed=3)
    same = ag.agreement(items, wins, "team", ("expert", "search:8"), boots=300)
    assert same.groups.iloc[0]["spearman"] == pytest.approx(1)
    apart = ag.agreement(items, wins, "team", ("expert", "search:8"), disjoint=True, boots=300)
    assert apart.groups.iloc[0]["spearman"] < 0.9 and (apart.items["games"] == 200).all()
    assert np.allclose(apart.items["rate_expert"], [w[0, :200].mean() for w in wins])
    assert np.allclose(apart.items["rate_search:8"], [w[1, 200:].mean() for w in wins])
    assert "search:8 ranks by the second half of each cell's games" in section([apart]).text


@pytest.fixture(scope="module")
def two_policy_sweep(tmp_path_factory):
    """greedy and expert ranking the teams, tuned on the same cells (a baseline)."""
    out = tmp_path_factory.mktemp("agree") / "teams"
    r = run("sweep", "--levels", "novice", "--players", "2", "--teams", "all", "--policies", "greedy,expert,tuned",
            "--games", "120", "--seed", "3", "--out", str(out), "--quiet", "--no-report", "--threads", "1")
    assert r.returncode == 0, r.stderr
    return out


@pytest.mark.slow
def test_the_agreement_of_a_sweep_is_its_stores_numbers(two_policy_sweep):
    result = ag.rank_agreement(two_policy_sweep, "team", ("greedy", "expert"), boots=300)
    cells = load(two_policy_sweep)
    assert len(result.items) == 15 and list(result.groups["group"]) == ["all"]
    for policy in ("greedy", "expert"):
        mine = cells[cells["policy"] == f"{policy}@{load_policy(policy).VERSION}"].set_index("team")["rate"]
        assert np.allclose(result.items[f"rate_{policy}"], mine.loc[result.items["team"]].to_numpy())
        expected_ranks = mine.rank(ascending=False, method="average").loc[result.items["team"]].to_numpy()
        assert np.array_equal(result.items[f"rank_{policy}"].to_numpy(), expected_ranks)
    rho = np.corrcoef(result.items["rank_greedy"], result.items["rank_expert"])[0, 1]
    assert result.groups.iloc[0]["spearman"] == pytest.approx(rho)
    r = run("compare", str(two_policy_sweep), "--by", "team", "--agreement", "greedy,expert")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("Do greedy and expert rank the teams alike?")
    assert re.search(rf"^  all +15 +{rho:.2f} \[", r.stdout, re.M), r.stdout
    csv = run("compare", str(two_policy_sweep), "--by", "team", "--agreement", "greedy,expert", "--format", "csv")
    assert csv.returncode == 0 and csv.stdout.splitlines()[0].startswith("group,team,rate_greedy")


@pytest.mark.slow
def test_a_baselines_agreement_is_set_beside_the_first_policys(two_policy_sweep):
    ranks = ag.rank_agreement(two_policy_sweep, "team", ("greedy", "expert"), "tuned", boots=300).items
    rho_greedy = np.corrcoef(ranks["rank_greedy"], ranks["rank_expert"])[0, 1]
    rho_tuned = np.corrcoef(ranks["rank_tuned"], ranks["rank_expert"])[0, 1]
    r = run("compare", str(two_policy_sweep), "--by", "team", "--agreement", "greedy,expert", "--baseline", "tuned")
    assert r.returncode == 0, r.stderr
    assert "Does greedy rank as alike to expert as tuned does?" in r.stdout
    row = next(line.split() for line in r.stdout.splitlines() if line.startswith("  all "))
    assert row[2] == f"{rho_greedy:.2f}" and row[7] == f"{rho_tuned:.2f}" and row[8] == f"{rho_greedy - rho_tuned:+.2f}"
    apart = run("compare", str(two_policy_sweep), "--by", "team", "--agreement", "greedy,expert", "--baseline",
                "tuned", "--disjoint", "--format", "csv")
    assert apart.returncode == 0, apart.stderr
    assert set(pd.read_csv(io.StringIO(apart.stdout))["games"]) == {60}      # half of 120, none shared


@pytest.mark.parametrize("args, says", [
    (("--by", "policy", "--agreement", "greedy,expert"), "--by policy is not one"),
    (("--by", "team", "--agreement", "expert"), "two different policies"),
    (("--by", "team", "--agreement", "expert,expert"), "two different policies"),
    (("--by", "team", "--agreement", "expert,nobody"), "unknown policy"),
    (("--by", "team", "--agreement", "expert,search:8"), "no games of policy search:8"),
    (("--by", "level", "--agreement", "greedy,expert"), "has one level (novice) in every cell: nothing to rank"),
    (("--by", "team", "--baseline", "tuned"), "--baseline C goes with --agreement A,B"),
    (("--by", "team", "--disjoint"), "--disjoint goes with --agreement A,B"),
    (("--by", "team", "--agreement", "greedy,expert", "--baseline", "expert"), "one of --agreement's policies"),
    (("--by", "team", "--agreement", "greedy,expert", "--baseline", "nobody"), "--baseline: unknown policy"),
    (("--by", "team", "--agreement", "greedy,expert", "--baseline", "planner"), "no games of policy planner"),
])
def test_bad_agreement_requests_are_one_line_errors(two_policy_sweep, args, says):
    r = run("compare", str(two_policy_sweep), *args)
    assert r.returncode == 2 and says in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_a_reports_baseline_is_set_beside_each_pair_it_is_not_in(two_policy_sweep, tmp_path):
    """fisim report with several --agreement pairs (scripts/make_skill_report.sh: expert's, tuned's
    and the planner's rankings each against search's, expert the baseline): the baseline is set
    beside the pairs it is not in; only one in every pair, which would compare nothing, is refused."""
    pairs = ("--agreement", "greedy,expert", "--agreement", "tuned,expert")
    r = run("report", str(two_policy_sweep), "--out", str(tmp_path / "r"), "--format", "md", *pairs,
            "--baseline", "greedy")
    assert r.returncode == 0, r.stderr
    page = (tmp_path / "r" / "report.md").read_text()
    assert "Does tuned rank as alike to expert as greedy does?" in page
    assert "Does greedy rank as alike to expert as greedy does?" not in page
    r = run("report", str(two_policy_sweep), "--out", str(tmp_path / "refused"), *pairs, "--baseline", "expert")
    assert r.returncode == 2 and "one of --agreement's policies (expert)" in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and not (tmp_path / "refused").exists()


def _by_games(rng, wins, boots):
    """The bootstrap as it was: every one of the n games drawn `boots` times (multinomial over games)."""
    n = wins.shape[1]
    return rng.multinomial(n, np.full(n, 1 / n), size=boots) @ wins.T / n


def test_resampling_the_joint_outcomes_gives_the_bootstrap_of_the_games():
    """Issue 48 item 5: a resample drawn as a multinomial over the joint outcomes (which policies won)
    has the distribution of the resample of the games: the same mean and covariance of both rates
    and the same Spearman interval, within Monte Carlo error of 4,000 resamples of each."""
    boots = 4000
    rates = [0.40, 0.41, 0.42, 0.43, 0.44, 0.45, 0.46, 0.47, 0.48, 0.49, 0.50, 0.51]
    items, wins = _items(rates, rates[::-1], n=300, seed=7)         # the policies win alike deals: correlated
    new = np.stack([ag._resampled_rates(np.random.default_rng(i), w, boots) for i, w in enumerate(wins)], axis=1)
    old = np.stack([_by_games(np.random.default_rng(100 + i), w, boots) for i, w in enumerate(wins)], axis=1)
    se = np.sqrt(new.var(axis=0) / boots)                                  # of each mean; (items, policies)
    assert (np.abs(new.mean(axis=0) - old.mean(axis=0)) < 5 * np.sqrt(2) * se).all()
    for i in range(len(wins)):
        ca, cb = np.cov(new[:, i].T), np.cov(old[:, i].T)
        # a sample covariance of nearly normal variables has a standard error of about sqrt((s_x^2 s_y^2 + c^2) / B)
        scale = np.sqrt((np.outer(np.diag(ca), np.diag(ca)) + ca ** 2) / boots)
        assert (np.abs(ca - cb) < 5 * np.sqrt(2) * scale).all(), (i, ca, cb)
    spearman_new, spearman_old = ag._spearman(new[:, :, 0], new[:, :, 1]), ag._spearman(old[:, :, 0], old[:, :, 1])
    for p in (2.5, 97.5):
        q = np.percentile(np.concatenate([spearman_new, spearman_old]), [p - 1, p + 1])
        density = 0.02 / max(q[1] - q[0], 1e-9)                             # of the resampled correlation, at p
        se = np.sqrt(p / 100 * (1 - p / 100) / boots) / density            # of a percentile of B resamples
        gap = abs(np.percentile(spearman_new, p) - np.percentile(spearman_old, p))
        assert gap < 5 * np.sqrt(2) * se, (p, gap, se)


def test_the_bootstrap_does_not_grow_with_the_games_of_a_large_store(tmp_path, monkeypatch):
    """compare --agreement on 300,000 games per cell took 10.5 minutes: the bootstrap drew every
    game 2,000 times. Each multinomial now draws over at most 8 joint outcomes (with a baseline),
    whatever a cell's games, and a store of 12 cells of 300,000 games agrees in seconds; the
    chunk files read are reported as they are (the command's progress bar)."""
    from fisim import grid
    from fisim.results.chunks import chunk_record, chunks_to_play
    from fisim.rules.state import LOST, R_CAPTURED, R_ROLE, R_SIZE, R_STATUS, R_TURNS, WON
    from fisim.store import Store, manifest_for
    games = 300_000
    cells = grid.expand(["standard"], ["novice"], [2], "all", ["random", "passive"], [()])[:12]
    store = Store(tmp_path / "store")
    store.open(manifest_for(cells, 0, {"games": games}, False))
    rng = np.random.default_rng(0)
    files = 0
    for i, cell in enumerate(cells):
        for k, first, size in chunks_to_play({}, {"games": games}, store.manifest["chunk_size"]):
            rows = np.zeros((size, R_SIZE), np.int32)
            rows[:, R_STATUS] = np.where(rng.random(size) < 0.2 + 0.01 * i, WON, LOST)
            rows[:, R_TURNS], rows[:, R_ROLE:R_ROLE + 4] = 5, -1
            rows[:, R_CAPTURED] = np.where(rows[:, R_STATUS] == WON, 4, 0)     # a win holds every treasure (R-WIN)
            rows[:, R_ROLE:R_ROLE + 2] = [ROLE_NAMES.index(r) for r in cell.team]
            store.write_chunk(chunk_record(cell.key, k, first, rows))
            files += 1
    outcomes, seeded = [], np.random.default_rng

    class Counted:                      # the bootstrap's generator, counting the outcomes of each draw
        def __init__(self, seed):
            self.rng = seeded(seed)

        def multinomial(self, n, pvals, size=None):
            outcomes.append(len(pvals))
            return self.rng.multinomial(n, pvals, size=size)
    monkeypatch.setattr(np.random, "default_rng", Counted)
    read = []
    start = time.perf_counter()
    result = ag.rank_agreement(tmp_path / "store", "team", ("random", "passive"), progress=lambda n, total:
                               read.append((n, total)))
    seconds = time.perf_counter() - start
    assert set(result.items["games"]) == {games} and len(result.items) == 6
    assert outcomes and max(outcomes) == 4                                  # two policies: 4 joint outcomes
    assert seconds < 60, seconds                                            # about a second on an idle machine
    assert sum(n for n, _ in read) == files and {total for _, total in read} == {files}
