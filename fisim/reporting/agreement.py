"""Do two policies rank the cells of a sweep alike (fisim.rankings)? As a report section: the
correlation of their rankings per group, on the same deals and on disjoint ones, beside a
baseline policy's; the pairs whose order flips; the largest changes of rank. `fisim compare
--agreement` prints it, `fisim report --agreement` sets it in a report."""
import pandas as pd

from fisim.formatting import correlation, count, count_range, percent, points, points_interval
from fisim.rankings import rank_agreement
from fisim.reporting.document import Column, Section, Table, slug

NOUNS = {"team": "teams", "layout": "islands", "rules": "rule readings", "level": "levels", "players": "player counts"}
RANKED = ("team", "layout", "rules", "level", "players")     # what a store's cells are ranked by, the first it varies
LARGEST = 5             # the changes of rank a section lists


def ranked_axis(cells):
    """The setting whose values a store's cells are ranked by: the first of RANKED it varies, or None."""
    return next((axis for axis in RANKED if cells[axis].nunique() > 1), None)


def sections(path, by, pairs, baseline=None, disjoint=False):
    """One section per pair of policies (A, B) ranking the cells of the store at `path` by `by`:
    A's agreement with B, beside `baseline`'s (unless it is A or B), and with `disjoint` on disjoint
    deals too."""
    out = []
    for pair in pairs:
        base = baseline if baseline not in pair else None
        results = [rank_agreement(path, by, pair, base)]
        if disjoint:
            results.append(rank_agreement(path, by, pair, base, disjoint=True))
        out.append(section(results))
    return out


def _interval(value, low, high, signed=False):
    """'0.91 [0.79, 0.93]'."""
    return f"{correlation(value, signed)} [{correlation(low, signed)}, {correlation(high, signed)}]"


def section(results):
    """The section of one pair's Agreements (fisim.rankings): the first's flips and changes of
    rank, every one's correlations (the same deals, disjoint ones)."""
    first = results[0]
    a, b = first.policies
    c, by = first.baseline, first.by
    nouns = NOUNS.get(by, f"{by}s")
    name = f"{slug(by)}-{slug(a)}-{slug(b)}"
    groups = pd.concat([r.groups.assign(deals="disjoint" if r.disjoint else "same")[["deals", *r.groups.columns]]
                        for r in results], ignore_index=True)
    several = groups["deals"].nunique() > 1
    columns = [*([Column("Deals", lambda r: r["deals"], words=True)] if several else []),
               Column("Group", lambda r: r["group"], words=True), Column(nouns.capitalize(), lambda r: str(r["items"])),
               Column("Spearman (95% CI)", lambda r: _interval(r["spearman"], r["low"], r["high"])),
               Column(f"Self: {a}", lambda r: correlation(r[f"self_{a}"])),
               Column(f"Self: {b}", lambda r: correlation(r[f"self_{b}"]))]
    if c:
        columns += [Column(f"{c} with {b}", lambda r: correlation(r[f"spearman_{c}"])),
                    Column(f"{a} less {c} (95% CI)", lambda r: _interval(r["difference"], r["difference_low"],
                                                                         r["difference_high"], signed=True))]
    tables = [Table(f"rank-agreement-{name}", f"Spearman's rank correlation of {a}'s and {b}'s win rates per group "
                    "(95% bootstrap interval)", groups, columns)]
    flips = first.flips
    if not flips.empty:
        tables.append(Table(f"rank-flips-{name}", f"Pairs of {nouns} the two policies order oppositely, each "
                            "policy's paired 95% interval excluding 0", flips, [
                                Column("Group", lambda r: r["group"], words=True),
                                Column(f"{by.capitalize()} 1", lambda r: r[f"{by}_1"], words=True),
                                Column(f"{by.capitalize()} 2", lambda r: r[f"{by}_2"], words=True),
                                *(Column(f"{p}: difference (95% CI)", lambda r, p=p: _points(r, p)) for p in (a, b)),
                                Column("Games", lambda r: count(r["games"]))]))
    items = first.items

    def largest_first(frame):
        return frame.reindex(frame["rank_change"].abs().sort_values(ascending=False, kind="stable").index)
    ranks = [Column("Group", lambda r: r["group"], words=True), Column(by.capitalize(), lambda r: r[by], words=True),
             Column(f"Rank: {a} → {b}", lambda r: f"{r[f'rank_{a}']:g} → {r[f'rank_{b}']:g}"),
             Column("Win rate", lambda r: f"{percent(r[f'rate_{a}'], 1)} → {percent(r[f'rate_{b}'], 1)}"),
             Column("Games", lambda r: count(r["games"]))]
    tables += [Table("", f"The largest changes of rank ({a} → {b}, within each group)", items, ranks,
                     order=largest_first, head=LARGEST),
               Table(f"ranks-{name}", f"Every cell's rank under both ({a} → {b}, within each group)", items, ranks,
                     order=largest_first, markdown=False)]
    return Section(
        f"agreement-{name}", f"Do {a} and {b} rank the {nouns} alike?", _text(first, results, nouns),
        f"{len(items)} cells ranked by {by}, {count_range(items['games'])} games of each by each policy on the same "
        f"deals" + ("; on disjoint deals, half of them each" if several or first.disjoint else "") + ".",
        None, tables,
        "" if not flips.empty else f"No pair of {nouns} flips significantly (each policy's paired 95% interval "
                                   "excluding 0).",
        [_glance(a, b, c, nouns, groups)])


