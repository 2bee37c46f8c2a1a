"""`fisim.simulate`: play N games of one setting and return one row per game as a DataFrame.

Games are played in chunks. `play_chunks` yields each chunk's engine rows, so a caller that
only wants the headline numbers (`Tally`) or writes the rows out chunk by chunk (`write_games`)
holds one chunk at a time: memory does not grow with the number of games.
"""

import numbers

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from pandas.api.types import union_categoricals

from fisim.errors import EngineError
from fisim.files import atomic_write
from fisim.limits import MAX_GAME, MAX_REPEAT, MAX_SEED, MAX_SIMULATE_GAMES, max_threads
from fisim.rules.config import RULES_VERSION, ConfigError, level_order, make_config
from fisim.rules.constants import LOSS_NAMES, N_ROLES, ROLE_NAMES
from fisim.rules.layouts import load_layout
from fisim.rules.state import (
    ERROR,
    R_CAPTURED,
    R_CAUSE,
    R_CONDITIONS,
    R_ERROR,
    R_ERROR_INDEX,
    R_ERROR_N,
    R_FIRST,
    R_FIRST_SUNK,
    R_FIRST_SUNK_TILE,
    R_LEVEL,
    R_ROLE,
    R_SIZE,
    R_STATUS,
    R_SUNK,
    R_SUNK_MASK,
    R_SUNK_TILES,
    R_TURNS,
    WON,
)
from fisim.rules.variant import PARAMETERS, parameter_text
from fisim.stats import wilson
from fisim.store import cause_tiles
from policies import DEFAULT as DEFAULT_POLICY
from policies import full_name, labelled

CHUNK = 1 << 18
CAUSE_COLUMNS = [name.replace("-", "_") for name in LOSS_NAMES]
CAUSE_TYPE = pd.CategoricalDtype(["", *LOSS_NAMES])
_TEXT = pa.dictionary(pa.int32(), pa.string())
# Every per-game file has this schema, whatever its values, so a folder of them reads in one call.
GAMES_SCHEMA = pa.schema([
    ("game", pa.int64()), ("seed", pa.int64()), ("repeat", pa.int32()), ("won", pa.bool_()), ("cause", _TEXT),
    *[(name, pa.bool_()) for name in CAUSE_COLUMNS],
    ("turns", pa.int16()), ("water_level", pa.int8()), ("treasures", pa.int8()), ("tiles_sunk", pa.int8()),
    ("sunk_cells", pa.int32()), ("first_sunk", pa.int8()), ("cause_cell", pa.int8()),
    ("sunk_tiles", pa.int32()), ("first_sunk_tile", pa.int8()), ("cause_tile", pa.int8()),
    ("team", _TEXT), ("first_player", pa.int8()), ("players", pa.int8()), ("layout", _TEXT),
    ("level", pa.dictionary(pa.int32(), pa.string(), ordered=True)), ("policy", _TEXT), ("rules", _TEXT),
    ("variant", _TEXT), *[(key, _TEXT if key == "meter" else pa.int8()) for key in PARAMETERS],
])


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
    """EngineError naming the first game (of result rows from first_game on) that ended in an error:
    for an illegal choice, the decision kind, the index decide returned and n."""
    bad = np.flatnonzero(rows[:, R_STATUS] == ERROR)
    if bad.size:
        from fisim.rules.options import DECISION_NAMES
        row = rows[bad[0]]
        at, index, n = int(row[R_ERROR]), int(row[R_ERROR_INDEX]), int(row[R_ERROR_N])
        held = {2**31 - 1: " or more", -2**31: " or less"}.get(index, "")
        what = (f"decide() returned {index}{held}, an option not offered: the {DECISION_NAMES[at - 1]} decision "
                f"offered n = {n}, indices 0 to {n - 1}" if at else "the game did not end within the turn limit")
        raise EngineError(f"policy {policy_name}: game {first_game + int(bad[0])}: {what}")


def team_labels(roles):
    """'diver+pilot'-style labels of result rows' role columns (-1 for an empty seat), built once
    per distinct team: (categories, codes), no Python loop over games."""
    seats = roles.shape[1]
    key = (roles.astype(np.int64) + 1) @ (N_ROLES + 1) ** np.arange(seats)
    distinct, codes = np.unique(key, return_inverse=True)
    names = np.array(ROLE_NAMES)
    labels = ["+".join(names[r] for r in roles[np.flatnonzero(key == k)[0]] if r >= 0) for k in distinct]
    return labels, codes.reshape(-1)


