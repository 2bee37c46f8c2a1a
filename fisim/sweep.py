"""`fisim sweep`: play every cell of a grid in fixed-size chunks and store each finished chunk.

Game i of every cell is game i of the master seed (common random numbers), and a chunk is a
fixed run of game indices, so what a chunk holds does not depend on threads, processes or
machines: a sweep resumed after an interruption, or run on a Dask cluster, gives the same store.
"""
import math

import numpy as np

import fisim
from fisim.rules.config import RULES_VERSION
from fisim.rules.layouts import load_layout
from fisim.store import Store, chunk_record, chunk_size, load, target_reached

CHUNK = 50_000


def manifest_for(cells, seed, target, per_game, chunk=CHUNK):
    """What identifies a sweep: a store is only ever extended by the same manifest."""
    from policies import load_policy
    policies = {name: str(load_policy(name).VERSION) for name in sorted({c.policy for c in cells})}
    return {
        "fisim_version": fisim.__version__, "rules_version": RULES_VERSION, "policies": policies,
        "seed": seed, "chunk_size": chunk, "target": target, "per_game": per_game,
        "cells": [{"key": c.key, "layout": load_layout(c.layout).name, "layout_shape": list(load_layout(c.layout).rows),
                   "level": c.level, "players": c.players, "team": c.team_label, "policy": c.policy,
                   "rules": c.rules_label} for c in cells],
    }


def play_chunk(cell, chunk, size, seed, threads, per_game, chunk_games):
    """Play one chunk of a cell: its aggregate record and, with per_game, its per-game frame."""
    from fisim import engine
    from fisim.simulation import EngineError, games_frame
    from policies import load_policy
    policy = load_policy(cell.policy)
    layout = load_layout(cell.layout)
    first = chunk * chunk_games
    rows = engine.play_batch(layout, cell.config, policy, seed, first, size, threads)
    if (rows[:, 0] == 3).any():
        bad = first + int(np.flatnonzero(rows[:, 0] == 3)[0])
        raise EngineError(f"policy {cell.policy}: game {bad} of cell {cell.key} made an illegal choice")
    frame = games_frame(rows, cell.config, layout.name, f"{policy.NAME}@{policy.VERSION}", seed, first) if per_game else None
    return chunk_record(cell.key, chunk, first, rows), frame


class LocalBackend:
    """Chunks one after another, each on `threads` Numba threads."""

    def __init__(self, threads=None):
        self.threads = threads

    def run(self, tasks, seed, per_game, chunk_games):
        for cell, chunk, size in tasks:
            yield play_chunk(cell, chunk, size, seed, self.threads, per_game, chunk_games)

    def close(self):
        pass


class DaskBackend:
    """Chunks as tasks on a Dask distributed cluster: `address` of a scheduler, or a local
    cluster of `workers` single-threaded processes. Results arrive in any order; each is stored
    as it comes."""

    def __init__(self, address=None, workers=None):
        from dask.distributed import Client, LocalCluster
        if address:
            self.cluster = None
            self.client = Client(address)
        else:
            self.cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                        dashboard_address=None)
            self.client = Client(self.cluster)

    def run(self, tasks, seed, per_game, chunk_games):
        from dask.distributed import as_completed
        futures = [self.client.submit(play_chunk, cell, chunk, size, seed, 1, per_game, chunk_games, pure=False)
                   for cell, chunk, size in tasks]
        try:
            for future in as_completed(futures):
                yield future.result()
        finally:
            for f in futures:
                f.cancel()

    def close(self):
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def warm(cells):
    """Compile each policy's runner once here, before chunks fan out to worker processes."""
    from fisim import engine
    from policies import load_policy
    for name in sorted({c.policy for c in cells}):
        cell = next(c for c in cells if c.policy == name)
        engine.play_batch(load_layout(cell.layout), cell.config, load_policy(name), 0, 0, 1, threads=1)


def _progress_of(records, target):
    """(games counted, next chunk to play, target reached) from a cell's {chunk: (wins, games)}."""
    wins = games = k = 0
    while k in records and not target_reached(target, wins, games):
        wins += records[k][0]
        games += records[k][1]
        k += 1
    return games, k, target_reached(target, wins, games)


def run_sweep(cells, out, seed=0, target=None, per_game=False, backend=None, progress=None, chunk_games=CHUNK):
    """Play every cell until its target ({"games": N} or {"ci": h, "max_games": M}) and return
    fisim.store.load(out). Chunks already in the store are not played again. `progress(games,
    cells_done)` is called as chunks and cells finish."""
    target = target or {"games": 10_000}
    store = Store(out)
    store.open(manifest_for(cells, seed, target, per_game, chunk_games))
    records = {c.key: {} for c in cells}
    for _, row in store.read_chunks().iterrows():
        if row["cell"] in records:
            records[row["cell"]][int(row["chunk"])] = (int(row["wins"]), int(row["games"]))
    backend = backend or LocalBackend()
    try:
        warmed = False
        while True:
            tasks = []
            for cell in cells:
                _, next_chunk, complete = _progress_of(records[cell.key], target)
                if complete:
                    continue
                if "games" in target:       # a fixed count: every missing chunk at once
                    wanted = range(next_chunk, math.ceil(target["games"] / chunk_games))
                else:                       # adaptive: the next chunk, then look again
                    wanted = [next_chunk]
                tasks += [(cell, k, chunk_size(target, chunk_games, k)) for k in wanted if k not in records[cell.key]]
            if not tasks:
                break
            if not warmed:
                warm(cells)
                warmed = True
            for record, frame in backend.run(tasks, seed, per_game, chunk_games):
                store.write_chunk(record, frame)
                cell_records = records[record["cell"]]
                before = _progress_of(cell_records, target)[2]
                cell_records[record["chunk"]] = (record["wins"], record["games"])
                if progress:
                    progress(record["games"], int(_progress_of(cell_records, target)[2] and not before))
    finally:
        backend.close()
    return load(out)


def format_table(frame):
    """The summary table of a sweep: one line per cell."""
    lines = [f"{'layout':<18}{'level':<10}{'pl':>3} {'team':<28}{'policy':<10}{'rules':<16}{'games':>10}"
             f"{'win rate':>10}  95% CI"]
    for _, r in frame.iterrows():
        lines.append(f"{r['layout']:<18}{r['level']:<10}{r['players']:>3} {r['team']:<28}{r['policy']:<10}"
                     f"{r['rules']:<16}{r['games']:>10,}{100 * r['rate']:>9.2f}%  "
                     f"{100 * r['ci_low']:.2f}-{100 * r['ci_high']:.2f}%")
    lines.append("Win rates are the computer team's (the policy named), not a human team's.")
    return "\n".join(lines)