def _text(first, results, nouns):
    a, b = first.policies
    c = first.baseline
    text = (f"Spearman's rank correlation of {a}'s and {b}'s win rates of the {nouns}, within each group of the "
            "other settings and pooled, with its 95% bootstrap interval (each cell's games resampled, the same games "
            "for every policy). Sampling noise alone keeps a ranking from agreeing fully even with itself: 'self' "
            "is a policy's ranking against a resample of its own games, the most that noise allows.")
    if c:
        text += (f" Does {a} rank as alike to {b} as {c} does? {a}'s correlation with {b} less {c}'s, paired: the "
                 "same resamples of the same games.")
    if any(r.disjoint for r in results):
        text += (f" On the same deals two policies that play alike win and lose the same games, which lifts their "
                 f"correlation; on disjoint deals {b} ranks by the second half of each cell's games, the others by "
                 "the first, so no deal is shared.")
    return text + (" A flip is a pair of cells the two policies order oppositely, each policy's own paired "
                   "difference excluding 0 at 95%.")


def _points(row, policy):
    """'-7.9 (-15.1 to -0.7)': a flip's paired difference under one policy, in points."""
    return (f"{points(row[f'difference_{policy}'], 1)} "
            f"({points_interval(row[f'low_{policy}'], row[f'high_{policy}'], 1)})")


def _glance(a, b, c, nouns, groups):
    """The pooled group's answer in one line, on the same deals (and disjoint ones)."""
    parts = []
    for deals, rows in groups.groupby("deals", sort=False):
        g = rows.iloc[-1]
        part = f"on {'the same' if deals == 'same' else 'disjoint'} deals "
        part += _interval(g["spearman"], g["low"], g["high"])
        if c:
            part += (f", {c}'s {correlation(g[f'spearman_{c}'])} ({a} less {c} "
                     f"{_interval(g['difference'], g['difference_low'], g['difference_high'], signed=True)})")
        parts.append(part)
    first = groups[groups["deals"] == groups["deals"].iloc[0]].iloc[-1]
    return (f"Do {a} and {b} rank the {nouns} alike? Spearman's correlation ({first['group']}, 95% CI): "
            + "; ".join(parts) + f"; self: {a} {correlation(first[f'self_{a}'])}, {b} "
            f"{correlation(first[f'self_{b}'])}.")
