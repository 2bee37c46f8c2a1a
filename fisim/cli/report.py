"""`fisim report`: the report of results stores."""
import os

import click

from fisim import defaults
from fisim.cli.options import check_threads, on_interrupt, run_cells
from fisim.errors import ConfigError
from fisim.reporting import DEFAULT_FORMATS

REPORT_FORMATS = ",".join(DEFAULT_FORMATS)


def make_report(directories, out, formats, title, agreements=(), baseline=None, disjoint=False, notes=()):
    """Write the report of the `directories` (`formats` as --format takes them) and say what was
    written: the report command's work, which a sweep does at its end."""
    from fisim.reporting import parse_formats, write_report
    directories = [directories] if isinstance(directories, str) else list(directories)
    written = write_report(directories, out, parse_formats(formats), title,
                           warn=lambda text: click.echo(f"fisim: warning: {text}", err=True), agreements=agreements,
                           baseline=baseline, disjoint=disjoint, notes=notes)
    grouped = {"figures": "figure files", "tables": "table files"}
    named = [p.name for p in written if p.parent.name not in grouped]
    named += [f"{n} {what}" for folder, what in grouped.items() if (n := sum(p.parent.name == folder for p in written))]
    click.echo(f"report: {out or os.path.join(directories[0], 'report')} ({', '.join(named)})")


@click.command()
@click.argument("directories", nargs=-1, required=True, type=click.Path(file_okay=False), metavar="DIRECTORY...")
@click.option("--out", default=None, metavar="PATH", help="Report directory [default: the first DIRECTORY/report].")
@click.option("--format", "formats", default=REPORT_FORMATS, show_default=True, metavar="LIST",
              help="What to write, comma-separated: html (one self-contained file), md, png, svg (figures), "
                   "csv (one file per table), json (every table in one file).")
@click.option("--title", default=None, help="The report's title.")
@click.option("--agreement", "agreements", multiple=True, metavar="A,B",
              help="Instead of a sweep store's balance report: do policies A and B (both played in it) rank its "
                   "cells alike (as fisim compare --agreement), by the first setting the store varies of team, "
                   "layout, rules, level and players. Repeatable: a section per pair.")
@click.option("--baseline", default=None, metavar="C",
              help="With --agreement: beside each pair, whether A ranks as alike to B as policy C does.")
@click.option("--disjoint", is_flag=True,
              help="With --agreement: the correlations on disjoint deals too (B on the second half of each cell's "
                   "games, the others on the first).")
@click.option("--note", "notes", multiple=True, metavar="TEXT",
              help="A paragraph set under the report's title (who made it, how long it took); repeatable.")
@click.option("--stronger", default=None, metavar="POLICY",
              help="Check the report's headline conclusions under a stronger POLICY (such as search:8/planner) on a "
                   "sample of the same deals, played into DIRECTORY/stronger (resumable); the report gains the "
                   "section 'Would a stronger team agree?' (docs/cli.md).")
@click.option("--stronger-games", default=None, type=click.IntRange(min=1), metavar="N",
              help=f"With --stronger: games per win rate compared, spread over the cells it pools (which play "
                   f"the same deals) [default: {defaults.STRONGER_GAMES}].")
@click.option("--threads", default=None, type=click.IntRange(min=1), metavar="K",
              help="With --stronger: local threads to play on (default: all cores).")
def report(directories, out, formats, title, agreements, baseline, disjoint, notes, stronger, stronger_games,
           threads):
    """Write the report of results DIRECTORY...: a sweep's store (its balance report) or a ladder's
    directory (the skill ladder and per-deal difficulty); several make one report, in order."""
    from fisim.rankings import baseline_policy, policy_pair
    if (baseline is not None or disjoint) and not agreements:
        raise ConfigError(f"--{'baseline' if baseline is not None else 'disjoint'} goes with --agreement A,B")
    if stronger is not None:
        check_stronger(directories, stronger, stronger_games or defaults.STRONGER_GAMES, threads, agreements,
                       formats)
    elif stronger_games is not None or threads is not None:
        raise ConfigError(f"--{'stronger-games' if stronger_games is not None else 'threads'} goes with "
                          "--stronger POLICY")
    option = lambda argument: f"--{argument}"  # noqa: E731  (errors name the command line's options)
    pairs = [policy_pair(text, option) for text in agreements]
    shared = [p for p in pairs[0] if all(p in pair for pair in pairs)] if pairs else []
    baseline = baseline_policy(baseline, shared, option) if baseline else None   # set beside each pair it is not in
    with on_interrupt(f"the results in {', '.join(directories)} are untouched; each report file is whole, old or "
                      "new: run the same command to write them all"):
        make_report(directories, out, formats, title, pairs, baseline, disjoint, notes)


def check_stronger(directories, stronger, games, threads, agreements, formats):
    """Play the games of `fisim report --stronger` into DIRECTORY/stronger, after every check that
    needs no game (one line and nothing played otherwise)."""
    from fisim.reporting import parse_formats
    if agreements:
        raise ConfigError("give --stronger or --agreement, not both")
    if len(directories) != 1:
        raise ConfigError(f"--stronger checks the conclusions of one sweep store, not {len(directories)} directories")
    check_threads(threads)
    parse_formats(formats)
    from fisim.stronger import play

    def run(cells, path, seed, target):
        click.echo(f"stronger: {len(cells):,} cells of {cells[0].policy_label}, {target['games']:,} games each, "
                   f"into {path}", err=True)
        run_cells(cells, str(path), seed, target, threads=threads)

    with on_interrupt(f"the check's finished chunks are kept in {os.path.join(directories[0], 'stronger')}: run the "
                      "same command to go on"):
        play(directories[0], stronger, games, run)
