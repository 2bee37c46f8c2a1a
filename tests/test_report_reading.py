"""The report as a new user reads it: a sweep of islands leads with them, comparisons say what
pairing bought, figures keep their titles on one line, the page fits 1400 px, tables come as
data too (numbers in their own columns), and the command reference (docs/cli.md) shows how to
complete the command line."""
import json
import os
import re
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from support.commands import FISIM
from support.reports import RANDOM, documented_tables, fake_store, md_tables, per_deal, run_chromium

import fisim
from fisim import grid
from fisim.comparison import mean_difference
from fisim.reporting import data, figures, sections, write_report
from fisim.rules.config import SWITCHES
from fisim.store import Store
from fisim.tables import win_bits
from policies import load_policy

pytestmark = pytest.mark.compiles      # needs the compiled engine: games at its speed

DOCS = Path(__file__).parent.parent / "docs"
PASSIVE = f"passive@{load_policy('passive').VERSION}"
FIGURE_TITLES = {
    "Computer team's win rate by difficulty level (95% intervals)",
    "Computer team's win rate: level × players (95% intervals)",
    "How the computer team's games end, per level (share of games)",
    "Share of the computer team's games still going after turn t",
    "Computer team's win rate with each adventurer in the team (95% intervals)",
    "The islands, hardest first (win rate, levels and players pooled)",
    "Islands compared with the standard island: paired differences in win rate (95% intervals)",
    "Rule readings compared with the official rules: paired differences in win rate (95% intervals)",
    *(f"Which tiles decide the game: {island} (share per tile, 95% intervals in the tables)"
      for island in ("standard", "skull-island")),
    "Which named tiles decide the game: standard (share per tile, 95% intervals)",
    "The computer team's chance of winning over the game (traced games)",
}


@pytest.fixture(scope="module")
def islands(tmp_path_factory):
    """Four islands, two levels, 2 and 3 players, random teams, a rule switch; and its report."""
    out = tmp_path_factory.mktemp("islands") / "store"
    cells = grid.expand(["standard", "skull-island", "bone-island", "atoll-of-decisions-arena"], ["novice", "elite"],
                        [2, 3], "random", ["random"], [(), ("heli-all",)])
    fake_store(out, cells, 2000, 1000)
    write_report(out, out / "report", ("html", "md", "png", "csv", "json"))
    return out


def test_a_sweep_of_islands_leads_with_them_and_names_the_hardest(islands):
    md = (islands / "report" / "report.md").read_text()
    headings = re.findall(r"^## (.*)$", md, flags=re.M)
    assert headings[:3] == ["The sweep", "The islands", "Islands compared with the standard island"]
    cells = fisim.load(islands)
    cells = cells[cells["rules"] == "official"]
    pooled = cells.groupby("layout")[["wins", "games"]].sum()
    rates = (pooled["wins"] / pooled["games"]).rename("rate").reset_index().sort_values(["rate", "layout"])
    rates = rates.set_index("layout")["rate"]                # ties (fake islands alike) by name, as the report
    glance = md.split("**At a glance**")[1].split("Contents:")[0].strip().splitlines()
    assert glance[0].startswith(f"- Hardest island: {rates.index[0]}, {100 * rates.iloc[0]:.2f}% won")
    assert f"easiest: {rates.index[-1]}" in glance[0] and glance[1].startswith("- Islands against standard (paired")
    assert "on the standard island" in glance[-1]
    table = md_tables(md)["Win rate per island, hardest first (levels, players and teams pooled)"]
    assert [r["Layout"] for r in table] == list(rates.index)
    assert "](figures/islands.png)" in md and (islands / "report" / "figures" / "islands.png").stat().st_size > 5000


