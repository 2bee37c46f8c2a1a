"""What a report says: its sections, each a figure and tables with captions, built from the
aggregates of fisim.reporting.data. The HTML and Markdown writers render the same Report, so both
show the same numbers. A section is only made when the sweep has the data for it."""
import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from fisim.reporting import data, figures
from fisim.results.games import CAUSES
from fisim.rules.config import SWITCHES, level_position
from fisim.rules.constants import ROLE_NAMES
from fisim.rules.variant import DECK_KEYS, PARAMETERS, parameter_text
from fisim.stats import wilson

HUMAN = "win rates are the computer team's, not a human team's"    # on every figure; in the text once


@dataclass
class Table:
    caption: str
    columns: list
    rows: list                      # lists of strings
    marks: list = None              # per row: "", "strongest" or "weakest"
    markdown: bool = True           # detail tables go to the HTML report only


@dataclass
class Data:
    """A section's numbers as data (tables/<name>.csv, an entry of tables.json): one value per
    column, every rate a fraction beside its count, games and 95% interval. docs/report-tables.md
    gives each table's columns."""
    name: str                       # what the table is, as a file name
    caption: str
    frame: object                   # a pandas DataFrame


@dataclass
class Section:
    id: str
    title: str
    text: str
    caption: str                    # who played, the setting held fixed, how many games
    figure: object = None           # a matplotlib Figure
    tables: list = field(default_factory=list)
    note: str = ""
    data: list = field(default_factory=list)        # Data
    glance: str = ""                # the section's answer, for "At a glance"


@dataclass
class Report:
    title: str
    subtitle: str
    overview: list                  # (label, value) pairs
    highlights: list
    warnings: list
    sections: list


def pct(x, digits=2):
    return f"{100 * x:.{digits}f}%"


def ci(low, high, digits=2):
    return f"{100 * low:.{digits}f}–{100 * high:.{digits}f}%"


def rate_ci(k, n):
    """'12.34% (11.90–12.80)': a rate and its 95% Wilson interval, from k of n ('–' of none)."""
    if not n:
        return "–"
    low, high = wilson(int(k), int(n))
    return f"{pct(k / n)} ({100 * low:.2f}–{100 * high:.2f})"


def points(x):
    return f"{100 * x:+.2f}"


def points_ci(low, high):
    return f"{100 * low:+.2f} to {100 * high:+.2f}"


RATE = ["games", "wins", "rate", "ci_low", "ci_high"]     # a win rate's columns in Data


def rate_record(count, games):
    """A rate as data: its count, games, the fraction and its 95% Wilson interval."""
    low, high = wilson(int(count), int(games))
    return {"games": int(games), "count": int(count), "rate": count / games if games else np.nan, "ci_low": low,
            "ci_high": high}


def plural(n, word):
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def players_text(table, p):
    """'3 players', or '1 player (solo)' for a player count the main slice shows under other rules."""
    note = table.loc[table["players"] == p, "note"]
    note = note.iloc[0] if len(note) else ""
    return f"{p} player{'s' if p != 1 else ''}" + (f" ({note})" if note else "")


def _games_text(cells):
    per = sorted(set(int(g) for g in cells["games"]))
    each = f"{per[0]:,}" if len(per) == 1 else f"{per[0]:,}–{per[-1]:,}"
    return f"{int(cells['games'].sum()):,} games ({plural(len(cells), 'cell')} of {each} games each)"


def _who(sweep, cells, held=("layout", "policy", "rules")):
    parts = []
    if "policy" in held:
        parts.append("policy " + ", ".join(sweep.policy_label(p) for p in dict.fromkeys(cells["policy"])))
    if "layout" in held:
        parts.append(", ".join(dict.fromkeys(cells["layout"])) + " island")
    if "rules" in held:
        parts.append(", ".join(dict.fromkeys(cells["rules"])) + " rules")
    return "; ".join(parts) + f"; {_games_text(cells)}."


@dataclass
class _Main:
    """The main slice of a sweep (the baseline layout, policy and rules) as its sections share it:
    its cells, the levels in order, its rates per player count and level, the caption naming who
    played, and the subtitle of its figures."""
    cells: object
    levels: list
    table: object
    who: str
    subtitle: str


