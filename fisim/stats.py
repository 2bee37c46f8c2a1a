"""Confidence intervals for the rates fisim reports (DESIGN: every rate carries its 95% interval)."""
import math

import numpy as np

Z95 = 1.959963984540054


def wilson(successes, n, z=Z95):
    """The Wilson score interval (low, high) for a binomial proportion; (0, 1) when n is 0. It
    starts at exactly 0 when nothing succeeded and ends at exactly 1 when everything did (the
    formula's rounding would give 4e-19 or 0.9999999999999999)."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (0.0 if successes == 0 else max(0.0, centre - half)), (1.0 if successes == n else min(1.0, centre + half))


def paired_difference_of_counts(a_only, b_only, n, z=Z95):
    """(difference of two win rates, 95% CI low, high) of n games each played under both arms
    (common random numbers), from the games only arm a won and those only arm b won: the
    difference is the mean of per-game differences, its interval from their variance (z: another
    interval's standard deviations)."""
    if n == 0:
        return math.nan, math.nan, math.nan
    diff = (a_only - b_only) / n
    var = max((a_only + b_only) / n - diff * diff, 0.0)
    half = z * math.sqrt(var / n)
    return diff, diff - half, diff + half


def mean_interval(values, z=Z95):
    """(mean, low, high) of a sample: its mean and the normal 95% interval of the mean, mean ± z
    standard errors (the sample's standard deviation over the root of n); NaN where the sample is
    too small (no value: all three; one value: the interval)."""
    n = len(values)
    if n == 0:
        return math.nan, math.nan, math.nan
    mean = math.fsum(values) / n
    if n == 1:
        return mean, math.nan, math.nan
    half = z * math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1) / n)
    return mean, mean - half, mean + half


def wins_interval(values, z=Z95):
    """The interval (low, high) of the mean of per-game values in [0, 1], a NumPy array: for wins
    (booleans), the Wilson interval of their rate; for per-game means of several games' wins (a
    deal played at each of several player counts), the Wilson interval at the effective number of
    games, n p (1 - p) / var, which the correlation of a deal's games lowers below their count."""
    n = len(values)
    if values.dtype == bool or n == 0:
        return wilson(int(values.sum()), n, z)
    p, var = float(values.mean()), float(values.var())
    effective = n * p * (1 - p) / var if var > 0 else n
    return wilson(p * effective, effective, z)


def per_deal(columns):
    """(sums, counts): per deal, the sum of the cells' per-game values and how many cells played
    it, from columns of per-game values in deal order (game i of every cell of a sweep is deal i;
    cells may have played different numbers of games)."""
    n = max((len(c) for c in columns), default=0)
    sums, counts = np.zeros(n), np.zeros(n)
    for c in columns:
        sums[:len(c)] += c
        counts[:len(c)] += 1
    return sums, counts


def _pooled_variance(sums, counts, mean):
    """The variance of a mean pooled over deals' games, the deal the unit (a ratio estimate's
    cluster-robust variance, without a small-sample factor: one game a deal gives p(1 - p) / n)."""
    total = counts.sum()
    return float(np.sum((sums - mean * counts) ** 2) / total ** 2)


def pooled_wins_interval(columns, z=Z95):
    """The 95% interval (low, high) of the win rate of cells pooled whose games share their deals
    (columns: each cell's per-game wins in deal order): the Wilson interval at the effective
    number of games, as wins_interval, from the variance with the deal as the unit — a deal's
    games at several teams, levels or player counts are not independent observations. One cell:
    its Wilson interval."""
    sums, counts = per_deal(columns)
    games = counts.sum()
    if games == 0:
        return wilson(0, 0, z)
    p = float(sums.sum() / games)
    var = _pooled_variance(sums, counts, p)
    effective = p * (1 - p) / var if var > 0 else games
    return wilson(p * effective, effective, z)


def pooled_difference(a_columns, b_columns, z=Z95):
    """(difference, low, high) of two arms' pooled win rates over the same games (a_columns[j] and
    b_columns[j] one cell pair's per-game wins, in deal order), the deal the unit: the mean of the
    games' differences and its 95% interval from the per-deal sums. One cell pair: its paired
    difference (fisim.comparison.paired_difference)."""
    sums, counts = per_deal([np.asarray(a, np.float64) - np.asarray(b, np.float64)
                             for a, b in zip(a_columns, b_columns)])
    if counts.sum() == 0:
        return math.nan, math.nan, math.nan
    diff = float(sums.sum() / counts.sum())
    half = z * math.sqrt(_pooled_variance(sums, counts, diff))
    return diff, diff - half, diff + half