def test_comparison_texts_give_the_measured_correlation_of_the_paired_games(islands):
    md = (islands / "report" / "report.md").read_text()
    assert "much narrower" not in md
    chunks = Store(islands).read_chunks()
    target = Store(islands).read_manifest()["target"]
    cells = fisim.load(islands)
    for axis, section, values, base in (("layout", "Islands compared with the standard island", None, "standard"),
                                        ("rules", "Rule readings compared with the official rules", None, "official")):
        held = cells[cells["rules"] == "official"] if axis == "layout" else cells[cells["layout"] == "standard"]
        correlations = []
        for (value, level), group in held[held[axis] != base].groupby([axis, "level"], observed=True):
            a, b = [], []
            for _, cell in group.sort_values("players").iterrows():
                ref = held[(held[axis] == base) & (held["level"] == level) & (held["players"] == cell["players"])]
                a.append(win_bits(chunks, cell["cell"], target))
                b.append(win_bits(chunks, ref["cell"].iloc[0], target))
            correlations.append(np.corrcoef(np.concatenate(a), np.concatenate(b))[0, 1])
        text = md.split(f"## {section}")[1].split("\n## ")[0]
        low, high = re.search(r"correlate by r = (-?[\d.]+)(?: to (-?[\d.]+))?", text).groups()
        assert (float(low), float(high or low)) == (round(min(correlations), 2), round(max(correlations), 2)), axis
        assert re.search(r"intervals are \d+%( to \d+%)? narrower than for two separate samples", text)


def test_every_rule_switch_is_explained_in_the_report(islands):
    md = (islands / "report" / "report.md").read_text()
    assert f"heli-all ({SWITCHES['heli-all']})" in md and "official (the rules as printed)" in md


def test_figure_titles_stay_on_one_line_and_survival_panels_share_one_turn_scale(tmp_path):
    fake_store(tmp_path / "s", grid.expand(["standard", "skull-island"], ["novice", "legendary"], [2, 4], "random",
                                           ["random"], [(), ("heli-all",)]), 1000, 1000)
    report = sections.build(data.read(tmp_path / "s"))
    drawn = [s for s in report.sections if s.figure is not None]
    assert {s.id for s in drawn} >= {"islands", "adventurers", "survival", "loss-causes", "heat-map", "feel"}
    for s in drawn:
        assert s.figure._suptitle.get_text().splitlines()[0] in FIGURE_TITLES, s.id
    panels = next(s for s in report.sections if s.id == "survival").figure.axes
    assert len(panels) == 2
    assert all(list(ax.get_xticks()) == list(panels[0].get_xticks()) for ax in panels)
    small = figures.loss_causes(data.by_level(data.read(tmp_path / "s")).query("players == 2"), ["novice", "legendary"],
                                "a subtitle")
    assert small._suptitle.get_text().splitlines()[0] == "How the computer team's games end, per level (share of games)"


MEASURE_SCRIPT = """<script>
window.addEventListener("load", function () {
  document.querySelectorAll("details").forEach(function (d) { d.open = true; });
  var wide = Array.prototype.filter.call(document.querySelectorAll(".scroll"), function (s) {
    return s.scrollWidth > s.clientWidth;
  }).map(function (s) { return s.querySelector("caption").textContent; });
  var out = document.createElement("pre");
  out.id = "measure";
  out.textContent = JSON.stringify({wide: wide, main: document.querySelector("main").clientWidth,
                                    tables: document.querySelectorAll(".scroll").length});
  document.body.appendChild(out);
});
</script>"""


def test_the_html_report_at_1400px_has_no_horizontally_scrolling_table(islands, tmp_path):
    html = (islands / "report" / "report.html").read_text()
    harness = tmp_path / "harness.html"
    harness.write_text(html.replace("</body>", MEASURE_SCRIPT + "\n</body>"))
    r = run_chromium(tmp_path, "--window-size=1400,2000", "--virtual-time-budget=15000", "--dump-dom", harness.as_uri())
    assert r.returncode == 0, r.stderr[-2000:]
    found = re.search(r'<pre id="measure">(.*?)</pre>', r.stdout, flags=re.S)
    assert found, r.stdout[-1000:]
    measured = json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    assert measured["tables"] >= 8 and measured["main"] > 1300
    assert measured["wide"] == []


