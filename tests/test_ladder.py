"""`fisim ladder` (fisim.skill): every policy on the same deals, the clairvoyant reference labelled,
deals replayed varying nothing but the policy stream, and every printed number the store's."""
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from support.commands import in_process, run
from support.reports import documented_tables

from fisim import grid
from fisim import skill as ladder
from fisim.comparison import paired_difference
from fisim.formatting import duration
from fisim.stats import wilson
from fisim.tables import load
from policies import CLAIRVOYANT_NOTE, load_policy

pytestmark = pytest.mark.compiles      # needs the compiled engine: games at its speed

RANDOM, EXPERT, SEER = (f"{name}@{load_policy(name).VERSION}" for name in ("random", "expert", "clairvoyant:2"))
LADDER_ARGS = ("ladder", "--levels", "novice", "--players", "2,3", "--games", "24", "--policies",
               "random,expert", "--clairvoyant", "2", "--deals", "12", "--repeats", "3", "--replayer", "passive",
               "--seed", "4", "--quiet")


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    out = tmp_path_factory.mktemp("ladder") / "skill"
    r = run(*LADDER_ARGS, "--out", str(out))
    assert r.returncode == 0, r.stderr
    return out, r.stdout


def _table(out, name):
    """A table of the ladder's report as data."""
    return pd.read_csv(out / "report" / "tables" / f"{name}.csv")


def _games(store):
    return pd.concat([pd.read_parquet(p) for p in sorted((store / "games").glob("*.parquet"))], ignore_index=True)


def test_game_i_of_every_policy_and_every_replay_is_deal_i(played):
    """Common random numbers: per level and player count, game i has the same team and first
    player for every ladder policy, the clairvoyant and every repeat of the replays."""
    out, _ = played
    games = pd.concat([_games(out / "ladder"), _games(out / "deals")], ignore_index=True)
    labels = set(games["policy"].astype(str))
    assert {label.partition("@")[0] for label in labels} == {"random", "expert", "passive", "clairvoyant:2"}
    assert f"clairvoyant:2@2 ({CLAIRVOYANT_NOTE})" in labels
    assert set(games["repeat"]) == {0, 1, 2}
    for _, same_deal in games.groupby(["level", "players", "game"], observed=True):
        assert len(same_deal) in (3 + 3, 3)      # three ladder policies, and three replays of the first 12
        assert same_deal["team"].nunique() == 1 and same_deal["first_player"].nunique() == 1
    assert (games.groupby(["level", "players"], observed=True)["team"].nunique() > 1).all()


def test_the_stores_record_the_cells_repeats_and_policies(played):
    out, _ = played
    ladder_cells = json.loads((out / "ladder" / "manifest.json").read_text())["cells"]
    assert [c["policy"] for c in ladder_cells[:3]] == ["random", "expert", "clairvoyant:2"]
    assert all("repeat" not in c for c in ladder_cells)
    deal_cells = json.loads((out / "deals" / "manifest.json").read_text())["cells"]
    assert sorted(c.get("repeat", 0) for c in deal_cells) == [0, 0, 1, 1, 2, 2]
    assert {c["policy"] for c in deal_cells} == {"passive"}


def test_printed_and_written_numbers_are_the_stores(played):
    out, printed = played
    cells = load(out / "ladder")
    written = _table(out, "skill-ladder")
    for _, cell in cells.iterrows():
        assert f"{100 * cell['rate']:.1f}% [{100 * cell['ci_low']:.1f}, {100 * cell['ci_high']:.1f}]" in printed
        row = written[(written["players"] == str(cell["players"])) & (written["policy"] == cell["policy"])]
        assert row[["games", "wins"]].values.tolist() == [[cell["games"], cell["wins"]]]
    assert f"{SEER}: {CLAIRVOYANT_NOTE}." in printed
    games = _games(out / "ladder")
    won = {p: games[games["policy"].astype(str).str.startswith(p)].sort_values(["players", "game"])["won"].to_numpy()
           for p in ("random", "expert", "clairvoyant")}
    best = "expert" if won["expert"].mean() >= won["random"].mean() else "random"
    diff, low, high = paired_difference(won["clairvoyant"], won[best])
    best = EXPERT if best == "expert" else RANDOM
    gap = _table(out, "clairvoyant-gap")
    pooled = gap[gap["players"] == "all"].iloc[0]
    assert pooled["best"] == best and np.allclose(pooled[["gap", "gap_low", "gap_high"]].astype(float),
                                                  [diff, low, high])
    assert f"{100 * diff:+.1f} [{100 * low:+.1f}, {100 * high:+.1f}]" in printed
    figures = out / "report" / "figures"
    assert (figures / "skill-ladder.png").stat().st_size > 0 and (figures / "deals.png").stat().st_size > 0
    markdown = (out / "report" / "report.md").read_text()
    assert "](figures/skill-ladder.png)" in markdown and "](figures/deals.png)" in markdown
    for _, cell in cells.iterrows():       # the report holds the numbers the terminal shows
        assert f"| {100 * cell['rate']:.1f}% [{100 * cell['ci_low']:.1f}, {100 * cell['ci_high']:.1f}] |" in markdown


