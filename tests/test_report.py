"""Balance reports (`fisim report`): every section and figure, the HTML opened in headless
Chromium, the numbers against the store, and one-line errors for missing or damaged stores."""
import json
import os
import re
import shutil
import struct
from pathlib import Path

import pytest
from support.commands import run
from support.reports import (
    RANDOM,
    fake_store,
    images_in_chromium,
    interval,
    md_tables,
    pct,
    per_deal,
    pooled_rate_ci,
    rate_ci,
    run_chromium,
)

import fisim
from fisim import grid
from fisim.comparison import compare, mean_difference
from fisim.reporting import write_report
from fisim.stats import wilson
from fisim.store import Store
from fisim.sweeping import run_sweep
from fisim.tables import win_bits

pytestmark = pytest.mark.compiles      # needs the compiled engine: games at its speed

TEAMS = "diver+pilot,engineer+explorer,messenger+navigator,diver+pilot+messenger,navigator+pilot+explorer"
ALL_SECTIONS = ["islands", "layouts", "win-by-level", "heat-map", "team-ranking", "team-levels", "loss-causes",
                "survival", "feel", "rules", "policies", "named-tiles", "tiles-standard", "tiles-skull-island"]
HUMAN = "computer team's"
RANKING = "Teams ranked within each player count (levels pooled; rate and 95% CI per level on the right)"


# --- stores ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    """A real small sweep with every axis varied (so every section applies) and its report."""
    out = tmp_path_factory.mktemp("report") / "sweep"
    cells = grid.expand(["standard", "skull-island"], ["novice", "elite"], [2, 3], grid.parse_teams(TEAMS),
                        ["random", "passive"], [(), ("heli-all",)])
    run_sweep(cells, out, seed=3, target={"games": 1500}, chunk_games=1000, trace_games=3)  # two chunks, one short
    written = write_report(out, out / "report", ("html", "md", "png", "svg"))
    return out, written


@pytest.fixture(scope="module")
def faked(tmp_path_factory):
    out = tmp_path_factory.mktemp("fake") / "store"
    cells = grid.expand(["standard", "skull-island", "bone-island"], ["novice", "normal", "elite", "legendary"],
                        [2, 3], "random", ["random"], [(), ("navigator-plain",)])
    fake_store(out, cells, 3000, 1000)
    return out


# --- sections and figures --------------------------------------------------------------------

def test_the_report_has_every_section_and_figure(swept):
    out, written = swept
    report = out / "report"
    assert {p.name for p in written} >= {"report.html", "report.md"}
    for sid in ALL_SECTIONS:
        for fmt in ("png", "svg"):
            assert (report / "figures" / f"{sid}.{fmt}").stat().st_size > 5000, sid
    md = (report / "report.md").read_text()
    html = (report / "report.html").read_text()
    for sid in ALL_SECTIONS:
        assert f"](figures/{sid}.png)" in md
        assert f'id="figure-{sid}"' in html
    assert html.count("<img ") == len(ALL_SECTIONS) and html.count('src="data:image/png;base64,') == len(ALL_SECTIONS)
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html), "the page must not load anything from the network"
    for title in ("The islands", "Win rate by level", "Level × players", "Teams ranked", "How games end",
                  "How long games last", "How the game feels",
                  "Islands compared with the standard island", "Rule readings compared with the official rules",
                  "Policies compared"):
        assert f"## {title}" in md and f"<h2>{title}</h2>" in html
    # every figure's caption says who played and how many games; the page says once whose win rates these are
    captions = re.findall(r"^\*([^*].*[^*])\*$", md, flags=re.M)
    assert len(captions) == len(ALL_SECTIONS)
    for caption in captions:
        assert RANDOM in caption and " games" in caption
    for page in (md, re.sub(r"<svg.*?</svg>|<img [^>]*>", "", html, flags=re.S)):
        assert page.count("not a human team's") == 1 and HUMAN in page
    assert "passive@2" in md and "heli-all" in md and "skull-island" in md
    assert str(out.parent) not in md and str(out.parent) not in html, "no machine path in the report"
    tables = md_tables(md)
    ranking = tables[RANKING]
    spread = sum(len({r["Win rate"] for r in ranking if r["Players"] == p}) > 1 for p in ("2", "3"))
    assert sum("(strongest)" in r["Team"] for r in ranking) == spread == sum("(weakest)" in r["Team"] for r in ranking)


