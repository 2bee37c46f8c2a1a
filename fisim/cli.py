"""The `fisim` command line. Heavy modules (the engine, pandas) are imported inside commands so
that `--help` and argument errors stay fast. Every bad input ends in one line on stderr and
exit status 2; results go to stdout or to a file written whole."""
import logging
import os
import sys
import threading
import time

import click

from fisim.errors import ConfigError, FisimError
from fisim.limits import (
    CHUNK_GAMES,
    MAX_CHUNK_GAMES,
    MAX_CHUNKS,
    MAX_GAME,
    MAX_REPEAT,
    MAX_SEED,
    MAX_SIMULATE_GAMES,
    max_threads,
)
from fisim.rules.config import SWITCHES
from fisim.rules.constants import LEVELS
from fisim.rules.layouts import LayoutError
from fisim.rules.variant import MAX_SKULL
from policies import CLAIRVOYANT_NOTE, DEFAULT, LADDER, LEGAL, REPLAYS_ALIKE, PolicyError, sees_decks

POLICY_HELP = (f"Who plays: a built-in policy ({', '.join(LEGAL)}; {DEFAULT} is the strongest fast one; "
               "search:N, the strongest, checks expert's action decisions by playing N sampled worlds "
               "to the end, about a thousand times slower) or a policy .py file. clairvoyant:N is search "
               f"with the piles' true order in view, a reference: it {CLAIRVOYANT_NOTE}.")
RULES_HELP = ("official (the rules as printed) or a switch for another reading of them: "
              + "; ".join(f"{name} = {meaning}" for name, meaning in SWITCHES.items())
              + " (rule ids as in the rules contract); or a variant file FILE.toml setting the rule numbers "
              "(deck, water meter, hand limit, actions, draws, initial floods, cards to capture: see "
              "docs/model.md), combinable with switches; a file's numbers win over solo's.")
OUT_SUFFIXES = (".parquet", ".csv")
TABLE_FORMATS = ("text", "csv", "json")


def _check_threads(threads):
    if threads is not None and threads > max_threads():
        raise ConfigError(f"--threads {threads}: this machine runs at most {max_threads()} threads")


def _check_out_file(out):
    """Refuse an --out file that cannot be written, before any game is played."""
    folder = os.path.dirname(os.path.abspath(out))
    if os.path.isdir(out):
        raise ConfigError(f"--out {out} is a directory; give a file name ending in .parquet or .csv")
    if not os.path.isdir(folder):
        raise ConfigError(f"--out {out}: the directory {folder} does not exist")
    if not os.access(folder, os.W_OK):
        raise ConfigError(f"--out {out}: the directory {folder} is not writable")


def _setting_options(f):
    """The options that fix one setting, shared by `simulate`, `replay` and `tune`."""
    options = [
        click.option("--level", default="normal", show_default=True, metavar="LEVEL",
                     help=f"Starting water level: {', '.join(LEVELS)}, or a water meter position from 1 to "
                          f"{MAX_SKULL - 1} below the skull (1 to 9 with the official meter; docs/model.md)."),
        click.option("--players", default=3, show_default=True, type=int,
                     help="Number of players, 2-4 (1 with --rules solo)."),
        click.option("--team", default=None, metavar="ROLE,ROLE,...",
                     help="Fix the adventurers in seat order; default: a random team each game."),
        click.option("--layout", default="standard", show_default=True, metavar="NAME|FILE",
                     help="A built-in island (see `fisim layouts`) or a layout file."),
        click.option("--policy", default=DEFAULT, show_default=True, metavar="NAME|FILE", help=POLICY_HELP),
        click.option("--rules", "rules", multiple=True, metavar="SWITCH|FILE.toml",
                     help="Rules, repeatable to combine switches: " + RULES_HELP),
        click.option("--seed", default=0, show_default=True, type=click.IntRange(min=0, max=MAX_SEED),
                     help="Master seed; game i of a seed is always the same game."),
        click.option("--repeat", default=0, show_default=True, type=click.IntRange(min=0, max=MAX_REPEAT),
                     help="Replay the same deals with another policy stream: only the policy's own random "
                          "choices change (0: the games as dealt)."),
    ]
    for option in reversed(options):
        f = option(f)
    return f


