"""What a sweep's report says: its sections, each a figure and tables with captions, built from
the aggregates of fisim.reporting.data, every table declared once as numbers (fisim.reporting.
document). A section is only made when the sweep has the data for it."""
from dataclasses import dataclass

import numpy as np
import pandas as pd

from fisim.formatting import (
    DASH,
    NONE,
    correlation,
    count,
    count_range,
    interval,
    percent,
    plural,
    points,
    points_interval,
    rate_interval,
    rate_of,
)
from fisim.reporting import data, figures
from fisim.reporting.document import Column, Report, Section, Spread, Table, slug
from fisim.results import feel
from fisim.results.games import CAUSES
from fisim.rules.config import SWITCHES, level_position
from fisim.rules.constants import ROLE_NAMES
from fisim.rules.variant import DECK_KEYS, PARAMETERS, parameter_text
from fisim.stats import wilson

HUMAN = "win rates are the computer team's, not a human team's"    # on every figure; in the text once
RATE = ["games", "wins", "rate", "ci_low", "ci_high"]     # a win rate's columns as data


def rate_record(count, games):
    """A rate as data: its count, games, the fraction and its 95% Wilson interval."""
    low, high = wilson(int(count), int(games))
    return {"games": int(games), "count": int(count), "rate": count / games if games else np.nan, "ci_low": low,
            "ci_high": high}


# how a row of numbers reads in the report's columns
def _rate(row):
    return percent(row["rate"])


def _ci(row):
    return interval(row["ci_low"], row["ci_high"], unit="%")


def _rate_ci(row, prefix=""):
    """'12.34% (11.90–12.80)' of the columns rate, ci_low, ci_high (each after `prefix`)."""
    return rate_interval(row[f"{prefix}rate"], row[f"{prefix}ci_low"], row[f"{prefix}ci_high"])


def _rate_and_ci(row):
    """'12.34% (11.90–12.80%)', a square of a map."""
    return rate_interval(row["rate"], row["ci_low"], row["ci_high"], unit="%")


def _count(column):
    return lambda row: count(row[column])


def _named(column, heading=None):
    return Column(heading or column.capitalize(), lambda row: str(row[column]), words=True)


PLAYERS, LEVEL = _named("players"), _named("level")
GAMES = Column("Games", _count("games"))
WIN_RATE = [Column("Win rate", _rate), Column("95% CI", _ci), GAMES]
DIFFERENCE = [Column("Difference (points)", lambda r: points(r["difference"])),
              Column("95% CI", lambda r: points_interval(r["difference_ci_low"], r["difference_ci_high"]))]
SIGNIFICANT = Column("Significant", lambda r: "yes" if r["significant"] else "no", words=True)


def _unless_official(column):
    """A column of a paired difference, '–' in the official value's own row."""
    return Column(column.heading, lambda r: NONE if r["official"] else column.text(r), column.words)


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


# the paired comparisons a sweep may make: (axis, section id, the heading of its values' column)
COMPARISONS = (("layout", "layouts", "Layout"), ("rules", "rules", "Rules"), ("policy", "policies", "Policy"))
GLANCE_SHOWN = 3            # the alternatives "At a glance" names, largest difference first
LEADING = ("islands", "layouts", "rules", "parameters", "policies")     # what a sweep varied: its sections first


def _naming(sweep, axis, values):
    """(title, noun, what) of a comparison along `axis`: its section's title, what one of its values
    is and what they are, as At a glance says it. A rules label with a variant file in it is a
    variant, not a reading of the printed rules."""
    if axis == "layout":
        return "Islands compared with the standard island", "layout", "Islands"
    if axis == "policy":
        return "Policies compared", "policy", "Policies"
    variants = {c["variant"] for c in sweep.manifest["cells"] if c.get("variant")}
    kinds = {any(part in variants and not data.set_cell(part) for part in value.split("+")) for value in values}
    if kinds == {True}:
        return "Variants compared with the official rules", "variant", "Variants"
    if kinds == {False}:
        return "Rule readings compared with the official rules", "rule reading", "Rule readings"
    return ("Rule readings and variants compared with the official rules", "rule reading or variant",
            "Rule readings and variants")


