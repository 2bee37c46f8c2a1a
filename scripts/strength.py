#!/usr/bin/env python3
"""The strength table of docs/strength.md: at each level and player count, the published player,
the best search over it and search:64 play the same deals, paired, until each difference against
search is known to about ±4 points.

One results store per level and player count (OUT/<level>-<players>p, a `fisim.sweep` of the three
policies on the standard island, random teams, official rules, the same master seed): game i of
each policy starts from the same shuffles. A cell grows in rounds: after each, the paired
differences player − search-over-it and player − reference (fisim.comparison.paired_difference,
from the stores' per-game wins) give the deals that would bring the wider interval's half-width to
--halfwidth points, and the cell is extended to them (in steps of --step deals, at most
--max-deals). Every cell plays its first round before any grows, so that an interrupted run leaves
a table of every cell. Run again with the same options, it resumes each store where it stopped and
plays only what is missing; once every cell is done it plays nothing and writes the table again.

The table (rates with their 95% Wilson intervals and n, the paired differences with their 95%
intervals, and the games lost on the first turn) is written between the markers of --doc, with the
command that made it, and beside it how each policy loses: the share of its games lost to each
cause (where the stronger players lose less is where the published player leaves its points).

    python scripts/strength.py --out STORES [--seed 45] [--levels novice..legendary] [--players 2..4]
        [--player planner] [--over search:8/planner] [--reference search:64]
        [--halfwidth 4] [--start 300] [--step 100] [--max-deals 2000] [--threads 1] [--doc docs/strength.md]
        [--replay-changed]

A new version of the player (or of search over it) is refused by stores of the old one; with
--replay-changed its arms are played again on the same deals and the reference's games are kept.
"""
import argparse
import math
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BEGIN = "<!-- strength table: made by scripts/strength.py -->"
END = "<!-- end of the strength table -->"


@dataclass
class Arm:
    """One policy's games of a cell, read from its store."""
    label: str          # NAME@VERSION
    wins: object        # per-game wins, in game order (a boolean array)
    first_turn: int     # games lost on the first turn
    games: int          # games counted
    losses: dict        # games lost to each cause (fisim.results.games.CAUSES: the first that held)


@dataclass
class Measured:
    """A level and player count: its three arms on the same deals."""
    level: str
    players: int
    arms: list          # the player, search over it, the reference