def _cell(level, players, team, layout, policy, rules, repeat):
    """The cell of the setting options, checked up front."""
    from fisim.cell import Cell
    from fisim.rules.config import parse_level
    cell = Cell.of(parse_level(level), players, team, layout, policy, rules, repeat)
    if not cell.island.connected:
        click.echo(f"fisim: note: layout {cell.island.name} is not one connected island", err=True)
    return cell


def _silence_notices(ctx, param, quiet):
    """--quiet: the library's notices (a first run's compile) are not shown."""
    if quiet:
        logging.getLogger("fisim").setLevel(logging.WARNING)
    return quiet


def _quiet_option(also=""):
    """--quiet, which silences the note of a first run's compile and `also` (e.g. "progress bar")."""
    return click.option("--quiet", is_flag=True, callback=_silence_notices,
                        help=f"No {also + ', no ' if also else ''}note of a first run's compile on stderr.")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="fisim")
def cli():
    """fisim: how hard is Forbidden Island? Monte Carlo answers with confidence intervals."""
    notices = logging.getLogger("fisim")
    if sys.stderr.isatty() and not any(isinstance(h, _Notices) for h in notices.handlers):
        notices.addHandler(_Notices())
    notices.setLevel(logging.INFO)


class _Notices(logging.Handler):
    """The library's INFO messages (a first run's compile) as `fisim: ...` lines on stderr, when
    it is a terminal (like the progress bars: output piped to a file or a program stays as it
    was). A compile (records with `compiling` set) is one line whose elapsed time ticks until the
    compile ends."""

    def __init__(self):
        super().__init__()
        self._ticking = None

    def emit(self, record):
        compiling = getattr(record, "compiling", None)
        if compiling is None:
            click.echo(f"fisim: {record.getMessage()}", err=True)
        elif compiling:
            stop = threading.Event()
            ticker = threading.Thread(target=self._tick, args=(record.getMessage(), time.monotonic(), stop),
                                      daemon=True)
            ticker.start()
            self._ticking = stop, ticker
        else:
            if self._ticking:
                self._ticking[0].set()
                self._ticking[1].join()
                self._ticking = None
            click.echo(f"\r\033[Kfisim: {record.getMessage()}", err=True)

    @staticmethod
    def _tick(message, start, stop):
        while not stop.is_set():
            elapsed = int(time.monotonic() - start)
            click.echo(f"\r\033[Kfisim: {message} {elapsed // 60}:{elapsed % 60:02d}", err=True, nl=False)
            stop.wait(1)


@cli.command()
@_setting_options
@click.option("--games", default=10_000, show_default=True, type=click.IntRange(min=1, max=MAX_SIMULATE_GAMES),
              help="Number of games.")
@click.option("--threads", default=None, type=click.IntRange(min=1), help="Threads (default: all cores).")
@click.option("--out", default=None, metavar="FILE.parquet|FILE.csv", help="Write one row per game.")
@click.option("--format", "fmt", default="text", show_default=True, metavar="FORMAT",
              help="How to print the results: text, csv or json (one row per rate, each with its n and 95% CI).")
@_quiet_option("progress bar")
def simulate(level, players, team, layout, policy, rules, seed, repeat, games, threads, out, fmt, quiet):
    """Play GAMES games of one setting and print the win rate, loss causes, each adventurer's win
    rate, turns and treasures."""
    if out is not None and not out.endswith(OUT_SUFFIXES):
        raise ConfigError(f"--out {out}: the file name must end in .parquet or .csv")
    if out is not None:
        _check_out_file(out)
    _check_threads(threads)
    _check_format(fmt, TABLE_FORMATS)
    cell = _cell(level, players, team, layout, policy, rules, repeat)
    from fisim.cell import play_chunks
    from fisim.engine import prepare
    from fisim.results.games import write_games
    from fisim.results.tally import Tally
    from fisim.simulation import frames
    from policies import load_policy
    tally = Tally()
    show = sys.stderr.isatty() and games >= 100_000 and not quiet
    prepare([load_policy(cell.policy)])       # a first run compiles here: the bar counts games only
    with click.progressbar(length=games, label="games", file=sys.stderr if show else _Null()) as bar:
        chunks = tally.adding(play_chunks(cell, seed, 0, games, threads, bar.update))
        if out:
            write_games(out, frames(cell, seed, chunks))
        else:
            for _ in chunks:
                pass
    click.echo(_simulate_output(cell, seed, tally, fmt))
    if out:
        click.echo(f"fisim: wrote {tally.games:,} games, one row each, to {out}", err=True)


