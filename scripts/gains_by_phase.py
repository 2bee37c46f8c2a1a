#!/usr/bin/env python3
"""Where a stronger player gains over the published one, phase by phase.

The published player's games are played turn by turn (fisim.engine.EngineGame, a whole turn at a
time: the games simulate plays). From the first turn start at which the team holds k treasures
(k = 0: the game's start; 1 to 4), the game is played on by the stronger player instead, from the
same position with the same hidden piles. Counted over all games (a game that never got there
counts 0), the stronger player's gain from the k-th capture on telescopes: its gain from the start
is the sum of what each phase adds (from the start to the first capture, ..., after the fourth),
each with its 95% interval, paired game by game. A phase that adds much is where the published
player's choices are worth improving (docs/strength.md).

Every game's outcomes are appended to --out (CSV) as it finishes: run again with the same options,
it plays only the games missing, then prints the table.

    python scripts/gains_by_phase.py --out gains.csv [--player planner] [--stronger search:64]
        [--level normal] [--players 4] [--games 500] [--seed 46] [--jobs 1]
"""
import argparse
import csv
from pathlib import Path

import numpy as np

CAPTURES = 5                # from the start, and after each of the four captures
FROM = [f"from_{k}" for k in range(CAPTURES)]
SETTINGS = ("player", "stronger", "level", "players", "seed")     # what a file's rows were played with
COLUMNS = [*SETTINGS, "game", "player_won", *FROM]
PHASES = ("the start to the 1st capture", "the 1st to the 2nd", "the 2nd to the 3rd", "the 3rd to the 4th",
          "after the 4th")
CAP = 1 << 12               # a game's event and decision record (unread here)