def test_the_team_ranking_highlights_the_strongest_and_weakest_teams(tmp_path):
    out = tmp_path / "store"
    fake_store(out, grid.expand(["standard"], ["normal", "elite"], [2], "all", ["random"], [()]), 2000, 1000)
    write_report(out, tmp_path / "r", ("md", "html"))
    md = (tmp_path / "r" / "report.md").read_text()
    ranking = md_tables(md)[RANKING]
    cells = fisim.load(out)
    pooled = cells.groupby("team")[["wins", "games"]].sum()
    rates = (pooled["wins"] / pooled["games"]).sort_values(ascending=False, kind="stable")
    assert len(ranking) == 15 and [r["Rank"] for r in ranking] == [str(i) for i in range(1, 16)]
    assert [pct(float(r["Win rate"].rstrip("%")) / 100) for r in ranking] == [pct(x) for x in rates]
    assert ranking[0]["Team"] == f"{rates.index[0]} (strongest)"
    assert ranking[-1]["Team"] == f"{rates.index[-1]} (weakest)"
    assert f"strongest team {rates.index[0]}" in md
    html = (tmp_path / "r" / "report.html").read_text()
    assert html.count('<tr class="strongest">') == 1 and html.count('<tr class="weakest">') == 1


@pytest.mark.slow
def test_sections_without_data_are_left_out_and_sweep_writes_the_report_unless_told_not_to(tmp_path):
    out = tmp_path / "one"
    args = ["sweep", "--levels", "normal", "--players", "2", "--policies", "random", "--games", "2000",
            "--chunk-games", "1000", "--quiet", "--out", str(out)]
    r = run(*args, "--no-report")
    assert r.returncode == 0, r.stderr
    assert not (out / "report").exists()
    r = run(*args)                                   # nothing left to play: just the report
    assert r.returncode == 0, r.stderr
    assert "report:" in r.stdout and (out / "report" / "report.html").exists()
    md = (out / "report" / "report.md").read_text()
    assert "## Win rate by level" in md and "## How games end" in md and "## Adventurers in the team" in md
    for absent in ("Level × players", "Teams ranked", "Islands compared", "Rule readings", "Policies compared"):
        assert absent not in md
    assert sorted(p.name for p in (out / "report" / "figures").iterdir()) == \
        ["adventurers.png", "feel.png", "loss-causes.png", "named-tiles.png", "survival.png", "tiles-standard.png"]
    r = run("report", str(out), "--out", str(tmp_path / "svg"), "--format", "html,svg", "--title", "Tiny")
    assert r.returncode == 0, r.stderr
    html = (tmp_path / "svg" / "report.html").read_text()
    assert "<title>Tiny</title>" in html and html.count("<svg") >= 3 and "<img " not in html
    assert not (tmp_path / "svg" / "report.md").exists()


# --- the HTML in a real browser --------------------------------------------------------------

def png_size(path):
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


def test_the_html_report_opens_in_chromium_with_every_image_loaded(swept, tmp_path):
    out, _ = swept
    images = images_in_chromium(out / "report" / "report.html", tmp_path)
    assert len(images) == len(ALL_SECTIONS)
    for image in images:
        assert image["complete"] and image["width"] > 0 and image["height"] > 0, image
    shot = tmp_path / "report.png"
    r = run_chromium(tmp_path, "--window-size=1200,3000", f"--screenshot={shot}",
                     (out / "report" / "report.html").as_uri())
    assert r.returncode == 0, r.stderr[-2000:]
    assert png_size(shot) == (1200, 3000) and shot.stat().st_size > 50_000
    if os.environ.get("FISIM_SCREENSHOT_DIR"):               # to look at it
        shutil.copy(shot, Path(os.environ["FISIM_SCREENSHOT_DIR"]) / "report-screenshot.png")


# --- the numbers -----------------------------------------------------------------------------