def _main_slice(sweep):
    cells = sweep.main()
    levels = sorted(set(sweep.cells["level"]), key=level_position)
    subtitle = (f"policy {sweep.policy_label(sweep.baseline('policy'))} · "
                f"{sweep.baseline('layout')} island · {', '.join(dict.fromkeys(cells['rules']))} rules · "
                f"{int(cells['games'].sum()):,} games · {HUMAN}")
    return _Main(cells, levels, data.by_level(sweep), _who(sweep, cells), subtitle)


# the paired comparisons a sweep may make: (axis, section id, title, noun, what its values are)
COMPARISONS = (("layout", "layouts", "Islands compared with the standard island", "layout", "Islands"),
               ("rules", "rules", "Rule readings compared with the official rules", "rules", "Rule readings"),
               ("policy", "policies", "Policies compared", "policy", "Policies"))
GLANCE_SHOWN = 3            # the alternatives "At a glance" names, largest difference first


def build(sweep, title=None):
    """The report of a sweep: its sections in reading order, each left out when the sweep lacks
    its data; a sweep of several islands leads with them."""
    main = _main_slice(sweep)
    ranked = data.teams(sweep)
    sections = [_win_by_level(main), _heat_map(main), _team_ranking(sweep, main, ranked),
                _adventurers(sweep, main), _loss_causes(main), _survival(main),
                *(_comparison(sweep, *spec, main.levels) for spec in COMPARISONS),
                _parameter_effects(sweep, main.levels), _named_tiles(sweep), *_tiles(sweep)]
    sections = [s for s in sections if s is not None]
    islands = data.by_layout(sweep) if len(sweep.values("layout")) > 1 else None
    if islands is not None:
        leading = [_islands(sweep, islands)] + [s for s in sections if s.id == "layouts"]
        sections = leading + [s for s in sections if s.id != "layouts"]
    return Report(title or "Forbidden Island balance report", _subtitle(sweep), _overview(sweep),
                  _highlights(sweep, main.table, ranked, sections, islands), _warnings(sweep), sections)


def _win_by_level(main):
    table = main.table
    rows = [[str(r["players"]), r["level"], pct(r["rate"]), ci(r["ci_low"], r["ci_high"]), f"{r['games']:,}",
             f"{r['wins']:,}"] for _, r in table.iterrows()]
    return Section(
        "win-by-level", "Win rate by level",
        "The share of games the computer team won at each starting water level, for each number of players"
        + (" (teams pooled)" if main.cells["team"].nunique() > 1 else "") + ", with its 95% interval.",
        main.who, figures.win_by_level(table, main.levels, main.subtitle),
        [Table("Win rate by level and player count", ["Players", "Level", "Win rate", "95% CI", "Games", "Wins"],
               rows)],
        data=[Data("win-rate-by-players-and-level", "Win rate by player count and level (teams pooled)",
                   table[["players", "level", *RATE]])])


def _heat_map(main):
    """Only when the sweep varies both the level and the player count."""
    table = main.table
    if table["level"].nunique() < 2 or table["players"].nunique() < 2:
        return None
    cols = [v for v in main.levels if v in set(table["level"])]
    grid = []
    for p in sorted(table["players"].unique()):
        line = [players_text(table, p)]
        for level in cols:
            r = table[(table["players"] == p) & (table["level"] == level)]
            line.append(f"{pct(r.iloc[0]['rate'])} ({ci(r.iloc[0]['ci_low'], r.iloc[0]['ci_high'])})"
                        if len(r) else "–")
        grid.append(line)
    return Section(
        "heat-map", "Level × players",
        "The same win rates as a map: rows are player counts, columns starting water levels; each square "
        "gives the rate and its 95% interval.",
        main.who, figures.heat_map(table, cols, main.subtitle),
        [Table("Win rate (95% CI) by player count and level", ["", *cols], grid)])


