"""`fisim sweep`: play every cell of a grid into a results store, with a progress bar."""

import click
from click.core import ParameterSource

from fisim import defaults
from fisim.cli.options import (
    POLICY_HELP,
    RULES_HELP,
    check_threads,
    on_interrupt,
    quiet_option,
    replay_changed_option,
    run_cells,
)
from fisim.cli.report import REPORT_FORMATS, make_report
from fisim.errors import ConfigError
from fisim.limits import CHUNK_GAMES, MAX_CHUNK_GAMES, MAX_SEED, MAX_TRACE_GAMES


@click.command()
@click.option("--levels", default=defaults.LEVELS, show_default=True, help="Levels: a range a..b or a list a,b.")
@click.option("--players", "players_text", default=defaults.PLAYER_COUNTS, show_default=True,
              help="Player counts: 2..4, 2,4 or 3.")
@click.option("--teams", default="random", show_default=True,
              help="random (a random team each game), all (every team of each size), or teams like "
                   "diver+pilot,engineer+explorer+messenger.")
@click.option("--layouts", "layouts_text", default=defaults.LAYOUT, show_default=True,
              help="Islands: names, all, or layout files.")
@click.option("--policies", "policies_text", default=defaults.POLICY, show_default=True,
              help="Policies to compare, comma-separated. " + POLICY_HELP)
@click.option("--rules", "rules_text", default="official", show_default=True,
              help="Rule variants, each a cell, like official,navigator-plain,heli-all+no-heli-rescue,"
                   "hard.toml+heli-all, or all (the official rules and every switch alone). " + RULES_HELP)
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUES",
              help="A parameter axis, repeatable: one more cell per value of a rule number a variant file "
                   "sets (waters_rise=2..5, hand_limit=4,5,6; not the meter), each changing only that number "
                   "from each --rules item, played on the same deals as it where the random streams allow.")
@click.option("--games", default=None, type=click.IntRange(min=1),
              help=f"Games per cell [default: {defaults.SWEEP_GAMES}].")
@click.option("--ci", "ci", default=None, type=click.FloatRange(min=0, min_open=True, max=0.5),
              help="Instead of --games: play each cell until its 95% interval's half-width is at most this.")
@click.option("--max-games", default=defaults.CI_MAX_GAMES, show_default=True, type=click.IntRange(min=1),
              help="With --ci: stop a cell here even if its interval is wider.")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(min=0, max=MAX_SEED), help="Master seed.")
@click.option("--out", default=defaults.SWEEP_OUT, show_default=True, metavar="DIR",
              help="Results directory (resumable).")
@click.option("--threads", default=None, type=click.IntRange(min=1), help="Local threads (default: all cores).")
@click.option("--scheduler", default=None, metavar="tcp://HOST:PORT", help="Run the chunks on this Dask cluster.")
@click.option("--dask-local", default=None, type=click.IntRange(min=1), metavar="N",
              help="Start a local Dask cluster of N worker processes (at most one a core) and run the chunks there.")
@click.option("--per-game", is_flag=True, help="Also keep one row per game (Parquet).")
@click.option("--chunk-games", default=CHUNK_GAMES, show_default=True, type=click.IntRange(min=1, max=MAX_CHUNK_GAMES),
              help="The largest chunk: a cell's chunks hold 1,000, 1,000, 2,000, 4,000 ... games up to this "
                   "many; the unit of storage, resumption and --ci steps.")
@click.option("--trace-games", default=defaults.TRACE_GAMES, show_default=True,
              type=click.IntRange(min=0, max=MAX_TRACE_GAMES), metavar="N",
              help=f"Trace the team's chance of winning over the first N games of each cell: at the start of "
                   f"each round, {defaults.TRACE_WORLDS} sampled worlds played on by the cell's policy (public "
                   f"information only), for the report's drama and decisiveness; costs about "
                   f"{defaults.TRACE_WORLDS} x rounds x half a game per game traced. 0: none.")
@replay_changed_option
@quiet_option("progress bar")
@click.option("--format", "formats", default=REPORT_FORMATS, show_default=True, metavar="LIST",
              help="What the report at the end writes, as `fisim report --format` takes it: html, md, png, svg, "
                   "csv (one file per table), json (every table in one file).")
@click.option("--no-report", is_flag=True, help="Do not write the report (DIR/report/) at the end.")
def sweep(levels, players_text, teams, layouts_text, policies_text, rules_text, sets, games, ci, max_games, seed,
          out, threads, scheduler, dask_local, per_game, chunk_games, trace_games, replay_changed, quiet, formats,
          no_report):
    """Play every cell of a grid of settings and store the results in DIR (resumable; the same
    sweep with more games per cell or more cells extends DIR)."""
    from fisim import grid
    if scheduler and dask_local:
        raise ConfigError("give --scheduler or --dask-local, not both")
    if no_report and click.get_current_context().get_parameter_source("formats") != ParameterSource.DEFAULT:
        raise ConfigError("give --format or --no-report, not both")
    from fisim.reporting import parse_formats
    parse_formats(formats)      # a bad format is refused before any game is played
    cells = grid.sweep_cells(levels, players_text, teams, layouts_text, policies_text, rules_text, sets)
    from fisim.results.chunks import sweep_target  # (it loads pandas: after the quick checks)
    target = sweep_target(games, ci, max_games, chunk_games, option="--")
    if not (scheduler or dask_local):
        check_threads(threads)
    check_threads(dask_local, "--dask-local", "worker processes at once (one a core)")
    from fisim.sweeping import format_table
    frame = run_cells(cells, out, seed, target, per_game, chunk_games, threads, scheduler, dask_local, quiet,
                      trace_games, replay_changed)
    click.echo(format_table(frame))
    click.echo(f"results: {out}")
    if not no_report:
        with on_interrupt(f"the store {out} is complete: run the same command (or fisim report {out}) to write "
                          "its report"):
            make_report(out, None, formats, None)
