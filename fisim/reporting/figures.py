"""The report's figures, drawn with matplotlib's object API on the Agg canvas (no pyplot, so no
global figure state and no display needed). Each function takes the tables of
fisim.reporting.data and a `subtitle` naming the policy, the setting and the number of games, and
returns a Figure. Rates are in percent; every rate has its 95% interval."""
import io
import textwrap

import matplotlib
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle
from matplotlib.ticker import MaxNLocator

from fisim.formatting import interval, percent, rate_interval
from fisim.results.games import CAUSES

RATE_LABEL = "computer team's win rate (%)"
LEVEL_COLOURS = {"novice": "#4daf4a", "normal": "#377eb8", "elite": "#ff7f00", "legendary": "#e41a1c"}
PLAYER_COLOURS = {1: "#666666", 2: "#1b9e77", 3: "#d95f02", 4: "#7570b3"}
OUTCOME_COLOURS = {"won": "#2ca02c", "landing_sunk": "#8c564b", "treasure_lost": "#9467bd",
                   "drowned": "#1f77b4", "skull": "#7f7f7f"}
STRONG, WEAK, PLAIN = "#1a9850", "#d73027", "#5a5a5a"
OUTCOME_STYLES = {"won": "-", "lost": "--"}      # the win chance's arcs, by the games' outcome
STYLE = {"font.size": 9, "axes.titlesize": 9.5, "axes.spines.top": False, "axes.spines.right": False,
         "svg.hashsalt": "fisim", "svg.fonttype": "path", "figure.dpi": 100}


TITLE_CHARS_PER_INCH = 12.5     # of the 9.5 pt heading


def _figure(width, height, title, subtitle, **kw):
    """A figure whose heading is the title on one line (the figure is made wide enough for it)
    and, wrapped to the width, the subtitle (policy, setting, games, and that the rates are the
    computer team's)."""
    width = max(width, len(title) / TITLE_CHARS_PER_INCH + 0.3)
    fig = Figure(figsize=(width, height), layout="constrained", **kw)
    FigureCanvasAgg(fig)
    chars = int(width * TITLE_CHARS_PER_INCH)
    lines = [title] + textwrap.wrap(subtitle, width=int(chars * 1.1))
    fig.suptitle("\n".join(lines), fontsize=9.5, x=0.01, ha="left", linespacing=1.35)
    return fig


def _colour(mapping, key, i):
    return mapping.get(key, matplotlib.colormaps["tab10"](i % 10))


def _players(frame, p):
    """'3 players', or '1 player (solo)' when the frame's `note` column names other rules."""
    note = frame.loc[frame["players"] == p, "note"].iloc[0] if "note" in frame else ""
    return f"{p} player{'s' if p > 1 else ''}" + (f" ({note})" if note else "")


def _bars(value, rows):
    """Error bar lengths (below, above) in percent; never negative (an interval's end may differ
    from the rate by rounding when the rate is 0 or 1)."""
    low = value - 100 * rows["ci_low"].to_numpy(dtype=float)
    high = 100 * rows["ci_high"].to_numpy(dtype=float) - value
    return [np.clip(low, 0, None), np.clip(high, 0, None)]


def _percent_top(highs):
    top = 100 * float(np.nanmax(highs)) if len(highs) else 1.0
    return max(top * 1.15, 1.0)


def to_bytes(fig, fmt):
    """The figure as PNG or SVG bytes, without a timestamp, so an unchanged figure is unchanged."""
    buf = io.BytesIO()
    metadata = {"Software": None} if fmt == "png" else {"Date": None, "Creator": None}
    with matplotlib.rc_context(STYLE):
        fig.savefig(buf, format=fmt, dpi=110, metadata=metadata)
    return buf.getvalue()


def _drawn(draw):
    """Draw under the report's style (rc settings apply when artists are made)."""
    def wrapper(*args, **kwargs):
        with matplotlib.rc_context(STYLE):
            return draw(*args, **kwargs)
    wrapper.__name__, wrapper.__doc__ = draw.__name__, draw.__doc__
    return wrapper


