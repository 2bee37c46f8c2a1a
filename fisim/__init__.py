"""fisim: a Monte Carlo difficulty analyzer for the cooperative board game Forbidden Island.

The Python API does what the command line does, and returns pandas tables:

    simulate   play games of one setting: one row per game        (fisim simulate)
    summary    a frame of games' win rate, loss causes, ... with 95% intervals
    sweep      play a grid of settings into a results store        (fisim sweep)
    load       a store's aggregates, one row per cell
    load_tiles a store's tiles that decide the game
    compare    paired differences between a store's cells          (fisim compare)
    report     write a store's report                              (fisim report)
    tune       find the value of a parameter that gives a win rate (fisim tune)
    design     find the rule numbers that give a win rate per level (fisim design)

Each imports what it needs when called, so that `import fisim` (and the command line's --help)
stays fast. The modules that do the work are named for what they do (fisim.sweeping,
fisim.comparison, fisim.reporting, fisim.tuning, fisim.designing), never like a function of the API.
"""
from fisim import defaults
from fisim.version import VERSION as __version__  # noqa: F401  (the package's version, as tools read it)

API = ("simulate", "summary", "sweep", "load", "load_tiles", "compare", "report", "tune", "design")


def simulate(level=defaults.LEVEL, players=defaults.PLAYERS, team=None, layout=defaults.LAYOUT,
             policy=defaults.POLICY, rules=(), games=defaults.SIMULATE_GAMES, seed=0, threads=None, first_game=0,
             progress=None, repeat=0):
    """Play games first_game .. first_game+games-1 of one setting; a DataFrame of one row per game
    (the columns of `fisim simulate --out`).

    `level` a name (novice..legendary) or a water meter position; `team` None (a random team each
    game), a list of roles or 'diver,pilot'; `layout` a built-in island or a layout file; `policy`
    a built-in policy (planner, the default; expert; tuned, expert with learned weights; search:N,
    ...) or a .py file; `rules` rule switches or a variant file (a string is one switch); `repeat` replays
    the same deals with another policy stream (0: the games as dealt); `progress(n)` is called as
    blocks of n games finish. A bad argument raises ValueError (ConfigError, PolicyError) in one line."""
    from fisim.simulation import simulate as play
    return play(level=level, players=players, team=team, layout=layout, policy=policy, rules=rules, games=games,
                seed=seed, threads=threads, first_game=first_game, progress=progress, repeat=repeat)


def summary(games):
    """The headline numbers of a DataFrame of games (simulate's, or a store's per-game rows), as
    `fisim simulate --format csv` prints them: one row per measure — `win`, `loss` of each cause
    (a share of all games), `win with` each adventurer (the games whose team included it), `mean
    turns`, `mean treasures` — with its count, games, value and, for a rate, its 95% interval
    (ci_low, ci_high)."""
    from fisim.results.tally import summary as tally
    return tally(games)


def sweep(out=defaults.SWEEP_OUT, *, levels=defaults.LEVELS, players=defaults.PLAYER_COUNTS, teams="random",
          layouts=defaults.LAYOUT, policies=defaults.POLICY, rules="official", sets=(), games=None, ci=None,
          max_games=defaults.CI_MAX_GAMES, seed=0,
          threads=None, per_game=False, chunk_games=50_000, report=True):
    """Play every cell of a grid of settings into the results store `out`, as `fisim sweep` does,
    and return load(out): one row per cell with its games, win rate and 95% interval.

    Each axis takes what the command line takes, a string ("novice..elite", "2,4",
    "diver+pilot,engineer+explorer", "standard,skull-island", "official,heli-all") or a list of
    values; `teams` "random", "all" or teams; `sets` --set axes ("waters_rise=2..5"). Each cell
    plays `games` games (default: defaults.SWEEP_GAMES), or with `ci` until its interval's half-width is at most
    `ci` (at most `max_games`). The store resumes and extends as the command's does. `report`:
    also write out/report/ (HTML, Markdown, figures). A bad value raises ConfigError in one line."""
    from fisim.errors import ConfigError
    from fisim.grid import sweep_cells
    from fisim.sweeping import LocalBackend, run_sweep
    if games is not None and ci is not None:
        raise ConfigError("give games or ci, not both")
    target = {"ci": float(ci), "max_games": max_games} if ci is not None else {"games": games or defaults.SWEEP_GAMES}
    cells = sweep_cells(levels, players, teams, layouts, policies, rules, sets)
    frame = run_sweep(cells, out, seed, target, per_game, LocalBackend(threads), chunk_games=chunk_games)
    if report:
        from fisim.reporting import write_report
        write_report(out)
    return frame


