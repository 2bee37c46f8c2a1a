"""fisim.formatting: how rates, intervals, differences, counts and durations read for people, and
that no other module writes a rate as a percentage itself."""
import math
import re
from pathlib import Path

import pytest

from fisim import formatting as f
from fisim.stats import wilson

ROOT = Path(__file__).resolve().parent.parent


def test_rates_and_their_intervals():
    assert f.percent(0.12345) == "12.35%" and f.percent(0.5, None) == "50%" and f.percent(0.0123, 2, 6) == "  1.23%"
    assert f.interval(0.119, 0.128) == "11.90–12.80" and f.interval(0.119, 0.128, dash="-", unit="%") == "11.90-12.80%"
    low, high = wilson(12, 100)
    assert f.rate_of(12, 100) == f"12.00% ({100 * low:.2f}–{100 * high:.2f})"
    assert f.rate_of(0, 0) == "–"
    assert f.rate_bracket(0.123, 0.11, 0.135) == "12.3% [11.0, 13.5]"
    assert f.count(1234567) == "1,234,567" and f.count_range([2000, 1000, 2000]) == "1,000–2,000"
    assert f.count_range([500, 500]) == "500" and f.plural(1, "cell") == "1 cell" and f.plural(2, "cell") == "2 cells"


def test_differences_read_in_signed_points():
    assert f.points(0.0123) == "+1.23" and f.points(-0.05, 1) == "-5.0" and f.points(0.005, signed=False) == "0.50"
    assert f.points_interval(-0.0128, 0.0031) == "-1.28 to +0.31"
    assert f.points_interval(0.029, 0.0352, signed=False) == "2.90 to 3.52"
    assert f.bracket(0.134, 0.197, signed=True) == "[+13.4, +19.7]"


@pytest.mark.parametrize("low, high, text", [
    (-0.0128, -0.00001, "-1.280 to -0.001"),        # excludes zero: never '-0.00'
    (0.000004, 0.02, "+0.0004 to +2.0000"),
    (-0.0128, 0.0, "-1.28 to +0.00"),               # touches zero: not significant, two digits
    (-0.0128, 1e-12, "-1.28 to +0.00"),
])
def test_an_interval_that_excludes_zero_never_reads_as_touching_it(low, high, text):
    """A significant difference whose interval ends within half a hundredth of a point of zero
    takes the digits to show which side it is on (issue: '(-1.28 to -0.00), significant')."""
    assert f.points_interval(low, high) == text


def test_a_bracket_of_points_that_excludes_zero_keeps_off_it():
    assert f.bracket(-0.0128, -0.00001, signed=True) == "[-1.280, -0.001]"
    assert f.bracket(-0.0128, 0.0031, signed=True) == "[-1.3, +0.3]"


def test_correlations_and_durations():
    assert f.correlation(0.8765) == "0.88" and f.correlation(0.1, signed=True) == "+0.10"
    assert f.correlation(math.nan) == "undefined"
    assert [f.duration(s) for s in (0.5, 40, 720, 12_600)] == \
        ["under a second", "about 40 s", "about 12 minutes", "about 3.5 hours"]


def test_no_other_module_writes_a_rate_as_a_percentage_itself():
    """Every text for people writes its rates, intervals and differences through fisim.formatting:
    no f-string elsewhere formats `100 * x`."""
    found = []
    for folder in ("fisim", "scripts", "policies"):
        for path in (ROOT / folder).rglob("*.py"):
            if path.name == "formatting.py":
                continue
            for i, line in enumerate(path.read_text().splitlines(), 1):
                if re.search(r"\{100 \*[^{}]*:[^{}]*\}", line):
                    found.append(f"{path.relative_to(ROOT)}:{i}")
    assert not found, found


def test_a_window_reads_in_words_with_an_open_end_said_so():
    assert f.window(0.4, None) == f.window(0.4, float("inf")) == "at least 0.4"
    assert f.window(0, 0.7) == "at most 0.7"
    assert f.window(10, 20) == "10 to 20"