def test_the_deal_table_is_the_replays_and_ladders_wins(played):
    out, printed = played
    ladder_games, replays = _games(out / "ladder"), _games(out / "deals")
    deals = _table(out, "deal-difficulty")
    for _, row in deals.iterrows():
        mine = replays[replays["players"] == row["players"]]
        by_deal = mine.pivot(index="game", columns="repeat", values="won").to_numpy()
        ladder_won = ladder_games[(ladder_games["players"] == row["players"]) & (ladder_games["game"] < 12)]
        any_ladder = ladder_won.groupby("game")["won"].any().to_numpy()
        never = ~(any_ladder | by_deal.any(axis=1))
        assert row["deals"] == 12 and row["repeats"] == 3 and row["ladder_policies"] == 3
        assert row["never_won"] == pytest.approx(never.mean())
        assert (row["never_won_low"], row["never_won_high"]) == pytest.approx(wilson(int(never.sum()), 12))
        assert row["always_won"] == pytest.approx(by_deal.all(axis=1).mean())
        assert row["mean_win"] == pytest.approx(by_deal.mean())
        assert row["span"] == pytest.approx(np.ptp(by_deal.mean(axis=1)))
        assert f"{100 * row['never_won']:.1f}% [{100 * row['never_won_low']:.1f}" in printed


def test_the_headline_is_the_stores_numbers(played):
    """The plain-words line at the top: the best legal policy's and the clairvoyant's pooled rates,
    and the deals no policy won (the deal table's counts pooled over player counts)."""
    out, printed = played
    cells = load(out / "ladder")
    rates = cells.groupby("policy")[["wins", "games"]].sum()
    best = max((RANDOM, EXPERT), key=lambda p: rates.loc[p, "wins"] / rates.loc[p, "games"])
    deals = _table(out, "deal-difficulty")
    never = int(round((deals["never_won"] * deals["deals"]).sum()))

    def ci(wins, n):
        low, high = wilson(wins, n)
        return f"{100 * wins / n:.1f}% [{100 * low:.1f}, {100 * high:.1f}]"
    first = next(line for line in printed.splitlines() if line.startswith("- At "))
    assert first == (f"- At Novice, the strongest legal computer team here ({best}) wins "
                     f"{ci(rates.loc[best, 'wins'], rates.loc[best, 'games'])}, the clairvoyant one ({SEER}) "
                     f"{ci(rates.loc[SEER, 'wins'], rates.loc[SEER, 'games'])} of 48 games; "
                     f"{ci(never, 24)} of 24 deals were won by no policy, not even with the decks in view.")


def test_a_ladder_already_played_is_read_again_without_playing(played):
    out, printed = played
    before = sorted(p.stat().st_mtime_ns for p in (out / "ladder" / "chunks").iterdir())
    r = run(*LADDER_ARGS, "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\nresults:")[0] == printed.split("\nresults:")[0]
    assert sorted(p.stat().st_mtime_ns for p in (out / "ladder" / "chunks").iterdir()) == before


def test_fisim_report_of_a_ladders_directory_is_the_ladders_report(played, tmp_path):
    """The ladder's report comes from the one report machine: `fisim report DIR` of the ladder's
    directory writes it again from the stores, the same text and tables."""
    out, _ = played
    r = run("report", str(out), "--out", str(tmp_path / "again"), "--format", "md,png,csv")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "again" / "report.md").read_text() == (out / "report" / "report.md").read_text()
    for name in ("skill-ladder", "clairvoyant-gap", "deal-difficulty"):
        assert (tmp_path / "again" / "tables" / f"{name}.csv").read_text() == \
            (out / "report" / "tables" / f"{name}.csv").read_text()
        assert list(_table(out, name).columns) == documented_tables()[name]


