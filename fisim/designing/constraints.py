"""How a candidate's games feel, as a design reads them from the chunks its stores keep: a cell's
chunks added up as the loader adds them (fisim.tables.cell_totals) and measured as a sweep's
cells are (fisim.results.feel, fisim.tables.feel_columns). Two uses:

- the measures a design may hold to a window (FEEL: `--turns 10..20`, `--close-wins 0.3..`,
  `--lost-treasures 1..`, `--drama ..0.5`, `--decided 0.6..`), each an estimate with its standard
  error, which the race bounds at its confidence; drama and decisiveness come from the traced
  games (the first of each cell), a sample the race's looks do not grow, so the race holds them to
  their windows by their estimates (race.Reading) and the verification by their 95% intervals on
  fresh deals;
- the columns of the design's tables that say how a candidate feels (SUMMARY): game length and its
  spread, the share of wins that came close, the treasures in hand when the game was lost, and,
  over the traced games of the verification, drama and decisiveness.
"""
import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

SUMMARY = ("mean_turns", "sd_turns", "close_any_share", "lost_mean_treasures", "traced", "drama", "drama_low",
           "drama_high", "decided_round", "decided_round_low", "decided_round_high")


@dataclass(frozen=True)
class Feel:
    """A measure a design may constrain: its name (its option --NAME LOW..HIGH and its columns in
    the tables), what it means, a window to show as an example, `measure(totals, worlds)`, the
    (estimate, standard error) of a candidate from its cells' totals (cell_totals of each) and the
    worlds of each traced estimate, and whether it is measured on the traced games alone."""

    name: str
    meaning: str
    example: str
    measure: Callable
    traced: bool = False


def mean_turns(totals, worlds):
    """The mean game length in player turns, each level and player count weighted alike; its
    standard error from each cell's spread."""
    from fisim.results.feel import length
    means, variances = [], []
    for cell in totals:
        found = length(cell["turns_hist"])
        means.append(found["mean_turns"])
        variances.append(found["sd_turns"] ** 2 / cell["games"])
    return sum(means) / len(means), math.sqrt(sum(variances)) / len(means)


def close_wins(totals, worlds):
    """The share of the candidate's wins (its cells' pooled) that came close: one step from the
    skull, on a flooded Fools' Landing, or after a treasure had been one flood card from lost."""
    from fisim.results.feel import closeness
    close = sum(closeness(c["won_close_hist"], c["treasures_hist"], c["wins"], c["games"])["close_any"]
                for c in totals)
    wins = sum(c["wins"] for c in totals)
    if not wins:
        return math.nan, math.inf
    share = close / wins
    return share, math.sqrt(max(share * (1 - share), 1 / wins) / wins)


def lost_treasures(totals, worlds):
    """The mean number of treasures captured in the games lost, the candidate's losses pooled; its
    standard error from their spread."""
    from fisim.results.feel import closeness
    lost = sum(np.asarray(closeness(c["won_close_hist"], c["treasures_hist"], c["wins"], c["games"])["lost_treasures"])
               for c in totals)
    n, held = lost.sum(), np.arange(len(lost))
    if n < 2:
        return (float(held @ lost / n) if n else math.nan), math.inf
    mean = float(held @ lost / n)
    return mean, math.sqrt(float(lost @ (held - mean) ** 2) / (n - 1) / n)


def traced_mean(column, of_wins):
    """The measure of traced games' mean `column` (fisim.results.feel.traced_games), over the games
    won only or all, the candidate's traced games pooled; its standard error from their spread
    (NaN and infinite while fewer than two)."""
    def measure(totals, worlds):
        from fisim.results.feel import traced_games
        games = traced_games([trace for cell in totals for trace in cell["traces"]], worlds)
        values = (games[games["won"]] if of_wins else games)[column].to_numpy()
        if len(values) < 2:
            return (float(values[0]) if len(values) else math.nan), math.inf
        return float(values.mean()), float(values.std(ddof=1) / math.sqrt(len(values)))
    return measure


FEEL = {f.name: f for f in (
    Feel("turns", "the mean game length in player turns, each level and player count weighted alike", "10..20",
         mean_turns),
    Feel("close_wins", "the share of wins that came close (one step from the skull, a flooded Fools' Landing, a "
                       "treasure one flood card from lost)", "0.3..", close_wins),
    Feel("lost_treasures", "the mean number of treasures captured in the games lost", "1..", lost_treasures),
    Feel("drama", "the lowest chance of winning at the start of a round in a game won, the traced games' mean",
         "..0.5", traced_mean("low", True), traced=True),
    Feel("decided", "the share of the game played before the chance of winning stayed on the side of the outcome "
                    "(at least 0.9 in a game won, at most 0.1 in one lost), the traced games' mean",
         "0.6..", traced_mean("decided_share", False), traced=True),
)}


def totals(chunks):
    """A cell's kept chunk records (a list of them) added up, as the loader adds a store's."""
    import pandas as pd

    from fisim.tables import cell_totals
    return cell_totals(pd.DataFrame(list(chunks)))


def pooled(cells):
    """Several cells' totals added up into one (the candidate's games pooled)."""
    from fisim.tables import summed
    first = cells[0]
    return {key: [t for c in cells for t in c[key]] if key == "traces"
            else summed([c[key] for c in cells]) if hasattr(first[key], "__len__") else sum(c[key] for c in cells)
            for key in first}


def summary(cell, worlds):
    """How one cell's games feel (or a candidate's, its cells pooled), SUMMARY's columns, from its
    totals and the worlds of each traced estimate."""
    from fisim.results.feel import length
    from fisim.tables import feel_columns
    row = {**length(cell["turns_hist"]), **feel_columns(cell, worlds)}
    return {column: row[column] for column in SUMMARY}