def build(sweep, title=None):
    """The report of a sweep: its sections in reading order, each left out when the sweep lacks
    its data; the sections of what the sweep varied (islands, rule readings and variants, rule
    numbers, policies) lead."""
    main = _main_slice(sweep)
    ranked = data.teams(sweep)
    islands = data.by_layout(sweep) if len(sweep.values("layout")) > 1 else None
    sections = [_islands(sweep, islands) if islands is not None else None, _win_by_level(main), _heat_map(main),
                _team_ranking(sweep, main, ranked), _team_levels(sweep, main, ranked), _adventurers(sweep, main),
                _loss_causes(main), _survival(main), _game_feel(sweep, main),
                *(_comparison(sweep, *spec, main.levels) for spec in COMPARISONS),
                _parameter_effects(sweep, main.levels), _named_tiles(sweep), *_tiles(sweep)]
    sections = sorted((s for s in sections if s is not None),
                      key=lambda s: LEADING.index(s.id) if s.id in LEADING else len(LEADING))
    return Report(title or "Forbidden Island balance report", subtitle(sweep), overview(sweep),
                  _highlights(sweep, main, ranked, sections, islands), warnings(sweep), sections, [sweep.name])


def _win_by_level(main):
    table = main.table
    return Section(
        "win-by-level", "Win rate by level",
        "The share of games the computer team won at each starting water level, for each number of players"
        + (" (teams pooled)" if main.cells["team"].nunique() > 1 else "") + ", with its 95% interval"
        + (" (the teams play the same deals, so the interval counts deals: docs/report-tables.md)"
           if main.cells["team"].nunique() > 1 else "") + ".",
        main.who, figures.win_by_level(table, main.levels, main.subtitle) if len(table) > 1 else None,
        [Table("win-rate-by-players-and-level", "Win rate by level and player count",
               table[["players", "level", *RATE]], [PLAYERS, LEVEL, *WIN_RATE, Column("Wins", _count("wins"))])])


def _heat_map(main):
    """Only when the sweep varies both the level and the player count."""
    table = main.table
    if table["level"].nunique() < 2 or table["players"].nunique() < 2:
        return None
    cols = [v for v in main.levels if v in set(table["level"])]
    return Section(
        "heat-map", "Level × players",
        "The same win rates as a map: rows are player counts, columns starting water levels; each square "
        "gives the rate and its 95% interval.",
        main.who, figures.heat_map(table, cols, main.subtitle),
        [Table("", "Win rate (95% CI) by player count and level", table, [
            Column("", lambda r: players_text(table, r["players"]), words=True),
            Spread("level", cols, _rate_and_ci, on=("players",))], per=("players",))])


def _team_ranking(sweep, main, ranked):
    """Only when the sweep played fixed teams (`ranked`: data.teams)."""
    if ranked is None:
        return None
    ranking, per_level = ranked
    fixed = main.cells[main.cells["team"] != "random"]
    team_levels = [v for v in main.levels if v in set(per_level["level"])]
    per_level = per_level[["players", "team", "level", *RATE]]
    return Section(
        "team-ranking", "Teams ranked",
        "Every team of adventurers the sweep played, ranked within its player count by the computer team's "
        "win rate with the levels pooled; the strongest and weakest team of each player count are "
        "highlighted. Overlapping intervals mean the order of those teams is not settled by these games.",
        _who(sweep, fixed),
        figures.team_ranking(ranking, _fixed_subtitle(main)),
        [Table("teams-ranked", "Teams ranked within each player count (levels pooled; rate and 95% CI per level on "
               "the right)", ranking[["players", "rank", "team", "mark", *RATE]],
               [PLAYERS, Column("Rank", lambda r: str(r["rank"])),
                Column("Team", lambda r: r["team"] + (f" ({r['mark']})" if r["mark"] else ""), words=True), *WIN_RATE,
                Spread("level", team_levels, _rate_ci, on=("players", "team"), frame=per_level)], mark="mark"),
         Table("team-win-rate-by-level", "Each fixed team's win rate per level", per_level, [])])


def _fixed_subtitle(main):
    """The main slice's figure subtitle, counting the games of its fixed teams."""
    fixed = main.cells[main.cells["team"] != "random"]
    return main.subtitle.replace(f"{int(main.cells['games'].sum()):,} games", f"{int(fixed['games'].sum()):,} games")