def test_a_ladder_grown_by_a_policy_shows_the_policies_in_the_order_asked(played, tmp_path):
    """A store extended by a policy holds its cells last; the ladder's columns, its table's rows and
    its figure follow --policies, as a ladder played from scratch would, and `fisim report DIR`,
    asked no order, follows the skill ladder's (weakest first)."""
    out = tmp_path / "skill"
    shutil.copytree(played[0], out)
    args = list(LADDER_ARGS)
    args[args.index("random,expert")] = "passive,random,expert"
    r = run(*args, "--out", str(out))
    assert r.returncode == 0, r.stderr
    cells = json.loads((out / "ladder" / "manifest.json").read_text())["cells"]
    assert cells[-1]["policy"] == "passive"
    passive = f"passive@{load_policy('passive').VERSION}"
    header = next(line for line in r.stdout.splitlines() if line.split()[:2] == ["Players", "Level"])
    assert header.split()[2:] == [passive, RANDOM, EXPERT, SEER]
    assert list(_table(out, "skill-ladder")["policy"].unique()) == [passive, RANDOM, EXPERT, SEER]
    r = run("report", str(out), "--out", str(tmp_path / "again"), "--format", "csv")
    assert r.returncode == 0, r.stderr
    again = pd.read_csv(tmp_path / "again" / "tables" / "skill-ladder.csv")
    assert list(again["policy"].unique()) == [RANDOM, passive, EXPERT, SEER]       # random is the ladder's first


def test_a_ladder_plays_again_only_the_policy_that_changed(tmp_path):
    """A policy file edited since the ladder was played (here its version): refused in one line
    naming --replay-changed; with it, the plan counts none of the old version's games as stored,
    its cells are played again and the other policy's files stay byte for byte."""
    mine, out = tmp_path / "mine.py", tmp_path / "skill"

    def policy(version):
        mine.write_text(f'NAME = "mine"\nVERSION = {version}\nfrom policies.random import decide  # noqa: E402,F401\n')

    args = ("ladder", "--levels", "novice", "--players", "2", "--games", "24", "--policies", f"random,{mine}",
            "--no-clairvoyant", "--no-deals", "--seed", "4", "--out", str(out))
    policy(1)
    assert run(*args, "--quiet").returncode == 0
    store = out / "ladder"
    randoms = {c["key"] for c in json.loads((store / "manifest.json").read_text())["cells"] if c["policy"] == "random"}

    def random_files():
        return {f.relative_to(store): f.read_bytes() for f in store.rglob("*.parquet") if f.name[:12] in randoms}

    kept = random_files()
    policy(2)
    r = run(*args, "--quiet")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "--replay-changed" in r.stderr, r.stderr
    r = run(*args, "--replay-changed")
    assert r.returncode == 0, r.stderr
    plan = r.stderr[r.stderr.index("plan: 1 setting"):].splitlines()
    rows = {line.split()[0]: line.split()[1:4] for line in plan if line.startswith("  ")}
    assert rows["random"] == ["0", "games", "(24"] and rows[str(mine)][:2] == ["24", "games"]
    assert "playing again the cells of mine@2 (its games of mine@1 deleted)" in r.stderr
    assert random_files() == kept
    assert list(_table(out, "skill-ladder")["policy"].unique()) == [RANDOM, "mine@2"]


@pytest.mark.parametrize("args, says", [
    (("--deals", "50", "--games", "20"), "--deals 50 needs --games of at least 50"),
    (("--clairvoyant", "4", "--no-clairvoyant"), "not both"),
    (("--policies", "expert,clairvoyant:4"), "not a legal player"),
    (("--replayer", "nobody"), "unknown policy"),
    (("--replayer", "expert"), "expert plays every replay of a deal alike"),     # a deal share of 100%
    (("--policies", "", "--no-clairvoyant"), "no policy given"),     # once a manifest of no cells
    (("--policies", " , "), "no policy given"),
    (("--replayer", "random,greedy"), "greedy plays every replay of a deal alike"),
    (("--replayer", "planner"), "planner plays every replay of a deal alike"),
    (("--replayer", "expert@1"), "expert@1 plays every replay of a deal alike"),     # once passed as a spelling
    (("--levels", "easy"), "unknown level"),
])
def test_bad_ladder_options_are_one_line_errors(tmp_path, args, says):
    r = run("ladder", *args, "--out", str(tmp_path / "x"))
    assert r.returncode == 2 and says in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "x").exists()