def test_the_numbers_in_the_report_are_those_of_the_store(swept):
    out, _ = swept
    cells = fisim.load(out)
    tables = md_tables((out / "report" / "report.md").read_text())
    main = cells[(cells["layout"] == "standard") & (cells["policy"] == RANDOM) & (cells["rules"] == "official")]
    rows = tables["Win rate by level and player count"]
    assert len(rows) == 4
    for row in rows:
        mine = main[(main["players"] == int(row["Players"])) & (main["level"] == row["Level"])]
        games, wins = int(mine["games"].sum()), int(mine["wins"].sum())
        assert row["Games"] == f"{games:,}" and row["Wins"] == f"{wins:,}"
        assert row["Win rate"] == pct(wins / games) and row["95% CI"] == interval(*wilson(wins, games))
    outcomes = tables["Outcome shares per player count and level (95% CI)"]
    for row in outcomes:
        mine = main[(main["players"] == int(row["Players"])) & (main["level"] == row["Level"])]
        for cause in ("landing_sunk", "treasure_lost", "drowned", "skull"):
            count = round((mine[f"share_{cause}"] * mine["games"]).sum())
            assert row[cause.replace("_", " ")] == rate_ci(count, mine["games"].sum())
    lengths = tables["Game length and treasures captured"]
    for row in lengths:
        mine = main[(main["players"] == int(row["Players"])) & (main["level"] == row["Level"])]
        mean = (mine['mean_turns'] * mine['games']).sum() / mine['games'].sum()
        assert row["Mean turns (sd)"].startswith(f"{mean:.2f} (")
    ranking = tables[RANKING]
    assert len(ranking) == 5
    for row in ranking:
        team = row["Team"].split(" ")[0]
        mine = main[main["team"] == team]
        games, wins = int(mine["games"].sum()), int(mine["wins"].sum())
        assert row["Win rate"] == pct(wins / games) and row["Games"] == f"{games:,}"
        for level in ("novice", "elite"):
            one = mine[mine["level"] == level].iloc[0]
            assert row[level] == rate_ci(one["wins"], one["games"])


def test_paired_differences_in_the_report_are_those_of_the_store(faked, tmp_path):
    write_report(faked, tmp_path / "r", ("md",))
    tables = md_tables((tmp_path / "r" / "report.md").read_text())
    manifest = json.loads((faked / "manifest.json").read_text())
    chunks = Store(faked).read_chunks()
    cells = fisim.load(faked)
    layouts = tables["Each layout against standard, per level (players and teams pooled)"]
    assert len(layouts) == 8 and {r["Layout"] for r in layouts} == {"skull-island", "bone-island"}
    for row in layouts:
        pick = cells[(cells["level"] == row["Level"]) & (cells["rules"] == "official")]
        a, b = [], []
        for players in (2, 3):
            here = pick[pick["players"] == players].set_index("layout")["cell"]
            a.append(win_bits(chunks, here[row["Layout"]], manifest["target"]))
            b.append(win_bits(chunks, here["standard"], manifest["target"]))
        diff, low, high = mean_difference(per_deal(a), per_deal(b))      # the deal the unit
        assert row["Difference (points)"] == f"{100 * diff:+.2f}"
        assert row["95% CI"] == f"{100 * low:+.2f} to {100 * high:+.2f}"
        assert row["Win rate (95% CI)"] == pooled_rate_ci(a) and row["Games"] == f"{sum(map(len, a)):,}"
        assert row["Baseline (95% CI)"] == f"{pooled_rate_ci(b)} standard"
        assert row["Significant"] == ("yes" if low > 0 or high < 0 else "no")
    assert any(float(r["Difference (points)"]) < -5 and r["Significant"] == "yes" for r in layouts)
    rules = tables["Each rule reading against official, per level (players and teams pooled)"]
    assert [r["Rules"] for r in rules] == ["navigator-plain"] * 4
    assert all(r["Significant"] == "yes" and float(r["Difference (points)"]) > 0 for r in rules)


