"""Aggregation for reports: every number a report shows, computed from the results store alone.

A report reads a sweep's store once (fisim.store: the manifest and the finished chunks), checks
that it is whole, counts each cell's chunks as every reader does (fisim.tables.counted_chunks) and
pools cells into the tables behind each figure. Pooling adds games, wins and counts. Game i of
every cell of a sweep starts from the same shuffles, so the games a pooled number adds up are not
independent: a deal's games at several teams, levels or player counts are one observation, and
every pooled interval counts deals (fisim.stats.pooled_wins_interval for a win rate, a Wilson
interval at the effective number of games; fisim.stats.pooled_difference for a difference).
Comparisons pool *pairs*: game i of two cells that differ in one setting is the same deal, so the
paired difference of matched cells is taken deal by deal.

The *main slice* is what the headline figures show: the standard island (else the sweep's first
layout), the sweep's first policy and the official rules (for a player count that has no
official cell, such as 1 player with `solo`, that count's first rule variant). Teams are pooled.
"""
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from fisim.comparison import pairing
from fisim.errors import StoreError
from fisim.results import feel
from fisim.results.chunks import CLOSE_MASKS, TILE_COUNTS, per_game_wins
from fisim.results.games import CAUSES, CLOSE
from fisim.rules.config import level_position
from fisim.rules.constants import N_ROLES, N_TILES, ROLE_NAMES
from fisim.rules.variant import PARAMETERS
from fisim.stats import pooled_difference, pooled_wins_interval, wilson
from fisim.store import SETTINGS, policy_labels, read_store
from fisim.tables import cell_totals, counted_chunks, mean_of, summed, tile_labels, tile_rows
from policies import labelled

BASELINE_VALUES = {"layout": "standard", "rules": "official"}


@dataclass
class Sweep:
    """A results store read for a report: the manifest, one row per cell, per-game win bits."""
    name: str
    manifest: dict
    cells: pd.DataFrame
    bits: dict = field(repr=False)
    incomplete: list = field(default_factory=list)

    def policy_label(self, label):
        """A cell's policy (NAME@VERSION) as a report shows it: the clairvoyant reference with its
        note (policies.labelled)."""
        return labelled(label)

    def values(self, axis):
        """The values of a setting in the order the sweep lists them."""
        return list(dict.fromkeys(self.cells[axis]))

    @property
    def games(self):
        return int(self.cells["games"].sum())

    def baseline(self, axis):
        values = self.values(axis)
        wanted = BASELINE_VALUES.get(axis)
        return wanted if wanted in values else values[0]

    def main_rules(self, players):
        """The rules the main slice shows for a player count (official, else its first variant)."""
        mine = self.cells[(self.cells["players"] == players) & (self.cells["layout"] == self.baseline("layout"))
                          & (self.cells["policy"] == self.baseline("policy"))]
        values = list(dict.fromkeys(mine["rules"]))
        return self.baseline("rules") if self.baseline("rules") in values else (values[0] if values else None)

    def main(self):
        """The cells of the main slice (see the module docstring)."""
        c = self.cells
        rules = c["players"].map({p: self.main_rules(p) for p in self.values("players")})
        return c[(c["layout"] == self.baseline("layout")) & (c["policy"] == self.baseline("policy"))
                 & (c["rules"] == rules)]


def read(path):
    """Read and check a results directory; StoreError (one line) when it is missing or damaged."""
    manifest, chunks = read_store(path)
    rows, bits, incomplete = [], {}, []
    labels = policy_labels(manifest)
    for cell in manifest["cells"]:
        key = cell["key"]
        label = ", ".join(str(cell[k]) for k in SETTINGS)
        done, complete = counted_chunks(chunks, key, manifest["target"])
        if done.empty:
            raise StoreError(f"cell [{label}] has no finished games in {path}; run the same sweep "
                             "again to complete it")
        if not complete:
            incomplete.append(label)
        rows.append({**{k: cell[k] for k in SETTINGS}, "policy": labels[cell["policy"]], "cell": key,
                     **cell_totals(done, TILE_COUNTS), "complete": complete})
        bits[key] = np.concatenate([per_game_wins(c) for c in done.to_dict("records")])
    return Sweep(Path(path).resolve().name, manifest, pd.DataFrame(rows), bits, incomplete)


def _level_key(series):
    return series.map(level_position)