# --- the spread measures, on outcomes made to order --------------------------------------------


def test_spread_of_deals_that_decide_everything():
    outcomes = np.repeat(np.array([True] * 30 + [False] * 70)[:, None], 20, axis=1)
    s = ladder.spread(outcomes)
    assert s["mean_win"] == pytest.approx(0.3) and s["span"] == 1 and s["trimmed_span"] == 1
    assert s["deal_share"] == pytest.approx(1, abs=0.01) and s["entropy_given_deal"] == 0
    assert s["outliers"] == 1 and s["entropy"] == pytest.approx(0.8813, abs=1e-4)


def test_spread_of_deals_that_decide_nothing():
    """Independent games at one rate: the deal's share of the variance is about 0 and binomial
    tests reject about 5% of deals or fewer (2,000 deals x 20 replays, fixed seed; tolerances of
    five standard errors)."""
    rng = np.random.default_rng(7)
    deals, repeats, p = 2000, 20, 0.4
    s = ladder.spread(rng.random((deals, repeats)) < p)
    share_se = np.sqrt(2 / (deals - 1)) / repeats     # of the binomial variance's estimate, over p(1-p)
    assert s["deal_share"] <= 5 * share_se
    assert s["outliers"] <= 0.05 + 5 * np.sqrt(0.05 * 0.95 / deals)
    assert s["mean_win"] == pytest.approx(p, abs=5 * np.sqrt(p * (1 - p) / (deals * repeats)))
    assert s["mean_win_low"] < s["mean_win"] < s["mean_win_high"]


def test_a_resumed_ladder_plans_the_time_left(played, tmp_path):
    """On resume the plan counts only the games the stores lack: none here, and no speed to
    measure (issue 47 item 6)."""
    out = tmp_path / "skill"
    shutil.copytree(played[0], out)
    r = run(*[a for a in LADDER_ARGS if a != "--quiet"], "--out", str(out))
    assert r.returncode == 0, r.stderr
    plan = r.stderr[r.stderr.index("plan: 2 settings"):].splitlines()
    for policy, games in (("random", 48), ("expert", 48), ("clairvoyant:2", 48), ("passive, replays", 72)):
        line = next(line for line in plan if line.strip().startswith(policy + " "))
        assert line.split() == [*policy.split(), "0", "games", f"({games}", "of", f"{games}", "stored)"], line
    assert "  nothing to play: the stores hold all 216 games" in plan
    assert "first compiling" not in r.stderr         # everything was compiled for the fixture


def test_the_plan_of_a_ladder_half_played_gives_the_time_left():
    rows = ladder.plan(["novice"], [2, 3], ["random", "expert"], 1000, ["search:8"], 20, 5)
    fresh = ladder.format_plan(rows, QUOTED_SPEEDS, 2, "a test")
    half = ladder.format_plan(rows, QUOTED_SPEEDS, 2, "a test", {"expert": 1000, "search:8, replays": 200})
    expert = next(line for line in half.splitlines() if line.strip().startswith("expert "))
    assert expert.split()[:3] == ["expert", "1,000", "games"] and expert.endswith("(1,000 of 2,000 stored)")
    replays = next(line for line in half.splitlines() if line.strip().startswith("search:8, replays"))
    assert replays.split()[2:4] == ["0", "games"] and replays.endswith("(200 of 200 stored)")
    left = 1000 / QUOTED_SPEEDS["expert"] / 2 + 2000 / QUOTED_SPEEDS["random"] / 2
    assert f"  time left: {duration(left)} (the stores hold 1,200 of its 4,200 games;" in half
    total = left + 1000 / QUOTED_SPEEDS["expert"] / 2 + 200 / QUOTED_SPEEDS["search:8"] / 2
    assert f"  total: {duration(total)} (a resumed ladder" in fresh


