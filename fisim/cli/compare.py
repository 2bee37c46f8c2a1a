"""`fisim compare`: paired differences between a store's cells, or two policies' agreement."""
import click

from fisim.cli.options import TABLE_FORMATS, check_format, policy_name, table_text
from fisim.errors import ConfigError
from policies import PolicyError


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
    from fisim.comparison import BY, format_comparison
    from fisim.comparison import compare as run
    if by not in BY:
        raise ConfigError(f"cannot compare by {by!r}; choose one of: {', '.join(BY)}")
    check_format(fmt, TABLE_FORMATS)
    if agreement is not None and by in ("policy", "role"):
        raise ConfigError(f"--agreement ranks cells along another setting than the policies; --by {by} is not one: "
                          "choose layout, level, players, team or rules")
    pair = agreement_pair(agreement) if agreement is not None else None
    if baseline is not None:
        baseline = baseline_name(baseline, pair)
    if disjoint and not pair:
        raise ConfigError("--disjoint goes with --agreement A,B (B ranks by other deals than A)")
    if pair:
        from fisim.agreement import rank_agreement
        from fisim.reporting.agreement import section
        from fisim.reporting.text import render_sections
        result = rank_agreement(directory, by, pair, baseline, disjoint)
        click.echo(render_sections([section([result])]) if fmt == "text" else table_text(result.items, fmt))
        return
    frame = run(directory, by)
    click.echo(format_comparison(frame, by) if fmt == "text" else table_text(frame, fmt))


def agreement_pair(text):
    """The two policies of --agreement A,B as their cells name them, or a ConfigError."""
    names = [p.strip() for p in text.split(",")]
    if len(names) != 2 or not all(names) or names[0] == names[1]:
        raise ConfigError(f"--agreement takes two different policies, A,B (e.g. expert,search:8), not {text!r}")
    return [named_policy("--agreement", p) for p in names]


def named_policy(option, text):
    """The policy an option names, as its cells name it, or a ConfigError."""
    try:
        return policy_name(text.strip())
    except PolicyError as exc:
        raise ConfigError(f"{option}: {exc}") from None


def baseline_name(text, pair):
    """The policy of --baseline C as its cells name it, or a ConfigError."""
    if not pair:
        raise ConfigError("--baseline C goes with --agreement A,B (does A rank as alike to B as C does?)")
    name = named_policy("--baseline", text)
    if name in pair:
        raise ConfigError(f"--baseline {text} is one of --agreement's policies ({','.join(pair)}); choose a third")
    return name
