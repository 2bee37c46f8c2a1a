#!/usr/bin/env python3
"""Tune the evaluation's weights against the win rate: writes policies/tuned.json, the numbers
the `tuned` policy plays, or with --policy planner policies/planner.json, the planner's.

Coordinate search with common random numbers. A pass tries each weight in turn at (1 + step) and
(1 - step) times its value, every candidate playing the same deals as the incumbent (the standard
island, random teams, each level and player count asked for, --games deals each; new deals each
pass, so a pass starts from an unbiased measure of the incumbent). A candidate replaces the
incumbent when its paired gain in wins is above two standard errors of the paired difference;
the step shrinks by --shrink after each pass. Weights whose hand-set value is 0 stay 0 (a step is
a share of the value). Candidates play through `policies.candidate`, whose weights are written
in between runs, so nothing is compiled after the first run. With --policy planner the planner
plays them (each action chosen for the end of its turn): a weight's best value depends on who
plays the positions it scores.

A run may start from a file it wrote (--start) instead of the hand-set values: a second run with
more deals per candidate and smaller steps finds gains that the first run's sample could not tell
from noise. The file written then gives the whole chain of commands in made_by.

The file written is --out, which has no default: a trial run writes where it is told, and only
`--out policies/tuned.json` (or planner.json) replaces the shipped file. Every argument
is checked, and --out's folder found writable, before the first game.

The same seed and settings give the same numbers, whatever the thread count. Each shipped file
gives the commands that made it in its made_by; tuned's first was

    python scripts/train_tuned.py --seed 1 --games 1000 --passes 6 --out policies/tuned.json

on 2 threads (the file records its running time; docs/benchmarks.md quotes it).
Each pass records the incumbent's win rate on its new deals before and after the pass's changes
(won_before is an honest measure of the previous pass's values; won_after is biased up, as the
changes were chosen on those deals).
"""
import argparse
import json
import os
import platform
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

from fisim.cell import Cell, play
from fisim.comparison import paired_difference
from fisim.formatting import points
from fisim.limits import MAX_SEED, MAX_SIMULATE_GAMES, max_threads
from fisim.rules.constants import LEVELS
from fisim.rules.rng import game_seed
from fisim.rules.state import R_STATUS, WON
from policies import candidate, internal, planner, tuned
from policies.evaluation import WEIGHTS

CANDIDATE = internal(candidate)
# the policies trained: the version and the weights of their shipped data files
TRAINED = {"tuned": (tuned.VERSION, tuned.LEARNED), "planner": (planner.DATA_VERSION, planner.LEARNED)}


def _ranged(kind, allowed, choices):
    """An argparse type: `kind` of the text, refused unless allowed(value), naming `choices`."""
    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            value = None
        if value is None or not allowed(value):
            raise argparse.ArgumentTypeError(f"{text!r}: give {choices}")
        return value
    return parse


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=_ranged(int, lambda v: 0 <= v <= MAX_SEED,
                                               f"a whole number from 0 to {MAX_SEED}"),
                        default=1, help="master seed of every deal played")
    parser.add_argument("--games", type=_ranged(int, lambda v: 1 <= v <= MAX_SIMULATE_GAMES,
                                                f"a whole number from 1 to {MAX_SIMULATE_GAMES:,}"),
                        default=1000, help="deals per (level, players) per candidate")
    parser.add_argument("--passes", type=_ranged(int, lambda v: 0 <= v <= 100, "a whole number from 0 to 100"),
                        default=6)
    parser.add_argument("--step", type=_ranged(float, lambda v: 0 < v < 1, "a number above 0 and below 1"),
                        default=0.5, help="first pass: each weight times 1 +- step")
    parser.add_argument("--shrink", type=_ranged(float, lambda v: 0 < v <= 1, "a number above 0, at most 1"),
                        default=0.7, help="the step's factor after each pass")
    parser.add_argument("--levels", default="novice,normal,elite")
    parser.add_argument("--players", default="2,3,4", help="player counts, 2 to 4, comma-separated")
    parser.add_argument("--policy", choices=tuple(TRAINED), default="tuned",
                        help="whose play the weights are tuned for (default: tuned)")
    parser.add_argument("--weights", help="tune only these (comma-separated names; default: every nonzero one)")
    parser.add_argument("--start", type=Path,
                        help="a file this script wrote: start from its weights (default: expert's hand-set ones)")
    parser.add_argument("--threads", type=_ranged(int, lambda v: 1 <= v <= max_threads(),
                                                  f"a whole number from 1 to {max_threads()} (this machine)"),
                        default=min(2, max_threads()))
    parser.add_argument("--version", type=_ranged(int, lambda v: v >= 1, "a whole number from 1"),
                        help="the version of the data the file gives (default: the shipped file's, + 1 "
                             "if the values differ)")
    parser.add_argument("--out", type=Path, required=True,
                        help="the file to write; policies/tuned.json (planner.json) is the shipped one")
    args = parser.parse_args(argv)
    levels = args.levels.split(",")
    for level in levels:
        if level not in LEVELS:
            parser.error(f"unknown level {level!r}; choose from {', '.join(LEVELS)}")
    counts = [p.strip() for p in args.players.split(",")]
    if not all(c.isascii() and c.isdigit() and 2 <= int(c) <= 4 for c in counts):
        parser.error(f"--players {args.players}: give player counts from 2 to 4, such as 2,3,4")
    args.cells = [(level, int(p)) for level in levels for p in counts]
    names = WEIGHTS.names
    chosen = args.weights.split(",") if args.weights else names
    unknown = sorted(set(chosen) - set(names))
    if unknown:
        parser.error(f"unknown weights {', '.join(unknown)}; choose from {', '.join(names)}")
    args.start_data = _start_data(parser, args.start) if args.start else None
    args.tuned = [names.index(n) for n in chosen if WEIGHTS.hand_set[names.index(n)] != 0.0]
    _check_out(parser, args.out)
    return args