@_drawn
def win_by_level(frame, levels, subtitle):
    """Win rate per level, one line per player count, with 95% interval bars."""
    fig = _figure(7, 4.2, "Computer team's win rate by difficulty level (95% intervals)", subtitle)
    ax = fig.add_subplot()
    x = {level: i for i, level in enumerate(levels)}
    players = sorted(frame["players"].unique())
    for j, p in enumerate(players):
        rows = frame[frame["players"] == p]
        shift = (j - (len(players) - 1) / 2) * 0.06
        xs = [x[v] + shift for v in rows["level"]]
        rate = 100 * rows["rate"].to_numpy()
        err = _bars(rate, rows)
        ax.errorbar(xs, rate, yerr=err, marker="o", capsize=4, lw=1.6, color=_colour(PLAYER_COLOURS, p, j),
                    label=_players(frame, p))
    ax.set_xticks(range(len(levels)), levels)
    ax.set_xlim(-0.4, len(levels) - 0.6)
    ax.set_ylim(0, _percent_top(frame["ci_high"]))
    ax.set_xlabel("starting water level")
    ax.set_ylabel(RATE_LABEL)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(frameon=False)
    return fig


@_drawn
def heat_map(frame, levels, subtitle):
    """Level x players, each square the win rate with its interval."""
    players = sorted(frame["players"].unique())
    grid = np.full((len(players), len(levels)), np.nan)
    text = {}
    digits = 2 if frame["ci_high"].max() < 0.1 else 1
    for _, r in frame.iterrows():
        i, j = players.index(r["players"]), levels.index(r["level"])
        grid[i, j] = 100 * r["rate"]
        text[i, j] = f"{percent(r['rate'], digits)}\n{interval(r['ci_low'], r['ci_high'], digits)}"
    fig = _figure(1.6 + 1.5 * len(levels), 1.4 + 0.75 * len(players),
                  "Computer team's win rate: level × players (95% intervals)", subtitle)
    ax = fig.add_subplot()
    top = max(float(np.nanmax(grid)), 1.0)
    image = ax.imshow(grid, cmap="viridis", vmin=0, vmax=top, aspect="auto")
    for (i, j), t in text.items():
        dark = grid[i, j] < 0.6 * top
        ax.text(j, i, t, ha="center", va="center", fontsize=8.5, color="white" if dark else "black")
    ax.set_xticks(range(len(levels)), levels)
    ax.set_yticks(range(len(players)), [_players(frame, p) for p in players])
    ax.tick_params(length=0)
    for side in ax.spines.values():
        side.set_visible(False)
    fig.colorbar(image, ax=ax, label=RATE_LABEL, shrink=0.9)
    return fig


@_drawn
def team_ranking(ranking, subtitle):
    """Every team with its interval, best first, one panel per player count."""
    groups = [(p, g) for p, g in ranking.groupby("players", sort=True)]
    sizes = [len(g) for _, g in groups]
    fig = _figure(7.5, 1.3 + 0.19 * sum(sizes) + 0.45 * len(groups),
                  "Teams ranked by the computer team's win rate (levels pooled; 95% intervals)", subtitle)
    axes = fig.subplots(len(groups), 1, squeeze=False, gridspec_kw={"height_ratios": sizes})[:, 0]
    top = _percent_top(ranking["ci_high"])
    for ax, (p, g) in zip(axes, groups):
        y = np.arange(len(g))[::-1]
        rate = 100 * g["rate"].to_numpy()
        err = _bars(rate, g)
        colours = [STRONG if m == "strongest" else WEAK if m == "weakest" else PLAIN for m in g["mark"]]
        for yi, r, e0, e1, c in zip(y, rate, err[0], err[1], colours):
            ax.errorbar(r, yi, xerr=[[e0], [e1]], fmt="o", ms=4, capsize=2.5, color=c)
        labels = [t + ("  (strongest)" if m == "strongest" else "  (weakest)" if m == "weakest" else "")
                  for t, m in zip(g["team"], g["mark"])]
        ax.set_yticks(y, labels, fontsize=7.5)
        for tick, c in zip(ax.get_yticklabels(), colours):
            tick.set_color(c)
        ax.set_ylim(-0.7, len(g) - 0.3)
        ax.set_xlim(0, top)
        ax.grid(axis="x", alpha=0.3)
        ax.set_title(f"{p} player{'s' if p != 1 else ''}: {len(g)} teams", loc="left")
    axes[-1].set_xlabel(RATE_LABEL)
    return fig