def _team_levels(sweep, main, ranked):
    """Only when the sweep played fixed teams at two levels or more: the teams ranked, as a map."""
    if ranked is None or ranked[1]["level"].nunique() < 2:
        return None
    ranking, per_level = ranked
    levels = [v for v in main.levels if v in set(per_level["level"])]
    fixed = main.cells[main.cells["team"] != "random"]
    return Section(
        "team-levels", "Teams × levels",
        "The teams ranked as a map: a row per team, strongest first within its player count, a column per "
        "starting water level; each square gives the computer team's win rate (the table of the teams ranked "
        "gives each with its 95% interval).",
        _who(sweep, fixed), figures.team_levels(ranking, per_level, levels, _fixed_subtitle(main)))


def _adventurers(sweep, main):
    """Only when the main slice played random teams."""
    role = data.roles(sweep)
    if not len(role) or not main.cells["team"].eq("random").any():
        return None
    pooled = role.groupby("role")[["wins", "games"]].sum()
    strongest_first = sorted(pooled.index, key=lambda n: (-pooled.at[n, "wins"] / pooled.at[n, "games"],
                                                          ROLE_NAMES.index(n)))
    return Section(
        "adventurers", "Adventurers in the team",
        "With a random team each game, the computer team's win rate in the games whose team included each "
        "adventurer (levels pooled), with its 95% interval; the adventurers with the highest win rate (player "
        "counts pooled) first.",
        _who(sweep, main.cells[main.cells["team"] == "random"]),
        figures.adventurers(role, strongest_first, main.subtitle),
        [Table("adventurer-win-rate", "Win rate of the games with each adventurer in the team",
               role[["players", "role", *RATE]],
               [Column("", lambda r: players_text(main.table, r["players"]), words=True),
                Spread("role", strongest_first, _rate_and_ci, on=("players",))], per=("players",))])


def _loss_causes(main):
    outcomes = ["won", *CAUSES]
    shares = pd.DataFrame([{"players": r["players"], "level": r["level"], "outcome": o,
                            **rate_record(r[f"count_{o}"], r["games"])}
                           for _, r in main.table.iterrows() for o in outcomes])
    return Section(
        "loss-causes", "How games end",
        "The share of games won and lost to each cause, per level. When several losing conditions hold at "
        "once, a game counts under the first of: landing sunk, treasure lost, drowned, skull.",
        main.who, figures.loss_causes(main.table, main.levels, main.subtitle),
        [Table("outcome-shares", "Outcome shares per player count and level (95% CI)", shares,
               [PLAYERS, LEVEL, Spread("outcome", outcomes, _rate_ci, on=("players", "level"),
                                       heading=lambda o: o.replace("_", " ")),
                GAMES], per=("players", "level"))])


def _survival(main):
    records = [{"players": r["players"], "level": r["level"], "games": r["games"], **feel.length(r["turns_hist"]),
                "mean_treasures": r["mean_treasures"]} for _, r in main.table.iterrows()]
    return Section(
        "survival", "How long games last",
        "The share of games still going after each player turn (wins and losses both end a game), one curve "
        "per level.",
        main.who, figures.survival_curves(main.table, main.levels, main.subtitle, data.survival),
        [Table("game-length", "Game length and treasures captured", pd.DataFrame(records),
               [PLAYERS, LEVEL, Column("Mean turns (sd)", lambda r: f"{r['mean_turns']:.2f} ({r['sd_turns']:.2f})"),
                Column("10% of games over by turn", lambda r: str(r["p10_turns"])),
                Column("Median turns", lambda r: str(r["median_turns"])),
                Column("90% of games over by turn", lambda r: str(r["p90_turns"])),
                Column("Mean treasures captured", lambda r: f"{r['mean_treasures']:.3f}"), GAMES])])


# the close calls counted of the wins (fisim.results.feel.closeness), as the report names them
CLOSE_TEXT = {"close_skull": "one step from the skull", "close_landing": "on a flooded Fools' Landing",
              "close_temple": "after a treasure was one flood card from lost", "close_any": "any of these"}
# the means over the traced games (feel.chance_summary) as the report names them, and how each reads
CHANCES = (("start_chance", "Chance before the first turn", "%"), ("drama", "Lowest chance of the games won", "%"),
           ("decided_round", "Decided from round", ""), ("decided_share", "Decided from (share of the game)", "%"))