def _team_ranking(sweep, main, ranked):
    """Only when the sweep played fixed teams (`ranked`: data.teams)."""
    if ranked is None:
        return None
    ranking, per_level = ranked
    fixed = main.cells[main.cells["team"] != "random"]
    team_levels = [v for v in main.levels if v in set(per_level["level"])]
    rows, marks = [], []
    for _, r in ranking.iterrows():
        mine = per_level[(per_level["players"] == r["players"]) & (per_level["team"] == r["team"])]
        by = {x["level"]: x for _, x in mine.iterrows()}
        rows.append([str(r["players"]), str(r["rank"]), r["team"] + (f" ({r['mark']})" if r["mark"] else ""),
                     pct(r["rate"]), ci(r["ci_low"], r["ci_high"]), f"{r['games']:,}",
                     *[rate_ci(by[v]["wins"], by[v]["games"]) if v in by else "–" for v in team_levels]])
        marks.append(r["mark"])
    return Section(
        "team-ranking", "Teams ranked",
        "Every team of adventurers the sweep played, ranked within its player count by the computer team's "
        "win rate with the levels pooled; the strongest and weakest team of each player count are "
        "highlighted. Overlapping intervals mean the order of those teams is not settled by these games.",
        _who(sweep, fixed),
        figures.team_ranking(ranking, main.subtitle.replace(
            f"{int(main.cells['games'].sum()):,} games", f"{int(fixed['games'].sum()):,} games")),
        [Table("Teams ranked within each player count (levels pooled; rate and 95% CI per level on the right)",
               ["Players", "Rank", "Team", "Win rate", "95% CI", "Games", *team_levels], rows, marks)],
        data=[Data("teams-ranked", "Teams ranked within each player count, levels pooled",
                   ranking[["players", "rank", "team", "mark", *RATE]]),
              Data("team-win-rate-by-level", "Each fixed team's win rate per level",
                   per_level[["players", "team", "level", *RATE]])])


def _adventurers(sweep, main):
    """Only when the main slice played random teams."""
    role = data.roles(sweep)
    if not len(role) or not main.cells["team"].eq("random").any():
        return None
    pooled = role.groupby("role")[["wins", "games"]].sum()
    strongest_first = sorted(pooled.index, key=lambda n: (-pooled.at[n, "wins"] / pooled.at[n, "games"],
                                                          ROLE_NAMES.index(n)))
    rows = []
    for p in sorted(role["players"].unique()):
        mine = role[role["players"] == p].set_index("role")
        rows.append([players_text(main.table, p),
                     *[f"{pct(mine.loc[n, 'rate'])} ({ci(mine.loc[n, 'ci_low'], mine.loc[n, 'ci_high'])})"
                       if n in mine.index else "–" for n in strongest_first]])
    return Section(
        "adventurers", "Adventurers in the team",
        "With a random team each game, the computer team's win rate in the games whose team included each "
        "adventurer (levels pooled), with its 95% interval; the adventurers with the highest win rate (player "
        "counts pooled) first.",
        _who(sweep, main.cells[main.cells["team"] == "random"]),
        figures.adventurers(role, strongest_first, main.subtitle),
        [Table("Win rate of the games with each adventurer in the team", ["", *strongest_first], rows)],
        data=[Data("adventurer-win-rate", "Win rate of the games whose team included each adventurer, levels pooled",
                   role[["players", "role", *RATE]])])


def _loss_causes(main):
    outcome_cols = ["won", *CAUSES]
    rows = [[str(r["players"]), r["level"], *[rate_ci(r[f"count_{o}"], r["games"]) for o in outcome_cols],
             f"{r['games']:,}"] for _, r in main.table.iterrows()]
    return Section(
        "loss-causes", "How games end",
        "The share of games won and lost to each cause, per level. When several losing conditions hold at "
        "once, a game counts under the first of: landing sunk, treasure lost, drowned, skull.",
        main.who, figures.loss_causes(main.table, main.levels, main.subtitle),
        [Table("Outcome shares per player count and level (95% CI)",
               ["Players", "Level", *[o.replace("_", " ") for o in outcome_cols], "Games"], rows)],
        data=[Data("outcome-shares", "The share of games won and lost to each cause, per player count and level",
                   pd.DataFrame([{"players": r["players"], "level": r["level"], "outcome": o,
                                  **rate_record(r[f"count_{o}"], r["games"])}
                                 for _, r in main.table.iterrows() for o in outcome_cols]))])