def pool(cells, by, bits):
    """Cells pooled by the settings `by`: games, wins, rate and its 95% interval (the deal the
    unit: `bits`, the cells' per-game wins by key), the share of games won and lost to each cause,
    mean turns and treasures, the summed histograms."""
    out = []
    for values, group in cells.groupby(list(by), sort=False):
        values = values if isinstance(values, tuple) else (values,)
        games, wins = int(group["games"].sum()), int(group["wins"].sum())
        low, high = pooled_wins_interval([bits[key] for key in group["cell"]])
        turns = summed(group["turns_hist"])
        treasures = summed(group["treasures_hist"], 5)
        row = dict(zip(by, values))
        row.update(cells=len(group), games=games, wins=wins, rate=wins / games, ci_low=low, ci_high=high,
                   share_won=wins / games, count_won=wins, turns_hist=turns,
                   mean_turns=mean_of(turns, games), mean_treasures=mean_of(treasures, games),
                   role_games=summed(group["role_games"], N_ROLES),
                   role_wins=summed(group["role_wins"], N_ROLES), treasures_hist=treasures,
                   won_close_hist=summed(group["won_close_hist"], CLOSE_MASKS),
                   traces=[t for traces in group["traces"] for t in traces])
        for name in CAUSES:
            row[f"count_{name}"] = int(group[f"cause_{name}"].sum())
            row[f"share_{name}"] = row[f"count_{name}"] / games
        out.append(row)
    frame = pd.DataFrame(out)
    order = [k for k in ("players", "level", "team") if k in by]
    if order and len(frame):
        frame = frame.sort_values(order, key=lambda s: _level_key(s) if s.name == "level" else s,
                                  kind="stable").reset_index(drop=True)
    return frame


def by_level(sweep):
    """The main slice per player count and level (teams pooled); `note` names the rules of a
    player count that plays other rules than the rest (1 player: solo)."""
    frame = pool(sweep.main(), ["players", "level"], sweep.bits)
    rules = {p: sweep.main_rules(p) for p in sweep.values("players")}
    frame["note"] = [rules[p] if rules[p] != sweep.baseline("rules") else "" for p in frame["players"]]
    return frame


def level_steps(sweep):
    """What each step up the levels costs the main slice: per pair of neighbouring levels the sweep
    played, the paired difference of win rates (the higher level's less the lower's) over the same
    deals (game i of both cells, matched on player count and team), player counts and teams
    pooled, with its 95% interval, and the wins of both levels in those games. Empty with one level."""
    main = sweep.main()
    levels = sorted(set(main["level"]), key=level_position)
    rows = []
    for low, high in zip(levels, levels[1:]):
        a, b = [], []
        for _, group in main[main["level"].isin([low, high])].groupby(["players", "team"], sort=False):
            cells = group.set_index("level")["cell"]
            if low in cells and high in cells:
                won, was = sweep.bits[cells[high]], sweep.bits[cells[low]]
                n = min(len(won), len(was))
                a.append(won[:n])
                b.append(was[:n])
        if a:
            diff, ci_low, ci_high = pooled_difference(a, b)
            a, b = np.concatenate(a), np.concatenate(b)
            rows.append({"from": low, "to": high, "games": len(a), "wins_from": int(b.sum()), "wins_to": int(a.sum()),
                         "difference": diff, "ci_low": ci_low, "ci_high": ci_high,
                         "significant": bool(ci_low > 0 or ci_high < 0)})
    return pd.DataFrame(rows)


def game_feel(sweep):
    """How the main slice's games feel, per player count and level (teams pooled): (table, arcs).
    `table` has by_level's columns with the games' length (fisim.results.feel.length), the wins
    that came close and the losses by treasures captured (feel.closeness) and, over the traced
    games feel.chance_summary's columns; `arcs` the typical arc (feel.arc) per player count and level
    (empty when no game was traced)."""
    table = by_level(sweep)
    worlds = sweep.manifest["trace"]["worlds"]
    rows, arcs = [], []
    for _, r in table.iterrows():
        row = {**feel.length(r["turns_hist"]),
               **feel.closeness(r["won_close_hist"], r["treasures_hist"], r["wins"], r["games"])}
        traced = feel.traced_games(r["traces"], worlds)
        row.update(feel.chance_summary(traced))
        rows.append(row)
        if len(traced):
            arcs.append(feel.arc(traced).assign(players=r["players"], level=r["level"]))
    arcs = pd.concat(arcs, ignore_index=True) if arcs else pd.DataFrame(columns=["players", "level", *feel.ARC_COLUMNS])
    measures = pd.DataFrame(rows, index=table.index)
    return pd.concat([table.drop(columns=measures.columns.intersection(table.columns)), measures], axis=1), arcs


CLOSE_KINDS = [*CLOSE, "close_any"]     # the close calls game_feel counts of the wins


def survival(turns_hist):
    """Share of games still going after turn t, for t = 0, 1, ..., the longest game."""
    hist = np.asarray(turns_hist, np.float64)
    ended_by = np.cumsum(hist)
    return 1.0 - ended_by / hist.sum()