def _game_feel(sweep, main):
    """How close the games came and the team's chance of winning over the traced games
    (fisim.results.feel; docs/model.md defines each)."""
    table, arcs = data.game_feel(sweep)
    worlds, per = sweep.manifest["trace"]["worlds"], sweep.manifest["trace"]["games"]
    where = ["players", "level"]
    close = pd.DataFrame([{**r[where], "outcome": "won", "measure": name, **rate_record(r[name], r["wins"])}
                          for _, r in table.iterrows() for name in data.CLOSE_KINDS]
                         + [{**r[where], "outcome": "lost", "measure": f"treasures_{k}", **rate_record(n, r["lost"])}
                            for _, r in table.iterrows() for k, n in enumerate(r["lost_treasures"])])
    tables = [Table("", "How close the games came, per player count and level", table, [
                  PLAYERS, LEVEL,
                  *[Column(f"Won {text} (of wins)", lambda r, name=name: rate_of(r[name], r["wins"]))
                    for name, text in CLOSE_TEXT.items()],
                  Column("Lost: mean treasures captured",
                         lambda r: f"{r['lost_mean_treasures']:.2f}" if r["lost"] else NONE),
                  Column("Lost with 3 or 4 treasures (of losses)",
                         lambda r: rate_of(sum(r["lost_treasures"][3:]), r["lost"])), GAMES]),
              Table("close-calls", "Of the wins, those that came close to being lost (outcome won); of the losses, "
                    "those with 0 to 4 treasures captured (outcome lost)", close, [])]
    traced = int(table["traced"].sum())
    figure = None
    if traced:
        chance = table[[*where, *RATE, "traced", "traced_wins",
                        *[f"{name}{end}" for name, _, _ in CHANCES for end in ("", "_low", "_high")]]]
        tables += [Table("win-chance", "The team's chance of winning at the start of each round, over the traced "
                         "games (mean and its 95% interval)", chance, [
                             PLAYERS, LEVEL,
                             Column("Traced games (won)", lambda r: f"{r['traced']} ({r['traced_wins']})"),
                             Column("Win rate, all games (95% CI)", _rate_ci),
                             *[Column(text, lambda r, name=name, unit=unit: _mean_ci(r, name, unit))
                               for name, text, unit in CHANCES]]),
                   Table("win-chance-arc", "The typical arc: the mean chance of winning against the share of the "
                         "game played, per outcome", arcs[[*where, *feel.ARC_COLUMNS]], [])]
        figure = figures.win_chance_arcs(arcs, main.levels, f"{main.subtitle} · {traced:,} games traced, "
                                         f"{worlds} sampled worlds per estimate")
    text = ("Of the games won, the share that came close to being lost: the water meter ended one step below the "
            "skull, Fools' Landing ended flooded, or a treasure not yet captured had, at some point, its last temple "
            "standing flooded (one flood card from losing it); of the games lost, how many treasures the team had "
            "captured (how long the games last, and how widely that varies, is under \"How long games last\"). "
            + (f"For the first {per:,} games of each cell the team's chance of winning was estimated at the start "
               f"of every round (once every player has taken a turn) by playing the position on in {worlds} "
               "sampled worlds (the hidden order of the draw piles dealt at random, public information only) with "
               "the same policy: its mean before the first turn should match the win rate within its interval; "
               "drama is how low the chance fell in games that were won; a game is decided from the round after "
               f"which the chance stayed at or above {feel.DECIDED:.0%} (won) or at or below "
               f"{1 - feel.DECIDED:.0%} (lost). " if traced else
               "No game's win chance was traced (sweep --trace-games 0). ")
            + "docs/model.md defines each measure.")
    return Section("feel", "How the game feels", text, main.who, figure, tables,
                   glance=_feel_glance(table, worlds, _where(sweep)))


def _feel_glance(table, worlds, where):
    """How close the main figures' wins came (`where` names them) and, over the traced games won,
    how low the chance fell, levels and players pooled."""
    line = (f"How the game feels{where}: {rate_of(int(table['close_any'].sum()), int(table['wins'].sum()))} of the "
            "games won came close to being lost")
    pooled = feel.chance_summary(feel.traced_games([t for traces in table["traces"] for t in traces], worlds))
    if not np.isnan(pooled["drama_low"]):
        line += (f"; in the traced games won, the chance of winning fell to {_mean_ci(pooled, 'drama', '%')} at its "
                 "lowest on average")
    return [line + "; levels and players pooled."]


