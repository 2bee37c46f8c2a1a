#!/usr/bin/env python3
"""Benchmark of fisim (a measurement, not a test): games per second per policy on 1 and 2 threads
(median of repeats), first runs on an empty cache (the quick start's, the engine and expert
compiled at once; the engine with a policy of one line; then each policy's own decide), their
processor time with the child processes that compile, a cached start, and peak memory; the split
of an expert game's time between the engine and expert's own decisions; then the default sweep on
1 and 2 threads (cells per minute, games per second) and the peak memory of a 10-million-game
sweep.

    python scripts/bench.py [--games 200000] [--repeats 5] [--policies random,passive]
                            [--split-games 5000] [--no-sweep]
"""
import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

CHILD = r"""
import json, resource, sys, time
t0 = time.perf_counter()
from fisim.cell import Cell, play
cell = Cell("standard", "normal", 3, None, sys.argv[1], ())
play(cell, 0, 0, 10, threads=1)
ready = time.perf_counter() - t0
used = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
ready_cpu = sum(u.ru_utime + u.ru_stime for u in used)
rates = {}
for threads in (1, 2):
    runs = []
    for r in range(int(sys.argv[3])):
        t = time.perf_counter()
        play(cell, 1 + r, 0, int(sys.argv[2]), threads=threads)
        runs.append(int(sys.argv[2]) / (time.perf_counter() - t))
    rates[threads] = runs
print(json.dumps({"ready_s": ready, "ready_cpu_s": ready_cpu, "rates": rates,
                  "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


# the engine's own time on expert's games: expert's recorded choices played back by a policy that
# costs nothing (REPLAY), on one thread, so that the games are played in order; the rows must equal
# expert's
SPLIT = r"""
import json, os, sys, time
import numpy as np
from fisim import engine
from fisim.cell import Cell, play
games, repeats, folder, template = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
expert = Cell("standard", "normal", 3, None, "expert", ())
choices = [0]
for game in range(games):           # (a game's decisions: the transcript's entry, as `fisim replay` plays it)
    choices += [i for *_, i in engine.record(expert.island, expert.config, expert.policy, 1, game,
                                             decisions=True).decisions]
script = np.array(choices, np.int32)
path = os.path.join(folder, "replay.py")
with open(path, "w") as f:
    f.write(template.format(address=script.ctypes.data, size=len(script)))
replay = Cell("standard", "normal", 3, None, path, ())
for cell in (expert, replay):            # compiled before they are timed
    play(cell, 1, 0, 1, threads=1)
times = {"expert": [], "replay": []}
for r in range(repeats):
    for name, cell in (("expert", expert), ("replay", replay))[::1 if r % 2 == 0 else -1]:
        script[0] = 0
        t = time.perf_counter()
        rows = play(cell, 1, 0, games, threads=1)
        times[name].append((time.perf_counter() - t) / games * 1e6)
        if name == "expert":
            expected = rows
        else:
            played, replayed = script[0], rows
    assert played == len(script) - 1 and (replayed == expected).all(), "the replay is not expert's games"
print(json.dumps(times))
"""
REPLAY = '''
"""expert's recorded choices played back: ADDRESS holds int32 [choices played, choice, choice, ...]."""
from numba import carray, njit, types
from numba.extending import intrinsic
NAME = "replay"
ADDRESS = {address}
SIZE = {size}


@intrinsic
def _pointer(typingctx, address):
    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], context.get_value_type(signature.return_type))
    return types.CPointer(types.int32)(address), codegen


@njit
def decide(pub, options, n, mem, rng):
    script = carray(_pointer(ADDRESS), (SIZE,))
    script[0] += 1
    return script[script[0]]