def test_the_reports_tables_as_data_hold_numbers_in_the_columns_the_docs_name(islands):
    report = islands / "report"
    tables = json.loads((report / "tables.json").read_text())
    schema = documented_tables()
    names = [t["name"] for t in tables]
    assert sorted(names) == sorted(p.stem for p in (report / "tables").glob("*.csv"))
    assert {"win-rate-by-players-and-level", "outcome-shares", "island-win-rate", "layouts-compared",
            "rules-compared", "named-tiles-standard", "places-skull-island", "close-calls", "win-chance",
            "win-chance-arc"} <= set(names)
    for t in tables:
        frame = pd.read_csv(report / "tables" / f"{t['name']}.csv")
        pattern = re.sub(r"-(standard|skull-island|bone-island|atoll-of-decisions-arena)$", "-<island>", t["name"])
        assert list(frame.columns) == schema[pattern] == list(t["rows"][0]), t["name"]
        assert len(frame) == len(t["rows"])
        for column in ("games", "rate", "ci_low", "ci_high", "difference"):
            if column in frame:
                assert pd.api.types.is_numeric_dtype(frame[column]), (t["name"], column)
        if "rate" in frame:
            assert ((frame["ci_low"] <= frame["rate"]) & (frame["rate"] <= frame["ci_high"])).all()
    cells = fisim.load(islands)
    main = cells[(cells["layout"] == "standard") & (cells["rules"] == "official")]
    pooled = main.groupby(["players", "level"], observed=True)[["games", "wins"]].sum().reset_index()
    rates = pd.read_csv(report / "tables" / "win-rate-by-players-and-level.csv")
    assert rates[["players", "level", "games", "wins"]].astype(str).values.tolist() == \
        pooled.astype(str).values.tolist()
    assert np.allclose(rates["rate"], pooled["wins"] / pooled["games"])


