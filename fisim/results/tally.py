"""The headline numbers of games (what `fisim simulate` prints), added up chunk by chunk from
result rows so that memory does not grow with the number of games, or taken from a frame of
per-game rows; and the paired difference of two arms' win rates over the same games, likewise."""
import numpy as np
import pandas as pd

from fisim.results.display import Summary
from fisim.rules.constants import LOSS_NAMES, N_ROLES, ROLE_NAMES
from fisim.rules.state import R_CAPTURED, R_CAUSE, R_ROLE, R_STATUS, R_TURNS, WON
from fisim.stats import paired_difference_of_counts, wilson


class Tally:
    """The headline numbers of games, added up chunk by chunk from engine rows: wins, primary loss
    causes, turns, treasures, and per adventurer the games whose team included it and their wins."""

    def __init__(self):
        self.games = self.wins = self.turns = self.treasures = 0
        self.causes = np.zeros(len(LOSS_NAMES), np.int64)
        self.role_games = np.zeros(N_ROLES, np.int64)
        self.role_wins = np.zeros(N_ROLES, np.int64)

    def add(self, rows):
        won = rows[:, R_STATUS] == WON
        self.games += len(rows)
        self.wins += int(won.sum())
        self.turns += int(rows[:, R_TURNS].sum(dtype=np.int64))
        self.treasures += int(rows[:, R_CAPTURED].sum(dtype=np.int64))
        self.causes += np.bincount(rows[:, R_CAUSE], minlength=1 << len(LOSS_NAMES))[1 << np.arange(len(LOSS_NAMES))]
        roles = rows[:, R_ROLE:R_ROLE + 4]          # a role holds at most one seat; -1 for no one
        self.role_games += np.bincount(roles[roles >= 0], minlength=N_ROLES)
        won_roles = roles[won]
        self.role_wins += np.bincount(won_roles[won_roles >= 0], minlength=N_ROLES)
        return self

    def adding(self, chunks):
        """Yield chunks (first game, result rows) as they come, each added to the tally on its way:
        a caller that writes the rows out counts them as it goes."""
        for first_game, rows in chunks:
            self.add(rows)
            yield first_game, rows

    @classmethod
    def of_games(cls, frame):
        """The tally of a frame of per-game rows (simulate's, or a store's games/)."""
        tally = cls()
        won = frame["won"].to_numpy(bool)
        tally.games, tally.wins = len(frame), int(won.sum())
        tally.turns, tally.treasures = int(frame["turns"].sum()), int(frame["treasures"].sum())
        tally.causes = np.array([int((frame["cause"] == name).sum()) for name in LOSS_NAMES], np.int64)
        team = frame["team"].astype(str).str.split("+")
        for i, role in enumerate(ROLE_NAMES):
            present = team.map(lambda roles, role=role: role in roles).to_numpy(bool)
            tally.role_games[i], tally.role_wins[i] = present.sum(), (present & won).sum()
        return tally

    def rates(self):
        """One row per rate, each with its count, n and Wilson 95% interval: the win rate, each loss
        cause (share of all games) and, per adventurer that played, the win rate of its games."""
        rows = [("win", "", self.wins, self.games)]
        rows += [("loss", name, int(k), self.games) for name, k in zip(LOSS_NAMES, self.causes)]
        rows += [("win with", name, int(w), int(g))
                 for name, w, g in zip(ROLE_NAMES, self.role_wins, self.role_games) if g]
        out = []
        for measure, of, count, n in rows:
            low, high = wilson(count, n)
            out.append({"measure": measure, "of": of, "count": count, "games": n,
                        "rate": count / n if n else np.nan, "ci_low": low, "ci_high": high})
        return pd.DataFrame(out).astype({"count": "Int64"})

    def table(self):
        """rates() with the mean turns and treasures as two more rows: one column `value` (the rate,
        or the mean), as `fisim simulate --format csv` prints it."""
        means = pd.DataFrame({"measure": ["mean turns", "mean treasures"], "of": "",
                              "value": [self.mean_turns, self.mean_treasures], "games": self.games})
        return pd.concat([self.rates().rename(columns={"rate": "value"}), means], ignore_index=True)

    @property
    def mean_turns(self):
        return self.turns / self.games if self.games else np.nan

    @property
    def mean_treasures(self):
        return self.treasures / self.games if self.games else np.nan


class Paired:
    """The win rates of the same games played under two arms (a setting and its baseline, game i
    of both dealt from the same seed), added up chunk by chunk: each arm's wins, and the games only
    one arm won, which give the paired difference."""

    def __init__(self):
        self.games = self.wins = self.baseline_wins = self.only = self.baseline_only = 0

    def adding(self, chunks, baseline):
        """Yield `chunks` (first game, result rows) as they come, each added with the same games of
        `baseline` (chunks of the same sizes), played as each is asked for."""
        for (first_game, rows), (_, base) in zip(chunks, baseline):
            won, base_won = rows[:, R_STATUS] == WON, base[:, R_STATUS] == WON
            self.games += len(rows)
            self.wins += int(won.sum())
            self.baseline_wins += int(base_won.sum())
            self.only += int(np.count_nonzero(won & ~base_won))
            self.baseline_only += int(np.count_nonzero(base_won & ~won))
            yield first_game, rows

    def difference(self):
        """(win rate less the baseline's, 95% CI low, high)."""
        return paired_difference_of_counts(self.only, self.baseline_only, self.games)

    def baseline(self):
        """(the baseline's win rate, its Wilson 95% CI low, high)."""
        return (self.baseline_wins / self.games if self.games else np.nan, *wilson(self.baseline_wins, self.games))


def summary(frame):
    """The headline numbers of a frame of per-game rows as a DataFrame, the table `fisim simulate
    --format csv` prints: one row per measure (`win`; `loss` of each cause, a share of all games;
    `win with` each adventurer, the games whose team included it; `mean turns`, `mean
    treasures`) with its count, games, value and, for a rate, its Wilson 95% interval (a Summary:
    in Jupyter, each rate a percentage with its interval)."""
    return Summary(Tally.of_games(frame).table())