def _mean_ci(row, name, unit):
    """A mean and its 95% interval from a row's <name>, <name>_low, <name>_high: a chance or share
    as a percentage ('64% (57–71%)'), a round as a number ('7.6 (6.3–8.9)'); '–' of none."""
    mean, low, high = row[name], row[f"{name}_low"], row[f"{name}_high"]
    if np.isnan(mean):
        return NONE
    if unit == "%":
        return percent(mean, 0) + ("" if np.isnan(low) else f" ({interval(low, high, 0, unit='%')})")
    return f"{mean:.1f}" + ("" if np.isnan(low) else f" ({low:.1f}{DASH}{high:.1f})")


def _islands(sweep, rates):
    """The islands drawn, hardest first, with their win rates pooled over the sweep's levels,
    player counts and teams."""
    cells = data.island_cells(sweep)
    subtitle = (f"policy {sweep.policy_label(sweep.baseline('policy'))} · {', '.join(dict.fromkeys(cells['rules']))} "
                f"rules · {int(cells['games'].sum()):,} games · {HUMAN}")
    return Section(
        "islands", "The islands",
        "Every island of the sweep as its grid of tiles, hardest first: the computer team's win rate on it with "
        "the sweep's levels, player counts and teams pooled (the same for every island), with its 95% interval.",
        _who(sweep, cells, held=("policy", "rules")), figures.islands(data.island_shapes(sweep), rates, subtitle),
        [Table("island-win-rate", "Win rate per island, hardest first (levels, players and teams pooled)",
               rates[["layout", *RATE]], [_named("layout"), *WIN_RATE, Column("Wins", _count("wins"))])])


TILE_MEASURES = [("Ended sunk (of games)", "sunk", "games"), ("Caused the loss (of losses)", "caused", "losses"),
                 ("Sank first (of games)", "first", "games")]
NAMED_SHOWN = 10            # the named tiles a Markdown report lists per island (the HTML: all 24)


def _tile_subtitle(sweep, layout, mine, table):
    return (f"policy {sweep.policy_label(sweep.baseline('policy'))} · {layout} island · "
            f"{', '.join(dict.fromkeys(mine['rules']))} rules · {int(mine['games'].sum()):,} games · "
            f"{int(table['losses'].iloc[0]):,} losses · {HUMAN}")


def _tile_tables(name, table, labels, top, shown, every):
    """A tile table (data.tiles) as people read it, most losses caused first: the `shown` tiles
    whose sinking lost the most games (caption `top`), and every tile (caption `every`: HTML only,
    and the data); `labels` are the columns that name a tile."""
    columns = [*labels, *(Column(heading, lambda r, k=kind, n=of: rate_of(r[k], r[n]))
                          for heading, kind, of in TILE_MEASURES)]

    def worst_first(frame):
        return frame.sort_values(["caused", "tile"], ascending=[False, True], kind="stable")
    return [Table("", top, table, columns, order=worst_first, head=shown),
            Table(name, every, table, columns, order=worst_first, markdown=False)]


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
        name = slug(layout)
        yield Section(
            "tiles-" + name, f"Which tiles decide the game: {layout}",
            "Each tile of the island — a place on its grid, numbered row by row, since the tiles are placed at random "
            "each game — coloured by the share of games it ended sunk, the share of losses its sinking caused (Fools' "
            "Landing for landing-sunk, the second temple of a treasure for treasure-lost, the tile a pawn drowned "
            "on; losses to the skull have no such tile) and the share of games in which it was the first to sink. "
            "The first tables give the same for each named tile, wherever it was placed.",
            _who(sweep, mine, held=("policy", "rules")),
            figures.tiles(layout, table, _tile_subtitle(sweep, layout, mine, table)),
            [*_tile_tables(f"named-tiles-{name}", named[layout],
                           [Column("Named tile", lambda r: f"{r['name']} ({r['code']})")],
                           f"{layout}: the {NAMED_SHOWN} named tiles whose sinking lost the most games (95% CI)",
                           NAMED_SHOWN, f"{layout}: every named tile, most losses caused first (95% CI)"),
             *_tile_tables(f"places-{name}", table,
                           [Column("Place", lambda r: str(int(r["tile"]))),
                            Column("Row, column", lambda r: f"{int(r['row'])},{int(r['col'])}")],
                           f"{layout}: the five places whose tile's sinking lost the most games (95% CI)", 5,
                           f"{layout}: every place, most losses caused first (95% CI)")])