def test_what_a_ladder_compiles_is_said_with_its_time():
    text = ladder.compile_text(["the engine", "expert", "planner"], 2)
    assert text.startswith("first compiling the engine, expert, planner (not in the compile cache yet): ")
    assert duration(2 * ladder.COMPILE_SECONDS) in text and text.endswith("then the plan")


@pytest.mark.slow
def test_the_ladder_says_what_it_compiles_before_its_plan(tmp_path):
    """A policy not in the compile cache (a file of new content) is named, with about how long it
    takes, before the plan, which comes after the compile with the speeds measured (issue 47 item 6)."""
    policy = tmp_path / "fresh_random.py"
    policy.write_text(f"# {tmp_path}\n" + (Path(__file__).parent / "support" / "invariant_random.py").read_text())
    r = run("ladder", "--levels", "novice", "--players", "2", "--games", "2", "--policies", str(policy),
            "--no-clairvoyant", "--no-deals", "--out", str(tmp_path / "skill"))
    assert r.returncode == 0, r.stderr
    said = r.stderr.index(f"fisim: ladder: first compiling {policy} (not in the compile cache yet): about ")
    assert said < r.stderr.index("plan: 1 setting")


@pytest.mark.slow
def test_the_ladder_prints_its_plan_before_playing(tmp_path):
    r = run(*[a for a in LADDER_ARGS if a != "--quiet"], "--out", str(tmp_path / "skill"))
    assert r.returncode == 0, r.stderr
    plan = r.stderr[r.stderr.index("plan: 2 settings"):].splitlines()
    for policy, games in (("random", 48), ("expert", 48), ("clairvoyant:2", 48), ("passive, replays", 72)):
        line = next(line for line in plan if line.strip().startswith(policy + " "))
        assert re.search(rf"\b{games} games +[0-9,.]+/s   (under a second|about \d)", line), line
    assert any(line.startswith("  total: ") for line in plan)
    assert "fisim ladder --full-size" in r.stderr


# speeds of one core as the README and docs/strength.md quote them (games per second): a check of the defaults' size
# (tuned-search:8 as search:8: tuned-search:16 played 6.3 games per second where search:16 played 5.9)
QUOTED_SPEEDS = {"random": 115_000, "passive": 100_000, "greedy": 8_000, "expert": 2_700, "tuned": 2_600,
                 "planner": 1_000, "deep": 400, "search:8": 5.3, "search:8/tuned": 5.3, "search:32": 3.5,
                 "search:8/planner": 4.5, "clairvoyant:32": 3.5}


def test_the_defaults_finish_in_minutes_and_the_full_size_in_hours():
    from fisim.cli.ladder import ladder as command
    defaults = {p.name: p.default for p in command.params}
    levels, players = grid.parse_levels(defaults["levels"]), grid.parse_players(defaults["players_text"])
    policies = [*defaults["policies_text"].split(","), "clairvoyant:32"]
    rows = ladder.plan(levels, players, policies, defaults["games"], [defaults["replayer"]], defaults["deals"],
                       defaults["repeats"])
    seconds = sum(games / QUOTED_SPEEDS[policy] / 2 for _, policy, games in rows)
    assert 60 < seconds < 20 * 60
    text = ladder.format_plan(rows, QUOTED_SPEEDS, 2, "the defaults")
    assert "hours here): fisim ladder --full-size" in text
    full = float(re.search(r"about ([0-9.]+) hours here", text).group(1))
    assert full > 3


def test_the_full_size_ladder_is_one_option_of_the_sizes_in_fisim_defaults(capsys):
    """issue 44 item 4: the full-size ladder is written once (fisim.defaults.FULL_LADDER): the
    README and docs give `fisim ladder --full-size`, its help spells the sizes, and it is refused
    beside a size of its own."""
    from fisim.defaults import FULL_LADDER
    help_text = " ".join(run("ladder", "--help").stdout.split())
    assert all(f"--{k} {v}" in help_text for k, v in FULL_LADDER.items())
    for doc in ("README.md", "docs/cli.md"):
        assert "fisim ladder --full-size" in (Path(__file__).parent.parent / doc).read_text()
    status, _, err = in_process(capsys, "ladder", "--full-size", "--games", "10")
    assert status == 2 and "--full-size sets the ladder's sizes; give it without --games" in err
