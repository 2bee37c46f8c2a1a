"""`fisim report`: the report of results stores."""
import os

import click

from fisim.cli.options import on_interrupt
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
def report(directories, out, formats, title, agreements, baseline, disjoint, notes):
    """Write the report of results DIRECTORY...: a sweep's store (its balance report) or a ladder's
    directory (the skill ladder and per-deal difficulty); several make one report, in order."""
    from fisim.rankings import baseline_policy, policy_pair
    if (baseline is not None or disjoint) and not agreements:
        raise ConfigError(f"--{'baseline' if baseline is not None else 'disjoint'} goes with --agreement A,B")
    option = lambda argument: f"--{argument}"  # noqa: E731  (errors name the command line's options)
    pairs = [policy_pair(text, option) for text in agreements]
    baseline = baseline_policy(baseline, [p for pair in pairs for p in pair], option) if baseline else None
    with on_interrupt(f"the results in {', '.join(directories)} are untouched; each report file is whole, old or "
                      "new: run the same command to write them all"):
        make_report(directories, out, formats, title, pairs, baseline, disjoint, notes)