def _survival(main):
    rows, records = [], []
    for _, r in main.table.iterrows():
        s = data.survival(r["turns_hist"])
        median = int(np.argmax(s <= 0.5))
        p90 = int(np.argmax(s <= 0.1))
        rows.append([str(r["players"]), r["level"], f"{r['mean_turns']:.2f}", str(median), str(p90),
                     f"{r['mean_treasures']:.3f}", f"{r['games']:,}"])
        records.append({"players": r["players"], "level": r["level"], "games": r["games"],
                        "mean_turns": r["mean_turns"], "median_turns": median, "p90_turns": p90,
                        "mean_treasures": r["mean_treasures"]})
    return Section(
        "survival", "How long games last",
        "The share of games still going after each player turn (wins and losses both end a game), one curve "
        "per level.",
        main.who, figures.survival_curves(main.table, main.levels, main.subtitle, data.survival),
        [Table("Game length and treasures captured",
               ["Players", "Level", "Mean turns", "Median turns", "90% of games over by turn",
                "Mean treasures captured", "Games"], rows)],
        data=[Data("game-length", "Game length (player turns) and treasures captured, per player count and level",
                   pd.DataFrame(records))])


def _islands(sweep, rates):
    """The islands drawn, hardest first, with their win rates pooled over the sweep's levels,
    player counts and teams."""
    cells = data.island_cells(sweep)
    subtitle = (f"policy {sweep.policy_label(sweep.baseline('policy'))} · {', '.join(dict.fromkeys(cells['rules']))} "
                f"rules · {int(cells['games'].sum()):,} games · {HUMAN}")
    rows = [[r["layout"], pct(r["rate"]), ci(r["ci_low"], r["ci_high"]), f"{r['games']:,}", f"{r['wins']:,}"]
            for _, r in rates.iterrows()]
    return Section(
        "islands", "The islands",
        "Every island of the sweep as its grid of tiles, hardest first: the computer team's win rate on it with "
        "the sweep's levels, player counts and teams pooled (the same for every island), with its 95% interval.",
        _who(sweep, cells, held=("policy", "rules")), figures.islands(data.island_shapes(sweep), rates, subtitle),
        [Table("Win rate per island, hardest first (levels, players and teams pooled)",
               ["Layout", "Win rate", "95% CI", "Games", "Wins"], rows)],
        data=[Data("island-win-rate", "Win rate per island, hardest first (levels, players and teams pooled)",
                   rates[["layout", *RATE]])])


TILE_MEASURES = ["Ended sunk (of games)", "Caused the loss (of losses)", "Sank first (of games)"]
NAMED_SHOWN = 10            # the named tiles a Markdown report lists per island (the HTML: all 24)


def _tile_subtitle(sweep, layout, mine, table):
    return (f"policy {sweep.policy_label(sweep.baseline('policy'))} · {layout} island · "
            f"{', '.join(dict.fromkeys(mine['rules']))} rules · {int(mine['games'].sum()):,} games · "
            f"{int(table['losses'].iloc[0]):,} losses · {HUMAN}")


def _tile_rows(table, label):
    """A tile table's rows, most losses caused first: `label(row)` (the tile's name or place), then
    each measure with its 95% interval."""
    worst_first = table.sort_values(["caused", "tile"], ascending=[False, True], kind="stable")
    return [[*label(r), rate_ci(r["sunk"], r["games"]), rate_ci(r["caused"], r["losses"]),
             rate_ci(r["first"], r["games"])] for _, r in worst_first.iterrows()]


def _named_tiles(sweep):
    """The named tiles of the main slice's island (the same 24 tiles on every island): their
    shares drawn once per report; each island's section tabulates its own."""
    island = sweep.baseline("layout")
    cells = data.island_cells(sweep)
    mine = cells[cells["layout"] == island]
    table = data.tiles(sweep, by="name")[island]
    return Section(
        "named-tiles", f"Which named tiles decide the game: {island}",
        f"Each of the 24 named tiles on the {island} island, wherever it was placed, most losses caused first: the "
        "share of games it ended sunk, the share of losses its sinking caused (Fools' Landing for landing-sunk, the "
        "second temple of a treasure for treasure-lost, the tile a pawn drowned on; losses to the skull have no such "
        "tile) and the share of games in which it was the first to sink. Each island's section below lists its "
        "named tiles with these numbers.",
        _who(sweep, mine),
        figures.named_tiles(island, table, _tile_subtitle(sweep, island, mine, table)))