def _comparison(sweep, axis, sid, heading, levels):
    if axis == "layout" and "standard" not in sweep.values("layout"):
        return None
    if axis == "rules" and "official" not in sweep.values("rules"):
        return None
    result = data.comparison(sweep, axis, (lambda v: not data.set_cell(v)) if axis == "rules" else None)
    if result is None:
        return None
    pooled, detail, unmatched, used = result.pooled, result.detail, result.unmatched, result.cells
    title, noun, what = _naming(sweep, axis, list(dict.fromkeys(pooled[axis])))
    names = {p: sweep.policy_label(p) for p in sweep.values("policy")} if axis == "policy" else {}
    name_of = lambda v: names.get(v, v)   # noqa: E731
    baselines = ", ".join(name_of(b) for b in dict.fromkeys(pooled["baseline"]))
    held = [
        (f"policies {', '.join(name_of(p) for p in dict.fromkeys(used['policy']))}" if axis == "policy" else
         f"policy {sweep.policy_label(sweep.baseline('policy'))}"),
        *[f"{', '.join(dict.fromkeys(used['layout']))} island" if o == "layout" else
          f"{', '.join(dict.fromkeys(used['rules']))} rules" for o in ("layout", "rules") if o != axis]]
    held_text = "; ".join(held)
    games = count_range(pooled["games"])
    caption = (f"{held_text}; each comparison pairs the same games of the two settings, "
               f"{games} pairs per row ({_games_text(used)}).")
    subtitle = f"{' · '.join(held)} · paired games per level: {games} · {HUMAN}"
    fig = figures.differences(pooled, axis, names, levels,
                              f"{title}: paired differences in win rate (95% intervals)", subtitle)

    def table(name, caption, frame, players, markdown=True):
        return Table(name, caption, _paired_data(frame, axis, name_of), [
            _named(axis, heading), LEVEL, *([PLAYERS] if players else []),
            Column("Win rate (95% CI)", _rate_ci),
            Column("Baseline (95% CI)", lambda r: f"{_rate_ci(r, 'baseline_')} {r['baseline']}"),
            *DIFFERENCE, GAMES, SIGNIFICANT], markdown=markdown)

    tables = [table(f"{sid}-compared", f"Each {noun} against {baselines}, per level (players and teams pooled)",
                    pooled, False)]
    if detail["players"].nunique() > 1:
        tables.append(table(f"{sid}-compared-by-players", f"Each {noun} against {baselines}, per level and player "
                            "count", detail, True, markdown=False))
    note = ""
    if unmatched:
        note = (f"Not compared (no {baselines} cell of the same level, players and team): "
                f"{', '.join(name_of(v) for v in unmatched)}.")
    text = (f"Each {noun} against {baselines}: the difference in the computer team's win rate over the same games "
            f"(common random numbers). {_pairing_text(pooled)} Points to the right of the line mean more wins than "
            "the baseline; 'significant' means the 95% interval excludes zero.")
    what = f"{what} against {baselines}" + (", the game as each plays it" if axis == "policy" else "")
    return Section(sid, title, text, caption, fig, tables, note,
                   [_glance(what, result.overall, lambda r: name_of(r[axis]))])


def _glance(what, overall, label):
    """The answer of a comparison in one line: each alternative harder or easier than the baseline
    and by how much, its paired difference's 95% interval, levels and players pooled, the largest
    first (GLANCE_SHOWN of them)."""
    ranked = overall.iloc[overall["difference"].abs().sort_values(ascending=False, kind="stable").index]
    items = [f"{label(r)} {_change(r)}" for _, r in ranked.head(GLANCE_SHOWN).iterrows()]
    more = len(ranked) - GLANCE_SHOWN
    return (f"{what} (paired on the same games, levels and players pooled, 95% CI): " + "; ".join(items)
            + (f"; {more} more in the section." if more > 0 else "."))


def _change(row):
    """'harder by 3.21 points (2.90 to 3.52)' of a paired difference (difference, ci_low, ci_high:
    the alternative's win rate less the baseline's), or 'no clear difference (...)'."""
    if not row["significant"]:
        return (f"no clear difference ({points(row['difference'])} points, "
                f"{points_interval(row['ci_low'], row['ci_high'])})")
    low, high = sorted((abs(row["ci_low"]), abs(row["ci_high"])))
    return (f"{'easier' if row['difference'] > 0 else 'harder'} by {points(abs(row['difference']), signed=False)} "
            f"points ({points_interval(low, high, signed=False)})")