def games_frame(rows, config, layout_name, policy_label, seed, first_game, repeat=0):
    """One row per game (the columns `fisim simulate --out` writes, GAMES_SCHEMA) from engine rows
    of games first_game.. of `seed`, played as their repeat `repeat`."""
    n = rows.shape[0]
    cond = rows[:, R_CONDITIONS]
    cause_bit = rows[:, R_CAUSE]
    cause_code = np.where(cause_bit > 0, np.log2(np.maximum(cause_bit, 1)).astype(np.int64) + 1, 0)
    labels, team_code = team_labels(rows[:, R_ROLE:R_ROLE + config.players])

    def same(value):
        return pd.Categorical.from_codes(np.zeros(n, np.int8), categories=[value])

    frame = pd.DataFrame({
        "game": np.arange(first_game, first_game + n, dtype=np.int64),
        "seed": np.full(n, seed, dtype=np.int64),
        "repeat": np.full(n, repeat, dtype=np.int32),
        "won": rows[:, R_STATUS] == WON,
        "cause": pd.Categorical.from_codes(cause_code, dtype=CAUSE_TYPE),
        **{name: (cond >> i & 1).astype(bool) for i, name in enumerate(CAUSE_COLUMNS)},
        "turns": rows[:, R_TURNS].astype(np.int16),
        "water_level": rows[:, R_LEVEL].astype(np.int8),
        "treasures": rows[:, R_CAPTURED].astype(np.int8),
        "tiles_sunk": rows[:, R_SUNK].astype(np.int8),
        "sunk_cells": rows[:, R_SUNK_MASK].astype(np.int32),
        "first_sunk": rows[:, R_FIRST_SUNK].astype(np.int8),
        "cause_cell": cause_tiles(rows, "place").astype(np.int8),
        "sunk_tiles": rows[:, R_SUNK_TILES].astype(np.int32),
        "first_sunk_tile": rows[:, R_FIRST_SUNK_TILE].astype(np.int8),
        "cause_tile": cause_tiles(rows, "name").astype(np.int8),
        "team": pd.Categorical.from_codes(team_code, categories=labels),
        "first_player": rows[:, R_FIRST].astype(np.int8),
        "players": np.full(n, config.players, dtype=np.int8),
        "layout": same(layout_name),
        "level": pd.Categorical(np.full(n, config.level), categories=level_order([config.level]), ordered=True),
        "policy": same(policy_label),
        "rules": same(config.rules_label),
        "variant": same(config.variant.name if config.variant else "official"),
        **{key: same(parameter_text(key, value)) if key == "meter" else np.full(n, value, np.int8)
           for key, value in config.parameters.items()},
    })
    frame.attrs["rules_version"] = RULES_VERSION
    return frame


def games_table(frame):
    """A per-game frame as an Arrow table of GAMES_SCHEMA."""
    return pa.Table.from_pandas(frame, schema=GAMES_SCHEMA, preserve_index=False)


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


def summary(frame):
    """The headline numbers of a frame of per-game rows as a DataFrame, the table `fisim simulate
    --format csv` prints: one row per measure (`win`; `loss` of each cause, a share of all games;
    `win with` each adventurer, the games whose team included it; `mean turns`, `mean
    treasures`) with its count, games, value and, for a rate, its Wilson 95% interval."""
    return Tally.of_games(frame).table()


def write_games(path, frames):
    """Write per-game frames, as they come, to one .parquet or .csv file: whole or not at all
    (an interrupted run leaves no file behind, and an existing one untouched)."""
    def write(tmp):
        if str(path).endswith(".parquet"):
            with pq.ParquetWriter(tmp, GAMES_SCHEMA) as writer:
                for frame in frames:
                    writer.write_table(games_table(frame))
        else:
            with open(tmp, "w", newline="") as out:
                for i, frame in enumerate(frames):
                    frame.to_csv(out, index=False, header=i == 0)
    atomic_write(path, write)
