"""`fisim.simulate`: play N games of one setting and return one row per game as a DataFrame.

Games are played in chunks (fisim.cell.play_chunks), so a caller that only wants the headline
numbers (fisim.results.tally) or writes the rows out chunk by chunk (fisim.results.games.write_games)
holds one chunk at a time: memory does not grow with the number of games.
"""
from dataclasses import replace

import numpy as np
import pandas as pd
from pandas.api.types import union_categoricals

from fisim import defaults
from fisim.arguments import whole
from fisim.cell import Cell, play_chunks
from fisim.errors import ConfigError
from fisim.limits import MAX_GAME, MAX_REPEAT, MAX_SEED, MAX_SIMULATE_GAMES, max_threads
from fisim.results.games import games_frame
from fisim.rules.config import RULES_VERSION
from fisim.rules.state import R_SIZE


def simulate(level=defaults.LEVEL, players=defaults.PLAYERS, team=None, layout=defaults.LAYOUT, policy=defaults.POLICY,
             rules=(), games=defaults.SIMULATE_GAMES, seed=0, threads=None, first_game=0, progress=None, repeat=0):
    """Play games first_game .. first_game+games-1 of one setting; one row per game.

    `team` is None (a random team each game, as the box deals), a list of role names or
    'diver,pilot'; `layout` a built-in name or a layout file; `policy` a registry name or a .py
    file (default: defaults.POLICY); `rules` rule switch names;
    `repeat` replays the same deals with another policy stream (fisim.rules.rng; 0: the games as dealt).
    `progress(n)` is called as each block of n games finishes."""
    rules = (rules,) if isinstance(rules, str) else rules
    _check_arguments(games, seed, first_game, threads, layout, repeat)
    cell = Cell.of(level, players, team, layout, policy, rules, repeat)
    parts = list(frames(cell, seed, play_chunks(cell, seed, first_game, games, threads, progress)))
    if not parts:
        return next(frames(cell, seed, [(first_game, np.zeros((0, R_SIZE), np.int32))]))
    frame = pd.concat(parts, ignore_index=True)
    frame["team"] = union_categoricals([part["team"] for part in parts])    # chunks meet different teams
    frame.attrs["rules_version"] = RULES_VERSION
    return frame


def _check_arguments(games, seed, first_game, threads, layout, repeat):
    """ConfigError, in one line, for an argument simulate() cannot use."""
    for name, value, high in (("games", games, MAX_SIMULATE_GAMES), ("seed", seed, MAX_SEED),
                              ("first_game", first_game, MAX_GAME), ("repeat", repeat, MAX_REPEAT)):
        whole(name, value, 0, high)
    if first_game + games - 1 > MAX_GAME:
        raise ConfigError(f"games {first_game:,}..{first_game + games - 1:,} go past the last game {MAX_GAME:,}")
    if threads is not None:
        whole("threads", threads, 1, max_threads())
    if not isinstance(layout, str):
        raise ConfigError(f"layout must be a built-in island's name or a layout file path, not {layout!r}")


def printed_rules(cell):
    """The cell of the same setting under the printed rules (no switch, no variant file), to play
    the same deals under both; None when the cell already plays them, or when they cannot play its
    setting (one player, a meter position past the printed skull)."""
    if not (cell.rules or cell.variant):
        return None
    printed = replace(cell, rules=(), variant=None)
    try:
        printed.config
    except ConfigError:
        return None
    return printed


def frames(cell, seed, chunks):
    """The per-game frame of each chunk (first game, result rows) of `cell`'s games, labelled as a
    store's rows are (a layout file by its file name: a file standard.txt is not the standard island)."""
    config, layout, policy = cell.config, cell.layout_label, cell.policy_label
    for first_game, rows in chunks:
        yield games_frame(rows, config, layout, policy, seed, first_game, cell.repeat)


def transcript(cell, seed, game):
    """Game `game` of `seed` of `cell`, turn by turn, as text (`fisim replay`, fisim.replay): its
    transcript kept as the engine plays it (fisim.engine.record), titled with the setting."""
    from fisim import engine
    from fisim.cell import check_games
    from fisim.transcript import format_transcript
    rec = engine.record(cell.island, cell.config, cell.policy, seed, game, repeat=cell.repeat)
    check_games(rec.result[None, :], cell.policy.NAME, game)
    title = (f"Game {game} of seed {seed}: {cell.layout_label}, {cell.level}, {cell.players} players, "
             f"policy {cell.policy_label}, rules {cell.rules_label}"
             + (f", repeat {cell.repeat}" if cell.repeat else ""))
    return format_transcript(rec.events, cell.island, title, legend=True)
