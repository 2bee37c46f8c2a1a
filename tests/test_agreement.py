"""`fisim compare --agreement A,B` (fisim.agreement): do two policies rank the cells of a sweep alike?
Spearman's correlation with a bootstrap interval, each policy's self correlation, significant flips,
on win records made to order and on a real sweep whose numbers must be the store's."""
import io
import re

import numpy as np
import pandas as pd
import pytest
from support.commands import run

from fisim import agreement as ag
from fisim.comparison import paired_difference
from fisim.reporting.agreement import section
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


@pytest.mark.slow
def test_the_bootstrap_resamples_in_blocks_of_bounded_memory(monkeypatch):
    """One (boots, games) array of resampled counts per cell took 4.5 GiB at 300,000 games; drawn
    in blocks, it holds a few MiB at once, and the blocks give the same numbers as one array."""
    import tracemalloc
    items, wins = _items([0.2, 0.4], [0.3, 0.5], n=10_000)
    tracemalloc.start()
    whole = ag.agreement(items, wins, "team", ("expert", "search:8"), boots=2000)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 60 * 2**20, f"{peak / 2**20:.0f} MiB"             # not 2,000 x 10,000 x 8 bytes (153 MiB)
    monkeypatch.setattr(ag, "BLOCK", 10_000 * 7)                      # blocks of 7 resamples, and a last of 5
    small = ag.agreement(items, wins, "team", ("expert", "search:8"), boots=2000)
    assert small.groups.equals(whole.groups) and small.items.equals(whole.items)
