"""`fisim simulate`: play games of one setting and print its win rate, loss causes and more."""
import os
import sys

import click

from fisim import defaults
from fisim.cli.options import (
    TABLE_FORMATS,
    cell_of,
    check_format,
    check_threads,
    quiet_option,
    setting_options,
    table_text,
)
from fisim.errors import ConfigError
from fisim.formatting import interval, percent, points, points_interval
from fisim.limits import MAX_SIMULATE_GAMES

OUT_SUFFIXES = (".parquet", ".csv")


def _check_out_file(out):
    """Refuse an --out file that cannot be written, before any game is played."""
    folder = os.path.dirname(os.path.abspath(out))
    if os.path.isdir(out):
        raise ConfigError(f"--out {out} is a directory; give a file name ending in .parquet or .csv")
    if not os.path.isdir(folder):
        raise ConfigError(f"--out {out}: the directory {folder} does not exist")
    if not os.access(folder, os.W_OK):
        raise ConfigError(f"--out {out}: the directory {folder} is not writable")


@click.command()
@setting_options
@click.option("--games", default=defaults.SIMULATE_GAMES, show_default=True,
              type=click.IntRange(min=1, max=MAX_SIMULATE_GAMES),
              help="Number of games.")
@click.option("--threads", default=None, type=click.IntRange(min=1), help="Threads (default: all cores).")
@click.option("--out", default=None, metavar="FILE.parquet|FILE.csv", help="Write one row per game.")
@click.option("--format", "fmt", default="text", show_default=True, metavar="FORMAT",
              help="How to print the results: text, csv or json (one row per rate, each with its n and 95% CI).")
@click.option("--alone", is_flag=True,
              help="With --rules other than official: play those rules only, not also the printed rules on the "
                   "same deals (half the games, no difference).")
@quiet_option("progress bar")
def simulate(level, players, team, layout, policy, rules, seed, repeat, games, threads, out, fmt, alone, quiet):
    """Play GAMES games of one setting and print the win rate, loss causes, each adventurer's win
    rate, turns and treasures; with --rules, the difference from the printed rules on the same deals."""
    if out is not None and not out.endswith(OUT_SUFFIXES):
        raise ConfigError(f"--out {out}: the file name must end in .parquet or .csv")
    if out is not None:
        _check_out_file(out)
    check_threads(threads)
    check_format(fmt, TABLE_FORMATS)
    cell = cell_of(level, players, team, layout, policy, rules, repeat)
    from fisim.cell import play_chunks
    from fisim.engine import prepare
    from fisim.results.games import write_games
    from fisim.results.tally import Paired, Tally
    from fisim.simulation import frames, printed_rules
    tally, paired = Tally(), Paired()
    printed = None if alone else printed_rules(cell)
    if printed is None and not alone and (cell.rules or cell.variant):
        click.echo(f"fisim: note: no difference from the printed rules, which do not play {cell.players} "
                   f"player{'s' if cell.players > 1 else ''} at {cell.level}", err=True)
    show = sys.stderr.isatty() and games >= 100_000 and not quiet
    prepare([cell.policy])       # a first run compiles here: the bar counts games only
    with click.progressbar(length=games * (2 if printed else 1), label="games",
                           file=sys.stderr if show else _Null()) as bar:
        chunks = tally.adding(play_chunks(cell, seed, 0, games, threads, bar.update))
        if printed:
            chunks = paired.adding(chunks, play_chunks(printed, seed, 0, games, threads, bar.update))
        if out:
            write_games(out, frames(cell, seed, chunks))
        else:
            for _ in chunks:
                pass
    click.echo(_simulate_output(cell, seed, tally, paired if printed else None, fmt))
    if out:
        click.echo(f"fisim: wrote {tally.games:,} games, one row each, to {out}", err=True)


def _simulate_output(cell, seed, tally, paired, fmt):
    """The results of `fisim simulate` as text for people, or one row per rate as CSV or JSON; with
    `paired` (fisim.results.tally.Paired), the win rate of the printed rules on the same deals and
    the difference from it."""
    labels = {"layout": cell.layout_label, "level": cell.level, "players": cell.players, "team": cell.team_label,
              "policy": cell.policy_label, "rules": cell.rules_label, "seed": seed, "repeat": cell.repeat}
    rates = tally.rates()
    if fmt != "text":
        import pandas as pd
        table = tally.table()
        table = pd.concat([pd.DataFrame([labels] * len(table)), table], axis=1)
        if paired:
            table = pd.concat([table, _printed_rows(labels, paired)], ignore_index=True)
        return table_text(table, fmt)
    win = rates.iloc[0]
    lines = [
        f"{tally.games:,} games: {labels['layout']}, {labels['level']}, {labels['players']} players, "
        f"team {labels['team']}, policy {labels['policy']}, rules {labels['rules']}"
        + (f", repeat {cell.repeat}" if cell.repeat else ""),
        f"win rate  {percent(win['rate'], width=6)}   95% CI {_interval(win)}   "
        f"({tally.wins:,} wins; the computer team's rate, not a human one)",
        *([_against_printed(paired)] if paired else []),
        "losses (share of all games, 95% CI):",
    ]
    for _, r in rates[rates["measure"] == "loss"].iterrows():
        lines.append(f"  {r['of']:<14}{percent(r['rate'], width=6)}   {_interval(r)}")
    if cell.team is None:
        lines.append("win rate of the games with each adventurer in the team (95% CI, games):")
        for _, r in rates[rates["measure"] == "win with"].iterrows():
            lines.append(f"  {r['of']:<14}{percent(r['rate'], width=6)}   {_interval(r)}   {r['games']:,}")
    lines.append(f"mean turns {tally.mean_turns:.2f}   mean treasures captured {tally.mean_treasures:.3f}")
    return "\n".join(lines)


def _interval(rate):
    return interval(rate["ci_low"], rate["ci_high"], dash="-", unit="%")


def _against_printed(paired):
    """The lines of the difference from the printed rules: in points, with its interval, in words."""
    diff, low, high = paired.difference()
    rate, base_low, base_high = paired.baseline()
    words = "no clear difference" if low <= 0 <= high else "harder" if diff < 0 else "easier"
    return (f"vs the printed rules  {points(diff)} points (95% CI {points_interval(low, high)}): {words}\n"
            f"  the printed rules win {percent(rate)} (95% CI {interval(base_low, base_high, dash='-', unit='%')}) "
            f"of the same {paired.games:,} deals, paired game by game")


def _printed_rows(labels, paired):
    """The rows --format csv|json adds for the printed rules: their win rate, and the difference."""
    import pandas as pd
    rate, low, high = paired.baseline()
    diff, diff_low, diff_high = paired.difference()
    return pd.DataFrame([
        {**labels, "rules": "official", "measure": "win", "of": "", "count": paired.baseline_wins,
         "games": paired.games, "value": rate, "ci_low": low, "ci_high": high},
        {**labels, "measure": "win difference vs official", "of": "", "count": pd.NA, "games": paired.games,
         "value": diff, "ci_low": diff_low, "ci_high": diff_high}]).astype({"count": "Int64"})


class _Null:
    def write(self, _):
        pass

    def flush(self):
        pass