@_drawn
def team_levels(ranking, per_level, levels, subtitle):
    """The teams ranked as a map: one panel per player count, a row per team (strongest first, as
    `ranking` orders them), a column per level, each square its win rate (one colour scale)."""
    groups = [(p, g) for p, g in ranking.groupby("players", sort=True)]
    sizes = [len(g) for _, g in groups]
    rates = {(r["players"], r["team"], r["level"]): 100 * r["rate"] for _, r in per_level.iterrows()}
    top = max(max(rates.values()), 1.0)
    fig = _figure(3.4 + 0.9 * len(levels), 1.7 + 0.24 * sum(sizes) + 0.45 * len(groups),
                  "Computer team's win rate: teams × levels (strongest team first)", subtitle)
    axes = fig.subplots(len(groups), 1, squeeze=False, gridspec_kw={"height_ratios": sizes})[:, 0]
    for ax, (p, g) in zip(axes, groups):
        grid = np.array([[rates.get((p, team, level), np.nan) for level in levels] for team in g["team"]])
        image = ax.imshow(grid, cmap="viridis", vmin=0, vmax=top, aspect="auto")
        for (i, j), value in np.ndenumerate(grid):
            if np.isfinite(value):
                ax.text(j, i, percent(value / 100, 1), ha="center", va="center", fontsize=7,
                        color="white" if value < 0.6 * top else "black")
        ax.set_xticks(range(len(levels)), levels if ax is axes[0] else [""] * len(levels))
        ax.xaxis.set_ticks_position("top")
        ax.set_yticks(range(len(g)), list(g["team"]), fontsize=7.5)
        ax.tick_params(length=0)
        ax.set_ylabel(f"{p} player{'s' if p != 1 else ''}")
        for side in ax.spines.values():
            side.set_visible(False)
    fig.colorbar(image, ax=list(axes), label=RATE_LABEL, shrink=0.8)
    return fig


@_drawn
def loss_causes(frame, levels, subtitle):
    """Stacked shares of the outcomes (won, each primary loss cause) per level and player count."""
    players = sorted(frame["players"].unique())
    fig = _figure(2.2 + 2.4 * len(players), 4.4, "How the computer team's games end, per level "
                  "(share of games)", subtitle)
    axes = fig.subplots(1, len(players), squeeze=False, sharey=True)[0]
    outcomes = ["won", *CAUSES]
    for ax, p in zip(axes, players):
        rows = frame[frame["players"] == p].set_index("level").reindex([v for v in levels])
        bottom = np.zeros(len(levels))
        for name in outcomes:
            share = 100 * np.nan_to_num(rows[f"share_{name}"].to_numpy(dtype=float))
            ax.bar(range(len(levels)), share, bottom=bottom, color=OUTCOME_COLOURS[name], width=0.7,
                   label=name.replace("_", " ") if ax is axes[0] else None)
            bottom += share
        ax.set_xticks(range(len(levels)), levels, rotation=30)
        ax.set_ylim(0, 100)
        ax.set_title(_players(frame, p), loc="left")
    axes[0].set_ylabel("share of games (%)")
    fig.legend(loc="outside right center", frameon=False, title="outcome")
    return fig


@_drawn
def survival_curves(frame, levels, subtitle, survival):
    """Share of games still going after turn t, one line per level, one panel per player count."""
    players = sorted(frame["players"].unique())
    fig = _figure(2.2 + 2.6 * len(players), 3.8, "Share of the computer team's games still going after "
                  "turn t", subtitle)
    axes = fig.subplots(1, len(players), squeeze=False, sharex=True, sharey=True)[0]   # one turn scale
    for ax, p in zip(axes, players):
        rows = frame[frame["players"] == p]
        for i, level in enumerate(levels):
            row = rows[rows["level"] == level]
            if row.empty:
                continue
            s = 100 * survival(row.iloc[0]["turns_hist"])
            ax.step(np.arange(len(s)), s, where="post", color=_colour(LEVEL_COLOURS, level, i), lw=1.5,
                    label=level)
        ax.set_ylim(0, 101)
        ax.set_xlim(left=0)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("player turn t")
        ax.grid(alpha=0.3)
        ax.set_title(_players(frame, p), loc="left")
    axes[0].set_ylabel("games still going (%)")
    axes[-1].legend(frameon=False, title="level")
    return fig


