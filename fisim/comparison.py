"""`fisim compare`: paired differences between cells that differ in one setting.

Game i of every cell starts from the same shuffles (common random numbers), so two cells are
compared game by game: the difference of win rates is the mean of per-game differences, and its
interval comes from their variance. How much narrower that interval is than for two independent
samples depends on how alike the two arms' games turn out: the correlation of their per-game wins,
which is measured and printed with every comparison (high for rules and policies, which change
little of a game; low for islands, which change the whole board).

Teams are ranked, each compared with the best; adventurers (`--by role`) are compared within a
cell of random teams: the games whose team included the adventurer against those without it.
"""
import numpy as np
import pandas as pd

from fisim.errors import ConfigError, StoreError
from fisim.formatting import correlation, interval, percent, points, points_interval, rate_of
from fisim.rules.constants import ROLE_NAMES
from fisim.stats import Z95, paired_difference_of_counts, wilson
from fisim.store import read_store
from fisim.tables import cell_table, ordered_levels, win_bits
from policies import seer_notes

AXES = ("layout", "level", "players", "team", "policy", "rules")
BY = (*AXES, "role")


def paired_difference(a, b, z=Z95):
    """(mean of a - b, 95% CI low, high) for two boolean arrays of the same games (z: another
    interval's standard deviations)."""
    return paired_difference_of_counts(int(np.count_nonzero(a & ~b)), int(np.count_nonzero(b & ~a)), len(a), z)


def mean_difference(a, b, paired=True, z=Z95):
    """(mean of a less mean of b, 95% CI low, high) of per-deal numbers (wins, or changes of wins
    between two players): of the per-deal differences when a and b are the same deals (`paired`,
    as paired_difference for wins), else of two independent samples (normal approximation)."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    if not len(a) or not len(b):
        return np.nan, np.nan, np.nan
    if paired:
        d = a - b
        diff, var = d.mean(), d.var() / len(d)
    else:
        diff, var = a.mean() - b.mean(), a.var() / len(a) + b.var() / len(b)
    half = z * np.sqrt(var)
    return float(diff), float(diff - half), float(diff + half)


def pairing(a, b):
    """(correlation, narrowing) of two boolean arrays of the same games: the Pearson correlation
    of their per-game wins, and by what share the paired interval is narrower than the interval of
    two independent samples of the same rates (0 when uncorrelated). NaN when an arm is constant."""
    if len(a) == 0:
        return np.nan, np.nan
    pa, pb = a.mean(), b.mean()
    var_a, var_b = pa * (1 - pa), pb * (1 - pb)
    if var_a == 0 or var_b == 0:
        return np.nan, np.nan
    cov = np.mean(a & b) - pa * pb
    r = cov / np.sqrt(var_a * var_b)
    return float(r), float(1 - np.sqrt(max(var_a + var_b - 2 * cov, 0.0) / (var_a + var_b)))


def compare(path, by, progress=None):
    """Compare the cells of a results directory along `by` (one of BY). For a setting: one row per
    cell that differs from its baseline only in `by` (the first value of `by` in the sweep; for
    teams, the best team of the group, every team ranked): both win rates, their paired difference
    with its 95% interval, significance and the pairing's correlation. For `role`: see roles().
    progress(1, total) as each of the store's chunk files is read."""
    if by not in BY:
        raise ConfigError(f"cannot compare by {by!r}; choose one of: {', '.join(BY)}")
    manifest, chunks = read_store(path, progress)
    cells = cell_table(manifest, chunks)
    if by == "role":
        return roles(cells)
    others = [a for a in AXES if a != by]
    rows = []
    for _, group in cells.groupby(others, sort=False, observed=True):
        if len(group) < 2:
            continue
        if by == "team":
            group = group.sort_values(["rate", "team"], ascending=[False, True], kind="stable")
        base = group.iloc[0]
        base_wins = win_bits(chunks, base["cell"], manifest["target"])
        if by == "team":
            rows.append({**{a: base[a] for a in others}, "rank": 1, by: base[by], "baseline": base[by],
                         "games": len(base_wins), **_rate(base_wins)})
        for rank, (_, cell) in enumerate(group.iloc[1:].iterrows(), start=2):
            wins = win_bits(chunks, cell["cell"], manifest["target"])
            n = min(len(wins), len(base_wins))
            if n == 0:
                empty = base if len(base_wins) == 0 else cell
                raise StoreError(f"cell [{', '.join(str(empty[a]) for a in AXES)}] has no finished games in "
                                 f"{path}; run the same sweep again to complete it")
            diff, low, high = paired_difference(wins[:n], base_wins[:n])
            r, narrowing = pairing(wins[:n], base_wins[:n])
            rows.append({**{a: cell[a] for a in others}, **({"rank": rank} if by == "team" else {}),
                         by: cell[by], "baseline": base[by], "games": n, **_rate(wins[:n]),
                         **_rate(base_wins[:n], "baseline_"), "difference": diff, "difference_ci_low": low,
                         "difference_ci_high": high, "significant": bool(low > 0 or high < 0), "correlation": r,
                         "narrowing": narrowing})
    return ordered_levels(pd.DataFrame(rows))


