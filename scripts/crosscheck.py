#!/usr/bin/env python3
"""Cross-check the Numba engine against the plain-Python reference at scale.

Plays GAMES games spread over every layout, rule switch, level, player count and role under a
policy the engine has, and compares every decision's option list and every event. Stops at the
first disagreement and prints it with the transcript up to that point.

    python scripts/crosscheck.py --games 100000 --policy random [--seed 0]
"""
import argparse
import itertools
import sys
import time

from fisim.crosscheck import crosscheck_game, switch_sets
from fisim.rules.config import GameConfig
from fisim.rules.constants import ROLE_NAMES
from fisim.rules.layouts import BUILTIN_NAMES, builtin_layout
from fisim.transcript import format_transcript
from policies import load_policy

LEVELS = ("novice", "normal", "elite", "legendary")


def settings():
    """An endless cycle of (layout, config) over layouts, switch sets, levels and teams."""
    variants = switch_sets()
    teams = [None] + [c for n in (2, 3, 4) for c in itertools.combinations(ROLE_NAMES, n)]
    for k in itertools.count():
        team = teams[k % len(teams)]
        players = len(team) if team else 1 + k % 4
        switches = variants[k % len(variants)] | ({"solo"} if players == 1 else set())
        yield builtin_layout(BUILTIN_NAMES[k % len(BUILTIN_NAMES)]), GameConfig(
            players=players, level=LEVELS[k % 4], team=team, switches=switches)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--policy", default="random")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--per-setting", type=int, default=50, help="games per setting before moving on")
    args = parser.parse_args()
    policy = load_policy(args.policy)
    done = decisions = 0
    start = time.time()
    for k, (layout, config) in enumerate(settings()):
        for g in range(args.per_setting):
            mismatch, compared = crosscheck_game(layout, config, policy, args.seed + k, g)
            if mismatch:
                print(f"DISAGREEMENT on {layout.name}, {config}, policy {args.policy}, seed {args.seed + k}")
                print(mismatch)
                if mismatch.engine_events is not None:
                    print("--- transcript up to the disagreement (engine) ---")
                    print(format_transcript(mismatch.engine_events, layout), end="")
                return 1
            done += 1
            decisions += compared
            if done % 10_000 == 0:
                print(f"{done:,} games, {decisions:,} decisions agree ({time.time() - start:.0f} s)", file=sys.stderr)
            if done >= args.games:
                print(f"{done:,} games and {decisions:,} decisions: engine and reference agree "
                      f"(policy {args.policy}, {time.time() - start:.0f} s)")
                return 0


if __name__ == "__main__":
    sys.exit(main())
