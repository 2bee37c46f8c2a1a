"""One setting of the game, and the one way fisim plays its games.

A Cell is a setting: an island (a built-in name or a layout file), a level, a player count, a
team (None: a random team each game), a policy (resolved once: policies.Policy, made from a name or
a policy file's path as the cell is made), rule switches, a variant
(its rule numbers, carried by value: a Dask worker needs no file) and the repeat its games are
played as (fisim.rules.rng; 0: the games as dealt, unless a ladder replays deals). It is a plain
value: a sweep's grid is a list of cells (fisim.grid), a store keys a cell's chunks by its `key`
(fisim.store), and a cell travels to a Dask worker as it is. `play` turns a run of its games into
result rows (fisim.rules.state R_*), for simulate, the sweep, tune and the ladder alike; `trace`
traces the team's win chance over a few of them, for the sweep.
"""
import hashlib
import json
from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np

from fisim import defaults
from fisim.errors import EngineError
from fisim.rules.config import GameConfig, make_config, rules_label
from fisim.rules.layouts import BUILTIN_NAMES, load_layout
from policies import Policy, labelled, resolve

CHUNK = 1 << 18         # the games play_chunks plays at a time


@dataclass(frozen=True)
class Cell:
    layout: str          # built-in name or layout file path
    level: str
    players: int
    team: tuple          # roles in seat order, or None for a random team each game
    policy: Policy       # given as a name or a policy file's path: resolved as the cell is made
    rules: tuple         # sorted rule switches; () for the official rules
    variant: object = None   # a fisim.rules.variant.Variant, or None for the official rule numbers
    repeat: int = 0      # the policy stream's repeat index (0: the games as dealt)

    def __post_init__(self):
        object.__setattr__(self, "policy", resolve(self.policy))

    @classmethod
    def of(cls, level=defaults.LEVEL, players=defaults.PLAYERS, team=None, layout=defaults.LAYOUT,
           policy=defaults.POLICY, rules=(), repeat=0):
        """The cell of a setting given as simulate and replay take it (a level's name or water
        meter position, a team as a list or 'diver,pilot', rule switches and a variant file);
        a ConfigError (a LayoutError, a PolicyError) naming the first thing fisim cannot play."""
        config = make_config(level, players, team, rules)
        load_layout(layout)
        return cls.of_config(config, layout, resolve(policy), repeat)

    @classmethod
    def of_config(cls, config, layout, policy, repeat=0):
        """The cell that plays GameConfig `config` on `layout` with `policy`."""
        return cls(layout, config.level, config.players, config.team, policy, tuple(sorted(config.switches)),
                   config.variant, repeat)

    @property
    def config(self):
        return GameConfig(players=self.players, level=self.level, team=self.team,
                          switches=frozenset(self.rules), variant=self.variant).validate()

    @property
    def island(self):
        return load_layout(self.layout)

    @property
    def layout_label(self):
        """A built-in island's name, or a layout file's name (never that of a built-in island)."""
        return self.layout if self.layout in BUILTIN_NAMES else Path(self.layout).name

    @property
    def team_label(self):
        return "+".join(self.team) if self.team else "random"

    @property
    def rules_label(self):
        return rules_label(self.rules, self.variant)

    @property
    def policy_label(self):
        """The policy as every result names it, NAME@VERSION (a clairvoyant one with its note)."""
        return labelled(self.policy.label)

    @property
    def variant_record(self):
        """The variant's name (None: the official numbers) and every rule number the cell plays."""
        parameters = {k: list(v) if isinstance(v, tuple) else v for k, v in self.config.parameters.items()}
        return {"variant": self.variant.name if self.variant else None, "parameters": parameters}

    @property
    def key(self):
        """A short stable id of the cell, used in chunk file names. Repeat 0 is left out, so a
        cell keeps the key it had before repeats existed."""
        settings = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("variant", "repeat")}
        settings["policy"] = self.policy.given
        if self.repeat:
            settings["repeat"] = self.repeat
        text = json.dumps({**settings, **self.variant_record}, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:12]


def play(cell, seed, first_game, games, threads=None, progress=None):
    """Result rows of games first_game .. first_game+games-1 of `cell` under master seed `seed`,
    on `threads` threads; progress(k) as each block of k games finishes. EngineError naming the
    first game its policy broke."""
    from fisim import engine  # numba's: loaded when games are played, not when cells are parsed
    rows = engine.play_batch(cell.island, cell.config, cell.policy, seed, first_game, games, threads, progress,
                             cell.repeat)
    check_games(rows, cell.policy.NAME, first_game)
    return rows


def trace(cell, seed, first_game, games, worlds, threads=None):
    """The win-chance traces of games first_game .. first_game+games-1 of `cell`, each estimate
    from `worlds` sampled worlds (fisim.engine.trace_batch); EngineError as `play`."""
    from fisim import engine
    traces, rows = engine.trace_batch(cell.island, cell.config, cell.policy, seed, first_game, games, worlds, threads,
                                      cell.repeat)
    check_games(rows, cell.policy.NAME, first_game)
    return traces


def play_chunks(cell, seed, first_game, games, threads=None, progress=None, chunk=CHUNK):
    """Yield (first game, result rows) of games first_game.. of `cell`, `chunk` games at a time
    (play): a caller that keeps only totals or writes the rows out as they come holds one chunk,
    so its memory does not grow with the number of games."""
    for lo in range(first_game, first_game + games, chunk):
        yield lo, play(cell, seed, lo, min(chunk, first_game + games - lo), threads, progress)


def check_games(rows, policy_name, first_game):
    """EngineError naming the first game (of result rows from first_game on) that ended in an error:
    for an illegal choice, the decision kind, the index decide returned and n."""
    from fisim.rules.options import DECISION_NAMES
    from fisim.rules.state import ERROR, R_ERROR, R_ERROR_INDEX, R_ERROR_N, R_STATUS
    bad = np.flatnonzero(rows[:, R_STATUS] == ERROR)
    if bad.size:
        row = rows[bad[0]]
        at, index, n = int(row[R_ERROR]), int(row[R_ERROR_INDEX]), int(row[R_ERROR_N])
        held = {2**31 - 1: " or more", -2**31: " or less"}.get(index, "")
        what = (f"decide() returned {index}{held}, an option not offered: the {DECISION_NAMES[at - 1]} decision "
                f"offered n = {n}, indices 0 to {n - 1}" if at else "the game did not end within the turn limit")
        raise EngineError(f"policy {policy_name}: game {first_game + int(bad[0])}: {what}")