def _check_format(fmt, choices):
    if fmt not in choices:
        raise ConfigError(f"unknown --format {fmt!r}; choose one of: {', '.join(choices)}")


def _simulate_output(cell, seed, tally, fmt):
    """The results of `fisim simulate` as text for people, or one row per rate as CSV or JSON."""
    labels = {"layout": cell.island.name, "level": cell.level, "players": cell.players, "team": cell.team_label,
              "policy": cell.policy_label, "rules": cell.rules_label, "seed": seed, "repeat": cell.repeat}
    rates = tally.rates()
    if fmt != "text":
        import pandas as pd
        table = tally.table()
        table = pd.concat([pd.DataFrame([labels] * len(table)), table], axis=1)
        return _table_text(table, fmt)
    win = rates.iloc[0]
    lines = [
        f"{tally.games:,} games: {labels['layout']}, {labels['level']}, {labels['players']} players, "
        f"team {labels['team']}, policy {labels['policy']}, rules {labels['rules']}"
        + (f", repeat {cell.repeat}" if cell.repeat else ""),
        f"win rate  {100 * win['rate']:6.2f}%   95% CI {100 * win['ci_low']:.2f}-{100 * win['ci_high']:.2f}%   "
        f"({tally.wins:,} wins; the computer team's rate, not a human one)",
        "losses (share of all games, 95% CI):",
    ]
    for _, r in rates[rates["measure"] == "loss"].iterrows():
        lines.append(f"  {r['of']:<14}{100 * r['rate']:6.2f}%   {100 * r['ci_low']:.2f}-{100 * r['ci_high']:.2f}%")
    if cell.team is None:
        lines.append("win rate of the games with each adventurer in the team (95% CI, games):")
        for _, r in rates[rates["measure"] == "win with"].iterrows():
            lines.append(f"  {r['of']:<14}{100 * r['rate']:6.2f}%   {100 * r['ci_low']:.2f}-{100 * r['ci_high']:.2f}%"
                         f"   {r['games']:,}")
    lines.append(f"mean turns {tally.mean_turns:.2f}   mean treasures captured {tally.mean_treasures:.3f}")
    return "\n".join(lines)


def _table_text(frame, fmt):
    """A results table as CSV (with a header) or JSON (a list of records), its numbers rounded as
    the report's tables are (no float noise)."""
    from fisim.reporting.tables import as_data, to_json
    if fmt == "csv":
        return as_data(frame).to_csv(index=False).rstrip("\n")
    return to_json(frame)


class _Null:
    def write(self, _):
        pass

    def flush(self):
        pass


@cli.command()
@_setting_options
@click.option("--game", "game", default=0, show_default=True, type=click.IntRange(min=0, max=MAX_GAME),
              help="Which game of the seed to show.")
@_quiet_option()
def replay(level, players, team, layout, policy, rules, seed, repeat, game, quiet):
    """Print one game turn by turn: floods, sinkings, cards, actions, swims and the result."""
    cell = _cell(level, players, team, layout, policy, rules, repeat)
    from fisim import engine
    from fisim.cell import check_games
    from fisim.transcript import format_transcript
    from policies import load_policy
    island, policy = cell.island, load_policy(cell.policy)
    rec = engine.record(island, cell.config, policy, seed, game, repeat=repeat)
    check_games(rec.result[None, :], policy.NAME, game)
    title = (f"Game {game} of seed {seed}: {island.name}, {cell.level}, {cell.players} players, "
             f"policy {cell.policy_label}, rules {cell.rules_label}" + (f", repeat {repeat}" if repeat else ""))
    click.echo(format_transcript(rec.events, island, title, legend=True), nl=False)


