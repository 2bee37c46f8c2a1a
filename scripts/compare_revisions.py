#!/usr/bin/env python3
"""A change to the engine or a policy, measured against the revision before it: whether both play
the same games (result rows identical, game for game, over eight settings), how fast each plays,
in alternated rounds on the same seeds, and what a first run costs each on an empty cache (the
engine and a policy compiled: processor time, with the child processes', and wall time), in
alternated rounds too (a benchmark, not a test).

Single benchmark runs on a shared machine drift by up to a third from one run to the next, more
than most changes; rounds that run the two revisions back to back, in turn first, and the median
of their ratios, measure the change. Each revision runs from its own git worktree and compile
cache, in fresh processes.

    python scripts/compare_revisions.py BASE [NEW] [--policies random:100000,expert:4000]
                                        [--rounds 6] [--rows-games 500]
                                        [--first-runs 0] [--first-run-policy expert]

NEW defaults to the working tree as it is (uncommitted changes included): leave it alone until
the comparison ends, since every run imports it afresh.
"""
import argparse
import os
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent

ROWS = r"""
import sys, numpy as np
from fisim.cell import Cell, play
name, games = sys.argv[1], int(sys.argv[2])
np.save(sys.argv[3], np.concatenate([
    play(Cell(layout, level, players, None, name, ()), 7, 0, games, threads=1)
    for layout in ("standard", "skull-island") for players in (2, 4) for level in ("novice", "legendary")]))
"""

RATE = r"""
import sys, time
from fisim.cell import Cell, play
games, seed = int(sys.argv[2]), int(sys.argv[3])
cell = Cell("standard", "normal", 3, None, sys.argv[1], ())
play(cell, 0, 0, 10, threads=1)       # compiled or loaded first
start = time.perf_counter()
play(cell, seed, 0, games, threads=1)
print(games / (time.perf_counter() - start))
"""

FIRST_RUN = r"""
import sys
from fisim.cell import Cell, play
play(Cell("standard", "normal", 3, None, sys.argv[1], ()), 0, 0, 10, threads=1)
"""


def child(tree, cache, code, *args):
    """Run `code` in a fresh process that imports fisim and the policies from `tree`."""
    env = dict(os.environ, PYTHONPATH=str(tree), FISIM_CACHE_DIR=str(cache))
    done = subprocess.run([sys.executable, "-c", code, *map(str, args)], env=env, cwd=tree,
                          capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"compare_revisions: a run in {tree} failed:\n{done.stderr.strip()}")
    return done.stdout.strip()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", help="the revision before the change (anything git rev-parse takes)")
    parser.add_argument("new", nargs="?", help="the revision with it (default: the working tree)")
    parser.add_argument("--policies", default="random:100000,expert:4000",
                        help="policy:games per timed run, comma-separated")
    parser.add_argument("--rounds", type=int, default=6, help="alternated rounds of timed runs (0: none)")
    parser.add_argument("--rows-games", type=int, default=500, help="games per setting in the rows check (0: skip)")
    parser.add_argument("--first-runs", type=int, default=0,
                        help="alternated rounds of a first run on an empty cache (0: none)")
    parser.add_argument("--first-run-policy", default="expert", help="the policy a first run plays")
    args = parser.parse_args()
    policies = [p.rpartition(":") for p in args.policies.split(",")]
    if not all(name and games.isdigit() for name, _, games in policies):
        parser.error(f"--policies takes policy:games, comma-separated (random:100000,search:8:200), "
                     f"not {args.policies!r}")
    policies = [(name, int(games)) for name, _, games in policies]
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))   # stopped: still remove the worktrees
    with tempfile.TemporaryDirectory() as tmp:
        tmp, trees = Path(tmp), {}
        try:
            for label, rev in (("base", args.base), ("new", args.new)):
                trees[label] = ROOT if rev is None else worktree(rev, tmp / label)
            print(f"base {args.base}, new {args.new or 'the working tree'}; timed runs on 1 thread, standard "
                  f"island, 3 players, normal")
            compare(trees, tmp, policies, args.rounds, args.rows_games)
            if args.first_runs:
                first_runs(trees, tmp, args.first_run_policy, args.first_runs)
        finally:
            for tree in trees.values():
                if tree != ROOT:
                    subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=True)


def worktree(rev, path):
    """A checkout of revision `rev` at `path` (git worktree, detached)."""
    done = subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(path), rev],
                          capture_output=True, text=True)
    if done.returncode:         # a revision git does not know: bad input
        print(f"compare_revisions: no checkout of {rev!r}: {done.stderr.strip()}", file=sys.stderr)
        sys.exit(2)
    return path


def compare(trees, tmp, policies, rounds, rows_games):
    caches = {label: tmp / f"cache-{label}" for label in trees}
    for name, games in policies:
        if rows_games:
            files = {label: tmp / f"{label}.npy" for label in trees}
            for label, tree in trees.items():
                child(tree, caches[label], ROWS, name, rows_games, files[label])
            base, new = (np.load(files[label]) for label in ("base", "new"))
            common = min(base.shape[1], new.shape[1])     # a result row's fields are appended, never moved
            same = np.array_equal(base[:, :common], new[:, :common])
            print(f"{name}: rows of {8 * rows_games:,} games over 8 settings {'identical' if same else 'DIFFER'}"
                  + (f" (the {common} columns both revisions have)" if base.shape[1] != new.shape[1] else ""))
        if not rounds:
            continue
        ratios, rates = [], {label: [] for label in trees}
        for r in range(rounds):
            for label in ("base", "new") if r % 2 == 0 else ("new", "base"):
                rates[label].append(float(child(trees[label], caches[label], RATE, name, games, 1 + r)))
            ratios.append(rates["new"][-1] / rates["base"][-1])
        print(f"{name}: new/base speed {statistics.median(ratios):.3f}, the median of {rounds} rounds "
              f"({', '.join(f'{x:.3f}' for x in ratios)}); games/s base {statistics.median(rates['base']):,.0f}, "
              f"new {statistics.median(rates['new']):,.0f}")


def first_runs(trees, tmp, policy, rounds):
    """Alternated rounds of a first run of `policy` on an empty cache: processor time (the process
    and its children) and wall time, new against base."""
    cost = {label: [] for label in trees}
    for r in range(rounds):
        for label in ("base", "new") if r % 2 == 0 else ("new", "base"):
            cache = tmp / f"first-run-{label}"
            shutil.rmtree(cache, ignore_errors=True)
            before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
            child(trees[label], cache, FIRST_RUN, policy)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cost[label].append((after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime,
                                time.perf_counter() - start))
    for i, what in enumerate(("processor", "wall")):
        ratios = [new[i] / base[i] for new, base in zip(cost["new"], cost["base"])]
        base, new = (statistics.median(c[i] for c in cost[label]) for label in ("base", "new"))
        print(f"first run of {policy}, {what} time: new/base {statistics.median(ratios):.3f}, the median of {rounds} "
              f"rounds ({', '.join(f'{x:.3f}' for x in ratios)}); base {base:.1f} s, new {new:.1f} s")


if __name__ == "__main__":
    main()

