"""The `fisim` command line. Heavy modules (the engine, pandas) are imported inside commands so
that `--help` and argument errors stay fast. Every bad input ends in one line on stderr and
exit status 2; results go to stdout or to a file written whole."""
import sys

import click

from fisim.rules.config import SWITCHES
from fisim.rules.constants import LEVELS

OUT_SUFFIXES = (".parquet", ".csv")


class UserError(click.ClickException):
    """A bad input: one line, exit status 2."""

    exit_code = 2


def _setting_options(f):
    """The options that fix one setting, shared by `simulate` and `replay`."""
    options = [
        click.option("--level", default="normal", show_default=True, metavar="LEVEL",
                     help=f"Starting water level: {', '.join(LEVELS)}."),
        click.option("--players", default=3, show_default=True, type=int,
                     help="Number of players, 2-4 (1 with --rules solo)."),
        click.option("--team", default=None, metavar="ROLE,ROLE,...",
                     help="Fix the adventurers in seat order; default: a random team each game."),
        click.option("--layout", default="standard", show_default=True, metavar="NAME|FILE",
                     help="A built-in island (see `fisim layouts`) or a layout file."),
        click.option("--policy", default="random", show_default=True, metavar="NAME|FILE",
                     help="Who plays: random, passive, or a policy .py file."),
        click.option("--rules", "rules", multiple=True, metavar="SWITCH",
                     help=f"A rule switch (repeatable): official, {', '.join(SWITCHES)}."),
        click.option("--seed", default=0, show_default=True, type=click.IntRange(min=0),
                     help="Master seed; game i of a seed is always the same game."),
    ]
    for option in reversed(options):
        f = option(f)
    return f


def _checked(level, players, team, layout, policy, rules):
    """Validate a setting up front; raise UserError with the one-line reason."""
    from fisim.rules.config import ConfigError
    from fisim.rules.layouts import LayoutError, load_layout
    from fisim.simulate import make_config
    from policies import PolicyError, load_policy
    try:
        if level not in LEVELS:
            raise ConfigError(f"unknown level {level!r}; choose one of: {', '.join(LEVELS)}")
        config = make_config(level, players, team, rules)
        island = load_layout(layout)
        load_policy(policy)
    except (ConfigError, LayoutError, PolicyError) as exc:
        raise UserError(str(exc)) from None
    if not island.connected:
        click.echo(f"fisim: note: layout {island.name} is not one connected island", err=True)
    return config, island


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="fisim")
def cli():
    """fisim: how hard is Forbidden Island? Monte Carlo answers with confidence intervals."""


@cli.command()
@_setting_options
@click.option("--games", default=10_000, show_default=True, type=click.IntRange(min=1),
              help="Number of games.")
@click.option("--threads", default=None, type=click.IntRange(min=1), help="Threads (default: all cores).")
@click.option("--out", default=None, metavar="FILE.parquet|FILE.csv", help="Write one row per game.")
def simulate(level, players, team, layout, policy, rules, seed, games, threads, out):
    """Play GAMES games of one setting and print the win rate, loss causes, turns and treasures."""
    if out is not None and not out.endswith(OUT_SUFFIXES):
        raise UserError(f"--out {out}: the file name must end in .parquet or .csv")
    _checked(level, players, team, layout, policy, rules)
    from fisim.simulate import EngineError, simulate as run, summary, write_frame
    show = sys.stderr.isatty() and games >= 100_000
    with click.progressbar(length=games, label="games", file=sys.stderr if show else _Null()) as bar:
        try:
            frame = run(level, players, team, layout, policy, rules, games, seed, threads,
                        progress=bar.update)
        except EngineError as exc:
            raise UserError(str(exc)) from None
    if out:
        write_frame(frame, out)
    click.echo(_format_summary(summary(frame), frame))


def _format_summary(s, frame):
    low, high = s["ci"]
    first = frame.iloc[0]
    lines = [
        f"{s['games']:,} games: {first['layout']}, {first['level']}, {first['players']} players, "
        f"policy {first['policy']}, rules {first['rules']}",
        f"win rate  {100 * s['win_rate']:6.2f}%   95% CI {100 * low:.2f}-{100 * high:.2f}%   "
        f"({s['wins']:,} wins; the computer team's rate, not a human one)",
        "losses (share of all games, 95% CI):",
    ]
    for name, (k, lo, hi) in s["causes"].items():
        lines.append(f"  {name:<14}{100 * k / s['games']:6.2f}%   {100 * lo:.2f}-{100 * hi:.2f}%")
    lines.append(f"mean turns {s['mean_turns']:.2f}   mean treasures captured {s['mean_treasures']:.3f}")
    return "\n".join(lines)


class _Null:
    def write(self, _):
        pass

    def flush(self):
        pass


@cli.command()
@_setting_options
@click.option("--game", "game", default=0, show_default=True, type=click.IntRange(min=0),
              help="Which game of the seed to show.")
def replay(level, players, team, layout, policy, rules, seed, game):
    """Print one game turn by turn: floods, sinkings, cards, actions, swims and the result."""
    config, island = _checked(level, players, team, layout, policy, rules)
    from fisim import engine
    from fisim.transcript import format_transcript
    from policies import load_policy
    pol = load_policy(policy)
    rec = engine.record(island, config, pol, seed, game)
    title = (f"Game {game} of seed {seed}: {island.name}, {config.level}, {config.players} players, "
             f"policy {pol.NAME}@{pol.VERSION}, rules {config.rules_label}")
    click.echo(format_transcript(rec.events, island, title), nl=False)


@cli.command()
@click.argument("name", required=False)
def layouts(name):
    """List the built-in islands, or draw one (NAME may also be a layout file, to check it)."""
    from fisim.rules.layouts import BUILTIN_NAMES, LayoutError, builtin_layout, load_layout
    if name is None:
        for n in BUILTIN_NAMES:
            shape = builtin_layout(n)
            click.echo(f"{n:<26}{len(shape.rows[0])}x{len(shape.rows)}")
        return
    try:
        shape = load_layout(name)
    except LayoutError as exc:
        raise UserError(str(exc)) from None
    click.echo(f"{shape.name}: {len(shape.cells)} tiles, "
               f"{'one connected island' if shape.connected else 'NOT one connected island'}")
    click.echo(shape.draw())


def main(argv=None):
    """Entry point: click's own usage errors become one line and exit status 2, like ours."""
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
