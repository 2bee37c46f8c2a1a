"""What the commands share: the options that fix one setting, --quiet, the checks of threads and
formats, a results table printed as data, the progress bar, what Ctrl-C says and a sweep's playing
with both."""
import contextlib
import logging
import sys

import click

from fisim import defaults
from fisim.errors import ConfigError, PolicyChanged
from fisim.limits import CHUNK_GAMES, MAX_REPEAT, MAX_SEED, max_threads
from fisim.rules.config import SWITCHES
from fisim.rules.constants import LEVELS
from fisim.rules.variant import MAX_SKULL
from policies import help_text

POLICY_HELP = help_text()
RULES_HELP = (f"official (as printed), a switch that reads a rule another way ({', '.join(SWITCHES)}) or a "
              "variant file FILE.toml of rule numbers; docs/cli.md says what each switch reads.")
TABLE_FORMATS = ("text", "csv", "json")


def check_threads(threads, option="--threads", what="threads"):
    """Refuse more --threads (or Dask worker processes, ...) than this machine runs at once."""
    if threads is not None and threads > max_threads():
        raise ConfigError(f"{option} {threads}: this machine runs at most {max_threads()} {what}")


def setting_options(f):
    """The options that fix one setting, shared by `simulate`, `replay` and `tune`."""
    options = [
        click.option("--level", default=defaults.LEVEL, show_default=True, metavar="LEVEL",
                     help=f"Starting water level: {', '.join(LEVELS)}, or a water meter position from 1 to "
                          f"{MAX_SKULL - 1} below the skull (1 to 9 with the official meter; docs/model.md)."),
        click.option("--players", default=defaults.PLAYERS, show_default=True, type=int,
                     help="Number of players, 2-4 (1 with --rules solo)."),
        click.option("--team", default=None, metavar="ROLE,ROLE,...",
                     help="Fix the adventurers in seat order; default: a random team each game."),
        click.option("--layout", default=defaults.LAYOUT, show_default=True, metavar="NAME|FILE",
                     help="A built-in island (see `fisim layouts`) or a layout file."),
        click.option("--policy", default=defaults.POLICY, show_default=True, metavar="NAME|FILE", help=POLICY_HELP),
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


def cell_of(level, players, team, layout, policy, rules, repeat):
    """The cell of the setting options (setting_options), checked before anything is played; an
    island that is not one connected piece gets a note."""
    from fisim.cell import Cell
    from fisim.rules.config import parse_level
    cell = Cell.of(parse_level(level), players, team, layout, policy, rules, repeat)
    if not cell.island.connected:
        click.echo(f"fisim: note: layout {cell.layout_label} is not one connected island", err=True)
    return cell


def _silence_notices(ctx, param, quiet):
    """--quiet: the library's notices (a first run's compile) are not shown."""
    if quiet:
        logging.getLogger("fisim").setLevel(logging.WARNING)
    return quiet


def quiet_option(also=""):
    """--quiet, which silences the note of a first run's compile and `also` (e.g. "progress bar")."""
    return click.option("--quiet", is_flag=True, callback=_silence_notices,
                        help=f"No {also + ', no ' if also else ''}note of a first run's compile on stderr.")


REPLAY_CHANGED = "--replay-changed"
replay_changed_option = click.option(
    REPLAY_CHANGED, "replay_changed", is_flag=True,
    help="Play again the cells of a policy that has changed since DIR was made (a new version, an edited policy "
         "file or data file), deleting their games; every other cell's games are kept. Without it such a DIR is "
         "refused.")


def check_format(fmt, choices):
    """Refuse a --format that is not one of `choices`."""
    if fmt not in choices:
        raise ConfigError(f"unknown --format {fmt!r}; choose one of: {', '.join(choices)}")


def table_text(frame, fmt):
    """A results table as CSV (with a header) or JSON (a list of records), its numbers rounded as
    the report's tables are (no float noise)."""
    from fisim.reporting.tables import as_data, to_json
    if fmt == "csv":
        return as_data(frame).to_csv(index=False).rstrip("\n")
    return to_json(frame)


class Stopped(KeyboardInterrupt):
    """Ctrl-C, with what the command keeps and how to go on (fisim.cli.main prints it)."""

    NOTHING_KEPT = "nothing was written: run the same command again"


@contextlib.contextmanager
def on_interrupt(says):
    """Ctrl-C inside ends the command saying `says` (a text, or a function of the KeyboardInterrupt
    that gives it), unless a stage within has said what it keeps."""
    try:
        yield
    except Stopped:
        raise
    except KeyboardInterrupt as exc:
        raise Stopped(says(exc) if callable(says) else says) from None


def progress_bar(show, **options):
    """A tqdm progress bar on stderr when `show`, sized as every bar of fisim's (fisim.progress.sized)."""
    from tqdm import tqdm

    from fisim.progress import sized
    return tqdm(disable=not show, file=sys.stderr, **sized(sys.stderr), **options)


def run_cells(cells, out, seed, target, per_game=False, chunk_games=CHUNK_GAMES, threads=None, scheduler=None,
              dask_local=None, quiet=False, trace_games=0, replay_changed=False):
    """fisim.sweeping.run_sweep of `cells` into store `out` (the win chance traced over the first
    `trace_games` games of each; with `replay_changed`, a changed policy's cells played again),
    with a progress bar on stderr (when it is a terminal and not `quiet`) and a Ctrl-C that keeps
    the finished chunks and says how many games they hold; the store's table of cells."""
    from fisim.store import Store, manifest_for
    from fisim.sweeping import CLUSTER_EXTRA, DaskBackend, Interrupted, LocalBackend, run_sweep, tracing, warm

    def kept(exc):
        if isinstance(exc, Interrupted):
            return f"{exc.kept:,} games (the finished chunks) are kept in {out}: run the same command to resume"
        return f"no game was played; the store {out} is as it was: run the same command to go on"

    total = target["games"] * len(cells) if "games" in target else None
    show = sys.stderr.isatty() and not quiet
    manifest = manifest_for(cells, seed, target, per_game, chunk_games, tracing(trace_games))
    try:
        Store(out).extended_by(manifest, replay_changed)     # refused before compiling
    except PolicyChanged as exc:
        raise exc.with_option(REPLAY_CHANGED) from None
    with on_interrupt(kept):
        warm(cells, trace_games > 0)     # a first run compiles here: the bar and its ETA count games only
        with progress_bar(show, total=total, unit="game", unit_scale=True, desc=f"0/{len(cells)} cells") as bar:
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
            backend = DaskBackend(scheduler, dask_local) if (scheduler or dask_local) else LocalBackend(threads)
            return run_sweep(cells, out, seed, target, per_game, backend, progress, chunk_games,
                             warn=lambda text: click.echo(f"fisim: warning: {text}", err=True),
                             note=None if quiet else lambda text: bar.write(f"fisim: {text}", file=sys.stderr),
                             trace_games=trace_games, replay_changed=replay_changed)