def test_the_reference_shows_shell_completion_and_it_works():
    reference = (DOCS / "cli.md").read_text()
    for shell in ("bash", "zsh", "fish"):
        assert f"_FISIM_COMPLETE={shell}_source fisim" in reference
    r = subprocess.run([str(FISIM)], env={**os.environ, "_FISIM_COMPLETE": "bash_source"}, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0 and "complete " in r.stdout and "_FISIM_COMPLETE" in r.stdout


@pytest.fixture(scope="module")
def rules_and_sets(tmp_path_factory):
    """Two rule switches and a --set axis against the official rules, two policies; its report."""
    out = tmp_path_factory.mktemp("glance") / "store"
    rules = grid.with_axes(grid.parse_rules("official,heli-all,navigator-plain"), grid.parse_sets(["waters_rise=2,4"]))
    cells = grid.expand(["standard"], ["novice", "elite"], [2, 3], "random", ["random", "passive"], rules)
    fake_store(out, cells, 2000, 1000)
    write_report(out, out / "report", ("md", "csv"))
    return out


def overall_difference(store, axis, value, baseline, **held):
    """The paired difference of `value` against `baseline` along `axis`, levels and players pooled,
    from the stored per-game wins, the deal the unit (a deal's games at every level and player
    count one observation, their mean)."""
    cells = fisim.load(store)
    for k, v in held.items():
        cells = cells[cells[k] == v]
    chunks = Store(store).read_chunks()
    manifest = json.loads((store / "manifest.json").read_text())
    a, b = [], []
    for _, group in cells.groupby(["level", "players"], observed=True):
        keys = group.set_index(axis)["cell"]
        a.append(win_bits(chunks, keys[value], manifest["target"]))
        b.append(win_bits(chunks, keys[baseline], manifest["target"]))
    return mean_difference(per_deal(a), per_deal(b))


def said(diff, low, high):
    """A paired difference as At a glance says it: harder or easier, by how much, or no clear difference."""
    if low > 0 or high < 0:
        ends = sorted((abs(low), abs(high)))
        return (f"{'easier' if diff > 0 else 'harder'} by {100 * abs(diff):.2f} points "
                f"({100 * ends[0]:.2f} to {100 * ends[1]:.2f})")
    return f"no clear difference ({100 * diff:+.2f} points, {100 * low:+.2f} to {100 * high:+.2f})"


def glance_of(store):
    """The lines of At a glance of the report of `store` (in store/report)."""
    return glance_lines((store / "report" / "report.md").read_text())


def glance_lines(md):
    return md.split("**At a glance**")[1].split("Contents:")[0].strip().splitlines()


def test_at_a_glance_says_harder_or_easier_for_each_alternative_largest_first(rules_and_sets):
    """Each comparison's line names every alternative harder or easier than the baseline and by
    how many points, in words, with the paired 95% interval (issue 47 item 2)."""
    lines = {line.split(" (paired")[0]: line for line in glance_of(rules_and_sets)}
    policies = f"- Policies against {RANDOM}, the game as each plays it"
    expected = {"- Rule readings against official": ("rules", ["heli-all", "navigator-plain"], "official",
                                                    {"policy": RANDOM}),
                "- Rule numbers varied (--set) against their official values": (
                    "rules", ["waters_rise=2", "waters_rise=4"], "official", {"policy": RANDOM}),
                policies: ("policy", [PASSIVE], RANDOM, {"rules": "official"})}
    assert list(lines)[:3] == list(expected)
    for head, (axis, values, baseline, held) in expected.items():
        line = lines[head]
        found = []
        for value in values:
            diff, low, high = overall_difference(rules_and_sets, axis, value, baseline, **held)
            assert f"{value} {said(diff, low, high)}" in line, line
            found.append((line.index(f"{value} "), -abs(diff)))
        assert sorted(found) == sorted(found, key=lambda f: f[1])      # the largest difference named first
    assert "harder by" in lines[policies] and "easier by" in lines["- Rule readings against official"]


def test_the_body_leads_with_what_the_sweep_varied_and_glance_names_the_policy(rules_and_sets):
    """A sweep of rules, rule numbers and policies opens with their sections; every line of At a
    glance about the main figures names the policy and rules they show (issue 47 item 2)."""
    md = (rules_and_sets / "report" / "report.md").read_text()
    headings = re.findall(r"^## (.*)$", md, flags=re.M)
    assert headings[:5] == ["The sweep", "Rule readings compared with the official rules", "Parameter effects",
                            "Policies compared", "Win rate by level"]
    main = [line for line in glance_of(rules_and_sets) if not line.split(" (paired")[0].endswith(
        ("official", "official values", "the game as each plays it"))]
    assert len(main) == 5          # how the game feels, easiest and hardest, level steps, the easiest count, how
                                   # the hardest is lost
    assert all(f"played by {RANDOM}, under the official rules" in line for line in main), main


def test_at_a_glance_says_what_each_level_step_costs_and_which_player_count_is_easiest(islands):
    """The level step, paired on the same deals with players and teams pooled; the easiest player
    count at each level; how the hardest setting is lost, cause by cause (issue 47 item 2)."""
    glance = glance_of(islands)
    cells = fisim.load(islands)
    main = cells[(cells["layout"] == "standard") & (cells["rules"] == "official")]
    chunks, target = Store(islands).read_chunks(), Store(islands).read_manifest()["target"]
    a, b = [], []
    for players in (2, 3):
        mine = main[main["players"] == players].set_index("level")["cell"]
        a.append(win_bits(chunks, mine["elite"], target))
        b.append(win_bits(chunks, mine["novice"], target))
    diff, low, high = mean_difference(per_deal(a), per_deal(b))
    step = next(line for line in glance if line.startswith("- What each level step costs on the standard island"))
    assert f"→ elite {100 * np.concatenate(a).mean():.2f}% (" in step and step.endswith(f"{said(diff, low, high)}.")
    assert "harder by" in step
    pooled = main.groupby(["level", "players"], observed=True)[["wins", "games"]].sum()
    rates = (pooled["wins"] / pooled["games"]).unstack("players")
    best = rates.idxmax(axis=1)
    easiest = next(line for line in glance if line.startswith("- Easiest player count"))
    for level in ("novice", "elite"):
        assert f"{level} {best[level]} players, {100 * rates.loc[level, best[level]]:.2f}%" in easiest
    assert easiest.endswith(f"{best['novice']} players at every level." if best.nunique() == 1
                            else "it changes with the level.")
    worst = rates.stack().idxmin()
    hardest = main[(main["level"] == worst[0]) & (main["players"] == worst[1])]
    lost = next(line for line in glance if line.startswith("- How the hardest setting"))
    assert f"({worst[0]} with {worst[1]} players on the standard island" in lost
    games = int(hardest["games"].sum())
    shares = {c: round(float((hardest[f"share_{c}"] * hardest["games"]).sum())) for c in
              ("landing_sunk", "treasure_lost", "drowned", "skull")}
    named = [c for c in sorted(shares, key=lambda c: -shares[c]) if shares[c]]
    for cause in named:
        assert f"{cause.replace('_', ' ')} {100 * shares[cause] / games:.2f}% (" in lost
    assert [lost.index(c.replace("_", " ") + " ") for c in named] == sorted(lost.index(c.replace("_", " ") + " ")
                                                                             for c in named)


def test_a_variant_file_is_a_variant_not_a_rule_reading(tmp_path):
    """A rules label with a variant file in it is called a variant: the section, its tables and
    At a glance (issue 47 item 2); a rule switch stays a rule reading ('Each rule reading', item 7)."""
    out = tmp_path / "store"
    variant = DOCS / "variants" / "rising-tide.toml"
    fake_store(out, grid.expand(["standard"], ["novice"], [2], "random", ["random"],
                                grid.parse_rules(f"official,{variant}")), 1000, 1000)
    write_report(out, tmp_path / "r", ("md",))
    md = (tmp_path / "r" / "report.md").read_text()
    assert "## Variants compared with the official rules" in md and "Rule reading" not in md
    assert "Each variant against official, per level (players and teams pooled)" in md_tables(md)
    assert any(line.startswith("- Variants against official (paired") for line in glance_lines(md))
    fake_store(tmp_path / "both", grid.expand(["standard"], ["novice"], [2], "random", ["random"],
                                              grid.parse_rules(f"official,heli-all,{variant}")), 1000, 1000)
    write_report(tmp_path / "both", tmp_path / "both" / "report", ("md",))
    md = (tmp_path / "both" / "report" / "report.md").read_text()
    assert "## Rule readings and variants compared with the official rules" in md
    assert "Each rule reading or variant against official, per level (players and teams pooled)" in md_tables(md)


def test_a_figure_of_one_point_is_left_out(tmp_path):
    """An island sweep at one level and player count: its win rate by level is one point, so that
    section keeps its table and draws no figure (issue 47 item 7)."""
    out = tmp_path / "store"
    fake_store(out, grid.expand(["standard", "skull-island"], ["normal"], [3], "random", ["random"], [()]), 1000, 1000)
    written = write_report(out, tmp_path / "r", ("md", "png"))
    md = (tmp_path / "r" / "report.md").read_text()
    assert "## Win rate by level" in md and "Win rate by level and player count" in md_tables(md)
    assert "figures/win-by-level.png" not in md and "win-by-level.png" not in {p.name for p in written}
    assert "islands.png" in {p.name for p in written}


def test_the_team_by_level_map_shows_each_teams_rate_per_level(tmp_path):
    """Fixed teams at two levels get a map of teams × levels whose squares are the store's rates
    (issue 47 item 7)."""
    out = tmp_path / "store"
    fake_store(out, grid.expand(["standard"], ["novice", "elite"], [2, 3], grid.parse_teams(
        "diver+pilot,engineer+explorer,messenger+navigator+pilot,diver+engineer+explorer"), ["random"], [()]),
        1000, 1000)
    report = sections.build(data.read(out))
    section = next(s for s in report.sections if s.id == "team-levels")
    shown = sorted(t.get_text() for ax in section.figure.axes for t in ax.texts)
    cells = fisim.load(out)
    assert shown == sorted(f"{100 * r:.1f}%" for r in cells["rate"]) and len(shown) == 8
    two = cells[cells["players"] == 2].groupby("team")[["wins", "games"]].sum()
    strongest_first = sorted(two.index, key=lambda team: (-two.at[team, "wins"] / two.at[team, "games"], team))
    panel = next(ax for ax in section.figure.axes if ax.texts)
    assert [t.get_text() for t in panel.get_yticklabels()] == strongest_first


def test_a_set_axis_is_shown_once_as_parameter_effects_not_as_a_rule_reading(rules_and_sets):
    md = (rules_and_sets / "report" / "report.md").read_text()
    rules_section = md.split("## Rule readings compared with the official rules")[1].split("\n## ")[0]
    assert "| heli-all |" in rules_section and "| waters_rise=" not in rules_section
    assert "| waters_rise | 4 | novice |" in md.split("## Parameter effects")[1]
    compared = pd.read_csv(rules_and_sets / "report" / "tables" / "rules-compared.csv")
    assert {"heli-all", "navigator-plain"} <= set(compared["rules"])
    assert not any(label.startswith("waters_rise=") for label in compared["rules"])
    effects = pd.read_csv(rules_and_sets / "report" / "tables" / "parameter-effects.csv")
    assert list(effects.columns) == documented_tables()["parameter-effects"]
    assert sorted(set(effects["value"])) == [2, 3, 4]


def test_the_adventurer_figure_is_sorted_by_rate_with_its_player_counts_in_legend_order(islands):
    sweep = data.read(islands)
    section = next(s for s in sections.build(sweep).sections if s.id == "adventurers")
    pooled = data.roles(sweep).groupby("role")[["wins", "games"]].sum()
    rate = pooled["wins"] / pooled["games"]
    ax = section.figure.axes[0]
    top_down = [t.get_text() for t in sorted(ax.get_yticklabels(), key=lambda t: -t.get_position()[1])]
    assert top_down == sorted(rate.index, key=lambda n: -rate[n]) and rate.nunique() == len(rate)
    assert section.tables[0].people.headings[1:] == top_down
    assert [t.get_text() for t in section.figure.legends[0].get_texts()] == ["2 players", "3 players"]
    highest = [max(container.lines[0].get_ydata()) for container in ax.containers]     # legend order
    assert highest == sorted(highest, reverse=True) and len(set(highest)) == 2


def test_a_report_of_two_stores_keeps_each_ones_sections_apart(tmp_path):
    """`fisim report A B`: one report of both, the second's sections that the first has too named
    for their store, each figure its own file."""
    for name in ("first", "second"):
        fake_store(tmp_path / name, grid.expand(["standard"], ["novice", "elite"], [2], "random", ["random"], [()]),
                   1000, 1000)
    written = write_report([tmp_path / "first", tmp_path / "second"], tmp_path / "r", ("md", "png"))
    md = (tmp_path / "r" / "report.md").read_text()
    assert "## Win rate by level\n" in md and "## Win rate by level (second)\n" in md
    assert {"win-by-level.png", "win-by-level-second.png"} <= {p.name for p in written}
    assert "from the results stores “first”, “second”" in md
