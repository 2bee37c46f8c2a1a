"""Where a design keeps its games: three results stores in its folder, each an ordinary one
(fisim.store; `fisim.load` reads it), and beside them the files the design writes.

- DIR/screen: a cell's games 0..SCREEN-1 of the seed, in chunks of FIRST_ROUND games, so that the
  first looks of many candidates play no more than they need (the first --trace-games of each
  traced when drama or decisiveness is a constraint);
- DIR/race: its games from there on, games 0.. of the seed two after it, in chunks of 1,000, 1,000,
  2,000, 4,000 ... doubling up to race.RACE_CHUNK, so that the long looks of the few candidates left
  write a few large files, not hundreds of small ones, and every look ends where a chunk ends (the
  race's looks double: race.schedule);
- DIR/verify: the fresh games of the verification, games 0.. of the seed after it (chunks of 1,000).

A store is opened for the games its design may ask of a cell (or more, if an earlier design asked
for more), so a design run again reuses every chunk it finds and plays the ones it lacks: stopped
part-way, it resumes; with wider ranges or a larger budget, it reuses every game it shares.
"""
from pathlib import Path

import numpy as np

from fisim.designing.constraints import FEEL, pooled, summary, totals
from fisim.designing.race import SCREEN, Evidence
from fisim.designing.request import POOLED
from fisim.errors import StoreError

STORES = ("screen", "race", "verify")
OUTPUTS = ("design.json", "candidates.csv", "candidates.json", "curves.csv", "curves.json", "arcs.csv", "arcs.json",
           "best.toml", "report")


def check_folder(out):
    """StoreError unless `out` is new, empty or a design's folder (nothing else is written into)."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise StoreError(f"{out} exists and is not a directory")
    if out.is_dir():
        strange = [p.name for p in out.iterdir() if p.name not in (*STORES, *OUTPUTS) and not p.name.startswith(".")]
        if strange:
            raise StoreError(f"{out} holds {strange[0]}, which a design does not write: use a new or empty "
                             "directory, or a design's")


def kept(record):
    """What a design holds of a chunk: its per-game wins and the record itself (the aggregates that
    say how its games feel)."""
    from fisim.results.chunks import per_game_wins
    return per_game_wins(record), dict(record)


def opened(store, cells, seed, games, chunk_games, threads, warn, traced=0, progress=None):
    """StoredGames of `cells` in `store`, opened for up to `games` games per cell (or the more that
    an earlier design asked of it), the win chance traced over the first `traced` games of each (or
    the more that an earlier design traced: its games serve a design that asks for fewer)."""
    from fisim.store import manifest_for
    from fisim.sweeping import StoredGames, tracing
    before = store.made() or {"target": {}, "trace": {}}
    store.open(manifest_for(cells, seed, {"games": max(games, before["target"].get("games", 0))}, False, chunk_games,
                            tracing(max(traced, before["trace"].get("games", 0)))))
    return StoredGames(store, cells, seed, threads, warn, keep=kept, progress=progress)


class SearchGames:
    """The search's games of each cell: games 0..SCREEN-1 of the seed from the screen store, then
    games 0.. of the race's seed from the race store."""

    def __init__(self, screen, race):
        self.screen, self.race = screen, race

    def first(self, cell, n):
        """What StoredGames.first holds of the chunks of the first n games of `cell`, in order."""
        later = self.race.first(cell, n - SCREEN) if n > SCREEN else []
        return self.screen.first(cell, min(n, SCREEN)) + later

    @property
    def played(self):
        return self.screen.played + self.race.played

    @property
    def held(self):
        return self.screen.held + self.race.held


def evidence(games, candidate, n, goal, worlds=0):
    """The Evidence of games 0..n-1 of every cell of `candidate`, from `games` (SearchGames, or the
    verification's StoredGames): per measure the per-game wins (pooled over player counts: each
    deal's mean), the feel measures, and how its games feel, pooled over its cells and per cell
    ({(level, players): SUMMARY's columns}, under "cells"), and each cell's typical arc of the win
    chance (under "arcs"); `worlds` those of a traced estimate."""
    wins, cells = {}, {}
    for measure, cell in candidate.cells:
        held = games.first(cell, n)
        wins[measure] = np.concatenate([won for won, _ in held])[:n]
        cells[measure] = totals(record for _, record in held)
    if goal.pooled:
        wins = {(level, POOLED): np.mean([wins[level, p] for p in goal.counts], axis=0) for level, _ in goal.targets}
    feel = {name: f.measure(list(cells.values()), worlds) for name, f in FEEL.items()}
    return Evidence(wins, feel, {**summary(pooled(list(cells.values())), worlds),
                                 "cells": {m: summary(t, worlds) for m, t in cells.items()},
                                 "arcs": {m: arc(t, worlds) for m, t in cells.items()}})


def arc(cell, worlds):
    """The typical arc of a cell's traced games (fisim.results.feel.arc: the mean chance of winning
    against the share of the game played, per outcome); empty when none was traced."""
    import pandas as pd

    from fisim.results import feel
    if not cell["traces"]:
        return pd.DataFrame(columns=feel.ARC_COLUMNS)
    return feel.arc(feel.traced_games(cell["traces"], worlds))