@_drawn
def win_chance_arcs(arcs, levels, subtitle):
    """The typical arc of the team's chance of winning, one panel per player count: per level, the
    mean chance against the share of the game played, over the traced games won (solid) and lost
    (dashed)."""
    players = sorted(arcs["players"].unique())
    fig = _figure(2.2 + 2.6 * len(players), 3.8, "The computer team's chance of winning over the game "
                  "(traced games)", subtitle)
    axes = fig.subplots(1, len(players), squeeze=False, sharey=True)[0]
    shown = [level for level in levels if level in set(arcs["level"])]
    for ax, p in zip(axes, players):
        for i, level in enumerate(shown):
            for outcome, style in OUTCOME_STYLES.items():
                rows = arcs[(arcs["players"] == p) & (arcs["level"] == level) & (arcs["outcome"] == outcome)]
                ax.plot(100 * rows["played"], 100 * rows["chance"], style, color=_colour(LEVEL_COLOURS, level, i),
                        lw=1.5)
        ax.set_ylim(0, 101)
        ax.set_xlim(0, 100)
        ax.set_xlabel("share of the game played (%)")
        ax.grid(alpha=0.3)
        ax.set_title(f"{p} player{'s' if p > 1 else ''}", loc="left")
    axes[0].set_ylabel("chance of winning (%)")
    handles = ([Line2D([], [], color=_colour(LEVEL_COLOURS, level, i), lw=1.5) for i, level in enumerate(shown)]
               + [Line2D([], [], color=PLAIN, ls=style, lw=1.5) for style in OUTCOME_STYLES.values()])
    fig.legend(handles, [*shown, *(f"games {outcome}" for outcome in OUTCOME_STYLES)], loc="outside right center",
               frameon=False)
    return fig


@_drawn
def differences(pooled, axis, names, levels, title, subtitle):
    """Paired differences (points of win rate) against the baseline, one row per compared value
    (the largest mean difference on top), one marker per level, with 95% intervals."""
    mean = pooled.groupby(axis, sort=False)["difference"].mean().sort_values(ascending=False, kind="stable")
    values = list(mean.index)
    present = [v for v in levels if v in set(pooled["level"])]
    fig = _figure(7.5, 2.8 + 0.25 * len(values) * max(1.5, len(present) ** 0.5), title, subtitle)
    ax = fig.add_subplot()
    for i, level in enumerate(present):
        rows = pooled[pooled["level"] == level]
        shift = (i - (len(present) - 1) / 2) * min(0.18, 0.8 / max(1, len(present)))
        y = [len(values) - 1 - values.index(v) - shift for v in rows[axis]]
        d = 100 * rows["difference"].to_numpy()
        err = _bars(d, rows)
        ax.errorbar(d, y, xerr=err, fmt="o", ms=4, capsize=2.5, color=_colour(LEVEL_COLOURS, level, i),
                    label=level)
    ax.axvline(0, color="black", lw=0.8)
    ax.set_yticks(range(len(values))[::-1], [names.get(v, v) for v in values])
    ax.set_ylim(-0.7, len(values) - 0.3)
    ax.set_xlabel("difference in the computer team's win rate (percentage points)")
    ax.grid(axis="x", alpha=0.3)
    fig.legend(loc="outside lower center", frameon=False, ncols=len(present), title="starting water level")
    return fig