def _tiles(sweep):
    """One section per island: which tiles decide its games, at the main slice's policy and rules;
    its grid drawn by place, its tables by named tile and by place."""
    cells = data.island_cells(sweep)
    named = data.tiles(sweep, by="name")
    for layout, table in data.tiles(sweep).items():
        mine = cells[cells["layout"] == layout]
        slug = re.sub(r"[^a-z0-9]+", "-", layout.lower()).strip("-")
        rows = _tile_rows(table, lambda r: [str(int(r["tile"])), f"{int(r['row'])},{int(r['col'])}"])
        columns = ["Place", "Row, column", *TILE_MEASURES]
        names = _tile_rows(named[layout], lambda r: [f"{r['name']} ({r['code']})"])
        yield Section(
            "tiles-" + slug, f"Which tiles decide the game: {layout}",
            "Each tile of the island — a place on its grid, numbered row by row, since the tiles are placed at random "
            "each game — coloured by the share of games it ended sunk, the share of losses its sinking caused (Fools' "
            "Landing for landing-sunk, the second temple of a treasure for treasure-lost, the tile a pawn drowned "
            "on; losses to the skull have no such tile) and the share of games in which it was the first to sink. "
            "The first tables give the same for each named tile, wherever it was placed.",
            _who(sweep, mine, held=("policy", "rules")),
            figures.tiles(layout, table, _tile_subtitle(sweep, layout, mine, table)),
            [Table(f"{layout}: the {NAMED_SHOWN} named tiles whose sinking lost the most games (95% CI)",
                   ["Named tile", *TILE_MEASURES], names[:NAMED_SHOWN]),
             Table(f"{layout}: every named tile, most losses caused first (95% CI)", ["Named tile", *TILE_MEASURES],
                   names, markdown=False),
             Table(f"{layout}: the five places whose tile's sinking lost the most games (95% CI)", columns, rows[:5]),
             Table(f"{layout}: every place, most losses caused first (95% CI)", columns, rows, markdown=False)],
            data=[Data(f"named-tiles-{slug}", f"{layout}: every named tile (fisim.load_tiles by name)", named[layout]),
                  Data(f"places-{slug}", f"{layout}: every place of the grid (fisim.load_tiles by place)", table)])


