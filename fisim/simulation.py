"""`fisim.simulate`: play N games of one setting and return one row per game as a DataFrame.

Games are played in chunks. `play_chunks` yields each chunk's engine rows, so a caller that
only wants the headline numbers (`Tally`) or writes the rows out chunk by chunk (`write_games`)
holds one chunk at a time: memory does not grow with the number of games.
"""

import numbers

import numpy as np
import pandas as pd
from pandas.api.types import union_categoricals

from fisim.errors import EngineError
from fisim.limits import MAX_GAME, MAX_REPEAT, MAX_SEED, MAX_SIMULATE_GAMES, max_threads
from fisim.results.games import games_frame
from fisim.rules.config import RULES_VERSION, ConfigError, make_config
from fisim.rules.layouts import load_layout
from fisim.rules.state import ERROR, R_ERROR, R_SIZE, R_STATUS
from policies import DEFAULT as DEFAULT_POLICY
from policies import full_name, labelled

CHUNK = 1 << 18


class Setting:
    """One setting ready to play: its config, island and policy, and the labels its rows carry."""

    def __init__(self, level="normal", players=3, team=None, layout="standard", policy=DEFAULT_POLICY, rules=(),
                 seed=0, repeat=0):
        from policies import load_policy
        self.config = make_config(level, players, team, rules)
        self.island = load_layout(layout)
        self.policy = load_policy(policy)
        self.seed, self.repeat = seed, repeat
        self.policy_label = labelled(full_name(self.policy))

    def play_chunks(self, games, threads=None, first_game=0, progress=None, tally=None, chunk=CHUNK):
        """Yield (first game, engine rows) chunk by chunk, each added to `tally` if given;
        EngineError at a game the policy broke."""
        from fisim import engine
        for lo in range(first_game, first_game + games, chunk):
            n = min(chunk, first_game + games - lo)
            rows = engine.play_batch(self.island, self.config, self.policy, self.seed, lo, n, threads, progress,
                                     self.repeat)
            check_games(rows, self.policy.NAME, lo)
            if tally is not None:
                tally.add(rows)
            yield lo, rows

    def frame(self, rows, first_game):
        return games_frame(rows, self.config, self.island.name, self.policy_label, self.seed, first_game,
                           self.repeat)


def simulate(level="normal", players=3, team=None, layout="standard", policy=DEFAULT_POLICY, rules=(),
             games=10_000, seed=0, threads=None, first_game=0, progress=None, repeat=0):
    """Play games first_game .. first_game+games-1 of one setting; one row per game.

    `team` is None (a random team each game, as the box deals), a list of role names or
    'diver,pilot'; `layout` a built-in name or a layout file; `policy` a registry name or a .py
    file (default: expert, the strongest built-in); `rules` rule switch names; `repeat` replays
    the same deals with another policy stream (fisim.rules.rng; 0: the games as dealt).
    `progress(n)` is called as each block of n games finishes."""
    rules = (rules,) if isinstance(rules, str) else rules
    _check_arguments(games, seed, first_game, threads, layout, repeat)
    setting = Setting(level, players, team, layout, policy, rules, seed, repeat)
    parts = [setting.frame(rows, lo) for lo, rows in setting.play_chunks(games, threads, first_game, progress)]
    if not parts:
        return setting.frame(np.zeros((0, R_SIZE), np.int32), first_game)
    frame = pd.concat(parts, ignore_index=True)
    frame["team"] = union_categoricals([part["team"] for part in parts])    # chunks meet different teams
    frame.attrs["rules_version"] = RULES_VERSION
    return frame


def _check_arguments(games, seed, first_game, threads, layout, repeat):
    """ConfigError, in one line, for an argument simulate() cannot use."""
    for name, value, high in (("games", games, MAX_SIMULATE_GAMES), ("seed", seed, MAX_SEED),
                              ("first_game", first_game, MAX_GAME), ("repeat", repeat, MAX_REPEAT)):
        if not isinstance(value, numbers.Integral) or isinstance(value, bool) or not 0 <= value <= high:
            raise ConfigError(f"{name} must be a whole number from 0 to {high:,}, not {value!r}")
    if first_game + games - 1 > MAX_GAME:
        raise ConfigError(f"games {first_game:,}..{first_game + games - 1:,} go past the last game {MAX_GAME:,}")
    if threads is not None and (not isinstance(threads, numbers.Integral) or not 1 <= threads <= max_threads()):
        raise ConfigError(f"threads must be a whole number from 1 to {max_threads()} (this machine), "
                          f"not {threads!r}")
    if not isinstance(layout, str):
        raise ConfigError(f"layout must be a built-in island's name or a layout file path, not {layout!r}")


def check_games(rows, policy_name, first_game):
    """EngineError naming the first game (of result rows from first_game on) that ended in an error."""
    bad = np.flatnonzero(rows[:, R_STATUS] == ERROR)
    if bad.size:
        from fisim.rules.options import DECISION_NAMES
        g = first_game + int(bad[0])
        at = int(rows[bad[0], R_ERROR])
        what = (f"chose an option that was not offered at a {DECISION_NAMES[at - 1]} decision" if at
                else "did not end within the turn limit")
        raise EngineError(f"policy {policy_name}: game {g} {what}")