def _paired_data(frame, axis, name):
    """A comparison as data: per row both win rates with their 95% intervals and the paired
    difference with its own."""
    rows = []
    for _, r in frame.iterrows():
        rows.append({axis: name(r[axis]), "baseline": name(r["baseline"]), "level": r["level"],
                     **({"players": r["players"]} if "players" in frame else {}), "games": r["games"],
                     "wins": r["wins"], "rate": r["rate"], "ci_low": r["rate_low"], "ci_high": r["rate_high"],
                     "baseline_wins": r["baseline_wins"], "baseline_rate": r["baseline_rate"],
                     "baseline_ci_low": r["baseline_low"], "baseline_ci_high": r["baseline_high"],
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
    frame = effects.rename(columns={"d_low": "difference_ci_low", "d_high": "difference_ci_high"})[
        ["parameter", "value", "official", "level", *RATE, "difference", "difference_ci_low", "difference_ci_high",
         "significant"]]
    table = Table("parameter-effects", "Win rate per value of each rule number varied, per level (players and teams "
                  "pooled), and the paired difference from the official value", frame, [
                      Column("Rule number", lambda r: r["parameter"]),
                      Column("Value", lambda r: f"{r['value']}{' (official)' if r['official'] else ''}"), LEVEL,
                      Column("Win rate (95% CI)", _rate_ci),
                      *map(_unless_official, DIFFERENCE), GAMES, _unless_official(SIGNIFICANT)])
    pairing = " ".join(f"{key}: paired on {PAIRED_ON.get(key, SAME_DEALS)}." for key in keys)
    text = ("Each rule number the sweep varied (--set), one value at a time, every other number official: the "
            "computer team's win rate at each value, and the difference from the official value over the same "
            f"games (common random numbers; 'significant': the 95% interval excludes zero). {pairing}")
    caption = f"{held}; each row pairs {count_range(effects['games'])} games with the official value's."
    overall = data.comparison(sweep, "rules", data.set_cell).overall
    overall = overall[overall["baseline"] == "official"].reset_index(drop=True)
    return Section("parameters", "Parameter effects", text, caption, fig, [table],
                   glance=[_glance("Rule numbers varied (--set) against their official values", overall,
                                   lambda r: r["rules"])])


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
    return (f"The paired games' wins correlate by r = {span(r, correlation)} across the rows, so the intervals "
            f"are {span(narrowing, lambda x: percent(x, 0))} narrower than for two separate samples of the same "
            f"size{gain}")


def subtitle(sweep):
    policies = ", ".join(sweep.policy_label(p) for p in sweep.values("policy"))
    return (f"Monte Carlo results of fisim: {sweep.games:,} games played by the computer team (policy {policies}). "
            f"Every rate carries its 95% confidence interval.")


def overview(sweep):
    m = sweep.manifest
    teams = sweep.values("team")
    fixed = [t for t in teams if t != "random"]
    target = m["target"]
    if "games" in target:
        target_text = f"{target['games']:,} games per cell"
    else:
        target_text = (f"until the 95% interval's half-width is at most {points(target['ci'], signed=False)} points "
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


def _highlights(sweep, main, ranked, sections, islands=None):
    """At a glance, in a designer's words: what the sweep varied first (the islands, then each
    comparison's answer), then the main slice (named when the sweep has others): its easiest and
    hardest setting, what each level step costs, the easiest player count per level, how the
    hardest setting is lost, and the teams."""
    table = main.table
    out = []
    if islands is not None:
        hardest, easiest = islands.iloc[0], islands.iloc[-1]
        out.append(f"Hardest island: {hardest['layout']}, {_rate(hardest)} won "
                   f"({_ci(hardest)}); easiest: {easiest['layout']}, "
                   f"{_rate(easiest)} ({_ci(easiest)}); levels and players pooled, "
                   f"{len(islands)} islands.")
    out += [line for s in sections for line in s.glance]
    where = _where(sweep)
    if len(table) > 1 and table["rate"].max() > table["rate"].min():
        best, worst = table.loc[table["rate"].idxmax()], table.loc[table["rate"].idxmin()]
        out.append(f"Easiest setting{where}: {best['level']} with {players_text(table, best['players'])}, "
                   f"{_rate(best)} won ({_ci(best)}); hardest: {worst['level']} with "
                   f"{players_text(table, worst['players'])}, {_rate(worst)} "
                   f"({_ci(worst)}).")
    elif len(table) > 1:
        out.append(f"Every setting of the main figures{where}: {percent(table['rate'].iloc[0])} won "
                   f"(intervals up to {percent(table['ci_high'].max())}).")
    else:
        r = table.iloc[0]
        out.append(f"{r['level']} with {players_text(table, r['players'])}{where}: {_rate(r)} won "
                   f"({_ci(r)}).")
    out += [line for line in (_level_steps(sweep, where), _easiest_count(table, main.levels, where),
                              _hardest_lost(table, where)) if line]
    if ranked is not None:
        ranking, _ = ranked
        for p, g in ranking.groupby("players"):
            if not g["mark"].any():
                continue
            top, bottom = g.iloc[0], g.iloc[-1]
            out.append(f"{players_text(table, p)}{where}: strongest team {top['team']}, {_rate(top)} "
                       f"({_ci(top)}); weakest {bottom['team']}, {_rate(bottom)} "
                       f"({_ci(bottom)}), levels pooled.")
    return out


def _where(sweep):
    """' on the standard island, played by planner@3, under the official rules': which slice the
    main figures show, for each of those settings the sweep varies ('' when it varies none)."""
    parts = []
    if len(sweep.values("layout")) > 1:
        parts.append(f"on the {sweep.baseline('layout')} island")
    if len(sweep.values("policy")) > 1:
        parts.append(f"played by {sweep.policy_label(sweep.baseline('policy'))}")
    if len(sweep.values("rules")) > 1:
        parts.append(f"under the {sweep.baseline('rules')} rules")
    return (" " + ", ".join(parts)) if parts else ""


def _level_steps(sweep, where):
    """What each step up the levels costs, paired on the same deals (data.level_steps)."""
    steps = data.level_steps(sweep)
    if steps.empty:
        return ""
    items = [f"{r['from']} {rate_of(r['wins_from'], r['games'])} → {r['to']} "
             f"{rate_of(r['wins_to'], r['games'])}, {_change(r)}" for _, r in steps.iterrows()]
    return (f"What each level step costs{where} (paired on the same deals, players and teams pooled, 95% CI): "
            + "; ".join(items) + ".")


def _easiest_count(table, levels, where):
    """The player count with the highest win rate at each level, and whether it is the same at every level."""
    if table["players"].nunique() < 2:
        return ""
    best = [table.loc[table.loc[table["level"] == level, "rate"].idxmax()]
            for level in levels if (table["level"] == level).any()]
    items = [f"{r['level']} {players_text(table, r['players'])}, {_rate(r)} ({_ci(r)})" for r in best]
    counts = {r["players"] for r in best}
    verdict = ("" if len(best) < 2 else f"; {players_text(table, best[0]['players'])} at every level"
               if len(counts) == 1 else "; it changes with the level")
    return f"Easiest player count{where}: " + "; ".join(items) + verdict + "."


def _hardest_lost(table, where):
    """How the main slice's hardest setting is lost: the share of its games lost to each cause."""
    worst = table.loc[table["rate"].idxmin()]
    causes = sorted((c for c in CAUSES if worst[f"count_{c}"]), key=lambda c: -worst[f"count_{c}"])
    if not causes:
        return ""
    setting = f"{worst['level']} with {players_text(table, worst['players'])}{where}"
    what = f"the hardest setting ({setting})" if len(table) > 1 else setting
    shares = [f"{c.replace('_', ' ')} {rate_of(worst[f'count_{c}'], worst['games'])}" for c in causes]
    return (f"How {what} is lost, {_rate(worst)} won ({_ci(worst)}): the share of its games lost to each cause, "
            f"95% CI: " + "; ".join(shares) + ".")


def warnings(sweep):
    if not sweep.incomplete:
        return []
    return [f"{len(sweep.incomplete)} of {len(sweep.cells)} cells have not reached the sweep's target yet "
            f"(e.g. [{sweep.incomplete[0]}]); run the same sweep again to finish them."]