def _check_out(parser, out):
    """Refuse an --out that cannot be written, before a training of minutes or hours."""
    folder = out.resolve().parent
    if out.is_dir():
        parser.error(f"--out {out} is a directory; give a file name, such as tuned-trial.json")
    if not folder.is_dir():
        parser.error(f"--out {out}: the directory {folder} does not exist")
    if not os.access(folder, os.W_OK) or (out.exists() and not os.access(out, os.W_OK)):
        parser.error(f"--out {out}: not writable")


def _start_data(parser, path):
    """The file --start names, as this script wrote it (its weights by name and how it was made)."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        parser.error(f"--start {path}: cannot be read as JSON ({exc.__class__.__name__}: {exc})")
    missing = [k for k in ("weights", "made_by", "running_time") if not isinstance(data, dict) or k not in data]
    if missing:
        parser.error(f"--start {path}: not a file this script wrote (no {', '.join(missing)})")
    try:
        WEIGHTS.array(data["weights"])      # the table refuses a stale file's names
    except ValueError as exc:
        parser.error(f"--start {path}: {exc}")
    return data


def wins(values, args, deal_seed):
    """Won (bool per game) of every cell's deals under deal_seed, the candidate (args.policy)
    playing `values`."""
    candidate.PLAYED[:] = WEIGHTS.array(values)
    candidate.PLANS[0] = args.policy == "planner"
    return np.concatenate([
        play(Cell("standard", level, players, None, CANDIDATE, ()), deal_seed, k * args.games, args.games,
             threads=args.threads)[:, R_STATUS] == WON
        for k, (level, players) in enumerate(args.cells)])


def train(args, log=print):
    """The tuned values ({name: value}) and the passes' record."""
    values = dict(zip(WEIGHTS.names, WEIGHTS.hand_set))
    if args.start_data:
        values.update(args.start_data["weights"])
    step, record = args.step, []
    bar = tqdm(total=args.passes * 2 * len(args.tuned), unit="candidate", desc="training")
    for p in range(args.passes):
        deal_seed = int(game_seed(args.seed, p))
        base = wins(values, args, deal_seed)
        fresh = float(base.mean())      # the incumbent on deals it was not tuned on
        accepted = []
        for i in args.tuned:
            name = WEIGHTS.names[i]
            best = None
            for factor in (1 + step, 1 - step):
                trial = {**values, name: values[name] * factor}
                won = wins(trial, args, deal_seed)
                gain, low, _ = paired_difference(won, base, z=2.0)      # a gain two standard errors clear
                if low > 0 and (best is None or gain > best[0]):
                    best = (gain, trial, won)
                bar.update()
            if best is not None:
                values, base = best[1], best[2]
                accepted.append({"weight": name, "value": values[name], "gain": round(float(best[0]), 5)})
                log(f"pass {p}: {name} = {values[name]:.4g} ({points(best[0])} points on these deals)")
        record.append({"pass": p, "step": step, "won_before": round(fresh, 5),
                       "won_after": round(float(base.mean()), 5), "accepted": accepted})
        step *= args.shrink
    bar.close()
    return values, record


def _next_version(policy, weights):
    """The shipped data's version, + 1 if `weights` differ from its."""
    version, shipped = TRAINED[policy]
    return version + (weights != WEIGHTS.values(shipped))


def main(argv=None):
    args = parse_args(argv)
    start = time.time()
    values, record = train(args, log=tqdm.write)
    minutes = (time.time() - start) / 60
    settings = {k: getattr(args, k) for k in ("seed", "games", "passes", "step", "shrink", "levels", "players")}
    if args.policy != "tuned":
        settings["policy"] = args.policy
    weights = {name: values[name] for name in WEIGHTS.names}
    made_by = ("python scripts/train_tuned.py " + " ".join(f"--{k} {v}" for k, v in settings.items())
               + (f" --weights {args.weights}" if args.weights else ""))
    running_time = f"{minutes:.0f} minutes with {args.threads} threads on {os.cpu_count()} {platform.machine()} cores"
    if args.start:      # the whole chain, so that the file says how to make it from a seed
        made_by = f"{args.start_data['made_by']} --out {args.start.name} && {made_by} --start {args.start.name}"
        running_time = f"{args.start_data['running_time']}, then {running_time}"     # in the chain's order
    data = {
        "policy": args.policy,
        # a new version only when the values change (a store refuses to mix the two)
        "version": args.version or _next_version(args.policy, weights),
        "made_by": made_by,
        "running_time": running_time,
        "passes": record,
        "weights": weights,
    }
    args.out.write_text(json.dumps(data, indent=1) + "\n")
    print(f"wrote {args.out} in {minutes:.1f} minutes")


if __name__ == "__main__":
    main()
