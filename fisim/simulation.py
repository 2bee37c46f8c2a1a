"""`fisim.simulate`: play N games of one setting and return one row per game as a DataFrame."""

import numbers

import numpy as np
import pandas as pd

from fisim.errors import EngineError
from fisim.files import atomic_write
from fisim.limits import MAX_GAME, MAX_SEED, MAX_SIMULATE_GAMES, max_threads
from fisim.rules.config import RULES_VERSION, ConfigError, GameConfig
from fisim.rules.constants import LOSS_NAMES, ROLE_NAMES
from fisim.rules.layouts import load_layout
from fisim.rules.state import ERROR, WON
from fisim.rules.turn import (R_CAPTURED, R_CAUSE, R_CONDITIONS, R_ERROR, R_FIRST, R_LEVEL,
                              R_ROLE, R_STATUS, R_SUNK, R_TURNS)
from fisim.stats import wilson

CHUNK = 1 << 16


def make_config(level="normal", players=3, team=None, rules=(), first=None):
    """A validated GameConfig from command-line style arguments (`rules` may include 'official')."""
    switches = frozenset(r for r in rules if r != "official")
    if isinstance(team, str):
        from fisim.rules.config import parse_team
        team = parse_team(team)
    return GameConfig(players=players, level=level, team=team, first=first, switches=switches).validate()


def simulate(level="normal", players=3, team=None, layout="standard", policy="random", rules=(),
             games=10_000, seed=0, threads=None, first_game=0, progress=None):
    """Play games first_game .. first_game+games-1 of one setting; one row per game.

    `team` is None (a random team each game, as the box deals), a list of role names or
    'diver,pilot'; `layout` a built-in name or a layout file; `policy` a registry name or a .py
    file; `rules` rule switch names. `progress(n)` is called after each chunk of games."""
    from fisim import engine
    from policies import load_policy
    rules = (rules,) if isinstance(rules, str) else rules
    _check_arguments(games, seed, first_game, threads, layout)
    config = make_config(level, players, team, rules)
    island = load_layout(layout)
    pol = load_policy(policy)
    parts = []
    for lo in range(0, games, CHUNK):
        n = min(CHUNK, games - lo)
        parts.append(engine.play_batch(island, config, pol, seed, first_game + lo, n, threads))
        if progress:
            progress(n)
    rows = np.concatenate(parts) if parts else np.zeros((0, R_ERROR + 1), np.int32)
    check_games(rows, pol.NAME, first_game)
    return games_frame(rows, config, island.name, f"{pol.NAME}@{pol.VERSION}", seed, first_game)


def _check_arguments(games, seed, first_game, threads, layout):
    """ConfigError, in one line, for an argument simulate() cannot use."""
    for name, value, high in (("games", games, MAX_SIMULATE_GAMES), ("seed", seed, MAX_SEED),
                              ("first_game", first_game, MAX_GAME)):
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


def games_frame(rows, config, layout_name, policy_label, seed, first_game):
    """One row per game (the columns `fisim simulate --out` writes) from engine result rows."""
    n = rows.shape[0]
    cond = rows[:, R_CONDITIONS]
    cause_bit = rows[:, R_CAUSE]
    causes = np.array([""] + list(LOSS_NAMES), dtype=object)
    cause_index = np.where(cause_bit > 0, np.log2(np.maximum(cause_bit, 1)).astype(int) + 1, 0)
    roles = rows[:, R_ROLE:R_ROLE + config.players]
    names = np.array(ROLE_NAMES, dtype=object)
    team = ["+".join(names[r]) for r in roles] if n else []
    frame = pd.DataFrame({
        "game": np.arange(first_game, first_game + n, dtype=np.int64),
        "seed": np.full(n, seed, dtype=np.int64),
        "won": rows[:, R_STATUS] == WON,
        "cause": pd.Categorical(causes[cause_index], categories=[""] + list(LOSS_NAMES)),
        **{name.replace("-", "_"): (cond >> i & 1).astype(bool) for i, name in enumerate(LOSS_NAMES)},
        "turns": rows[:, R_TURNS].astype(np.int16),
        "water_level": rows[:, R_LEVEL].astype(np.int8),
        "treasures": rows[:, R_CAPTURED].astype(np.int8),
        "tiles_sunk": rows[:, R_SUNK].astype(np.int8),
        "team": pd.Categorical(team),
        "first_player": rows[:, R_FIRST].astype(np.int8),
        "players": np.full(n, config.players, dtype=np.int8),
        "layout": pd.Categorical([layout_name] * n),
        "level": pd.Categorical([config.level] * n),
        "policy": pd.Categorical([policy_label] * n),
        "rules": pd.Categorical([config.rules_label] * n),
    })
    frame.attrs["rules_version"] = RULES_VERSION
    return frame


def summary(frame):
    """The headline numbers of a simulate frame: win rate with its Wilson 95% interval, loss
    causes (share of all games), mean turns and treasures."""
    n = len(frame)
    wins = int(frame["won"].sum())
    low, high = wilson(wins, n)
    causes = {}
    for name in LOSS_NAMES:
        k = int((frame["cause"] == name).sum())
        causes[name] = (k, *wilson(k, n))
    return {"games": n, "wins": wins, "win_rate": wins / n if n else 0.0, "ci": (low, high),
            "causes": causes, "mean_turns": float(frame["turns"].mean()) if n else 0.0,
            "mean_treasures": float(frame["treasures"].mean()) if n else 0.0}


def write_frame(frame, path):
    """Write one row per game to .parquet or .csv, whole or not at all."""
    if str(path).endswith(".parquet"):
        atomic_write(path, lambda tmp: frame.to_parquet(tmp, index=False))
    else:
        atomic_write(path, lambda tmp: frame.to_csv(tmp, index=False))