def _comparison(sweep, axis, sid, title, noun, what, levels):
    if axis == "layout" and "standard" not in sweep.values("layout"):
        return None
    if axis == "rules" and "official" not in sweep.values("rules"):
        return None
    result = data.comparison(sweep, axis, (lambda v: not data.set_cell(v)) if axis == "rules" else None)
    if result is None:
        return None
    pooled, detail, unmatched, used = result.pooled, result.detail, result.unmatched, result.cells
    names = {p: sweep.policy_label(p) for p in sweep.values("policy")} if axis == "policy" else {}
    name = lambda v: names.get(v, v)   # noqa: E731
    baselines = ", ".join(name(b) for b in dict.fromkeys(pooled["baseline"]))
    held = [
        (f"policies {', '.join(name(p) for p in dict.fromkeys(used['policy']))}" if axis == "policy" else
         f"policy {sweep.policy_label(sweep.baseline('policy'))}"),
        *[f"{', '.join(dict.fromkeys(used['layout']))} island" if o == "layout" else
          f"{', '.join(dict.fromkeys(used['rules']))} rules" for o in ("layout", "rules") if o != axis]]
    held_text = "; ".join(held)
    per = sorted(set(int(g) for g in pooled["games"]))
    caption = (f"{held_text}; each comparison pairs the same games of the two settings, "
               f"{per[0]:,}{'' if len(per) == 1 else f'–{per[-1]:,}'} pairs per row ({_games_text(used)}).")
    games = f"{per[0]:,}" if len(per) == 1 else f"{per[0]:,}–{per[-1]:,}"
    subtitle = f"{' · '.join(held)} · paired games per level: {games} · {HUMAN}"
    fig = figures.differences(pooled, axis, names, levels,
                              f"{title}: paired differences in win rate (95% intervals)", subtitle)
    columns = [noun.capitalize(), "Level", "Win rate (95% CI)", "Baseline (95% CI)", "Difference (points)", "95% CI",
               "Games",
               "Significant"]

    def rows_of(frame, with_players):
        out = []
        for _, r in frame.iterrows():
            out.append([name(r[axis]), r["level"], *([str(r["players"])] if with_players else []),
                        rate_ci(r["wins"], r["games"]),
                        f"{rate_ci(r['baseline_wins'], r['games'])} {name(r['baseline'])}",
                        points(r["difference"]),
                        points_ci(r["ci_low"], r["ci_high"]), f"{r['games']:,}", "yes" if r["significant"] else "no"])
        return out

    tables = [Table(f"Each {noun} against {baselines}, per level (players and teams pooled)", columns,
                    rows_of(pooled, False))]
    datas = [Data(f"{sid}-compared", tables[0].caption, _paired_data(pooled, axis, name))]
    if detail["players"].nunique() > 1:
        tables.append(Table(f"Each {noun} against {baselines}, per level and player count",
                            columns[:2] + ["Players"] + columns[2:], rows_of(detail, True), markdown=False))
        datas.append(Data(f"{sid}-compared-by-players", tables[1].caption, _paired_data(detail, axis, name)))
    note = ""
    if unmatched:
        note = (f"Not compared (no {baselines} cell of the same level, players and team): "
                f"{', '.join(name(v) for v in unmatched)}.")
    text = (f"Each {noun} against {baselines}: the difference in the computer team's win rate over the same games "
            f"(common random numbers). {_pairing_text(pooled)} Points to the right of the line mean more wins than "
            "the baseline; 'significant' means the 95% interval excludes zero.")
    return Section(sid, title, text, caption, fig, tables, note, datas,
                   _glance(f"{what} against {baselines}", result.overall, lambda r: name(r[axis])))


def _glance(what, overall, label):
    """The answer of a comparison in one line: each alternative's paired difference with its 95%
    interval, levels and players pooled, the largest first (GLANCE_SHOWN of them)."""
    ranked = overall.iloc[overall["difference"].abs().sort_values(ascending=False, kind="stable").index]
    items = [f"{label(r)} {points(r['difference'])} points ({points_ci(r['ci_low'], r['ci_high'])}"
             f"{'' if r['significant'] else ', not significant'})" for _, r in ranked.head(GLANCE_SHOWN).iterrows()]
    more = len(ranked) - GLANCE_SHOWN
    return (f"{what} (paired on the same games, levels and players pooled, 95% CI): " + "; ".join(items)
            + (f"; {more} more in the section." if more > 0 else "."))


def _paired_data(frame, axis, name):
    """A comparison as data: per row both win rates with their 95% intervals and the paired
    difference with its own."""
    rows = []
    for _, r in frame.iterrows():
        rate = rate_record(r["wins"], r["games"])
        base = rate_record(r["baseline_wins"], r["games"])
        rows.append({axis: name(r[axis]), "baseline": name(r["baseline"]), "level": r["level"],
                     **({"players": r["players"]} if "players" in frame else {}), "games": r["games"],
                     "wins": r["wins"], "rate": rate["rate"], "ci_low": rate["ci_low"], "ci_high": rate["ci_high"],
                     "baseline_wins": r["baseline_wins"], "baseline_rate": base["rate"],
                     "baseline_ci_low": base["ci_low"], "baseline_ci_high": base["ci_high"],
                     "difference": r["difference"], "difference_ci_low": r["ci_low"],
                     "difference_ci_high": r["ci_high"], "significant": r["significant"],
                     "correlation": r["correlation"]})
    return pd.DataFrame(rows)


# how the games of a --set cell pair with the official ones (docs/model.md "Variant files")
SAME_DEALS = "the same deals: the same island, team, first player and shuffles"
PAIRED_ON = {key: "the same island, team, first player and flood deck; the treasure deck's size differs, "
                  "so it is shuffled differently" for key in DECK_KEYS}
PAIRED_ON["initial_floods"] = "the same deals; the extra tiles flooded (or fewer) are the flood deck's next cards"


