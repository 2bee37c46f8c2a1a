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


def mean_interval(values, z=Z95):
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
