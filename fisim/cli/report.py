"""`fisim report`: the report of a results store."""
import os

import click


def make_report(directory, out, formats, title):
    """Write the report of the store `directory` (`formats` as --format takes them) and say what was
    written: the report command's work, which a sweep does at its end."""
    from fisim.reporting import parse_formats, write_report
    written = write_report(directory, out, parse_formats(formats), title,
                           warn=lambda text: click.echo(f"fisim: warning: {text}", err=True))
    grouped = {"figures": "figure files", "tables": "table files"}
    named = [p.name for p in written if p.parent.name not in grouped]
    named += [f"{n} {what}" for folder, what in grouped.items() if (n := sum(p.parent.name == folder for p in written))]
    click.echo(f"report: {out or os.path.join(directory, 'report')} ({', '.join(named)})")


@click.command()
@click.argument("directory", type=click.Path(file_okay=False))
@click.option("--out", default=None, metavar="PATH", help="Report directory [default: DIRECTORY/report].")
@click.option("--format", "formats", default="html,md,png", show_default=True, metavar="LIST",
              help="What to write, comma-separated: html (one self-contained file), md, png, svg (figures), "
                   "csv (one file per table), json (every table in one file).")
@click.option("--title", default=None, help="The report's title.")
def report(directory, out, formats, title):
    """Write the balance report of a sweep's results DIRECTORY: HTML, Markdown and figures."""
    make_report(directory, out, formats, title)
