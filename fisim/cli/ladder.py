"""`fisim ladder`: the skill ladder and per-deal difficulty, two sweeps and their tables."""
import os

import click

from fisim import defaults
from fisim.cli.options import POLICY_HELP, check_threads, on_interrupt, quiet_option, replay_changed_option, run_cells
from fisim.defaults import FULL_LADDER
from fisim.errors import ConfigError
from fisim.limits import MAX_REPEAT, MAX_SEED, MAX_SIMULATE_GAMES, max_threads
from policies import CLAIRVOYANT_NOTE, LADDER


@click.command()
@click.option("--levels", default=defaults.LEVELS, show_default=True, help="Levels: a range a..b or a list a,b.")
@click.option("--players", "players_text", default=defaults.PLAYER_COUNTS, show_default=True,
              help="Player counts: 2..4, 2,4 or 3.")
@click.option("--games", default=defaults.LADDER_GAMES, show_default=True,
              type=click.IntRange(min=1, max=MAX_SIMULATE_GAMES),
              help="Games per level and player count for every policy: deals 0.. of the seed, the same for all "
                   "(the defaults play in minutes; --full-size in hours).")
@click.option("--policies", "policies_text", default=",".join(LADDER), show_default=True,
              help="The ladder's legal policies, weakest first. " + POLICY_HELP)
@click.option("--clairvoyant", "clairvoyant", default=None, type=click.IntRange(min=1), metavar="N",
              help=f"Budget of the clairvoyant reference clairvoyant:N [default: its own, 32]; it {CLAIRVOYANT_NOTE}.")
@click.option("--no-clairvoyant", is_flag=True, help="Leave the clairvoyant reference out.")
@click.option("--deals", default=defaults.LADDER_DEALS, show_default=True,
              type=click.IntRange(min=1, max=MAX_SIMULATE_GAMES),
              help="Per-deal difficulty: replay the first DEALS deals of each level and player count ...")
@click.option("--repeats", default=defaults.LADDER_REPEATS, show_default=True,
              type=click.IntRange(min=2, max=MAX_REPEAT),
              help="... this many times each (repeats 0, 1, ...: only the policy's random stream differs) ...")
@click.option("--replayer", default=defaults.REPLAYER, show_default=True, metavar="POLICY",
              help="... with this stochastic policy (one whose random stream changes its play, not expert or greedy: "
                   "refused when deals it replays twice are the same game).")
@click.option("--no-deals", is_flag=True, help="Play the ladder only, no per-deal replays.")
@click.option("--full-size", is_flag=True,
              help="The full-size ladder, hours of search: "
                   + " ".join(f"--{k} {v}" for k, v in FULL_LADDER.items()) + ", every ladder policy.")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(min=0, max=MAX_SEED), help="Master seed.")
@click.option("--out", default=defaults.LADDER_OUT, show_default=True, metavar="DIR",
              help="Results directory: the stores DIR/ladder and DIR/deals (resumable) and the report DIR/report "
                   "(HTML, Markdown, figures, tables as CSV).")
@click.option("--threads", default=None, type=click.IntRange(min=1), help="Threads (default: all cores).")
@replay_changed_option
@quiet_option("progress bar")
def ladder(levels, players_text, games, policies_text, clairvoyant, no_clairvoyant, deals, repeats, replayer, no_deals,
           full_size, seed, out, threads, replay_changed, quiet):
    """The skill ladder: every policy and the clairvoyant reference on the same deals, win rate against
    skill per level; and per-deal difficulty: deals replayed by one policy, only its random stream varying.
    It prints its plan first: the games per policy and the time they take at speeds measured here."""
    from fisim import skill
    if full_size:
        sizes = ("levels", "players_text", "games", "policies_text", "clairvoyant", "no_clairvoyant", "deals",
                 "repeats", "replayer", "no_deals")
        given = [name for name in sizes if click.get_current_context().get_parameter_source(name)
                 != click.core.ParameterSource.DEFAULT]
        if given:
            raise ConfigError(f"--full-size sets the ladder's sizes; give it without --{given[0].split('_text')[0]}")
        levels, players_text, games, clairvoyant, deals, repeats, replayer = (
            FULL_LADDER[k] for k in ("levels", "players", "games", "clairvoyant", "deals", "repeats", "replayer"))
    if clairvoyant is not None and no_clairvoyant:
        raise ConfigError("give --clairvoyant N or --no-clairvoyant, not both")
    check_threads(threads)
    plan = skill.setup(levels, players_text, games, policies_text, 0 if no_clairvoyant else clairvoyant, deals, repeats,
                       None if no_deals else replayer, seed, option="--")
    names, replaying, ladder_cells, deal_cells = plan.names, plan.replaying, plan.ladder_cells, plan.deal_cells
    levels_list, players = plan.levels, plan.players
    if not quiet:
        _plan(skill, out, ladder_cells + deal_cells, levels_list, players, names, games, replaying, deals, repeats,
              seed, threads or max_threads())
    run_cells(ladder_cells, os.path.join(out, skill.LADDER_STORE), seed, {"games": games}, per_game=True,
              threads=threads, quiet=quiet, replay_changed=replay_changed)
    if deal_cells:
        run_cells(deal_cells, os.path.join(out, skill.DEALS_STORE), seed, {"games": deals}, per_game=True,
                  threads=threads, quiet=quiet, replay_changed=replay_changed)
    from fisim.reporting import LADDER_FORMATS, write_ladder
    from fisim.reporting.text import render
    with on_interrupt(f"every game is kept in {out}: run the same command to write the report"):
        report = write_ladder(out, names)       # in the order asked, whatever order the store grew in
    click.echo(render(report))
    click.echo(f"results: {out}; report: {os.path.join(out, 'report')} ({', '.join(LADDER_FORMATS)})")


def _plan(skill, out, cells, levels, players, names, games, replaying, deals, repeats, seed, threads):
    """Say first what will compile and about how long, compile it, then print the plan: the games
    left to play per policy (a resumed ladder's stores aside) and the time they take here."""
    from fisim.sweeping import warm
    missing = skill.to_compile([*names, *replaying])
    if missing:
        click.echo(f"fisim: ladder: {skill.compile_text(missing, max_threads())}", err=True)
    warm(cells)
    labels = {c.policy.given: c.policy.label for c in cells}
    stored = skill.stored_games(os.path.join(out, skill.LADDER_STORE), seed, games, levels, players, labels)
    replayed = skill.stored_games(os.path.join(out, skill.DEALS_STORE), seed, deals, levels, players, labels, repeats)
    stored.update({f"{name}, replays": n for name, n in replayed.items()})
    click.echo(skill.plan_text(levels, players, names, games, replaying, deals, repeats, seed, threads, stored),
               err=True)
