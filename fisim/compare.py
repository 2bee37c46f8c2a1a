"""`fisim compare`: paired differences between cells that differ in one setting.

Game i of every cell starts from the same shuffles (common random numbers), so two cells are
compared game by game: the difference of win rates is the mean of per-game differences, and its
interval comes from their variance, far narrower than for two independent samples.
"""
import numpy as np
import pandas as pd

from fisim.stats import Z95
from fisim.store import StoreError, cell_table, read_store, win_bits

AXES = ("layout", "level", "players", "team", "policy", "rules")


def paired_difference(a, b):
    """(mean of a - b, 95% CI low, high) for two boolean arrays of the same games."""
    n = len(a)
    if n == 0:
        return np.nan, np.nan, np.nan
    a_only = int(np.count_nonzero(a & ~b))
    b_only = int(np.count_nonzero(b & ~a))
    diff = (a_only - b_only) / n
    var = max((a_only + b_only) / n - diff * diff, 0.0)
    half = Z95 * np.sqrt(var / n)
    return diff, diff - half, diff + half


def compare(path, by):
    """One row per cell that differs from its baseline (the first value of `by` in the sweep)
    only in `by`: both win rates, their paired difference with its 95% interval, significance."""
    if by not in AXES:
        raise ValueError(f"cannot compare by {by!r}; choose one of: {', '.join(AXES)}")
    manifest, chunks = read_store(path)
    cells = cell_table(manifest, chunks)
    others = [a for a in AXES if a != by]
    rows = []
    for _, group in cells.groupby(others, sort=False):
        if len(group) < 2:
            continue
        base = group.iloc[0]
        base_wins = win_bits(chunks, base["cell"], manifest["target"])
        for _, cell in group.iloc[1:].iterrows():
            wins = win_bits(chunks, cell["cell"], manifest["target"])
            n = min(len(wins), len(base_wins))
            if n == 0:
                empty = base if len(base_wins) == 0 else cell
                raise StoreError(f"cell [{', '.join(str(empty[a]) for a in AXES)}] has no finished games in "
                                 f"{path}; run the same sweep again to complete it")
            diff, low, high = paired_difference(wins[:n], base_wins[:n])
            rows.append({**{a: cell[a] for a in others}, by: cell[by], "baseline": base[by], "games": n,
                         "rate": wins[:n].mean(), "baseline_rate": base_wins[:n].mean(),
                         "difference": diff, "ci_low": low, "ci_high": high,
                         "significant": bool(low > 0 or high < 0)})
    return pd.DataFrame(rows)


def format_comparison(frame, by):
    if frame.empty:
        return f"nothing to compare: no two cells of the sweep differ only in {by}"
    others = [a for a in AXES if a != by]
    lines = [f"Paired differences by {by} (same games in both cells; 95% intervals):"]
    for _, r in frame.iterrows():
        setting = ", ".join(str(r[a]) for a in others)
        mark = "significant" if r["significant"] else "not significant"
        lines.append(f"  {r[by]} vs {r['baseline']} [{setting}]: {100 * r['rate']:.2f}% vs "
                     f"{100 * r['baseline_rate']:.2f}%, difference {100 * r['difference']:+.2f} points "
                     f"({100 * r['ci_low']:+.2f} to {100 * r['ci_high']:+.2f}), {r['games']:,} games, {mark}")
    return "\n".join(lines)