@_drawn
def adventurers(roles, role_names, subtitle):
    """Per adventurer (top to bottom in the order of `role_names`), the win rate of the games whose
    team included it, one marker per player count, with 95% intervals; the markers of each
    adventurer stacked top to bottom in the legend's order."""
    players = sorted(roles["players"].unique())
    fig = _figure(7, 1.6 + 0.42 * len(role_names), "Computer team's win rate with each adventurer in the team "
                  "(95% intervals)", subtitle)
    ax = fig.add_subplot()
    for j, p in enumerate(players):
        rows = roles[roles["players"] == p]
        shift = ((len(players) - 1) / 2 - j) * 0.18
        y = [len(role_names) - 1 - role_names.index(r) + shift for r in rows["role"]]
        rate = 100 * rows["rate"].to_numpy()
        ax.errorbar(rate, y, xerr=_bars(rate, rows), fmt="o", ms=4, capsize=2.5,
                    color=_colour(PLAYER_COLOURS, p, j), label=f"{p} player{'s' if p != 1 else ''}")
    ax.set_yticks(range(len(role_names))[::-1], role_names)
    ax.set_ylim(-0.7, len(role_names) - 0.3)
    ax.set_xlim(0, _percent_top(roles["ci_high"]))
    ax.set_xlabel(RATE_LABEL)
    ax.grid(axis="x", alpha=0.3)
    fig.legend(loc="outside right center", frameon=False)
    return fig