@cli.command()
@click.option("--levels", default="novice..legendary", show_default=True, help="Levels: a range a..b or a list a,b.")
@click.option("--players", "players_text", default="2..4", show_default=True, help="Player counts: 2..4, 2,4 or 3.")
@click.option("--teams", default="random", show_default=True,
              help="random (a random team each game), all (every team of each size), or teams like "
                   "diver+pilot,engineer+explorer+messenger.")
@click.option("--layouts", "layouts_text", default="standard", show_default=True,
              help="Islands: names, all, or layout files.")
@click.option("--policies", "policies_text", default=None,
              help=f"Policies to compare, comma-separated (default: {DEFAULT}). " + POLICY_HELP)
@click.option("--rules", "rules_text", default="official", show_default=True,
              help="Rule variants, each a cell, like official,navigator-plain,heli-all+no-heli-rescue,"
                   "hard.toml+heli-all. " + RULES_HELP)
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUES",
              help="A parameter axis, repeatable: one more cell per value of a rule number a variant file "
                   "sets (waters_rise=2..5, hand_limit=4,5,6; not the meter), each changing only that number "
                   "from each --rules item, played on the same deals as it where the random streams allow.")
@click.option("--games", default=None, type=click.IntRange(min=1), help="Games per cell [default: 20000].")
@click.option("--ci", "ci", default=None, type=click.FloatRange(min=0, min_open=True, max=0.5),
              help="Instead of --games: play each cell until its 95% interval's half-width is at most this.")
@click.option("--max-games", default=10_000_000, show_default=True, type=click.IntRange(min=1),
              help="With --ci: stop a cell here even if its interval is wider.")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(min=0, max=MAX_SEED), help="Master seed.")
@click.option("--out", default="fisim-results", show_default=True, metavar="DIR", help="Results directory (resumable).")
@click.option("--threads", default=None, type=click.IntRange(min=1), help="Local threads (default: all cores).")
@click.option("--scheduler", default=None, metavar="tcp://HOST:PORT", help="Run the chunks on this Dask cluster.")
@click.option("--dask-local", default=None, type=click.IntRange(min=1), metavar="N",
              help="Start a local Dask cluster of N worker processes and run the chunks there.")
@click.option("--per-game", is_flag=True, help="Also keep one row per game (Parquet).")
@click.option("--chunk-games", default=CHUNK_GAMES, show_default=True, type=click.IntRange(min=1, max=MAX_CHUNK_GAMES),
              help="The largest chunk: a cell's chunks hold 1,000, 1,000, 2,000, 4,000 ... games up to this "
                   "many; the unit of storage, resumption and --ci steps.")
@_quiet_option("progress bar")
@click.option("--no-report", is_flag=True, help="Do not write the report (DIR/report/) at the end.")
def sweep(levels, players_text, teams, layouts_text, policies_text, rules_text, sets, games, ci, max_games, seed,
          out, threads, scheduler, dask_local, per_game, chunk_games, quiet, no_report):
    """Play every cell of a grid of settings and store the results in DIR (resumable; the same
    sweep with more games per cell or more cells extends DIR)."""
    from fisim import grid
    from policies import DEFAULT
    if games is not None and ci is not None:
        raise ConfigError("give --games or --ci, not both")
    if scheduler and dask_local:
        raise ConfigError("give --scheduler or --dask-local, not both")
    if ci is not None and not 0 < ci <= 0.5:
        raise ConfigError(f"--ci {ci}: give a half-width above 0 and at most 0.5, such as 0.005")
    target = {"ci": ci, "max_games": max_games} if ci else {"games": games or 20_000}
    limit = target.get("games", max_games)
    cells = grid.sweep_cells(levels, players_text, teams, layouts_text, policies_text or DEFAULT, rules_text, sets)
    from fisim.results.chunks import chunk_count  # (it loads pandas: after the quick checks)
    if chunk_count(limit, chunk_games) > MAX_CHUNKS:
        raise ConfigError(f"{limit:,} games per cell in chunks of {chunk_games:,} is more than {MAX_CHUNKS:,} "
                          "chunks; play fewer games or raise --chunk-games")
    if not (scheduler or dask_local):
        _check_threads(threads)
    from fisim.sweeping import format_table
    frame = _run_cells(cells, out, seed, target, per_game, chunk_games, threads, scheduler, dask_local, quiet)
    click.echo(format_table(frame))
    click.echo(f"results: {out}")
    if not no_report:
        _write_report(out, None, "html,md,png", None)