def parse(argv):
    from policies import PUBLISHED
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="the folder of the stores, one per level and player count")
    parser.add_argument("--seed", type=int, default=45, help="master seed: deals no policy was trained on "
                        "(tuned's were seeds 1, 7 and 8)")
    parser.add_argument("--levels", default="novice..legendary")
    parser.add_argument("--players", default="2..4")
    parser.add_argument("--player", default=PUBLISHED, help="the player measured (default: the published one)")
    parser.add_argument("--over", help="the search over it (default: search:8/PLAYER)")
    parser.add_argument("--reference", default="search:64", help="the search it is held against besides")
    parser.add_argument("--halfwidth", type=float, default=4.0,
                        help="grow a cell until both differences' 95%% half-widths are at most this (points)")
    parser.add_argument("--start", type=int, default=300, help="deals per cell in the first round")
    parser.add_argument("--step", type=int, default=100, help="deals per chunk: a cell grows by whole steps")
    parser.add_argument("--max-deals", type=int, default=2000, help="deals per cell at most")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--replay-changed", action="store_true",
                        help="play again the arms of a policy that changed since the stores were made (a new "
                             "version of the player), keeping the others' games (fisim sweep --replay-changed)")
    parser.add_argument("--doc", default=str(ROOT / "docs" / "strength.md"),
                        help="the Markdown file whose strength table is replaced")
    args = parser.parse_args(argv)
    args.over = args.over or f"search:8/{args.player}"
    for name in ("start", "step", "max_deals"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1, not {getattr(args, name)}")
    if not 0 < args.halfwidth <= 50:
        parser.error(f"--halfwidth is in points, above 0 and at most 50, not {args.halfwidth}")
    from fisim.errors import ConfigError
    from fisim.grid import parse_levels, parse_players, policy_name
    try:
        args.settings = [(level, p) for level in parse_levels(args.levels) for p in parse_players(args.players)]
        arms = {policy_name(name) for name in (args.player, args.over, args.reference)}
    except ConfigError as exc:
        parser.error(str(exc))
    if len(arms) < 3:
        parser.error("--player, --over and --reference must be three different policies")
    doc = Path(args.doc)
    if not doc.is_file() or BEGIN not in doc.read_text() or END not in doc.read_text():
        parser.error(f"--doc {doc} must be a Markdown file holding the markers {BEGIN} and {END}")
    return args


def main(argv=None):
    args = parse(argv)
    from fisim.errors import FisimError
    from fisim.store import Store
    settings = args.settings
    try:
        deals = {s: Store(store_path(args, *s)).target_games() or round_up(args.start, args) for s in settings}
        done = set()
        while len(done) < len(settings):
            for setting in settings:
                if setting in done:
                    continue
                measured = play(args, setting, deals[setting])
                wanted = deals_wanted(measured, deals[setting], args)
                print(f"{setting[0]}, {setting[1]} players: {deals[setting]:,} deals; "
                      f"{'done' if wanted == deals[setting] else f'growing to {wanted:,}'}", flush=True)
                if wanted == deals[setting]:
                    done.add(setting)
                deals[setting] = wanted
            write_table(args, [read(store_path(args, *s), args) for s in settings])
    except FisimError as exc:
        print(f"strength: error: {exc}", file=sys.stderr)
        sys.exit(exc.exit_status)


def store_path(args, level, players):
    return Path(args.out) / f"{level}-{players}p"


def round_up(deals, args):
    """`deals` in whole steps, at most --max-deals."""
    return min(args.max_deals, args.step * math.ceil(deals / args.step))


def play(args, setting, deals):
    """Play (or resume) a cell's store to `deals` deals of each arm and read it. Its games are not
    traced (a traced game of search costs as much as a hundred of its games, and the table reads
    only the outcomes), but a store made traced resumes as it was made: its traced games are the
    first of each arm, already played."""
    from fisim.errors import PolicyChanged
    from fisim.grid import sweep_cells
    from fisim.store import Store
    from fisim.sweeping import LocalBackend, run_sweep
    level, players = setting
    path = store_path(args, level, players)
    manifest = Store(path).made()
    traced = manifest["trace"]["games"] if manifest else 0
    cells = sweep_cells(level, str(players), policies=[args.player, args.over, args.reference])
    try:
        run_sweep(cells, path, args.seed, {"games": deals}, backend=LocalBackend(args.threads), chunk_games=args.step,
                  trace_games=traced, replay_changed=args.replay_changed)
    except PolicyChanged as exc:
        raise exc.with_option("--replay-changed") from None
    return read(path, args)


def read(path, args):
    """A cell's three arms, as its store holds them: the per-game wins of the chunks that count
    (fisim.tables.win_bits), their losses by cause and, from their turn histograms, the games lost
    on the first turn (no game is won on it: the four treasures take more than one turn)."""
    from fisim.grid import policy_name
    from fisim.results.games import CAUSES
    from fisim.store import policy_labels, read_store
    from fisim.tables import cell_totals, counted_chunks, win_bits
    manifest, chunks = read_store(path)
    labels = policy_labels(manifest)
    arms = []
    for name in (args.player, args.over, args.reference):
        cell = next(c for c in manifest["cells"] if c["policy"] == policy_name(name))
        totals = cell_totals(counted_chunks(chunks, cell["key"], manifest["target"])[0])
        arms.append(Arm(labels[cell["policy"]], win_bits(chunks, cell["key"], manifest["target"]),
                        int(totals["turns_hist"][1]), totals["games"],
                        {cause: totals[f"cause_{cause}"] for cause in CAUSES}))
    first = manifest["cells"][0]
    return Measured(first["level"], first["players"], arms)


def differences(measured):
    """The paired differences player − search over it and player − reference: (diff, low, high) each."""
    from fisim.comparison import paired_difference
    player, *searches = measured.arms
    n = min(len(arm.wins) for arm in measured.arms)
    return [paired_difference(player.wins[:n], arm.wins[:n]) for arm in searches]


def deals_wanted(measured, deals, args):
    """The deals the cell needs: `deals` once both half-widths are at most --halfwidth points (or
    --max-deals are played), else the deals that the wider one's variance says would do, in whole
    steps, at least one step more."""
    half = max((high - low) / 2 for _, low, high in differences(measured))
    target = args.halfwidth / 100
    if half <= target or deals >= args.max_deals:
        return deals
    return max(round_up(deals + args.step, args), round_up(deals * (half / target) ** 2, args))


def write_table(args, cells):
    """Replace the strength table of --doc with these cells'."""
    doc = Path(args.doc)
    text = doc.read_text()
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    doc.write_text(f"{head}{BEGIN}\n{table(args, cells)}\n\n{losses_table(cells)}\n{END}{tail}")


def table(args, cells):
    """The strength table in Markdown, with the command that made it."""
    from fisim.formatting import bracket, points, rate_bracket
    from fisim.stats import wilson
    names = [arm.label for arm in cells[0].arms]
    player = names[0].partition("@")[0]
    lines = [f"`{command(args)}` (seed {args.seed}; standard island, random teams, official rules; n deals "
             "per level and player count, every policy on the same deals; 95% intervals, paired for the "
             "differences):", "",
             "| level | players | n | " + " | ".join(names) + " | " + " | ".join(
                 f"{player} − {name.partition('@')[0]}" for name in names[1:]) + " | lost on turn 1 (each, in order) |",
             "|---|---|---|" + "---|" * (len(names) * 2)]
    for cell in cells:
        n = min(len(arm.wins) for arm in cell.arms)
        rates = []
        for arm in cell.arms:
            wins = int(arm.wins[:n].sum())
            low, high = wilson(wins, n)
            rates.append(rate_bracket(wins / n, low, high))
        diffs = [f"{points(d, 1)} {bracket(low, high, signed=True)}" for d, low, high in differences(cell)]
        turn1 = " / ".join(str(arm.first_turn) for arm in cell.arms)
        lines.append(f"| {cell.level} | {cell.players} | {n:,} | " + " | ".join(rates + diffs) + f" | {turn1} |")
    return "\n".join(lines)


# the loss causes (fisim.results.games.CAUSES) as the table heads them
CAUSE_HEADS = {"landing_sunk": "Fools' Landing sunk", "treasure_lost": "a treasure lost", "drowned": "a pawn drowned",
               "skull": "the water at the skull"}


def losses_table(cells):
    """How each policy loses, cell by cell: the share of its games lost to each cause."""
    from fisim.formatting import points
    names = " / ".join(arm.label for arm in cells[0].arms)
    lines = [f"How each loses: the share of its games lost to each cause, in percent ({names}; a game that "
             "meets several losing conditions at once counts under the first, in the order of the columns):", "",
             "| level | players | n | " + " | ".join(CAUSE_HEADS.values()) + " |",
             "|---|---|---|" + "---|" * len(CAUSE_HEADS)]
    for cell in cells:
        shares = [" / ".join(points(arm.losses[cause] / arm.games, 1, signed=False) for arm in cell.arms)
                  for cause in CAUSE_HEADS]
        lines.append(f"| {cell.level} | {cell.players} | {cell.arms[0].games:,} | " + " | ".join(shares) + " |")
    return "\n".join(lines)


def command(args):
    """The command that makes this table (its options as given)."""
    given = ["python", "scripts/strength.py", "--out", args.out, "--seed", str(args.seed), "--levels", args.levels,
             "--players", args.players, "--player", args.player, "--over", args.over, "--reference", args.reference,
             "--halfwidth", f"{args.halfwidth:g}", "--start", str(args.start), "--step", str(args.step),
             "--max-deals", str(args.max_deals), "--threads", str(args.threads)]
    return shlex.join(given)


if __name__ == "__main__":
    main()
