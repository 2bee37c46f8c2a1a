"""How results show themselves in Jupyter (`_repr_html_`): a table whose rates read as
percentages with their 95% intervals, the numbers themselves left as they are for code."""
import html

import numpy as np
import pandas as pd

from fisim.formatting import interval, percent, rate_interval


def shown_rate(rate, low=None, high=None):
    """'41.20%', or with its interval '41.20% (40.31-42.10%)'; '' for no rate."""
    if rate is None or not np.isfinite(rate):
        return ""
    return percent(rate) if low is None else rate_interval(rate, low, high, dash="-", unit="%")


def html_table(frame, caption):
    """A table for a notebook: `caption` above `frame` (its index left out), every text escaped."""
    return f"<p><b>{html.escape(caption)}</b></p>" + frame.to_html(index=False, escape=True, na_rep="")


class Summary(pd.DataFrame):
    """fisim.summary's table: a DataFrame of numbers, shown in Jupyter with each rate as a
    percentage and its 95% interval. What is derived from it (a slice, a copy) is a plain DataFrame."""

    @property
    def _constructor(self):
        return pd.DataFrame

    def _repr_html_(self):
        rates = self["ci_low"].notna()
        shown = pd.DataFrame({
            "measure": self["measure"], "of": self["of"],
            "value": [shown_rate(v) if rate else f"{v:.3f}" for v, rate in zip(self["value"], rates)],
            "95% CI": [interval(low, high, dash="-", unit="%") if rate else ""
                       for low, high, rate in zip(self["ci_low"], self["ci_high"], rates)],
            "count": self["count"].astype(object).where(rates, ""), "games": self["games"]})
        win = self[self["measure"] == "win"].iloc[0]
        return html_table(shown, f"{int(win['games']):,} games: win rate "
                                 f"{shown_rate(win['value'], win['ci_low'], win['ci_high'])}")
