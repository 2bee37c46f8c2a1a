#!/usr/bin/env python3
"""What the published player's own candidates are worth: at each of its action decisions where it
weighs two or more options, every one of them played on in the same sampled worlds.

The player's games are played turn by turn, and each action decision of its turn found again
from the turn's start (scripts/departures.py). There its candidates (the options it plays out, its
choice first: a spec's `candidates`, the ones search over it tries) are each played in --worlds
sampled worlds (R-INFO: the hidden piles dealt at random, fisim.rules.worlds), the player playing
on to the game's end, every candidate in the same worlds. A row per decision is appended to --out
(CSV: the candidates and, for each, its outcome world by world) as each game ends; run again
with the same options, it plays only the games missing.

The summary is the room a better ranking of the same candidates has: for each player count and
number of treasures captured, the decisions, the player's choice's wins per world, and the gain of
the candidate that the first half of the worlds rates best, measured on the other half (paired by
decision, 95% interval; measured on worlds that did not choose it, so not biased up).
search:N over the player re-ranks these same candidates, switching only on a clear gain.

    python scripts/candidate_values.py --out values.csv [--player planner] [--levels normal]
        [--players 2..4] [--games 30] [--worlds 32] [--seed 64]
"""
import argparse
import csv
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))     # scripts/departures.py, as `python scripts/...` finds it
from departures import action_phase, position_at  # noqa: E402

ROWS = 4                    # the most candidates a policy gives search (policies/search.py: CANDIDATES)
CAP = 1 << 16               # a turn's decision record
SETTINGS = ("player", "level", "players", "seed", "worlds")
COLUMNS = [*SETTINGS, "game", "turn", "actions_left", "captured", "candidates",
           *[f"option_{j}" for j in range(ROWS)], *[f"won_{j}" for j in range(ROWS)]]


def parse(argv):
    from policies import PUBLISHED
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, type=Path, help="the CSV of every decision (resumed)")
    parser.add_argument("--player", default=PUBLISHED, help="whose candidates (default: the published player)")
    parser.add_argument("--levels", default="normal")
    parser.add_argument("--players", default="2..4")
    parser.add_argument("--games", type=int, default=30, help="games per level and player count")
    parser.add_argument("--worlds", type=int, default=32, help="sampled worlds per decision (an even number)")
    parser.add_argument("--seed", type=int, default=64, help="master seed (the strength table's is 45)")
    args = parser.parse_args(argv)
    if args.out.is_dir() or not args.out.parent.is_dir():
        parser.error(f"--out {args.out} must be a file in a folder that exists")
    if args.games < 1 or args.worlds < 2 or args.worlds % 2:
        parser.error(f"--games must be at least 1 and --worlds an even number from 2, not {args.games} and "
                     f"{args.worlds}")
    from fisim.errors import ConfigError
    from fisim.grid import parse_levels, parse_players
    from policies import resolve
    try:
        args.settings = [(level, p) for level in parse_levels(args.levels) for p in parse_players(args.players)]
        args.policy = resolve(args.player)
    except ConfigError as exc:
        parser.error(str(exc))
    if not args.policy.spec.candidates:
        parser.error(f"--player {args.player} ranks no candidates; give one that does, such as planner or expert")
    args.held = {"player": args.policy.label, "seed": str(args.seed), "worlds": str(args.worlds)}
    other = next(((k, r[k]) for r in played(args.out) for k in args.held if r[k] != args.held[k]), None)
    if other:
        key, held = other
        parser.error(f"{args.out} holds decisions of {key} {held}, not {args.held[key]}: give another --out")
    return args


def decisions(policy, level, players, seed, game, worlds):
    """The rows of one game: each action decision where `policy` gives two or more candidates,
    with each candidate's outcome in every world ('1' won, '0' lost)."""
    from fisim.engine import EngineGame
    from fisim.engine.entries import PHASE_PLAY_OUT, PHASE_TURN
    from fisim.rules import state as st
    from fisim.rules.config import GameConfig
    from fisim.rules.layouts import builtin_layout
    from fisim.rules.options import ACTION, decode
    from fisim.rules.rng import N_STREAMS, game_seed
    from fisim.rules.setup import setup_game
    from fisim.rules.worlds import WORLD_SIZE, sample_world
    from policies import SCRIPTED, resolve
    candidates = getattr(policy.module, policy.spec.candidates)
    scripted = resolve(SCRIPTED)
    g = st.new_game_array(builtin_layout("standard").geometry, GameConfig(players=players, level=level).to_array(),
                          CAP, CAP)
    rng = np.zeros(N_STREAMS, np.uint64)
    setup_game(g, rng, np.uint64(game_seed(seed, game)))
    mem = np.zeros(st.MEM_SIZE, np.int32)      # (a decision's candidates do not depend on the policy's memory)
    world = np.zeros(WORLD_SIZE, np.int32)
    streams = np.zeros(N_STREAMS, np.uint64)
    rows = []
    turns = EngineGame(g, rng)
    while g[st.P_STATUS] == st.PLAYING:
        start, start_rng = g.copy(), rng.copy()
        own = action_phase(start, start_rng, policy)
        for k, (kind, _, options, _) in enumerate(own):
            if kind != ACTION or len(options) < 2:
                continue
            pub = position_at(start, start_rng, scripted, own[:k])
            offered = np.array(options, np.int32)
            top = np.empty((ROWS, 3))
            n = candidates(pub, offered, len(offered), mem.copy(), np.zeros(N_STREAMS, np.uint64), top)
            if n < 2:
                continue
            codes = [int(offered[int(top[j, 0])]) | max(int(top[j, 1]), 0) for j in range(n)]
            seeds = np.uint64(game_seed(np.uint64(game_seed(seed, game)), len(rows) + 1))
            won = [[] for _ in codes]
            for w in range(worlds):
                for j, c in enumerate(codes):
                    sample_world(pub, mem, world, streams, np.uint64(game_seed(seeds, w)))
                    EngineGame(world, streams).run(PHASE_PLAY_OUT, policy, arg=c)
                    won[j].append("1" if world[st.P_STATUS] == st.WON else "0")
            rows.append({"game": game, "turn": int(pub[st.P_TURN]), "actions_left": int(pub[st.P_ACTIONS_LEFT]),
                         "captured": bin(int(pub[st.P_CAPTURED])).count("1"), "candidates": n,
                         **{f"option_{j}": " ".join(map(str, decode(c))) for j, c in enumerate(codes)},
                         **{f"won_{j}": "".join(w) for j, w in enumerate(won)}})
        turns.g[turns.g[st.X_DECLOG]] = 0
        turns.run(PHASE_TURN, policy)
    return rows


