#!/usr/bin/env python3
"""Strength of policies: win rate with its 95% Wilson interval per difficulty level and player
count (standard island, random teams, as the box deals), and the average over 2, 3 and 4 players,
next to the published rule-based bot's rates (100,000 games per setting, 2-4 players pooled).

With --baseline, every policy is also compared with the baseline on the same deals (game i of
each cell starts from the same shuffles: common random numbers): the paired difference of win
rates pooled over the player counts, with its 95% interval, and the policy's games per second of
processor time on one core (policies slower than the baseline, such as search:N, are measured
this way so that other work on the machine does not count).

    python scripts/strength.py [--policies greedy,expert] [--games 100000] [--seed 1] [--threads 2]
    python scripts/strength.py --policies search:8,search:16,search:32 --baseline expert --games 2000
"""
import argparse
import time

import numpy as np

from fisim import engine
from fisim.comparison import paired_difference
from fisim.formatting import bracket, percent, points
from fisim.rules.config import GameConfig
from fisim.rules.layouts import builtin_layout
from fisim.rules.state import ERROR, LOST, R_STATUS, R_TURNS, WON
from fisim.stats import wilson
from policies import load_policy

WIDTH = 5           # of a percentage in the table
LEVELS = ("novice", "normal", "elite", "legendary")
PUBLISHED = {"novice": 0.158, "normal": 0.071, "elite": 0.021, "legendary": 0.006}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--policies", default="greedy,expert")
    parser.add_argument("--baseline", help="compare each policy with this one on the same deals")
    parser.add_argument("--games", type=int, default=100_000, help="games per (level, players) cell")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--levels", default=",".join(LEVELS))
    parser.add_argument("--players", default="2,3,4")
    parser.add_argument("--layout", default="standard")
    args = parser.parse_args()
    layout = builtin_layout(args.layout)
    levels = args.levels.split(",")
    players = [int(p) for p in args.players.split(",")]
    baseline = {}
    if args.baseline:
        policy = load_policy(args.baseline)
        baseline = {(level, p): play(layout, policy, level, p, args)[0][:, R_STATUS] == WON
                    for level in levels for p in players}
    for name in args.policies.split(","):
        policy = load_policy(name)
        print(f"policy {policy.NAME}@{policy.VERSION}: {args.layout} island, random teams, "
              f"{args.games:,} games per cell, seed {args.seed}")
        print(f"{'level':<10}" + "".join(f"{f'{p} players':>26}" for p in players)
              + f"{'average':>10}{'published':>11}{'ratio':>7}{'lost on turn 1':>16}"
              + (f"{f'paired vs {args.baseline}, pooled':>36}" if baseline else ""))
        total_games, total_time, total_cpu = 0, 0.0, 0.0
        for level in levels:
            rates, cells, won, base, early = [], [], [], [], []
            for p in players:
                rows, seconds, cpu = play(layout, policy, level, p, args)
                wins = rows[:, R_STATUS] == WON
                early.append((rows[:, R_STATUS] == LOST) & (rows[:, R_TURNS] == 1))
                total_games, total_time, total_cpu = total_games + len(wins), total_time + seconds, total_cpu + cpu
                lo, hi = wilson(int(wins.sum()), len(wins))
                rates.append(wins.mean())
                rate, lo, hi = (percent(x, width=WIDTH) for x in (wins.mean(), lo, hi))
                cells.append(f"{rate} [{lo},{hi}]")
                won.append(wins)
                base.append(baseline.get((level, p)))
            avg = sum(rates) / len(rates)
            pub = PUBLISHED.get(level, float("nan"))
            line = (f"{level:<10}" + "".join(f"{c:>26}" for c in cells)
                    + f"{percent(avg):>10}{percent(pub):>11}{avg / pub:>6.1f}x"
                    + f"{percent(np.concatenate(early).mean()):>16}")
            if baseline:
                diff, lo, hi = paired_difference(np.concatenate(won), np.concatenate(base))
                line += f"{f'{points(diff):>6} points {bracket(lo, hi, 2, signed=True)}':>36}"
            print(line)
        print(f"({total_games:,} games in {total_time:.0f} s on {args.threads} threads: "
              f"{total_games / total_time:,.1f} games/s; {total_games / total_cpu:,.1f} games per second "
              "of processor time)\n")


def play(layout, policy, level, players, args):
    """(result rows, wall seconds, processor seconds) of one cell; the compile is not counted."""
    engine.play_batch(layout, GameConfig(players=3), policy, 0, 0, 1, threads=1)
    wall, cpu = time.perf_counter(), time.process_time()
    rows = engine.play_batch(layout, GameConfig(players=players, level=level), policy, args.seed, 0, args.games,
                             threads=args.threads)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    if np.any(rows[:, R_STATUS] == ERROR):
        raise SystemExit(f"policy {policy.NAME}: an illegal choice or an endless game")
    return rows, wall, cpu


if __name__ == "__main__":
    main()