@cli.command()
@click.option("--levels", default="novice..legendary", show_default=True, help="Levels: a range a..b or a list a,b.")
@click.option("--players", "players_text", default="2..4", show_default=True, help="Player counts: 2..4, 2,4 or 3.")
@click.option("--games", default=100, show_default=True, type=click.IntRange(min=1, max=MAX_SIMULATE_GAMES),
              help="Games per level and player count for every policy: deals 0.. of the seed, the same for all "
                   "(the defaults play in minutes; the README's full-size ladder, --games 2000 --deals 500 "
                   "--repeats 20, in hours).")
@click.option("--policies", "policies_text", default=",".join(LADDER), show_default=True,
              help="The ladder's legal policies, weakest first. " + POLICY_HELP)
@click.option("--clairvoyant", "clairvoyant", default=None, type=click.IntRange(min=1), metavar="N",
              help=f"Budget of the clairvoyant reference clairvoyant:N [default: its own, 32]; it {CLAIRVOYANT_NOTE}.")
@click.option("--no-clairvoyant", is_flag=True, help="Leave the clairvoyant reference out.")
@click.option("--deals", default=20, show_default=True, type=click.IntRange(min=1, max=MAX_SIMULATE_GAMES),
              help="Per-deal difficulty: replay the first DEALS deals of each level and player count ...")
@click.option("--repeats", default=5, show_default=True, type=click.IntRange(min=2, max=MAX_REPEAT),
              help="... this many times each (repeats 0, 1, ...: only the policy's random stream differs) ...")
@click.option("--replayer", default="search:8", show_default=True, metavar="POLICY",
              help="... with this stochastic policy (one that draws on its random stream, not expert or greedy).")
@click.option("--no-deals", is_flag=True, help="Play the ladder only, no per-deal replays.")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(min=0, max=MAX_SEED), help="Master seed.")
@click.option("--out", default="fisim-ladder", show_default=True, metavar="DIR",
              help="Results directory: the stores DIR/ladder and DIR/deals (resumable), tables, figures, ladder.md.")
@click.option("--threads", default=None, type=click.IntRange(min=1), help="Threads (default: all cores).")
@_quiet_option("progress bar")
def ladder(levels, players_text, games, policies_text, clairvoyant, no_clairvoyant, deals, repeats, replayer, no_deals,
           seed, out, threads, quiet):
    """The skill ladder: every policy and the clairvoyant reference on the same deals, win rate against
    skill per level; and per-deal difficulty: deals replayed by one policy, only its random stream varying.
    It prints its plan first: the games per policy and the time they take at speeds measured here."""
    from fisim import grid
    if clairvoyant is not None and no_clairvoyant:
        raise ConfigError("give --clairvoyant N or --no-clairvoyant, not both")
    if not no_deals and deals > games:
        raise ConfigError(f"--deals {deals} needs --games of at least {deals}: every ladder policy plays each "
                          "replayed deal (or give --no-deals)")
    _check_threads(threads)
    policies = grid.parse_policies(policies_text)
    seers = [p for p in policies if sees_decks(p)]
    if seers:
        raise ConfigError(f"--policies lists {seers[0]}, which is not a legal player; the clairvoyant "
                          "reference is --clairvoyant N")
    if not no_clairvoyant:
        policies += grid.parse_policies(f"clairvoyant:{clairvoyant}" if clairvoyant else "clairvoyant")
    levels_list, players = grid.parse_levels(levels), grid.parse_players(players_text)
    replayers = [] if no_deals else grid.parse_policies(replayer)
    alike = next((p for p in replayers if p.partition(":")[0] in REPLAYS_ALIKE), None)
    if alike:
        raise ConfigError(f"--replayer {alike} never draws on its random stream, so every replay of a deal is "
                          "the same game; choose a stochastic policy, such as search:8, passive or random")
    from fisim import ladder as skill
    if not quiet:
        click.echo(skill.plan_text(levels_list, players, [named(p) for p in policies], games,
                                   [named(p) for p in replayers], deals, repeats, seed, threads or max_threads()),
                   err=True)

    _run_cells(skill.ladder_cells(levels_list, players, [named(p) for p in policies]),
               os.path.join(out, skill.LADDER_STORE), seed, {"games": games}, per_game=True, threads=threads,
               quiet=quiet)
    for name in replayers:
        _run_cells(skill.deal_cells(levels_list, players, named(name), repeats), os.path.join(out, skill.DEALS_STORE),
                   seed, {"games": deals}, per_game=True, threads=threads, quiet=quiet)
    tables = skill.read_ladder(out)
    text = skill.format_ladder(tables)
    written = skill.write_outputs(out, tables, text)
    click.echo(text)
    click.echo(f"results: {out} ({', '.join(p.name for p in written)})")