def played(path):
    """The rows of the CSV at `path` (none when there is none)."""
    if not path.exists():
        return []
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def play(args, rows):
    """Play the games --out lacks, appending each game's rows as it ends."""
    from tqdm import tqdm
    done = {(r["level"], r["players"], r["game"]) for r in rows}
    missing = [(level, p, g) for level, p in args.settings for g in range(args.games)
               if (level, str(p), str(g)) not in done]
    new = not args.out.exists()
    with args.out.open("a", newline="") as f:
        out = csv.DictWriter(f, COLUMNS)
        if new:
            out.writeheader()
        for level, p, game in tqdm(missing, unit="game", desc="candidates valued", disable=not missing):
            found = decisions(args.policy, level, p, args.seed, game, args.worlds)
            for row in found or [{"game": game, "candidates": 0}]:     # (a game without one is done too)
                out.writerow({**args.held, "level": level, "players": p, **row})
            f.flush()


def room(rows):
    """Per player count and treasures captured, then per player count and over all ("all"):
    (decisions, the choice's wins per world, the gain of the first half's best candidate measured on
    the second half as (mean, low, high))."""
    from fisim.stats import mean_interval
    groups = {}
    for r in rows:
        n = int(r["candidates"])
        if n < 2:
            continue
        won = _outcomes(r)
        half = won.shape[1] // 2
        first, second = won[:, :half].mean(1), won[:, half:].mean(1)
        pick = int(np.argmax(first))                    # (ties: the earlier, the player's choice first)
        groups.setdefault((int(r["players"]), int(r["captured"])), []).append((won[0].mean(), second[pick] - second[0]))
    table = {}
    for players in sorted({p for p, _ in groups}):
        keys = sorted(k for k in groups if k[0] == players)
        table.update({k: groups[k] for k in keys})
        table[players, "all"] = sum((groups[k] for k in keys), [])
    if groups:
        table["all", "all"] = sum(groups.values(), [])
    return {key: (len(v), float(np.mean([c for c, _ in v])), mean_interval([d for _, d in v]))
            for key, v in table.items()}


def kinds(rows, least=50):
    """Per pair of option types (the player's choice, another candidate) compared at least `least`
    times: (comparisons, the other's wins per world less the choice's, that mean in standard
    errors), the other best first: does the player misjudge a kind of choice as a kind?"""
    pairs = {}
    for r in rows:
        won = _outcomes(r)
        own = r["option_0"].split()[0]
        for j in range(1, len(won)):
            pairs.setdefault((own, r[f"option_{j}"].split()[0]), []).append(won[j].mean() - won[0].mean())
    out = {}
    for key, d in pairs.items():
        if len(d) >= least:
            spread = np.std(d, ddof=1) / np.sqrt(len(d)) if len(d) > 1 else 0.0
            out[key] = (len(d), float(np.mean(d)), float(np.mean(d) / spread) if spread > 0 else 0.0)
    return dict(sorted(out.items(), key=lambda item: -item[1][2]))


def _outcomes(row):
    """A row's outcomes, a candidate's worlds to a line (1.0 won)."""
    return np.array([[c == "1" for c in row[f"won_{j}"]] for j in range(int(row["candidates"]))], float)


def markdown(table, pairs, shown=10):
    lines = ["| players | treasures captured | decisions | the choice's wins per world | "
             "gain of the best by half the worlds (on the other half) |", "|---|---|---|---|---|"]
    for (players, captured), (n, value, (mean, low, high)) in table.items():
        lines.append(f"| {players} | {captured} | {n:,} | {value:.3f} | {mean:+.4f} [{low:+.4f}, {high:+.4f}] |")
    lines += ["", f"{len(pairs)} pairs of option types compared 50 times or more; the {min(shown, len(pairs))} "
              "where the other candidate does best:", "",
              "| the choice | another candidate | comparisons | the other's wins per world less the choice's | "
              "standard errors |", "|---|---|---|---|---|"]
    for (own, other), (n, mean, z) in list(pairs.items())[:shown]:
        lines.append(f"| {own} | {other} | {n:,} | {mean:+.4f} | {z:+.2f} |")
    return "\n".join(lines)


def main(argv=None):
    args = parse(argv)
    play(args, played(args.out))
    rows = [r for r in played(args.out) if r["candidates"] != "0"]
    print(markdown(room(rows), kinds(rows)))


if __name__ == "__main__":
    main()