def _rate(wins, prefix=""):
    """A win rate's columns as the report's tables name them: wins, rate, ci_low, ci_high (after `prefix`)."""
    low, high = wilson(int(wins.sum()), len(wins))
    return {f"{prefix}wins": int(wins.sum()), f"{prefix}rate": wins.mean(), f"{prefix}ci_low": low,
            f"{prefix}ci_high": high}


def roles(cells):
    """Per cell of random teams (fixed teams always hold the same adventurers) and adventurer:
    the win rate of the games whose team included it and of those without it, each with its 95%
    interval, and their difference with its 95% interval (two disjoint sets of games, so
    independent samples), strongest adventurer first within each cell."""
    rows = []
    for _, cell in cells[cells["team"] == "random"].iterrows():
        mine = []
        for role in ROLE_NAMES:
            n, w = int(cell[f"{role}_games"]), int(cell[f"{role}_wins"])
            n_out, w_out = int(cell["games"]) - n, int(cell["wins"]) - w
            if not n or not n_out:
                continue
            p, q = w / n, w_out / n_out
            half = Z95 * np.sqrt(p * (1 - p) / n + q * (1 - q) / n_out)
            mine.append({**{a: cell[a] for a in AXES}, "role": role, "games": n, "rate": p,
                         "ci_low": wilson(w, n)[0], "ci_high": wilson(w, n)[1], "games_without": n_out,
                         "rate_without": q, "difference": p - q, "difference_ci_low": p - q - half,
                         "difference_ci_high": p - q + half, "significant": bool(abs(p - q) > half)})
        rows += sorted(mine, key=lambda r: -r["rate"])
    return ordered_levels(pd.DataFrame(rows))


def format_comparison(frame, by):
    """The comparison as text for people; a clairvoyant policy it shows with its note."""
    if frame.empty:
        what = "no cell of random teams to compare adventurers in" if by == "role" else \
            f"no two cells of the sweep differ only in {by}"
        return f"nothing to compare: {what}"
    text = _format_roles(frame) if by == "role" else _format_pairs(frame, by)
    policies = [v for column in ("policy", "baseline") if column in frame for v in frame[column]]
    return "\n".join([text, *seer_notes(policies)])


def _format_pairs(frame, by):
    others = [a for a in AXES if a != by]
    head = ("Teams ranked by win rate, each against the best team of its setting (paired: the same games; "
            "95% intervals; r = correlation of the two teams' per-game wins):" if by == "team" else
            f"Paired differences by {by} (the same games in both cells; 95% intervals; r = correlation of the "
            "two cells' per-game wins, and how much narrower that makes the interval than two separate samples):")
    lines = [head]
    for _, r in frame.iterrows():
        setting = ", ".join(str(r[a]) for a in others)
        if by == "team" and r["rank"] == 1:
            lines.append(f"  [{setting}]")
            lines.append(f"   1. {r['team']}: {rate_of(round(r['rate'] * r['games']), r['games'], dash='-')}, "
                         f"{r['games']:,} games (best)")
            continue
        mark = "significant" if r["significant"] else "not significant"
        pairing_text = (f"r = {correlation(r['correlation'])}, {percent(r['narrowing'], 0)} narrower"
                        if np.isfinite(r["correlation"]) else "r undefined: an arm won every game or none")
        numbers = (f"{percent(r['rate'])} vs {percent(r['baseline_rate'])}, difference "
                   f"{points(r['difference'])} points "
                   f"({points_interval(r['difference_ci_low'], r['difference_ci_high'])}), "
                   f"{r['games']:,} games, {mark}, {pairing_text}")
        if by == "team":
            lines.append(f"  {r['rank']:>2}. {r['team']}: {numbers}")
        else:
            lines.append(f"  {r[by]} vs {r['baseline']} [{setting}]: {numbers}")
    return "\n".join(lines)


def _format_roles(frame):
    lines = ["Adventurers: the win rate of the games whose random team included each one, against the games "
             "without it (95% intervals; independent sets of games):"]
    for key, group in frame.groupby(list(AXES), sort=False, observed=True):
        lines.append(f"  [{', '.join(str(v) for v in key)}]")
        for _, r in group.iterrows():
            mark = "significant" if r["significant"] else "not significant"
            lines.append(f"    {r['role']:<10} {percent(r['rate'], width=6)} "
                         f"({interval(r['ci_low'], r['ci_high'], dash='-')}), "
                         f"{r['games']:,} games; without: {percent(r['rate_without'])}; difference "
                         f"{points(r['difference'])} points "
                         f"({points_interval(r['difference_ci_low'], r['difference_ci_high'])}), {mark}")
    return "\n".join(lines)