def named(policy):
    """The name a policy's cells carry: search and search:64 are one cell, named with its budget."""
    from policies import load_policy
    return policy if policy.endswith(".py") else load_policy(policy).NAME


@cli.command()
@click.option("--param", required=True, metavar="NAME",
              help="The parameter to tune: start_level (the water meter's starting position) or a rule number "
                   "(waters_rise, hand_limit, ...: the keys of a variant file but the meter).")
@click.option("--target", required=True, type=float, help="The win rate wanted, between 0 and 1 (0.5: half the games).")
@click.option("--values", "values_text", default=None, metavar="A..B|A,B,...",
              help="The values to search, in which the win rate is monotone [default: every value the setting allows].")
@_setting_options
@click.option("--max-games", default=64_000, show_default=True, type=click.IntRange(min=1, max=MAX_SIMULATE_GAMES),
              help="The budget: games per value at most (rounds of 1,000, 2,000, 4,000 ... games).")
@click.option("--out", default="fisim-tune", show_default=True, metavar="DIR",
              help="Results directory: the games of every value probed (resumable, reused by a tune run again).")
@click.option("--threads", default=None, type=click.IntRange(min=1), help="Threads (default: all cores).")
@click.option("--format", "fmt", default="text", show_default=True, metavar="FORMAT",
              help="text, csv or json (one row per value probed, rates as fractions).")
@_quiet_option("progress")
def tune(param, target, values_text, level, players, team, layout, policy, rules, seed, repeat, max_games, out,
         threads, fmt, quiet):
    """Find the value of one parameter whose win rate is closest to TARGET, probing values adaptively
    until the answer is settled at 95% confidence or the budget runs out."""
    from fisim import tuning
    from fisim.rules.config import level_label
    _check_format(fmt, TABLE_FORMATS)
    _check_threads(threads)
    if not 0 < target < 1:
        raise ConfigError(f"--target {target}: give a win rate strictly between 0 and 1, such as 0.5")
    tuning.check_param(param)
    given = click.get_current_context().get_parameter_source("level") != click.core.ParameterSource.DEFAULT
    if param == tuning.START_LEVEL and given:
        raise ConfigError("--level with --param start_level: the starting level is what is tuned; leave --level out")
    if param == tuning.START_LEVEL:
        level = level_label(1)      # the setting is checked at the lowest start, below any skull, not at a default
    _cell(level, players, team, layout, policy, rules, repeat)
    base, values = tuning.setting(param, level, players, team, layout, policy, rules, repeat, values_text)

    def note(text):
        if not quiet:
            click.echo(f"fisim: tune: {text}", err=True)

    try:
        result = tuning.tune(base, param, target, values, max_games, out, seed, threads, note,
                             warn=lambda text: click.echo(f"fisim: warning: {text}", err=True))
    except KeyboardInterrupt:
        click.echo(f"fisim: interrupted; finished chunks are kept in {out}: run the same command to resume", err=True)
        sys.exit(130)
    if fmt != "text":
        click.echo(_table_text(result.table(), fmt))
        return
    setting = (f"{base.layout_label}, {'' if param == tuning.START_LEVEL else base.level + ', '}{players} players, "
               f"team {base.team_label}, policy {base.policy_label}, rules {base.rules_label}, "
               f"seed {seed}"
               + (f", repeat {repeat}" if repeat else ""))
    click.echo(tuning.format_tuning(result, setting))
    click.echo(f"results: {out}")