def test_a_single_player_count_comparison_equals_fisim_compare(tmp_path):
    out = tmp_path / "store"
    cells = grid.expand(["standard"], ["normal", "elite"], [3], "random", ["random", "passive"], [()])
    fake_store(out, cells, 2500, 1000, seed=4)
    write_report(out, tmp_path / "r", ("md",))
    rows = md_tables((tmp_path / "r" / "report.md").read_text())[
        f"Each policy against {RANDOM}, per level (players and teams pooled)"]
    direct = compare(out, "policy")
    assert len(rows) == len(direct) == 2
    for row, (_, d) in zip(rows, direct.iterrows()):
        assert row["Policy"] == "passive@2" and row["Level"] == d["level"]
        assert row["Difference (points)"] == f"{100 * d['difference']:+.2f}"
        assert row["95% CI"] == f"{100 * d['difference_ci_low']:+.2f} to {100 * d['difference_ci_high']:+.2f}"
        baseline = row["Baseline (95% CI)"]
        assert baseline.startswith(f"{pct(d['baseline_rate'])} (") and baseline.endswith(f" {RANDOM}")
        assert row["Win rate (95% CI)"].startswith(pct(d["rate"]) + " (")


# --- missing and damaged stores --------------------------------------------------------------

def _damage(store, how):
    chunks = sorted((store / "chunks").glob("*.parquet"))
    if how == "no manifest":
        (store / "manifest.json").unlink()
        return "manifest.json"
    if how == "manifest not json":
        (store / "manifest.json").write_text("{ not json")
        return "manifest.json"
    if how == "manifest without cells":
        m = json.loads((store / "manifest.json").read_text())
        del m["cells"]
        (store / "manifest.json").write_text(json.dumps(m))
        return "cells"
    if how == "no chunks directory":
        shutil.rmtree(store / "chunks")
        return "chunks"
    if how == "chunk missing":
        chunks[0].unlink()                                  # chunk 0 of a cell whose chunk 1 is there
        return chunks[0].name
    if how == "chunk truncated":
        chunks[1].write_bytes(chunks[1].read_bytes()[:60])
        return chunks[1].name
    if how == "chunk inconsistent":
        import pyarrow as pa
        import pyarrow.parquet as pq
        record = pq.read_table(chunks[2]).to_pylist()[0]
        record["wins"] += 7
        pq.write_table(pa.Table.from_pylist([record]), chunks[2])
        return chunks[2].name
    if how == "cell never played":
        for f in chunks:
            if f.name.startswith(chunks[0].name.split("-")[0]):
                f.unlink()
        return "no finished games"
    raise AssertionError(how)


@pytest.mark.parametrize("how", ["no manifest", "manifest not json", "manifest without cells", "no chunks directory",
                                 "chunk missing", "chunk truncated", "chunk inconsistent", "cell never played"])
def test_a_missing_or_damaged_store_gets_one_line_and_exit_2(faked, tmp_path, how):
    store = tmp_path / "store"
    shutil.copytree(faked, store)
    words = _damage(store, how)
    r = run("report", str(store), "--format", "md")
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.startswith("fisim: error: ") and words in r.stderr
    assert not (store / "report" / "report.md").exists()


@pytest.mark.slow
def test_an_unfinished_sweep_gets_a_report_with_a_warning(faked, tmp_path):
    store = tmp_path / "store"
    shutil.copytree(faked, store)
    last = sorted((store / "chunks").glob("*.parquet"))[-1]       # the last chunk of a cell: not played yet
    last.unlink()
    r = run("report", str(store), "--format", "md,html")
    assert r.returncode == 0, r.stderr
    assert r.stderr.startswith("fisim: warning: 1 of 48 cells have not reached") and "same sweep" in r.stderr
    assert "> **Warning:** 1 of 48 cells" in (store / "report" / "report.md").read_text()
    assert 'class="warning"' in (store / "report" / "report.html").read_text()


def test_bad_report_arguments_get_one_line(tmp_path):
    r = run("report", str(tmp_path / "nowhere"))
    assert r.returncode == 2 and "no manifest.json" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    r = run("report", str(tmp_path), "--format", "html,pdf")
    assert r.returncode == 2 and "pdf" in r.stderr and "html, md, png, svg" in r.stderr


def test_the_template_ships_with_the_package():
    from importlib import resources
    template = resources.files("fisim.reporting").joinpath("templates", "report.html.j2")
    assert "{{ report.title }}" in template.read_text()
