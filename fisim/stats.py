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
