"""Confidence intervals for the rates fisim reports (DESIGN: every rate carries its 95% interval)."""
import math

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
