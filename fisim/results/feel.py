"""How the game feels, from the aggregates a store keeps of a cell's games (fisim.results.chunks):
how long the games last and how widely that varies; how close they come (of the games won, how
many ended one step from the skull, on a flooded Fools' Landing, or after a treasure had been one
flood card from lost; of the games lost, how many treasures the team held); and, over the traced
games, the team's chance of winning at the start of each round: drama (how low it fell in games
that were won), decisiveness (the round from which it stayed on the side of the outcome) and the
arc (the chance against the share of the game played). docs/model.md defines each.
"""
import numpy as np
import pandas as pd

from fisim.results.games import CLOSE
from fisim.rules.constants import N_TREASURES
from fisim.stats import mean_interval

DECIDED = 0.9                       # decided: the chance stays at least this (won), at most 1 - this (lost)
ARC_POINTS = np.linspace(0, 1, 11)  # the shares of a game played at which the arc is read
ARC_COLUMNS = ["outcome", "played", "chance", "games"]
# the means over traced games: (name, traced_games' column, over the games won only, at most 1)
CHANCES = (("start_chance", "start", False, True), ("drama", "low", True, True),
           ("decided_round", "decided", False, False), ("decided_share", "decided_share", False, True))


def quantile(hist, q):
    """The smallest value whose cumulative count reaches share q of a histogram's total."""
    total = np.cumsum(np.asarray(hist, np.int64))
    return int(np.argmax(total >= q * total[-1]))


def length(turns_hist):
    """A histogram of player turns per game as mean, standard deviation and the 10th, 50th and 90th
    percentiles (NaN without games)."""
    hist = np.asarray(turns_hist, np.float64)
    games = hist.sum()
    if not games:
        return {key: np.nan for key in ("mean_turns", "sd_turns", "p10_turns", "median_turns", "p90_turns")}
    turns = np.arange(len(hist))
    mean = float(turns @ hist / games)
    return {"mean_turns": mean, "sd_turns": float(np.sqrt(((turns - mean) ** 2) @ hist / games)),
            "p10_turns": quantile(hist, 0.1), "median_turns": quantile(hist, 0.5), "p90_turns": quantile(hist, 0.9)}


def closeness(won_close_hist, treasures_hist, wins, games):
    """How close the games came, as counts: of the wins, those with each close call (`close_skull`,
    `close_landing`, `close_temple`: the result's CLOSE bits) and with any (`close_any`); the
    losses (`lost`) and their histogram of treasures captured (`lost_treasures`, 0..4: a won game
    has all four, R-WIN, so it is the games' histogram less the wins at 4) and their mean
    (`lost_mean_treasures`)."""
    hist = np.asarray(won_close_hist, np.int64)
    masks = np.arange(len(hist))
    out = {name: int(hist[(masks >> i) & 1 == 1].sum()) for i, name in enumerate(CLOSE)}
    out["close_any"] = int(hist[1:].sum())
    lost = np.zeros(N_TREASURES + 1, np.int64)
    lost[:len(treasures_hist)] = treasures_hist
    lost[N_TREASURES] -= wins
    out.update(lost=games - wins, lost_treasures=lost.tolist(),
               lost_mean_treasures=float(np.arange(len(lost)) @ lost / lost.sum()) if lost.sum() else np.nan)
    return out


def traced_games(traces, worlds):
    """One row per traced game (a trace: the worlds won at the start of each round, then the end,
    `worlds` or 0): `won`, `rounds` traced, `start` (the chance before the first turn), `low` (the
    lowest chance at the start of a round), `decided` (the first round from which every chance,
    the end's included, stays at least DECIDED in a game won, at most 1 - DECIDED in one lost;
    `rounds` when only the end decided it) and `decided_share` (that round over the rounds)."""
    rows = []
    for trace in traces:
        values = np.asarray(trace, np.float64) / worlds
        won = bool(values[-1] == 1)
        held = (values if won else 1 - values) >= DECIDED      # (0.1 of a loss as 0.9 of a win: no float slip)
        decided = len(values) - int(np.argmin(held[::-1])) if not held.all() else 0
        rounds = len(values) - 1
        rows.append({"won": won, "rounds": rounds, "start": values[0], "low": values[:-1].min(),
                     "decided": decided, "decided_share": decided / rounds, "chances": values})
    columns = ["won", "rounds", "start", "low", "decided", "decided_share", "chances"]
    return pd.DataFrame(rows, columns=columns).astype({"won": bool})     # (a mask even when empty)


def chance_summary(games):
    """Traced games (traced_games' rows) summed up: `traced`, `traced_wins`, and each of CHANCES
    as a mean with its 95% interval (<name>, <name>_low, <name>_high; a chance or share held to
    0..1): the chance before the first turn, drama (the lowest chance, of the games won), the
    round and the share of the game from which the outcome was decided."""
    won = games[games["won"]]
    out = {"traced": len(games), "traced_wins": len(won)}
    for name, column, of_wins, share in CHANCES:
        mean, low, high = mean_interval(list((won if of_wins else games)[column]))
        out.update({name: mean, f"{name}_low": max(low, 0), f"{name}_high": min(high, 1) if share else high})
    return out


def arc(games):
    """The typical arc of traced games (traced_games' rows): per outcome (won, lost) and share of
    the game played (ARC_POINTS: each game's chances read along its rounds, round r of k at r / k,
    the end at 1, linearly between), the mean chance and the games."""
    rows = []
    for won, group in games.groupby("won"):
        curves = np.array([np.interp(ARC_POINTS, np.arange(len(c)) / (len(c) - 1), c) for c in group["chances"]])
        rows += [{"outcome": "won" if won else "lost", "played": x, "chance": float(c), "games": len(group)}
                 for x, c in zip(ARC_POINTS, curves.mean(axis=0))]
    return pd.DataFrame(rows, columns=ARC_COLUMNS)