def _parameter_effects(sweep, levels):
    """Win rate against each rule number varied with --set, and the paired difference from its
    official value."""
    effects = data.parameter_effects(sweep)
    if effects is None:
        return None
    keys = list(dict.fromkeys(effects["parameter"]))
    held = f"policy {sweep.policy_label(sweep.baseline('policy'))}; {sweep.baseline('layout')} island"
    subtitle = f"{held} · each value against the official one on paired games · {HUMAN}"
    fig = figures.parameter_effects(effects, levels, subtitle)
    rows = []
    for _, r in effects.iterrows():
        official = r["official"]
        rows.append([r["parameter"], f"{r['value']}{' (official)' if official else ''}", r["level"],
                     rate_ci(r["wins"], r["games"]), "–" if official else points(r["difference"]),
                     "–" if official else points_ci(r["d_low"], r["d_high"]), f"{r['games']:,}",
                     "–" if official else ("yes" if r["significant"] else "no")])
    table = Table("Win rate per value of each rule number varied, per level (players and teams pooled), and the "
                  "paired difference from the official value", ["Rule number", "Value", "Level", "Win rate (95% CI)",
                                                                "Difference (points)", "95% CI", "Games",
                                                                "Significant"], rows)
    pairing = " ".join(f"{key}: paired on {PAIRED_ON.get(key, SAME_DEALS)}." for key in keys)
    text = ("Each rule number the sweep varied (--set), one value at a time, every other number official: the "
            "computer team's win rate at each value, and the difference from the official value over the same "
            f"games (common random numbers; 'significant': the 95% interval excludes zero). {pairing}")
    per = sorted(set(int(g) for g in effects["games"]))
    caption = (f"{held}; each row pairs {per[0]:,}{'' if len(per) == 1 else f'–{per[-1]:,}'} games with the "
               f"official value's.")
    frame = effects.rename(columns={"d_low": "difference_ci_low", "d_high": "difference_ci_high"})
    overall = data.comparison(sweep, "rules", data.set_cell).overall
    overall = overall[overall["baseline"] == "official"].reset_index(drop=True)
    return Section("parameters", "Parameter effects", text, caption, fig, [table],
                   data=[Data("parameter-effects", table.caption, frame[
                       ["parameter", "value", "official", "level", *RATE, "difference", "difference_ci_low",
                        "difference_ci_high", "significant"]])],
                   glance=_glance("Rule numbers varied (--set) against their official values", overall,
                                  lambda r: r["rules"]))


def _pairing_text(pooled):
    """What pairing the games bought, as measured: the correlation of the two settings' per-game
    wins and how much narrower it made the intervals than two separate samples would give."""
    r, narrowing = pooled["correlation"].dropna(), pooled["narrowing"].dropna()
    if r.empty:
        return "The games' outcomes do not vary enough to measure how alike the paired games are."

    def span(values, fmt):
        low, high = fmt(values.min()), fmt(values.max())
        return low if low == high else f"{low} to {high}"
    gain = " — little gain: these settings change much of each game." if narrowing.max() < 0.2 else "."
    return (f"The paired games' wins correlate by r = {span(r, '{:.2f}'.format)} across the rows, so the intervals "
            f"are {span(100 * narrowing, '{:.0f}%'.format)} narrower than for two separate samples of the same "
            f"size{gain}")


def _subtitle(sweep):
    policies = ", ".join(sweep.policy_label(p) for p in sweep.values("policy"))
    return (f"Monte Carlo results of fisim: {sweep.games:,} games played by the computer team (policy {policies}). "
            f"Every rate carries its 95% confidence interval.")


def _overview(sweep):
    m = sweep.manifest
    teams = sweep.values("team")
    fixed = [t for t in teams if t != "random"]
    target = m["target"]
    if "games" in target:
        target_text = f"{target['games']:,} games per cell"
    else:
        target_text = (f"until the 95% interval's half-width is at most {100 * target['ci']:.2f} points "
                       f"(at most {target['max_games']:,} games)")
    team_text = ("a random team each game" if not fixed else
                 f"{len(fixed)} fixed teams" + (" and random teams" if "random" in teams else ""))
    return [
        ("Islands", ", ".join(sweep.values("layout"))),
        ("Levels", ", ".join(sweep.values("level"))),
        ("Players", ", ".join(str(p) for p in sorted(sweep.values("players")))),
        ("Teams", team_text),
        ("Policies", ", ".join(sweep.policy_label(p) for p in sweep.values("policy"))),
        ("Rules", "; ".join(_rules_text(r, m["cells"])
                            for r in sorted(sweep.values("rules"), key=lambda r: r != "official"))),
        ("Games", f"{sweep.games:,} in {plural(len(sweep.cells), 'cell')}; {target_text}"),
        ("Seed", str(m.get("seed", "?"))),
        ("Versions", f"fisim {m.get('fisim_version', '?')}, rules version {m.get('rules_version', '?')}"),
    ]