def load(path):
    """The aggregates of a results store (`fisim sweep`'s directory) as a DataFrame, one row per
    cell: its settings (policy as NAME@VERSION), games, wins, rate, ci_low, ci_high, loss cause
    shares, mean turns and treasures, per adventurer <role>_games, <role>_wins, <role>_rate."""
    from fisim.tables import load as read
    return read(path)


def load_tiles(path, by="place"):
    """Which tiles decide the game in a results store: per cell and island cell (`by="place"`) or
    named tile (`by="name"`), the shares of games it ended sunk, of losses it caused, of games it
    sank first, each with its count and 95% interval (see fisim.tables.load_tiles)."""
    from fisim.tables import load_tiles as read
    return read(path, by)


def compare(path, by="layout"):
    """Paired differences between the cells of a results store that differ only in `by` (layout,
    level, players, team, policy, rules, or role), as `fisim compare --format csv`: a DataFrame of
    one row per comparison with both win rates, the difference, its 95% interval (ci_low,
    ci_high), whether it is significant and the correlation of the paired games."""
    from fisim.comparison import compare as pair
    return pair(path, by)


def report(path, out=None, formats=("html", "md", "png"), title=None):
    """Write the report of a results store, as `fisim report`: into `out` (default path/report)
    the `formats` asked ("html,md" or a list of html, md, png, svg, csv, json); the paths written.
    The csv and json tables are data (docs/report-tables.md)."""
    from fisim.reporting import parse_formats, write_report
    return write_report(path, out, parse_formats(formats if isinstance(formats, str) else ",".join(formats)), title)


def tune(param, target, *, values=None, level=defaults.LEVEL, players=defaults.PLAYERS, team=None,
         layout=defaults.LAYOUT, policy=defaults.POLICY, rules=(), seed=0, repeat=0, max_games=defaults.TUNE_MAX_GAMES,
         out=defaults.TUNE_OUT, threads=None):
    """Find the value of `param` (start_level, or a rule number such as waters_rise or hand_limit)
    whose win rate is closest to `target` in one setting, as `fisim tune` does, playing into the
    store `out` (reused by a tune run again). `values` the values to search ('2..5', '4,5,6' or a
    list; default: every value the setting allows), at most `max_games` games per value. Returns a
    fisim.tuning.Tuning: `answer`, `settled` (closer to the target than both neighbours at 95%
    confidence), and `table()`, a DataFrame of every value probed with its games, rate and 95%
    interval."""
    from fisim.errors import ConfigError
    from fisim.tuning import setting
    from fisim.tuning import tune as search
    if not 0 < target < 1:
        raise ConfigError(f"target {target}: give a win rate strictly between 0 and 1, such as 0.5")
    base, values = setting(param, level, players, team, layout, policy, rules, repeat, values)
    return search(base, param, target, values, max_games, out, seed, threads)



def design(sets, target, *, players=defaults.PLAYERS, team=None, layout=defaults.LAYOUT, policy=defaults.POLICY,
           rules=(), tolerance=0.02, turns=None, budget=defaults.DESIGN_BUDGET,
           verify_games=defaults.DESIGN_VERIFY_GAMES, best=3, seed=0, out=defaults.DESIGN_OUT, threads=None):
    """Find the rule numbers whose win rates come closest to a target per level, as `fisim design`
    does, playing into `out` (resumed by a design run again). `sets` the numbers and their ranges
    (["sandbags=0..4", "hand_limit=4..7"] or {"sandbags": "0..4", "hand_limit": [4, 5, 6]}),
    `target` the win rate per level ("novice=0.85,normal=0.65" or {"novice": 0.85}), `players` a
    count, "each" or "pooled" (or several counts, each held to the targets), `turns` a window on
    the mean game length ("10..20" or (10, 20)). Returns a fisim.designing.Design: `candidates`, a
    DataFrame of every candidate, best first (its numbers, change, curve, largest miss, and for the
    verified best few the same on fresh deals), `curves`, a DataFrame of each candidate's win rate
    per level with its 95% interval, `answer` and `race` (settled, reached). A bad argument raises
    ConfigError in one line."""
    from fisim.designing import plan, run
    windows = {} if turns is None else {"turns": turns}
    return run(plan(sets, target, players, team, layout, policy, rules, tolerance, windows, budget, verify_games, best,
                    seed), out, threads)
