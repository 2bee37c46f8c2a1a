#!/usr/bin/env python3
"""A policy's two versions on the same deals: two results stores of one seed (a published report's
sweep, played before and after a new version of its policy), each cell of the new store paired with
the old store's cell of the same settings, game by game.

It prints the new version's win rate less the old one's (fisim.stats.pooled_difference: the mean
of the games' differences with its 95% interval, the deal the unit, since game i of every cell of a
sweep is deal i) over all cells, per level, and per level and player count; then, for each setting
the stores vary, whether the two versions read it alike: the teams (within each player count) and
the islands by the rank correlation (Spearman) of their pooled win rates, with the pairs whose
order flips; each rule reading by its effect against the official rules under each version and
the change of that effect, paired.

    python scripts/compare_versions.py OLD NEW [--policy planner]
"""
import argparse
import sys

import numpy as np
import pandas as pd

SHOWN = ("layout", "level", "players", "team", "rules")     # a cell's settings, its policy aside


def parse(argv):
    from policies import PUBLISHED
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", help="the store played by the old version")
    parser.add_argument("new", help="the store played by the new version, with the same seed")
    parser.add_argument("--policy", default=PUBLISHED, help="the policy whose versions differ (default: the "
                        "published one)")
    return parser.parse_args(argv)


def arm(path, policy):
    """(label, seed, {settings: per-game wins}) of `policy`'s cells in the store at `path`."""
    from fisim.store import SETTINGS, policy_labels, read_store
    from fisim.tables import win_bits
    manifest, chunks = read_store(path)
    labels = policy_labels(manifest)
    mine = [c for c in manifest["cells"] if c["policy"] == policy]
    if not mine:
        fail(f"{path} holds no cell of {policy}; give its name with --policy")
    cells = {tuple(c[k] for k in SETTINGS if k != "policy"): win_bits(chunks, c["key"], manifest["target"])
             for c in mine}
    return labels[policy], manifest["seed"], cells


def paired(old, new, keys):
    """new − old pooled over the cells `keys` (their common games)."""
    from fisim.stats import pooled_difference
    return pooled_difference(*_common([(new[k], old[k]) for k in keys]))


def difference_text(diff, low, high):
    """A difference in points with its interval, as fisim writes them."""
    from fisim.formatting import points, points_interval
    return f"{points(diff)} ({points_interval(low, high)})"


def difference_lines(old, new, keys):
    """The new version's win rate less the old one's: over all cells, per level, per level and count."""
    from fisim.formatting import plural
    from fisim.rules.config import level_position
    at = {name: SHOWN.index(name) for name in ("level", "players")}
    levels = sorted({k[at["level"]] for k in keys}, key=level_position)
    groups = [("all cells", keys)]
    for level in levels:
        groups.append((level, [k for k in keys if k[at["level"]] == level]))
        for players in sorted({k[at["players"]] for k in keys}):
            group = [k for k in keys if k[at["level"]] == level and k[at["players"]] == players]
            groups.append((f"  {level}, {plural(players, 'player')}", group))
    lines = []
    for name, group in groups:
        if group:
            diff, low, high = paired(old, new, group)
            games = sum(min(len(old[k]), len(new[k])) for k in group)
            lines.append(f"  {name:<24} {difference_text(diff, low, high)}, {games:,} games each")
    return lines


def pooled_rates(cells, keys, axis):
    """The win rate per value of `axis`, pooled over `keys`."""
    at = SHOWN.index(axis)
    frame = pd.DataFrame({"value": [k[at] for k in keys], "wins": [cells[k].sum() for k in keys],
                          "games": [len(cells[k]) for k in keys]})
    totals = frame.groupby("value")[["wins", "games"]].sum()
    return totals["wins"] / totals["games"]