@_drawn
def islands(shapes, rates, subtitle):
    """Each island as its grid of tiles (sea left blank), hardest first, titled with its pooled
    win rate; `rates` is by_layout's table."""
    names = list(rates["layout"])
    columns = min(6, len(names))
    rows_of = -(-len(names) // columns)
    fig = _figure(1.25 * columns + 0.4, 0.9 + 1.45 * rows_of, "The islands, hardest first (win rate, levels "
                  "and players pooled)", subtitle)
    axes = fig.subplots(rows_of, columns, squeeze=False).ravel()
    for ax in axes:
        ax.set_axis_off()
    for ax, (_, r) in zip(axes, rates.iterrows()):
        grid = np.array([[ch == "#" for ch in line.ljust(max(map(len, shapes[r["layout"]])), ".")]
                         for line in shapes[r["layout"]]])
        ax.imshow(np.where(grid, 1.0, np.nan), cmap="YlOrBr", vmin=0, vmax=2.5, interpolation="none")
        for y, x in zip(*np.nonzero(grid)):
            ax.add_patch(Rectangle((x - 0.5, y - 0.5), 1, 1, fill=False, lw=0.4, ec="#7a5a2a"))
        ax.set_aspect("equal")
        ax.set_title(f"{r['layout']}\n{rate_interval(r['rate'], r['ci_low'], r['ci_high'], 1)}",
                     fontsize=7.5)
    return fig


TILE_PANELS = (("sunk", "games it ended sunk"), ("caused", "losses its sinking caused"),
               ("first", "games it sank first"))


@_drawn
def tiles(layout, table, subtitle):
    """One island drawn as its grid, three times: each tile (a place on the grid, numbered
    row-major) coloured by the share of games it ended sunk, of losses it caused and of games it
    sank first, and labelled with its number and that share; `table` is one island of data.tiles."""
    height, width = int(table["row"].max()) + 1, int(table["col"].max()) + 1
    fig = _figure(3 * (0.55 * width + 0.4), 1.8 + 0.55 * height,
                  f"Which tiles decide the game: {layout} (share per tile, 95% intervals in the tables)", subtitle)
    for ax, (kind, label) in zip(fig.subplots(1, 3), TILE_PANELS):
        share = 100 * table[f"{kind}_share"].to_numpy(dtype=float)
        grid = np.full((height, width), np.nan)
        grid[table["row"], table["col"]] = share
        top = max(float(np.nanmax(share)) if np.isfinite(share).any() else 0.0, 1.0)
        image = ax.imshow(grid, cmap="OrRd", vmin=0, vmax=top, interpolation="none")
        for tile, y, x, value in zip(table["tile"], table["row"], table["col"], share):
            ax.add_patch(Rectangle((x - 0.5, y - 0.5), 1, 1, fill=False, lw=0.4, ec="#7a5a2a"))
            ax.text(x, y, f"{tile}\n{percent(value / 100, 1)}", ha="center", va="center", fontsize=6.5,
                    color="white" if value > 0.6 * top else "black")
        ax.set_title(f"% of {label}", fontsize=8)
        ax.set_axis_off()
        fig.colorbar(image, ax=ax, shrink=0.8, location="bottom", pad=0.02)
    return fig


@_drawn
def named_tiles(island, table, subtitle):
    """The 24 named tiles of one island, most losses caused first, three panels sharing them: the
    share of games each ended sunk, of losses its sinking caused and of games it sank first, as
    bars with 95% intervals; `table` is one island of data.tiles(by="name")."""
    table = table.sort_values(["caused", "tile"], ascending=[False, True], kind="stable")
    y = np.arange(len(table))[::-1]
    fig = _figure(9.5, 1.6 + 0.2 * len(table), f"Which named tiles decide the game: {island} (share per tile, "
                  "95% intervals)", subtitle)
    axes = fig.subplots(1, 3, sharey=True)
    for ax, (kind, label) in zip(axes, TILE_PANELS):
        share = 100 * table[f"{kind}_share"].to_numpy(dtype=float)
        ends = table[[f"{kind}_low", f"{kind}_high"]].set_axis(["ci_low", "ci_high"], axis=1)
        ax.barh(y, share, xerr=_bars(share, ends), height=0.7, color="#d7301f" if kind == "caused" else "#fc8d59",
                error_kw={"capsize": 2, "lw": 0.8})
        ax.set_xlim(0, _percent_top(ends["ci_high"]))
        ax.set_title(f"% of {label}", fontsize=8)
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_yticks(y, [f"{name} ({code})" for name, code in zip(table["name"], table["code"])], fontsize=7.5)
    axes[0].set_ylim(-0.7, len(table) - 0.3)
    return fig


@_drawn
def parameter_effects(effects, levels, subtitle):
    """Win rate against each rule number a sweep varied, one panel per number, one line per level,
    with 95% intervals; a dashed line marks the official value."""
    keys = list(dict.fromkeys(effects["parameter"]))
    present = [v for v in levels if v in set(effects["level"])]
    fig = _figure(3.2 * len(keys) + 1, 4.2, "Win rate against each rule number varied (95% intervals)", subtitle)
    axes = fig.subplots(1, len(keys), squeeze=False, sharey=True)[0]
    for ax, key in zip(axes, keys):
        mine = effects[effects["parameter"] == key]
        for i, level in enumerate(present):
            rows = mine[mine["level"] == level].sort_values("value")
            rate = 100 * rows["rate"].to_numpy()
            ax.errorbar(rows["value"], rate, yerr=_bars(rate, rows), marker="o", ms=4, capsize=3, lw=1.4,
                        color=_colour(LEVEL_COLOURS, level, i), label=level)
        ax.axvline(mine.loc[mine["official"], "value"].iloc[0], color="black", lw=0.8, ls="--")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel(f"{key} (dashed: official)")
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel(RATE_LABEL)
    axes[0].set_ylim(0, _percent_top(effects["ci_high"]))
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", frameon=False,
               ncols=len(present), title="starting water level")
    return fig


@_drawn
def skill_ladder(ladder, policies, subtitle):
    """fisim.skill: win rate against the policies in ladder order, one line per level (player
    counts pooled), 95% interval bars; the clairvoyant reference apart, with its note."""
    from policies import CLAIRVOYANT_NOTE, sees_decks
    fig = _figure(8, 4.6, "Win rate against skill, by difficulty level (95% intervals)", subtitle)
    ax = fig.add_subplot()
    pooled = ladder[ladder["players"] == "all"]
    levels = list(dict.fromkeys(pooled["level"]))
    x = {p: i for i, p in enumerate(policies)}
    legal = [p for p in policies if not sees_decks(p)]
    for j, level in enumerate(levels):
        rows = pooled[pooled["level"] == level].set_index("policy")
        colour = _colour(LEVEL_COLOURS, level, j)
        shift = (j - (len(levels) - 1) / 2) * 0.05
        seers = [p for p in policies if sees_decks(p)]
        for names, style in ((legal, {"marker": "o", "lw": 1.6, "label": level}),
                             (seers, {"marker": "D", "ls": "none", "lw": 1.6, "mfc": "white"})):
            mine = rows.loc[[p for p in names if p in rows.index]]
            if mine.empty:
                continue
            rate = 100 * mine["rate"].to_numpy()
            ax.errorbar([x[p] + shift for p in mine.index], rate, yerr=_bars(rate, mine), capsize=3, color=colour,
                        **style)
    ax.set_xticks(range(len(policies)), [f"{p}\n(sees the decks)" if sees_decks(p) else p for p in policies],
                  rotation=30, ha="right", rotation_mode="anchor")      # long names side by side
    ax.set_ylim(0, _percent_top(pooled["ci_high"]))
    ax.set_xlabel("policy, weakest to strongest (hollow diamonds: " + CLAIRVOYANT_NOTE + ")", wrap=True)
    ax.set_ylabel(RATE_LABEL)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(frameon=False, title="level")
    return fig