def _run_cells(cells, out, seed, target, per_game=False, chunk_games=CHUNK_GAMES, threads=None, scheduler=None,
               dask_local=None, quiet=False):
    """fisim.sweeping.run_sweep of `cells` into store `out`, with a progress bar on stderr (when it is a
    terminal and not `quiet`), one-line errors, and a Ctrl-C that keeps the finished chunks; the
    store's table of cells."""
    from fisim.sweeping import CLUSTER_EXTRA, DaskBackend, Interrupted, LocalBackend, run_sweep, warm
    total = target["games"] * len(cells) if "games" in target else None
    show = sys.stderr.isatty() and not quiet
    warm(cells)     # a first run compiles here: the bar and its ETA count games only
    from tqdm import tqdm
    with tqdm(total=total, unit="game", unit_scale=True, disable=not show, file=sys.stderr,
              desc=f"0/{len(cells)} cells") as bar:
        done = [0]

        def progress(n, cells_done):
            done[0] += cells_done
            bar.set_description(f"{done[0]}/{len(cells)} cells")
            bar.update(n)

        if scheduler or dask_local:     # a lost cluster is our one line, not distributed's logged tracebacks
            try:
                import distributed  # noqa: F401  (sets up its log handlers, quietened here)
            except ImportError:
                raise ConfigError(f"--{'scheduler' if scheduler else 'dask-local'}: {CLUSTER_EXTRA}") from None
            for handler in logging.getLogger("distributed").handlers:
                handler.setLevel(logging.CRITICAL)
        try:
            backend = DaskBackend(scheduler, dask_local) if (scheduler or dask_local) else LocalBackend(threads)
            return run_sweep(cells, out, seed, target, per_game, backend, progress, chunk_games,
                             warn=lambda text: click.echo(f"fisim: warning: {text}", err=True),
                             note=None if quiet else lambda text: bar.write(f"fisim: {text}", file=sys.stderr))
        except KeyboardInterrupt as exc:
            bar.close()
            kept = f"{exc.kept:,} games (the finished chunks)" if isinstance(exc, Interrupted) else "finished chunks"
            click.echo(f"fisim: interrupted; {kept} are kept in {out}: run the same command to resume", err=True)
            sys.exit(130)


def _write_report(directory, out, formats, title):
    from fisim.reporting import parse_formats, write_report
    written = write_report(directory, out, parse_formats(formats), title,
                           warn=lambda text: click.echo(f"fisim: warning: {text}", err=True))
    grouped = {"figures": "figure files", "tables": "table files"}
    named = [p.name for p in written if p.parent.name not in grouped]
    named += [f"{n} {what}" for folder, what in grouped.items() if (n := sum(p.parent.name == folder for p in written))]
    click.echo(f"report: {out or os.path.join(directory, 'report')} ({', '.join(named)})")


@cli.command()
@click.argument("directory", type=click.Path(file_okay=False))
@click.option("--out", default=None, metavar="PATH", help="Report directory [default: DIRECTORY/report].")
@click.option("--format", "formats", default="html,md,png", show_default=True, metavar="LIST",
              help="What to write, comma-separated: html (one self-contained file), md, png, svg (figures), "
                   "csv (one file per table), json (every table in one file).")
@click.option("--title", default=None, help="The report's title.")
def report(directory, out, formats, title):
    """Write the balance report of a sweep's results DIRECTORY: HTML, Markdown and figures."""
    _write_report(directory, out, formats, title)