def teams(sweep):
    """Fixed teams of the main slice ranked within each player count, pooled over levels: (ranking,
    per_level) or None when the sweep has fewer than two fixed teams. `ranking` marks the
    strongest and weakest team of each player count; `per_level` has each team's rate per level."""
    main = sweep.main()
    fixed = main[main["team"] != "random"]
    if fixed["team"].nunique() < 2:
        return None
    ranking = pool(fixed, ["players", "team"], sweep.bits)
    ranking = ranking.sort_values(["players", "rate", "team"], ascending=[True, False, True], kind="stable")
    ranking["rank"] = ranking.groupby("players").cumcount() + 1
    size = ranking.groupby("players")["team"].transform("size")
    spread = ranking.groupby("players")["rate"].transform("max") > ranking.groupby("players")["rate"].transform("min")
    ranking["mark"] = np.where(~spread, "", np.where(ranking["rank"] == 1, "strongest",
                                                      np.where(ranking["rank"] == size, "weakest", "")))
    return ranking.reset_index(drop=True), pool(fixed, ["players", "team", "level"], sweep.bits)


def island_cells(sweep):
    """The cells of every island at the main slice's policy and rules."""
    c = sweep.cells
    rules = c["players"].map({p: sweep.main_rules(p) for p in sweep.values("players")})
    return c[(c["policy"] == sweep.baseline("policy")) & (c["rules"] == rules)]


def by_layout(sweep):
    """Each island's cells at the main slice's policy and rules, levels, players and teams pooled
    (every island of a sweep plays the same levels, players and teams), hardest first."""
    frame = pool(island_cells(sweep), ["layout"], sweep.bits)
    return frame.sort_values(["rate", "layout"], kind="stable").reset_index(drop=True)


def island_shapes(sweep):
    """{island name: its rows of '#' (a tile) and '.' (sea)}, as the manifest recorded them."""
    return {cell["layout"]: cell["layout_shape"] for cell in sweep.manifest["cells"] if "layout_shape" in cell}


def tiles(sweep, by="place"):
    """Which tiles decide the game, per island at the main slice's policy and rules (levels,
    players and teams pooled): {island: fisim.tables.tile_rows's table}, by "place" (each cell of
    the island's grid: placement is random each game, R-SETUP-1) or by "name" (each named tile)."""
    shapes = island_shapes(sweep)
    out = {}
    for layout, group in island_cells(sweep).groupby("layout", sort=False):
        counts = {kind: summed(group[column], N_TILES) for kind, column in TILE_COUNTS[by].items()}
        out[layout] = pd.DataFrame(tile_rows(tile_labels(by, shapes[layout]), int(group["games"].sum()),
                                             int(group["wins"].sum()), counts))
    return out


def roles(sweep):
    """Per player count, the win rate of the main slice's games whose team includes each role."""
    rows = []
    for _, r in pool(sweep.main(), ["players"], sweep.bits).iterrows():
        for i, role in enumerate(ROLE_NAMES):
            n, w = int(r["role_games"][i]), int(r["role_wins"][i])
            if n:
                low, high = wilson(w, n)
                rows.append({"players": r["players"], "role": role, "games": n, "wins": w, "rate": w / n,
                             "ci_low": low, "ci_high": high})
    return pd.DataFrame(rows)


@dataclass
class Comparison:
    pooled: pd.DataFrame
    detail: pd.DataFrame
    unmatched: list
    cells: pd.DataFrame
    overall: pd.DataFrame


def comparison(sweep, axis, keep_value=None):
    """Paired differences against the baseline value of `axis` (standard island, official rules,
    the first policy), of the values `keep_value(value)` accepts (default: all). The other two of
    layout, policy and rules are held at the main slice's values; cells are matched on level,
    players and team. `pooled` has one row per value and level (players and teams pooled),
    `detail` one row per value, level and player count, `overall` one row per value (levels,
    players and teams pooled); `unmatched` lists values with no baseline cell to pair with;
    `cells` are the cells compared. None when no two cells of the sweep pair up."""
    if len(sweep.values(axis)) < 2:
        return None
    keep_value = keep_value or (lambda value: True)
    c = sweep.cells
    keep = pd.Series(True, index=c.index)
    for other in ("layout", "policy", "rules"):
        if other == axis:
            continue
        if other == "rules":
            keep &= c["rules"] == c["players"].map({p: sweep.main_rules(p) for p in sweep.values("players")})
        else:
            keep &= c[other] == sweep.baseline(other)
    base = sweep.baseline(axis)
    if axis == "rules":
        bases = {p: sweep.main_rules(p) for p in sweep.values("players")}
    else:
        bases = {p: base for p in sweep.values("players")}
    pairs = []
    matched, used = set(), set()
    for (level, players, team), group in c[keep].groupby(["level", "players", "team"], sort=False):
        ref = group[group[axis] == bases[players]]
        if ref.empty:
            continue
        ref = ref.iloc[0]
        for _, cell in group.iterrows():
            if cell[axis] == ref[axis] or not keep_value(cell[axis]):
                continue
            matched.add(cell[axis])
            used.update((cell["cell"], ref["cell"]))
            a, b = sweep.bits[cell["cell"]], sweep.bits[ref["cell"]]
            n = min(len(a), len(b))
            pairs.append({axis + "_value": cell[axis], "baseline": ref[axis], "level": level, "players": players,
                          "a": a[:n], "b": b[:n]})
    unmatched = [v for v in sweep.values(axis)
                 if v not in matched and v not in set(bases.values()) and keep_value(v)]
    if not pairs:
        return None
    pairs = pd.DataFrame(pairs)
    pooled = _pool_pairs(pairs, [axis + "_value", "baseline", "level"]).rename(columns={axis + "_value": axis})
    detail = _pool_pairs(pairs, [axis + "_value", "baseline", "level", "players"]).rename(
        columns={axis + "_value": axis})
    overall = _pool_pairs(pairs, [axis + "_value", "baseline"]).rename(columns={axis + "_value": axis})
    return Comparison(pooled, detail, unmatched, c[c["cell"].isin(used)], overall)