@_drawn
def deal_difficulty(distributions, levels, subtitle):
    """fisim.skill: how many deals have each win probability ({(level, players): per-deal win
    rates}), one panel per level, one outline per player count."""
    fig = _figure(2.2 + 2.6 * len(levels), 4, "Per-deal win probability, by level", subtitle)
    axes = fig.subplots(1, len(levels), squeeze=False, sharey=True)[0]
    edges = np.linspace(-2.5, 102.5, 22)       # 5-point bins centred on 0, 5, ..., 100
    for ax, level in zip(axes, levels):
        mine = sorted((players, p) for (lv, players), p in distributions.items() if lv == level)
        for j, (players, p) in enumerate(mine):
            ax.hist(100 * p, bins=edges, histtype="step", lw=1.6, weights=np.full(len(p), 100 / len(p)),
                    color=_colour(PLAYER_COLOURS, players, j),
                    label=f"{players} players ({len(p):,} deals)" if ax is axes[0] else None)
        ax.set_xlim(-3, 103)
        ax.set_xlabel("the deal's win rate over its replays (%)")
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(axis="y", alpha=0.3)
        ax.set_title(level, loc="left")
    axes[0].set_ylabel("share of deals (%)")
    fig.legend(loc="outside lower center", frameon=False, ncols=len(distributions) // max(1, len(levels)))
    return fig


@_drawn
def design_curves(curves, measures, targets, tolerance, subtitle):
    """A design's target curve (a dashed line, the tolerance a band about it) and each candidate's
    curve on fresh deals, with 95% interval bars, the answer drawn heavier: `curves` the
    verification's rows of a design's curves table, `measures` its (label, level, players) in
    order, `targets` the rate wanted at each."""
    fig = _figure(7.5, 4.4, "Win rate per level: the target curve and each candidate's (95% intervals)", subtitle)
    ax = fig.add_subplot()
    x = np.arange(len(measures))
    wanted = 100 * np.asarray(targets)
    ax.fill_between(x, wanted - 100 * tolerance, wanted + 100 * tolerance, color="#bbbbbb", alpha=0.35, lw=0)
    ax.plot(x, wanted, "--", color="black", lw=1.4, marker="s", ms=5, label="target")
    ranks = list(dict.fromkeys(curves["rank"]))
    for j, rank in enumerate(ranks):
        rows = curves[curves["rank"] == rank]
        rows = rows.set_index(["level", "players"]).loc[[(level, players) for _, level, players in measures]]
        rate = 100 * rows["rate"].to_numpy()
        shift = (j - (len(ranks) - 1) / 2) * 0.06
        ax.errorbar(x + shift, rate, yerr=_bars(rate, rows), marker="o", capsize=4, lw=2.4 if j == 0 else 1.3,
                    color=_colour({}, rank, j), label=f"{rank}. {rows['changes'].iloc[0]}")
    ax.set_xticks(x, [label for label, _, _ in measures])
    ax.set_xlim(-0.4, len(measures) - 0.6)
    ax.set_ylim(0, min(100, _percent_top(curves["ci_high"])))
    ax.set_xlabel("starting water level")
    ax.set_ylabel(RATE_LABEL)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(frameon=False, fontsize=8)
    return fig
