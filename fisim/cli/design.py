"""`fisim design`: the rule numbers whose win rates come closest to a target per level."""
import click
from click.core import ParameterSource

from fisim import defaults
from fisim.cli.options import POLICY_HELP, RULES_HELP, check_threads, on_interrupt, quiet_option
from fisim.cli.report import REPORT_FORMATS, make_report
from fisim.designing.constraints import FEEL
from fisim.errors import ConfigError
from fisim.limits import MAX_SEED, MAX_SIMULATE_GAMES, MAX_TRACE_GAMES


def feel_options(f):
    """One --NAME LOW..HIGH option per feel measure: a constraint of the search."""
    for feel in reversed(FEEL.values()):
        f = click.option(f"--{feel.name.replace('_', '-')}", f"feel_{feel.name}", default=None, metavar="LOW..HIGH",
                         help=f"A constraint: {feel.meaning}, within LOW..HIGH, as {feel.example} (an end may be "
                              "left open).")(f)
    return f


@click.command()
@click.option("--set", "sets", multiple=True, required=True, metavar="NUMBER=A..B",
              help="A rule number and its range (or list: 4,5,6), repeatable: the keys of a variant file but the "
                   "meter (treasure_cards, helicopter_lifts, sandbags, waters_rise, hand_limit, actions, draws, "
                   "initial_floods, capture). Every tuple of the ranges is a candidate.")
@click.option("--target", "target", required=True, metavar="LEVEL=RATE,...",
              help="The win rate wanted at each level, as novice=0.85,normal=0.65,elite=0.40,legendary=0.20 "
                   "(a level a name or a water meter position).")
@click.option("--players", default=str(defaults.PLAYERS), show_default=True, metavar="N|A..B|each|pooled",
              help="A player count; several (2..4 or 2,4: each held to the targets); each (2..4 each); or pooled "
                   "(2..4 pooled: each deal played at every count, its wins averaged).")
@click.option("--team", default=None, metavar="ROLE,ROLE,...",
              help="Fix the adventurers in seat order (one player count); default: a random team each game.")
@click.option("--layout", default=defaults.LAYOUT, show_default=True, metavar="NAME|FILE",
              help="A built-in island (see `fisim layouts`) or a layout file.")
@click.option("--policy", default=defaults.POLICY, show_default=True, metavar="NAME|FILE", help=POLICY_HELP)
@click.option("--rules", "rules", multiple=True, metavar="SWITCH|FILE.toml",
              help="The base rules the change is measured from, repeatable to combine switches: " + RULES_HELP)
@click.option("--tolerance", default=defaults.DESIGN_TOLERANCE, show_default=True, type=float,
              help="A candidate fits when every win rate is within this of its target; among those that fit, "
                   "the smallest change from the base rules wins.")
@feel_options
@click.option("--budget", default=defaults.DESIGN_BUDGET, show_default=True,
              type=click.IntRange(min=1, max=MAX_SIMULATE_GAMES),
              help="Games the search may play in all (looks of 100, 200, 400, 800, 1,800, 2,800 ... games per "
                   "cell).")
@click.option("--verify-games", default=None, type=click.IntRange(min=1, max=MAX_SIMULATE_GAMES),
              help="Fresh games per cell (level and player count) of each candidate verified, a multiple of 1,000 "
                   "[default: sized to the tolerance: a 95% interval at most half of it on either side].")
@click.option("--best", default=defaults.DESIGN_BEST, show_default=True, type=click.IntRange(min=1, max=100),
              help="How many of the best candidates to verify on fresh deals.")
@click.option("--trace-games", default=defaults.TRACE_GAMES, show_default=True,
              type=click.IntRange(min=0, max=MAX_TRACE_GAMES), metavar="N",
              help="Trace the team's chance of winning over the first N fresh games of each cell verified (drama "
                   "and decisiveness), as sweep --trace-games does, and over the search's first N of each cell when "
                   "--drama or --decided is given. 0: none.")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(min=0, max=MAX_SEED - 2),
              help="Master seed of the search (its longer looks play seed+2's games); the verification plays "
                   "seed+1's.")
@click.option("--out", default=defaults.DESIGN_OUT, show_default=True, metavar="DIR",
              help="Results directory: the search's and the verification's games (resumable stores), design.json, "
                   "candidates.csv/.json, curves.csv/.json, best.toml and the report.")
@click.option("--threads", default=None, type=click.IntRange(min=1), help="Threads (default: all cores).")
@quiet_option("progress lines")
@click.option("--format", "formats", default=REPORT_FORMATS, show_default=True, metavar="LIST",
              help="What the report at the end writes, as `fisim report --format` takes it.")
@click.option("--no-report", is_flag=True, help="Do not write the report (DIR/report/) at the end.")
def design(sets, target, players, team, layout, policy, rules, tolerance, budget, verify_games, best, trace_games,
           seed, out, threads, quiet, formats, no_report, **feel):
    """Find the rule numbers whose win rates come closest to a target per level: the candidates
    (every tuple of the --set ranges) raced in order of change on the same deals, the best verified
    on fresh ones."""
    from fisim import designing
    from fisim.designing.request import plan as planned
    if no_report and click.get_current_context().get_parameter_source("formats") != ParameterSource.DEFAULT:
        raise ConfigError("give --format or --no-report, not both")
    from fisim.reporting import parse_formats
    parse_formats(formats)      # a bad format is refused before any game is played
    check_threads(threads)
    windows = {name.removeprefix("feel_"): window for name, window in feel.items() if window is not None}
    plan = planned(sets, target, players, team, layout, policy, rules, tolerance, windows, budget, verify_games, best,
                   trace_games, seed)

    def note(text):
        if not quiet:
            click.echo(f"fisim: design: {text}", err=True)

    def kept(exc):
        from fisim.sweeping import Interrupted
        if isinstance(exc, Interrupted):
            return f"{exc.kept:,} games (the finished chunks) are kept in {out}: run the same command to resume"
        return f"no game was played; {out} is as it was: run the same command to go on"

    with on_interrupt(kept):
        result = designing.run(plan, out, threads, note, warn=lambda text: click.echo(f"fisim: warning: {text}",
                                                                                      err=True))
    from fisim.designing.text import format_design
    click.echo(format_design(result, out))
    if not no_report:
        with on_interrupt(f"the design in {out} is complete: run the same command (or fisim report {out}) to write "
                          "its report"):
            make_report(out, None, formats, None)