def ranking_line(name, old_rates, new_rates):
    """Spearman's correlation of two rankings and the pairs whose order flips."""
    old_rates, new_rates = old_rates.align(new_rates, join="inner")
    from fisim.formatting import correlation, plural
    rho = old_rates.rank().corr(new_rates.rank())
    order = list(old_rates.sort_values(ascending=False).index)
    flips = [f"{a} / {b}" for i, a in enumerate(order) for b in order[i + 1:] if new_rates[b] > new_rates[a]]
    flip = "flips" if len(flips) == 1 else "flip"
    return f"  {name}: Spearman {correlation(rho)} over {len(order)}; {plural(len(flips), 'pair')} {flip}" + (
        f" ({'; '.join(flips)})" if flips else "")


def reading_lines(old, new, keys, labels):
    """How the versions read each setting the stores vary."""
    lines = []
    varied = {axis: sorted({k[SHOWN.index(axis)] for k in keys}, key=str) for axis in ("team", "layout", "rules")}
    if len(varied["team"]) > 1:
        at = SHOWN.index("players")
        for players in sorted({k[at] for k in keys}):
            group = [k for k in keys if k[at] == players]
            lines.append(ranking_line(f"teams of {players}", pooled_rates(old, group, "team"),
                                      pooled_rates(new, group, "team")))
    if len(varied["layout"]) > 1:
        lines.append(ranking_line("islands", pooled_rates(old, keys, "layout"), pooled_rates(new, keys, "layout")))
    if len(varied["rules"]) > 1:
        lines.append(f"  each rule reading against the official rules ({labels[0]}, {labels[1]}, the change):")
        at = SHOWN.index("rules")
        official = {k[:at] + k[at + 1:]: k for k in keys if k[at] == "official"}
        for reading in (r for r in varied["rules"] if r != "official"):
            pairs = [(k, official[k[:at] + k[at + 1:]]) for k in keys
                     if k[at] == reading and k[:at] + k[at + 1:] in official]
            if not pairs:       # played at settings the official rules were not (solo: one player)
                lines.append(f"    {reading:<22} no official cell of its settings to pair with")
                continue
            effects = [effect(cells, pairs) for cells in (old, new)]
            change = _change(old, new, pairs)
            lines.append(f"    {reading:<22} " + "; ".join(difference_text(*d) for d in (*effects, change)))
    return lines


def effect(cells, pairs):
    """A reading's effect: its cells' win rate less the official cells', pooled, paired."""
    from fisim.stats import pooled_difference
    return pooled_difference(*_common([(cells[a], cells[b]) for a, b in pairs]))


def _change(old, new, pairs):
    """The new version's effect less the old one's, paired game by game."""
    from fisim.stats import pooled_difference
    columns = _common([(new[a], new[b], old[a], old[b]) for a, b in pairs])
    ahead = [np.asarray(x, float) - np.asarray(y, float) for x, y in zip(columns[0], columns[1])]
    behind = [np.asarray(x, float) - np.asarray(y, float) for x, y in zip(columns[2], columns[3])]
    return pooled_difference(ahead, behind)


def _common(groups):
    """Each group of per-game arrays cut to their common games, as columns (one list per position)."""
    cut = [[a[:min(len(x) for x in group)] for a in group] for group in groups]
    return [list(column) for column in zip(*cut)]


def fail(message):
    """A bad input: one line on stderr, exit status 2."""
    print(f"compare_versions: error: {message}", file=sys.stderr)
    sys.exit(2)


def main(argv=None):
    args = parse(sys.argv[1:] if argv is None else argv)
    from fisim.errors import FisimError
    try:
        old_label, old_seed, old = arm(args.old, args.policy)
        new_label, new_seed, new = arm(args.new, args.policy)
    except FisimError as exc:       # a missing or damaged store
        fail(str(exc))
    if old_seed != new_seed:
        fail(f"the stores' seeds differ ({old_seed}, {new_seed}): not the same deals")
    keys = [k for k in new if k in old]
    if not keys:
        fail("the stores share no cell of the same settings")
    print(f"{new_label} − {old_label} on the same deals (seed {new_seed}, {len(keys)} cells of {len(new)}), "
          "paired, 95% intervals counting deals (points):")
    print("\n".join(difference_lines(old, new, keys)))
    readings = reading_lines(old, new, keys, (old_label, new_label))
    if readings:
        print("How the two versions read the settings the stores vary:")
        print("\n".join(readings))


if __name__ == "__main__":
    main()