def _rules_text(label, cells):
    """A rules label with what each of its switches means, and the rule numbers its variant (named
    in the manifest's `cells`) changes ('official' is the rules as printed)."""
    if label == "official":
        return "official (the rules as printed)"
    variants = {c["variant"]: c["parameters"] for c in cells if c.get("variant")}

    def meaning(part):
        if part not in variants:
            return SWITCHES.get(part, "a switch of another fisim version")
        numbers = variants[part]
        changed = [f"{key} {parameter_text(key, numbers[key])}" for key, p in PARAMETERS.items()
                   if key in numbers and parameter_text(key, numbers[key]) != parameter_text(key, p.official)]
        return "variant: " + (", ".join(changed) or "the official numbers")

    parts = label.split("+")
    if len(parts) == 1:
        return f"{label} ({meaning(label)})"
    return label + " (" + "; ".join(f"{s}: {meaning(s)}" for s in parts) + ")"


def _highlights(sweep, table, ranked, sections, islands=None):
    """At a glance: what the sweep varied first (the islands, then each comparison's answer), then
    the main slice's easiest and hardest setting and the teams."""
    out = []
    on = ""
    if islands is not None:
        hardest, easiest = islands.iloc[0], islands.iloc[-1]
        out.append(f"Hardest island: {hardest['layout']}, {pct(hardest['rate'])} won "
                   f"({ci(hardest['ci_low'], hardest['ci_high'])}); easiest: {easiest['layout']}, "
                   f"{pct(easiest['rate'])} ({ci(easiest['ci_low'], easiest['ci_high'])}); levels and players pooled, "
                   f"{len(islands)} islands.")
        on = f" on the {sweep.baseline('layout')} island"
    out += [s.glance for s in sections if s.glance]
    if len(table) > 1 and table["rate"].max() > table["rate"].min():
        best, worst = table.loc[table["rate"].idxmax()], table.loc[table["rate"].idxmin()]
        out.append(f"Easiest setting{on}: {best['level']} with {players_text(table, best['players'])}, "
                   f"{pct(best['rate'])} won ({ci(best['ci_low'], best['ci_high'])}); hardest: {worst['level']} with "
                   f"{players_text(table, worst['players'])}, {pct(worst['rate'])} "
                   f"({ci(worst['ci_low'], worst['ci_high'])}).")
    elif len(table) > 1:
        out.append(f"Every setting of the main figures: {pct(table['rate'].iloc[0])} won "
                   f"(intervals up to {pct(table['ci_high'].max())}).")
    else:
        r = table.iloc[0]
        out.append(f"{r['level']} with {players_text(table, r['players'])}: {pct(r['rate'])} won "
                   f"({ci(r['ci_low'], r['ci_high'])}).")
    if ranked is not None:
        ranking, _ = ranked
        for p, g in ranking.groupby("players"):
            if not g["mark"].any():
                continue
            top, bottom = g.iloc[0], g.iloc[-1]
            out.append(f"{players_text(table, p)}: strongest team {top['team']}, {pct(top['rate'])} "
                       f"({ci(top['ci_low'], top['ci_high'])}); weakest {bottom['team']}, {pct(bottom['rate'])} "
                       f"({ci(bottom['ci_low'], bottom['ci_high'])}), levels pooled.")
    return out


def _warnings(sweep):
    if not sweep.incomplete:
        return []
    return [f"{len(sweep.incomplete)} of {len(sweep.cells)} cells have not reached the sweep's target yet "
            f"(e.g. [{sweep.incomplete[0]}]); run the same sweep again to finish them."]