'''

# a policy that compiles in no time: the first run of the benchmark compiles the engine with it
FIRST = """
from numba import njit
NAME = "first"


@njit
def decide(pub, options, n, mem, rng):
    return 0
"""

MEASURE = r"""
import resource, subprocess, sys
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)
"""


def machine():
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            model = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{model}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()}"


def run_child(policy, games, repeats, cache):
    env = dict(os.environ, FISIM_CACHE_DIR=cache)
    out = subprocess.run([sys.executable, "-c", CHILD, policy, str(games), str(repeats)],
                         env=env, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--policies", default="random,passive")
    parser.add_argument("--split-games", type=int, default=5000,
                        help="expert games per repeat for the engine/expert split (0: skip it)")
    parser.add_argument("--no-sweep", action="store_true", help="skip the sweep benchmarks")
    parser.add_argument("--big-sweep-games", type=int, default=10_000_000)
    args = parser.parse_args()
    print(f"machine: {machine()}")
    print(f"setting: standard island, 3 players, normal, random teams; {args.games:,} games x {args.repeats} repeats")
    with tempfile.TemporaryDirectory() as tmp:
        quick = run_child("expert", 10, 1, os.path.join(tmp, "quick-start-cache"))
        print(f"first run on an empty cache, the quick start's (the engine and expert): {quick['ready_s']:.1f} s, "
              f"processor {quick['ready_cpu_s']:.1f} s")
        cache, first_policy = os.path.join(tmp, "cache"), os.path.join(tmp, "first.py")
        with open(first_policy, "w") as f:
            f.write(FIRST)
        first = run_child(first_policy, 10, 1, cache)
        print(f"first run on an empty cache (the engine, with a policy of one line): {first['ready_s']:.1f} s, "
              f"processor {first['ready_cpu_s']:.1f} s")
        for policy in args.policies.split(","):
            alone = run_child(policy, 1000, 1, cache)
            warm = run_child(policy, args.games, args.repeats, cache)
            one = statistics.median(warm["rates"]["1"])
            two = statistics.median(warm["rates"]["2"])
            print(f"{policy:>8}: 1 thread {one:>10,.0f} games/s | 2 threads {two:>10,.0f} games/s "
                  f"({two / 2:,.0f} per core) | first run with the engine compiled {alone['ready_s']:.1f} s "
                  f"(processor {alone['ready_cpu_s']:.1f} s), "
                  f"cached {warm['ready_s']:.2f} s | peak memory {warm['peak_rss_mib']:.0f} MiB")
        if args.split_games:
            engine_split(args.split_games, args.repeats, tmp, cache)
    if not args.no_sweep:
        bench_sweeps(args.big_sweep_games)


def engine_split(games, repeats, folder, cache):
    """Per expert game (1 thread): the engine's time (expert's choices played back at no cost, the
    same games) and expert's own decisions (the rest), medians over `repeats` alternated runs of
    each in one process."""
    out = subprocess.run([sys.executable, "-c", SPLIT, str(games), str(repeats), folder, REPLAY],
                         env=dict(os.environ, FISIM_CACHE_DIR=cache), check=True, capture_output=True,
                         text=True).stdout
    times = json.loads(out.strip().splitlines()[-1])
    game, engine = statistics.median(times["expert"]), statistics.median(times["replay"])
    print(f"an expert game (1 thread, {games:,} games, median of {repeats} alternated runs): {game:.0f} us = "
          f"the engine {engine:.0f} us (expert's choices played back at no cost) + expert's decisions "
          f"{game - engine:.0f} us")


def run_sweep_command(extra, out, cache=None):
    """Run `fisim sweep` in a child process (with its compile cache in `cache` if given); (wall
    seconds, that child's peak memory in MiB). A go-between process runs it, so that the peak is
    the sweep's own, not that of an earlier child."""
    shutil.rmtree(out, ignore_errors=True)
    env = dict(os.environ, FISIM_CACHE_DIR=cache) if cache else None
    fisim = os.path.join(os.path.dirname(sys.executable), "fisim")
    start = time.perf_counter()
    peak = subprocess.run([sys.executable, "-c", MEASURE, fisim, "sweep", "--quiet", "--out", out, *extra],
                          env=env, check=True, capture_output=True, text=True).stdout
    return time.perf_counter() - start, float(peak)


def bench_sweeps(big_games):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "sweep")
        run_sweep_command(["--games", "1000"], out)          # compile the default policy once
        for threads in (1, 2):
            wall, _ = run_sweep_command(["--threads", str(threads)], out)
            with open(os.path.join(out, "manifest.json")) as f:
                manifest = json.load(f)
            cells, per_cell = len(manifest["cells"]), manifest["target"]["games"]
            games = cells * per_cell
            print(f"default sweep ({cells} cells x {per_cell:,} games), {threads} thread(s): {wall:.1f} s, "
                  f"{60 * cells / wall:.1f} cells/min, {games / wall:,.0f} games/s")
        big = ["--levels", "normal", "--players", "3", "--policies", "random"]
        cache = os.path.join(tmp, "cache")
        _, first = run_sweep_command([*big, "--games", "1000"], out, cache)      # compiles
        wall, peak = run_sweep_command([*big, "--games", str(big_games)], out, cache)
        print(f"{big_games:,}-game sweep (random policy): {wall:.0f} s, peak memory {peak:.0f} MiB "
              f"(a first sweep that compiles the engine: {first:.0f} MiB)")


if __name__ == "__main__":
    main()