def parse(argv):
    from policies import PUBLISHED
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, type=Path, help="the CSV of every game's outcomes (resumed)")
    parser.add_argument("--player", default=PUBLISHED, help="whose games are played (default: the published player)")
    parser.add_argument("--stronger", default="search:64", help="who plays on from each capture")
    parser.add_argument("--level", default="normal")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--seed", type=int, default=46, help="master seed (the strength table's is 45)")
    parser.add_argument("--jobs", type=int, default=1, help="processes playing games at once")
    args = parser.parse_args(argv)
    from fisim.errors import ConfigError
    from fisim.grid import parse_levels
    from policies import resolve
    if args.games < 1 or args.jobs < 1:
        parser.error(f"--games and --jobs must be at least 1, not {args.games} and {args.jobs}")
    if not 2 <= args.players <= 4:
        parser.error(f"--players takes a player count from 2 to 4, not {args.players}")
    try:
        levels = parse_levels(args.level)
        args.labels = [resolve(name).label for name in (args.player, args.stronger)]
    except ConfigError as exc:
        parser.error(str(exc))
    if len(levels) != 1:
        parser.error(f"--level takes one level, not {args.level}")
    args.level = levels[0]
    if args.labels[0] == args.labels[1]:
        parser.error(f"--stronger {args.stronger} is the player itself; give another policy, such as search:64")
    args.settings = dict(zip(SETTINGS, [*args.labels, args.level, str(args.players), str(args.seed)]))
    rows = played(args.out)
    other = next((k for row in rows.values() for k in SETTINGS if row[k] != args.settings[k]), None)
    if other:
        held = next(row[other] for row in rows.values() if row[other] != args.settings[other])
        parser.error(f"{args.out} holds games of {other} {held}, not {args.settings[other]}: give another --out")
    return args


def played(path):
    """The rows of the CSV at `path` by game ({} when there is none)."""
    if not path.exists():
        return {}
    with path.open(newline="") as f:
        return {int(row["game"]): row for row in csv.DictReader(f)}


def play_game(player, stronger, level, players, seed, game):
    """(the player's win, [the stronger player's win from the first turn start with k treasures
    captured, or None where the player's game never got there, for k = 0..4])."""
    from fisim.engine import EngineGame
    from fisim.engine.entries import PHASE_TURN
    from fisim.rules import state as st
    from fisim.rules.config import GameConfig
    from fisim.rules.layouts import builtin_layout
    from fisim.rules.rng import N_STREAMS, game_seed
    from fisim.rules.setup import setup_game
    g = st.new_game_array(builtin_layout("standard").geometry, GameConfig(players=players, level=level).to_array(),
                          CAP, CAP)
    rng = np.zeros(N_STREAMS, np.uint64)
    setup_game(g, rng, np.uint64(game_seed(seed, game)))
    starts = [None] * CAPTURES
    turns = EngineGame(g, rng)
    while g[st.P_STATUS] == st.PLAYING:
        for k in range(bin(int(g[st.P_CAPTURED])).count("1") + 1):
            starts[k] = starts[k] or (g.copy(), rng.copy())
        turns.run(PHASE_TURN, player)
    won = [None] * CAPTURES
    for k, start in enumerate(starts):
        if start:
            on = EngineGame(*start)
            while on.g[st.P_STATUS] == st.PLAYING:
                on.run(PHASE_TURN, stronger)
            won[k] = bool(on.g[st.P_STATUS] == st.WON)
    return bool(g[st.P_STATUS] == st.WON), won


def _worker(args):
    from policies import resolve
    player, stronger, level, players, seed, game = args
    return game, play_game(resolve(player), resolve(stronger), level, players, seed, game)


def play(args, done):
    """Play the games --out lacks, appending each to it as it finishes (--jobs processes at once,
    or this one)."""
    from contextlib import ExitStack
    from multiprocessing import get_context

    from tqdm import tqdm
    missing = [g for g in range(args.games) if g not in done]
    if not missing:
        return
    new = not args.out.exists()
    jobs = [(args.player, args.stronger, args.level, args.players, args.seed, g) for g in missing]
    with args.out.open("a", newline="") as f, ExitStack() as stack:
        finished = map(_worker, jobs) if args.jobs == 1 else \
            stack.enter_context(get_context("spawn").Pool(args.jobs)).imap_unordered(_worker, jobs)
        out = csv.DictWriter(f, COLUMNS)
        if new:
            out.writeheader()
        for game, (won, after) in tqdm(finished, total=len(jobs), unit="game",
                                       desc=f"{args.level}, {args.players} players"):
            out.writerow({**args.settings, "game": game, "player_won": won,
                          **{k: "" if w is None else w for k, w in zip(FROM, after)}})
            f.flush()


def gains(rows, games):
    """The table's rows: for each k, the games that got there, both players' wins from there, the
    stronger player's gain from there on over all games and what the phase from k to k + 1 adds
    (each (difference, low, high), paired game by game); a rate is None where no game got there."""
    from fisim.comparison import mean_difference
    rows = [rows[g] for g in range(games)]
    player = np.array([r["player_won"] == "True" for r in rows], float)
    reached = np.array([[r[f] != "" for f in FROM] for r in rows])
    # from k on: the stronger player's outcome where the game got there, else the player's own
    on = np.array([[float(r[f] == "True") if r[f] != "" else p for f in FROM] for r, p in zip(rows, player)])
    on = np.column_stack([on, player])          # after the game: the player's own outcome
    table = []
    for k in range(CAPTURES):
        there = reached[:, k]
        table.append({"from": ("the start" if k == 0 else f"the {_nth(k)} capture"), "phase": PHASES[k],
                      "games": int(there.sum()), "player_rate": player[there].mean() if there.any() else None,
                      "stronger_rate": on[there, k].mean() if there.any() else None,
                      "gain": mean_difference(on[:, k], player),
                      "adds": mean_difference(on[:, k], on[:, k + 1])})
    return table


def _nth(k):
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(k, f"{k}th")


def markdown(table, settings, games):
    from fisim.formatting import points, points_interval

    def interval(d):
        return f"{points(d[0], 1)} [{points_interval(d[1], d[2], 1)}]"
    lines = [f"{settings['stronger']} over {settings['player']}: {settings['level']}, {settings['players']} players, "
             f"{games:,} games (seed {settings['seed']}; 95% intervals, paired game by game)", "",
             f"| from the turn after | games there | {settings['player']} wins from there | "
             f"{settings['stronger']} wins from there | gain from there on, points of all games | "
             "phase | the phase adds |", "|---|---|---|---|---|---|---|"]

    def rate(r):
        return "–" if r is None else f"{r:.1%}"
    for row in table:
        lines.append(f"| {row['from']} | {row['games']:,} | {rate(row['player_rate'])} | {rate(row['stronger_rate'])} "
                     f"| {interval(row['gain'])} | {row['phase']} | {interval(row['adds'])} |")
    return "\n".join(lines)


def main(argv=None):
    args = parse(argv)
    play(args, played(args.out))
    print(markdown(gains(played(args.out), args.games), args.settings, args.games))


if __name__ == "__main__":
    main()
