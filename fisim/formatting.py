"""How fisim writes numbers for people: rates, their 95% intervals, differences in percentage
points, counts and durations. Every text a person reads (the terminal, the reports, the figures)
writes its numbers here, so a rate reads alike wherever it is shown; data (CSV, JSON) keeps the
numbers themselves.

A rate is a fraction (0.1234) and reads as a percentage ("12.34%"); a difference of two rates is
a fraction too and reads in signed points ("+1.23"). An interval of a difference that excludes
zero is written with as many digits as it takes for neither end to read as zero: "-1.280 to
-0.004", never "-1.28 to -0.00" beside "significant"."""
from fisim.stats import wilson

DASH = "–"              # between the ends of an interval of rates
MAX_DIGITS = 6          # the most digits an interval of points takes to keep off zero
NONE = "–"              # a rate of no games


def percent(x, digits=2, width=0):
    """'12.34%' (x a fraction); `width` pads the number on the left, as in a column; digits None
    writes as many as the number has ('50%', '12.5%')."""
    return f"{100 * x:{width}g}%" if digits is None else f"{100 * x:{width}.{digits}f}%"


def interval(low, high, digits=2, dash=DASH, unit=""):
    """'11.90–12.80' (fractions as percentages); unit '%' gives '11.90–12.80%'."""
    return f"{100 * low:.{digits}f}{dash}{100 * high:.{digits}f}{unit}"


def bracket(low, high, digits=1, signed=False):
    """'[11.0, 12.8]', or signed points '[+13.4, +19.7]' (enough digits to keep an interval that
    excludes zero off it)."""
    if signed:
        digits = _off_zero(low, high, digits)
        return f"[{100 * low:+.{digits}f}, {100 * high:+.{digits}f}]"
    return f"[{100 * low:.{digits}f}, {100 * high:.{digits}f}]"


def rate_interval(rate, low, high, digits=2, dash=DASH, unit=""):
    """'12.34% (11.90–12.80)': a rate and its interval."""
    return f"{percent(rate, digits)} ({interval(low, high, digits, dash, unit)})"


def rate_bracket(rate, low, high, digits=1):
    """'12.3% [11.0, 13.5]': a rate and its interval, the ladder's way."""
    return f"{percent(rate, digits)} {bracket(low, high, digits)}"


def rate_of(k, n, digits=2, dash=DASH):
    """'12.34% (11.90–12.80)': the rate of k in n with its 95% Wilson interval ('–' of no games)."""
    if not n:
        return NONE
    low, high = wilson(int(k), int(n))
    return rate_interval(k / n, low, high, digits, dash)


def points(x, digits=2, signed=True):
    """'+1.23': a difference of rates in signed percentage points ('1.23' unsigned, a half-width)."""
    return f"{100 * x:{'+' if signed else ''}.{digits}f}"


def points_interval(low, high, digits=2, signed=True):
    """'+1.00 to +2.00': the interval of a difference in points ('1.00 to 2.00' unsigned, of a
    size), with enough digits that an interval excluding zero does not read as touching it."""
    digits = _off_zero(low, high, digits)
    sign = "+" if signed else ""
    return f"{100 * low:{sign}.{digits}f} to {100 * high:{sign}.{digits}f}"


def _off_zero(low, high, digits):
    """The digits, from `digits` up, at which neither end of an interval that excludes zero
    rounds to zero."""
    if not (low > 0 or high < 0):
        return digits
    nearest = min(abs(low), abs(high))
    while digits < MAX_DIGITS and float(f"{100 * nearest:.{digits}f}") == 0:
        digits += 1
    return digits


def window(low, high):
    """A window of values in words: 'at least 0.4' (no upper end: None or infinite), 'at most 0.7'
    (from 0) or '10 to 20'."""
    if high is None or high == float("inf"):
        return f"at least {low:g}"
    return f"at most {high:g}" if low == 0 else f"{low:g} to {high:g}"


def count(n):
    """'12,345'."""
    return f"{int(n):,}"


def count_range(counts):
    """'2,000' when every count is alike, else the smallest to the largest: '1,000–2,000'."""
    values = sorted({int(n) for n in counts})
    return count(values[0]) if len(values) == 1 else f"{count(values[0])}{DASH}{count(values[-1])}"


def plural(n, word):
    """'1 cell', '12 cells'."""
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def correlation(r, signed=False):
    """'0.87' ('+0.87' signed), or 'undefined' for a correlation of constant outcomes (NaN)."""
    if r != r or r in (float("inf"), float("-inf")):
        return "undefined"
    return f"{r:{'+' if signed else ''}.2f}"


def duration(seconds):
    """'under a second', 'about 40 s', 'about 12 minutes', 'about 3.5 hours'."""
    if seconds < 1:
        return "under a second"
    if seconds < 90:
        return f"about {round(seconds)} s"
    if seconds < 5400:
        return f"about {round(seconds / 60)} minutes"
    return f"about {seconds / 3600:.1f} hours"
