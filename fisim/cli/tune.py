"""`fisim tune`: the value of one parameter whose win rate is closest to a target."""
import click

from fisim import defaults
from fisim.cli.options import (
    TABLE_FORMATS,
    cell_of,
    check_format,
    check_threads,
    on_interrupt,
    quiet_option,
    setting_options,
    table_text,
)
from fisim.errors import ConfigError
from fisim.limits import MAX_SIMULATE_GAMES


@click.command()
@click.option("--param", required=True, metavar="NAME",
              help="The parameter to tune: start_level (the water meter's starting position) or a rule number "
                   "(waters_rise, hand_limit, ...: the keys of a variant file but the meter).")
@click.option("--target", required=True, type=float, help="The win rate wanted, between 0 and 1 (0.5: half the games).")
@click.option("--values", "values_text", default=None, metavar="A..B|A,B,...",
              help="The values to search, in which the win rate is monotone [default: every value the setting allows].")
@setting_options
@click.option("--max-games", default=defaults.TUNE_MAX_GAMES, show_default=True,
              type=click.IntRange(min=1, max=MAX_SIMULATE_GAMES),
              help="The budget: games per value at most (rounds of 1,000, 2,000, 4,000 ... games).")
@click.option("--out", default=defaults.TUNE_OUT, show_default=True, metavar="DIR",
              help="Results directory: the games of every value probed (resumable, reused by a tune run again).")
@click.option("--threads", default=None, type=click.IntRange(min=1), help="Threads (default: all cores).")
@click.option("--format", "fmt", default="text", show_default=True, metavar="FORMAT",
              help="text, csv or json (one row per value probed, rates as fractions).")
@quiet_option("progress")
def tune(param, target, values_text, level, players, team, layout, policy, rules, seed, repeat, max_games, out,
         threads, fmt, quiet):
    """Find the value of one parameter whose win rate is closest to TARGET, probing values adaptively
    until the answer is settled at 95% confidence or the budget runs out."""
    from fisim import tuning
    from fisim.rules.config import level_label
    check_format(fmt, TABLE_FORMATS)
    check_threads(threads)
    if not 0 < target < 1:
        raise ConfigError(f"--target {target}: give a win rate strictly between 0 and 1, such as 0.5")
    tuning.check_param(param)
    given = click.get_current_context().get_parameter_source("level") != click.core.ParameterSource.DEFAULT
    if param == tuning.START_LEVEL and given:
        raise ConfigError("--level with --param start_level: the starting level is what is tuned; leave --level out")
    if param == tuning.START_LEVEL:
        level = level_label(1)      # the setting is checked at the lowest start, below any skull, not at a default
    cell_of(level, players, team, layout, policy, rules, repeat)
    base, values = tuning.setting(param, level, players, team, layout, policy, rules, repeat, values_text)

    def note(text):
        if not quiet:
            click.echo(f"fisim: tune: {text}", err=True)

    with on_interrupt(f"the finished chunks are kept in {out}: run the same command to resume"):
        result = tuning.tune(base, param, target, values, max_games, out, seed, threads, note,
                             warn=lambda text: click.echo(f"fisim: warning: {text}", err=True))
    if fmt != "text":
        click.echo(table_text(result.table(), fmt))
        return
    setting = (f"{base.layout_label}, {'' if param == tuning.START_LEVEL else base.level + ', '}{players} players, "
               f"team {base.team_label}, policy {base.policy_label}, rules {base.rules_label}, "
               f"seed {seed}"
               + (f", repeat {repeat}" if repeat else ""))
    click.echo(tuning.format_tuning(result, setting))
    click.echo(f"results: {out}")