def _pool_pairs(pairs, by):
    rows = []
    for values, group in pairs.groupby(by, sort=False):
        diff, low, high = pooled_difference(group["a"], group["b"])
        rate_low, rate_high = pooled_wins_interval(list(group["a"]))
        baseline_low, baseline_high = pooled_wins_interval(list(group["b"]))
        a = np.concatenate(list(group["a"]))
        b = np.concatenate(list(group["b"]))
        r, narrowing = pairing(a, b)
        rows.append({**dict(zip(by, values)), "games": len(a), "wins": int(a.sum()), "rate": float(a.mean()),
                     "rate_low": rate_low, "rate_high": rate_high, "baseline_wins": int(b.sum()),
                     "baseline_rate": float(b.mean()), "baseline_low": baseline_low, "baseline_high": baseline_high,
                     "difference": diff, "ci_low": low, "ci_high": high,
                     "significant": bool(low > 0 or high < 0), "correlation": r, "narrowing": narrowing})
    frame = pd.DataFrame(rows)
    order = [k for k in (by[0], "level", "players") if k in by]
    first = {v: i for i, v in enumerate(dict.fromkeys(pairs[by[0]]))}
    return frame.sort_values(order, key=lambda s: _level_key(s) if s.name == "level"
                             else (s.map(first) if s.name == by[0] else s), kind="stable").reset_index(drop=True)


AXIS_LABEL = re.compile(r"([a-z_]+)=([0-9]+)")    # the rules label of a --set cell (fisim.grid.with_axes)


def set_cell(rules):
    """Whether a rules label is a --set value of the official rules (shown under parameter
    effects, not as a rule reading)."""
    return AXIS_LABEL.fullmatch(rules) is not None


def parameter_effects(sweep):
    """The cells of --set axes against the official rules, per rule number, value and level: one
    row each with games, wins, rate and its 95% interval, and the paired difference from the
    official value over the same games with its 95% interval (the official value's own row has
    difference 0). None when the sweep has no such cell."""
    result = comparison(sweep, "rules", set_cell)
    if result is None:
        return None
    pooled = result.pooled
    axes = pooled["rules"].map(lambda label: AXIS_LABEL.fullmatch(label))
    pooled = pooled[axes.notna() & (pooled["baseline"] == "official")].reset_index(drop=True)
    if pooled.empty:
        return None
    rows = []
    for _, r in pooled.iterrows():
        key, value = AXIS_LABEL.fullmatch(r["rules"]).groups()
        rows.append({"parameter": key, "value": int(value), "official": False, "level": r["level"],
                     "games": r["games"], "wins": r["wins"], "rate": r["rate"], "ci_low": r["rate_low"],
                     "ci_high": r["rate_high"], "difference": r["difference"], "d_low": r["ci_low"],
                     "d_high": r["ci_high"], "significant": r["significant"]})
    frame = pd.DataFrame(rows)
    for (key, level), group in frame.groupby(["parameter", "level"], sort=False, observed=True):
        base = pooled.loc[group.index].sort_values("games").iloc[-1]
        rows.append({"parameter": key, "value": PARAMETERS[key].official, "official": True, "level": level,
                     "games": base["games"], "wins": base["baseline_wins"], "rate": base["baseline_rate"],
                     "ci_low": base["baseline_low"], "ci_high": base["baseline_high"],
                     "difference": 0.0, "d_low": 0.0, "d_high": 0.0, "significant": False})
    frame = pd.DataFrame(rows)
    order = {k: i for i, k in enumerate(PARAMETERS)}
    return frame.sort_values(["parameter", "level", "value"], key=lambda s: s.map(order) if s.name == "parameter"
                             else _level_key(s) if s.name == "level" else s, kind="stable").reset_index(drop=True)
