"""`fisim compare`: paired differences between a store's cells, or two policies' agreement."""
import contextlib
import sys

import click

from fisim.cli.options import TABLE_FORMATS, check_format, progress_bar, table_text


@click.command()
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
@click.option("--baseline", default=None, metavar="C",
              help="With --agreement A,B: does A rank as alike to B as policy C (played on the same cells) does? "
                   "The difference of A's and C's correlations with B, paired, with its bootstrap interval.")
@click.option("--disjoint", is_flag=True,
              help="With --agreement A,B: B ranks by the second half of each cell's games, A (and C) by the first, "
                   "so that no deal is shared: policies that play alike win and lose the same deals, which "
                   "raises their correlation on the same deals.")
def compare(directory, by, fmt, agreement, baseline, disjoint):
    """Paired differences between cells of a sweep that differ only in one setting."""
    from fisim.comparison import compare as run
    from fisim.comparison import format_comparison
    from fisim.rankings import compare_options
    pair, baseline = compare_options(by, agreement, baseline, disjoint, option="--")
    check_format(fmt, TABLE_FORMATS)
    with _reading_bar() as progress:
        if pair:
            from fisim.rankings import rank_agreement
            result = rank_agreement(directory, by, pair, baseline, disjoint, progress=progress)
        else:
            frame = run(directory, by, progress)
    if pair:
        from fisim.reporting.agreement import section
        from fisim.reporting.text import render_sections
        click.echo(render_sections([section([result])]) if fmt == "text" else table_text(result.items, fmt))
    else:
        click.echo(format_comparison(frame, by) if fmt == "text" else table_text(frame, fmt))


@contextlib.contextmanager
def _reading_bar():
    """progress(n, total) of a store's chunk files read, as a bar on stderr when it is a terminal and
    the reading lasts more than a couple of seconds (a large store)."""
    from fisim.progress import DELAY
    with progress_bar(sys.stderr.isatty(), unit=" chunk files", desc="reading the store", delay=DELAY) as bar:
        def progress(n, total):
            bar.total = total
            bar.update(n)
        yield progress