@cli.command()
@click.argument("directory", type=click.Path(file_okay=False))
@click.option("--by", default="layout", show_default=True, metavar="AXIS",
              help="layout, level, players, team (every team ranked), policy, rules, or role (each adventurer "
                   "in random teams against the games without it).")
@click.option("--format", "fmt", default="text", show_default=True, metavar="FORMAT",
              help="text, csv or json (one row per comparison, rates as fractions; with --agreement, one row "
                   "per ranked cell with both policies' rates and ranks).")
@click.option("--agreement", default=None, metavar="A,B",
              help="Instead: do policies A and B (both played in the sweep) rank the cells along --by alike? "
                   "Spearman's rank correlation with a bootstrap interval, and the pairs whose order flips.")
def compare(directory, by, fmt, agreement):
    """Paired differences between cells of a sweep that differ only in one setting."""
    from fisim.comparison import BY, format_comparison
    from fisim.comparison import compare as run
    if by not in BY:
        raise ConfigError(f"cannot compare by {by!r}; choose one of: {', '.join(BY)}")
    _check_format(fmt, TABLE_FORMATS)
    pair = _agreement_pair(agreement, by) if agreement is not None else None
    if pair:
        from fisim.agreement import format_agreement, rank_agreement
        result = rank_agreement(directory, by, pair)
        click.echo(format_agreement(result) if fmt == "text" else _table_text(result.items, fmt))
        return
    frame = run(directory, by)
    click.echo(format_comparison(frame, by) if fmt == "text" else _table_text(frame, fmt))


def _agreement_pair(text, by):
    """The two policies of --agreement A,B as their cells name them, or a ConfigError."""
    if by in ("policy", "role"):
        raise ConfigError(f"--agreement ranks cells along another setting than the policies; --by {by} is not one: "
                          "choose layout, level, players, team or rules")
    names = [p.strip() for p in text.split(",")]
    if len(names) != 2 or not all(names) or names[0] == names[1]:
        raise ConfigError(f"--agreement takes two different policies, A,B (e.g. expert,search:8), not {text!r}")
    try:
        return [named(p) for p in names]
    except PolicyError as exc:
        raise ConfigError(f"--agreement: {exc}") from None


@cli.command()
@click.argument("name", required=False)
def layouts(name):
    """List the built-in islands, or draw one (NAME may also be a layout file, to check it)."""
    from fisim.rules.layouts import BUILTIN_NAMES, builtin_layout, load_layout
    if name is None:
        for n in BUILTIN_NAMES:
            shape = builtin_layout(n)
            click.echo(f"{n:<26}{len(shape.rows[0])}x{len(shape.rows)}")
        return
    shape = load_layout(name)
    click.echo(f"{shape.name}: {len(shape.cells)} tiles, "
               f"{'one connected island' if shape.connected else 'NOT one connected island'}")
    click.echo(shape.draw())


def main(argv=None):
    """Entry point: an error fisim explains (fisim.errors.FisimError; a layout's LayoutError and a
    policy's PolicyError, bad input too) ends in one line on stderr and its exit status, as do
    click's own usage errors; a file that cannot be written, in one line and exit status 1."""
    try:
        cli.main(args=argv, prog_name="fisim", standalone_mode=False)
    except click.UsageError as exc:
        where = f"fisim {exc.ctx.command.name}" if exc.ctx and exc.ctx.command.name != "cli" else "fisim"
        click.echo(f"{where}: error: {exc.format_message()}", err=True)
        sys.exit(2)
    except click.ClickException as exc:
        click.echo(f"fisim: error: {exc.format_message()}", err=True)
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        click.echo("fisim: interrupted", err=True)
        sys.exit(130)
    except (FisimError, LayoutError, PolicyError) as exc:
        click.echo(f"fisim: error: {exc}", err=True)
        sys.exit(getattr(exc, "exit_status", FisimError.exit_status))
    except OSError as exc:
        where = f" {exc.filename}" if exc.filename else ""
        click.echo(f"fisim: error: cannot write{where}: {exc.strerror or exc}", err=True)
        sys.exit(1)
