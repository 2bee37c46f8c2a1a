"""`fisim replay`: one game, turn by turn."""
import click

from fisim.cli.options import cell_of, quiet_option, setting_options
from fisim.limits import MAX_GAME


@click.command()
@setting_options
@click.option("--game", "game", default=0, show_default=True, type=click.IntRange(min=0, max=MAX_GAME),
              help="Which game of the seed to show.")
@quiet_option()
def replay(level, players, team, layout, policy, rules, seed, repeat, game, quiet):
    """Print one game turn by turn: floods, sinkings, cards, actions, swims and the result."""
    cell = cell_of(level, players, team, layout, policy, rules, repeat)
    from fisim.simulation import transcript
    click.echo(transcript(cell, seed, game), nl=False)
