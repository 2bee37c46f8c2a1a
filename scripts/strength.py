#!/usr/bin/env python3
"""Strength of policies: win rate with its 95% Wilson interval per difficulty level and player
count (standard island, random teams, as the box deals), and the average over 2, 3 and 4 players,
next to the published rule-based bot's rates (100,000 games per setting, 2-4 players pooled).

    python scripts/strength.py [--policies greedy,expert] [--games 100000] [--seed 1] [--threads 2]
"""
import argparse
import time

import numpy as np

from fisim import engine
from fisim.rules.config import GameConfig
from fisim.rules.layouts import builtin_layout
from fisim.rules.state import ERROR, WON
from fisim.rules.turn import R_STATUS
from fisim.stats import wilson
from policies import load_policy

LEVELS = ("novice", "normal", "elite", "legendary")
PUBLISHED = {"novice": 0.158, "normal": 0.071, "elite": 0.021, "legendary": 0.006}


def pct(x):
    return f"{100 * x:5.2f}%"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--policies", default="greedy,expert")
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
    for name in args.policies.split(","):
        policy = load_policy(name)
        engine.play_batch(layout, GameConfig(players=3), policy, 0, 0, 10, threads=1)   # compile
        print(f"policy {policy.NAME}@{policy.VERSION}: {args.layout} island, random teams, "
              f"{args.games:,} games per cell, seed {args.seed}")
        print(f"{'level':<10}" + "".join(f"{f'{p} players':>26}" for p in players)
              + f"{'average':>10}{'published':>11}{'ratio':>7}")
        total_games, total_time = 0, 0.0
        for level in levels:
            rates, cells = [], []
            for p in players:
                t = time.perf_counter()
                rows = engine.play_batch(layout, GameConfig(players=p, level=level), policy,
                                         args.seed, 0, args.games, threads=args.threads)
                total_time += time.perf_counter() - t
                total_games += len(rows)
                if np.any(rows[:, R_STATUS] == ERROR):
                    raise SystemExit(f"policy {policy.NAME}: an illegal choice or an endless game")
                wins = int(np.sum(rows[:, R_STATUS] == WON))
                lo, hi = wilson(wins, len(rows))
                rates.append(wins / len(rows))
                cells.append(f"{pct(wins / len(rows))} [{pct(lo)},{pct(hi)}]")
            avg = sum(rates) / len(rates)
            pub = PUBLISHED.get(level, float("nan"))
            print(f"{level:<10}" + "".join(f"{c:>26}" for c in cells)
                  + f"{pct(avg):>10}{pct(pub):>11}{avg / pub:>6.1f}x")
        print(f"({total_games:,} games in {total_time:.0f} s, {total_games / total_time:,.0f} games/s "
              f"on {args.threads} threads)\n")


if __name__ == "__main__":
    main()
