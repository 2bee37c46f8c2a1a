"""fisim: a Monte Carlo difficulty analyzer for the cooperative board game Forbidden Island.

The Python API does what the command line does, and returns pandas tables:

    simulate   play games of one setting: one row per game        (fisim simulate)
    summary    a frame of games' win rate, loss causes, ... with 95% intervals
    sweep      play a grid of settings into a results store        (fisim sweep)
    load       a store's aggregates, one row per cell
    load_tiles a store's tiles that decide the game
    compare    paired differences between a store's cells          (fisim compare)
    agreement  do two policies rank a store's cells alike?         (fisim compare --agreement)
    report     write a store's report                              (fisim report)
    tune       find the value of a parameter that gives a win rate (fisim tune)
    ladder     the skill ladder and per-deal difficulty            (fisim ladder)
    replay     one game, turn by turn                              (fisim replay)
    design     find the rule numbers that give a win rate per level (fisim design)

Each imports what it needs when called, so that `import fisim` (and the command line's --help)
stays fast. The modules that do the work are named for what they do (fisim.sweeping,
fisim.comparison, fisim.reporting, fisim.tuning, fisim.designing), never like a function of the API.
"""
import contextlib

from fisim import defaults
from fisim.limits import CHUNK_GAMES
from fisim.version import VERSION as __version__  # noqa: F401  (the package's version, as tools read it)

API = ("simulate", "summary", "sweep", "load", "load_tiles", "compare", "agreement", "report", "tune", "ladder",
       "replay", "design")


def simulate(level=defaults.LEVEL, players=defaults.PLAYERS, team=None, layout=defaults.LAYOUT,
             policy=defaults.POLICY, rules=(), games=defaults.SIMULATE_GAMES, seed=0, threads=None, first_game=0,
             progress=True, repeat=0):
    """Play games first_game .. first_game+games-1 of one setting; a DataFrame of one row per game
    (the columns of `fisim simulate --out`).

    `level` a name (novice..legendary) or a water meter position; `team` None (a random team each
    game), a list of roles or 'diver,pilot'; `layout` a built-in island or a layout file; `policy`
    a built-in policy (planner, the default; expert; tuned, expert with learned weights; search:N,
    ...) or a .py file; `rules` rule switches or a variant file (a string is one switch); `repeat` replays
    the same deals with another policy stream (0: the games as dealt); `progress` True (a progress
    bar, once the call has run a few seconds), False, or a function called with n as blocks of n
    games finish. A bad argument raises ValueError (ConfigError, PolicyError) in one line."""
    from fisim import progress as bars
    from fisim.simulation import simulate as play
    total = games if isinstance(games, int) and not isinstance(games, bool) else None
    with bars.games(bars.check(progress), total) as (update, _):
        return play(level=level, players=players, team=team, layout=layout, policy=policy, rules=rules, games=games,
                    seed=seed, threads=threads, first_game=first_game, progress=update, repeat=repeat)


def summary(games):
    """The headline numbers of a DataFrame of games (simulate's, or a store's per-game rows), as
    `fisim simulate --format csv` prints them: one row per measure — `win`, `loss` of each cause
    (a share of all games), `win with` each adventurer (the games whose team included it), `mean
    turns`, `mean treasures` — with its count, games, value and, for a rate, its 95% interval
    (ci_low, ci_high). In Jupyter it shows each rate as a percentage with its interval."""
    from fisim.results.tally import summary as tally
    return tally(games)


def sweep(out=defaults.SWEEP_OUT, *, levels=defaults.LEVELS, players=defaults.PLAYER_COUNTS, teams="random",
          layouts=defaults.LAYOUT, policies=defaults.POLICY, rules="official", sets=(), games=None, ci=None,
          max_games=defaults.CI_MAX_GAMES, seed=0, threads=None, per_game=False, chunk_games=CHUNK_GAMES,
          trace_games=defaults.TRACE_GAMES, replay_changed=False, report=True, progress=True):
    """Play every cell of a grid of settings into the results store `out`, as `fisim sweep` does,
    and return load(out): one row per cell with its games, win rate and 95% interval.

    Each axis takes what the command line takes, a string ("novice..elite", "2,4",
    "diver+pilot,engineer+explorer", "standard,skull-island", "official,heli-all"), an int
    (players=3) or a list of values (a team or a rule item in the list may be a list of names);
    `teams` "random", "all" or teams; `sets` --set axes ("waters_rise=2..5", or a list). Each cell
    plays `games` games (default: defaults.SWEEP_GAMES), or with `ci` until its interval's
    half-width is at most `ci` (at most `max_games`). The win chance is traced over the first
    `trace_games` games of each cell (0: none). The store resumes and extends as the command's
    does; `replay_changed` plays again the cells of a policy that changed since it was made
    (--replay-changed). `report`: also write out/report/ (HTML, Markdown, figures). `progress` as
    simulate's.
    Every argument is checked as the command line checks it, before anything is played or
    written: a bad value raises ConfigError in one line."""
    from fisim import arguments as check
    from fisim import progress as bars
    from fisim.grid import sweep_cells
    from fisim.limits import MAX_SEED, MAX_TRACE_GAMES, max_threads
    from fisim.results.chunks import sweep_target
    from fisim.sweeping import LocalBackend, run_sweep
    check.path("out", out)
    target = sweep_target(games, ci, max_games, chunk_games)
    check.whole("seed", seed, 0, MAX_SEED)
    if threads is not None:
        check.whole("threads", threads, 1, max_threads())
    check.flag("per_game", per_game)
    check.whole("trace_games", trace_games, 0, MAX_TRACE_GAMES)
    check.flag("replay_changed", replay_changed)
    check.flag("report", report)
    bars.check(progress)
    axes = [check.axis(name, value, example) for name, value, example in (
        ("levels", levels, "novice..elite"), ("players", players, "2..4"), ("teams", teams, "random"),
        ("layouts", layouts, "standard"), ("policies", policies, "expert,greedy"), ("rules", rules, "official"))]
    cells = sweep_cells(*axes, check.strings("sets", sets, "waters_rise=2..5") if sets else ())
    with bars.games(progress, target["games"] * len(cells) if "games" in target else None) as (update, _), \
            _replay_hint():
        frame = run_sweep(cells, out, seed, target, per_game, LocalBackend(threads),
                          lambda games, _: update(games) if games else None, chunk_games, trace_games=trace_games,
                          replay_changed=replay_changed)
    if report:
        from fisim.reporting import write_report
        write_report(out)
    return frame


def load(path):
    """The aggregates of a results store (`fisim sweep`'s directory) as a DataFrame, one row per
    cell: its settings (policy as NAME@VERSION), games, wins, rate, ci_low, ci_high, loss cause
    shares, game length (mean_turns, sd_turns, p10_turns, median_turns, p90_turns), mean
    treasures, per adventurer <role>_games, <role>_wins, <role>_rate, and how the game feels: the
    wins that came close (close_*), the losses' treasures, and over the traced games the chance of
    winning, drama and decisiveness (see fisim.tables.load)."""
    from fisim.tables import load as read
    return read(path)


def load_tiles(path, by="place"):
    """Which tiles decide the game in a results store: per cell and island cell (`by="place"`) or
    named tile (`by="name"`), the shares of games it ended sunk, of losses it caused, of games it
    sank first, each with its count and 95% interval (see fisim.tables.load_tiles)."""
    from fisim.tables import load_tiles as read
    return read(path, by)


def compare(path, by="layout", agreement=None, baseline=None, disjoint=False):
    """Paired differences between the cells of a results store that differ only in `by` (layout,
    level, players, team, policy, rules, or role), as `fisim compare --format csv`: a DataFrame of
    one row per comparison with both win rates, the difference and its 95% interval
    (difference_ci_low, difference_ci_high, named as in the report's tables), whether it is
    significant and the correlation of the paired games; `level` ordered as in load.

    With `agreement` ("A,B" or [A, B]: two policies of the sweep), as `--agreement`: do A and B rank
    the cells along `by` alike? A fisim.rankings.Agreement of DataFrames: `items` (each cell's
    rates and ranks under both), `groups` (Spearman's correlation per group with its bootstrap
    interval) and `flips`; `baseline` C and `disjoint` as the command's options. A bad option
    raises ConfigError in one line."""
    from fisim.comparison import compare as pair
    from fisim.rankings import compare_options, rank_agreement
    policies, baseline = compare_options(by, agreement, baseline, disjoint)
    if policies:
        return rank_agreement(path, by, policies, baseline, disjoint)
    return pair(path, by)


def agreement(path, policies, by="team", baseline=None, disjoint=False):
    """Do the two `policies` ("A,B" or [A, B], both played in the store at `path`) rank its cells
    along `by` (team, layout, rules, level or players) alike? As `fisim compare --agreement`: a
    fisim.rankings.Agreement of DataFrames, `items` (each cell's rates and ranks under both),
    `groups` (Spearman's correlation per group with its bootstrap interval) and `flips` (the pairs
    whose order flips significantly); `baseline` C: does A rank as alike to B as C does;
    `disjoint`: B ranks by other deals than A. A bad option raises ConfigError in one line."""
    return compare(path, by, agreement=policies, baseline=baseline, disjoint=disjoint)


def report(path, out=None, formats=("html", "md", "png"), title=None, *, stronger=None,
           stronger_games=defaults.STRONGER_GAMES, threads=None, progress=True):
    """Write the report of a results store, as `fisim report`: into `out` (default path/report)
    the `formats` asked ("html,md" or a list of html, md, png, svg, csv, json); the paths written.
    The csv and json tables are data (docs/report-tables.md). With `stronger` (a policy, such as
    "search:8/planner"), first check the report's headline conclusions under it on
    `stronger_games` games per win rate compared (spread over its cells, which play the same
    deals), played into path/stronger on `threads` local threads (resumable; the section "Would a
    stronger team agree?"), as `fisim report --stronger`;
    `progress` as simulate's. A bad argument raises ConfigError in one line, before anything is
    played or written."""
    from fisim import arguments as check
    from fisim.reporting import parse_formats, write_report
    if out is not None:
        check.path("out", out)
    check.text("title", title, optional=True)
    parsed = parse_formats(",".join(check.strings("formats", formats, "html,md")))
    if stronger is not None:
        _check_stronger(path, stronger, stronger_games, threads, progress)
    return write_report(path, out, parsed, title)


@contextlib.contextmanager
def _replay_hint():
    """A store refused because a policy changed since it was made: say the argument that plays its
    cells again (the command line's error names its option)."""
    from fisim.errors import PolicyChanged
    try:
        yield
    except PolicyChanged as exc:
        raise exc.with_option("replay_changed=True") from None


def _check_stronger(path, stronger, games, threads, progress):
    """report's check under a stronger policy (fisim.stronger.play), on local threads."""
    from fisim import arguments as check
    from fisim import progress as bars
    from fisim.limits import MAX_SIMULATE_GAMES, max_threads
    from fisim.stronger import play
    from fisim.sweeping import LocalBackend, run_sweep
    check.path("path", path)
    check.text("stronger", stronger)
    check.whole("stronger_games", games, 1, MAX_SIMULATE_GAMES)
    if threads is not None:
        check.whole("threads", threads, 1, max_threads())
    bars.check(progress)

    def run(cells, store, seed, target):
        with bars.games(progress, target["games"] * len(cells)) as (update, _):
            run_sweep(cells, store, seed, target, backend=LocalBackend(threads),
                      progress=lambda played, _: update(played) if played else None)
    play(path, stronger, games, run)


def tune(param, target, *, values=None, level=defaults.LEVEL, players=defaults.PLAYERS, team=None,
         layout=defaults.LAYOUT, policy=defaults.POLICY, rules=(), seed=0, repeat=0, max_games=defaults.TUNE_MAX_GAMES,
         out=defaults.TUNE_OUT, threads=None, progress=True):
    """Find the value of `param` (start_level, or a rule number such as waters_rise or hand_limit)
    whose win rate is closest to `target` in one setting, as `fisim tune` does, playing into the
    store `out` (reused by a tune run again). `values` the values to search ('2..5', '4,5,6' or a
    list; default: every value the setting allows), at most `max_games` games per value; `progress`
    as simulate's (a bar names the round). Returns a fisim.tuning.Tuning: `answer`, `settled`
    (closer to the target than both neighbours at 95% confidence), and `table()`, a DataFrame of
    every value probed with its games, rate and 95% interval (in Jupyter, shown as a table with the
    answer). A bad argument raises ConfigError in one line, before any game is played."""
    from fisim import arguments as check
    from fisim import progress as bars
    from fisim.limits import MAX_REPEAT, MAX_SEED, MAX_SIMULATE_GAMES, max_threads
    from fisim.tuning import setting
    from fisim.tuning import tune as search
    for name, value in (("param", param), ("layout", layout), ("policy", policy)):
        check.text(name, value)
    target = check.fraction("target", target, 1, 0.5, below=True)
    max_games = check.whole("max_games", max_games, 1, MAX_SIMULATE_GAMES)
    check.whole("seed", seed, 0, MAX_SEED)
    check.whole("repeat", repeat, 0, MAX_REPEAT)
    if threads is not None:
        check.whole("threads", threads, 1, max_threads())
    check.path("out", out)
    bars.check(progress)
    base, values = setting(param, level, players, team, layout, policy, rules, repeat, values)
    with bars.games(progress) as (update, describe):
        return search(base, param, target, values, max_games, out, seed, threads, describe, played=update)


def ladder(out=defaults.LADDER_OUT, *, levels=defaults.LEVELS, players=defaults.PLAYER_COUNTS,
           games=defaults.LADDER_GAMES, policies=None, clairvoyant=None, deals=defaults.LADDER_DEALS,
           repeats=defaults.LADDER_REPEATS, replayer=defaults.REPLAYER, seed=0, threads=None, replay_changed=False,
           report=True, progress=True):
    """The skill ladder and per-deal difficulty, as `fisim ladder` plays them into `out` (its
    stores DIR/ladder and DIR/deals resume and extend alike): every policy of `policies` (default:
    policies.LADDER, weakest first) and the clairvoyant reference (`clairvoyant` its budget; 0 for
    none) on the same `games` deals per level and player count; and the first `deals` deals
    replayed `repeats` times by `replayer` (None: no replays), only its random stream varying.
    Returns a dict of DataFrames: `ladder` (each policy's win rate per level and player count),
    `gap` (the clairvoyant against the best legal policy, paired) and `deals` (per-deal
    difficulty); `replay_changed` as sweep's; `report` also writes out/report/. A bad value raises
    ConfigError in one line."""
    from fisim import arguments as check
    from fisim import progress as bars
    from fisim import skill
    from fisim.limits import MAX_REPEAT, MAX_SEED, MAX_SIMULATE_GAMES, max_threads
    from fisim.sweeping import LocalBackend, run_sweep
    from policies import LADDER
    check.path("out", out)
    check.whole("games", games, 1, MAX_SIMULATE_GAMES)
    check.whole("deals", deals, 1, MAX_SIMULATE_GAMES)
    check.whole("repeats", repeats, 2, MAX_REPEAT)
    check.whole("seed", seed, 0, MAX_SEED)
    if clairvoyant is not None:
        check.whole("clairvoyant", clairvoyant, 0)
    if threads is not None:
        check.whole("threads", threads, 1, max_threads())
    check.flag("replay_changed", replay_changed)
    check.flag("report", report)
    axes = [check.axis(name, value, example) for name, value, example in (
        ("levels", levels, "novice..elite"), ("players", players, "2..4"),
        ("policies", LADDER if policies is None else policies, "expert,planner"))]
    plan = skill.setup(*axes[:2], games, axes[2], clairvoyant, deals, repeats,
                       None if replayer is None else check.text("replayer", replayer), seed)
    stores = [(plan.ladder_cells, skill.LADDER_STORE, games), (plan.deal_cells, skill.DEALS_STORE, deals)]
    total = sum(len(cells) * n for cells, _, n in stores)
    with bars.games(bars.check(progress), total) as (update, _), _replay_hint():
        for cells, store, n in stores:
            if cells:
                run_sweep(cells, f"{out}/{store}", seed, {"games": n}, True, LocalBackend(threads),
                          lambda played, _: update(played) if played else None, replay_changed=replay_changed)
    if report:
        from fisim.reporting import write_ladder
        write_ladder(out, plan.names)
    tables = skill.read_ladder(out, plan.names)
    return {name: tables[name] for name in ("ladder", "gap", "deals")}


def replay(level=defaults.LEVEL, players=defaults.PLAYERS, team=None, layout=defaults.LAYOUT, policy=defaults.POLICY,
           rules=(), seed=0, game=0, repeat=0):
    """Game `game` of `seed` of one setting (the arguments as simulate's), turn by turn, as `fisim
    replay` prints it: floods, sinkings, cards, actions, swims and the result, as text. A bad
    argument raises ConfigError in one line."""
    from fisim import arguments as check
    from fisim.cell import Cell
    from fisim.limits import MAX_GAME, MAX_REPEAT, MAX_SEED
    from fisim.simulation import transcript
    check.whole("seed", seed, 0, MAX_SEED)
    check.whole("game", game, 0, MAX_GAME)
    check.whole("repeat", repeat, 0, MAX_REPEAT)
    rules = (rules,) if isinstance(rules, str) else rules
    return transcript(Cell.of(level, players, team, layout, policy, rules, repeat), seed, game)


def design(sets, target, *, players=defaults.PLAYERS, team=None, layout=defaults.LAYOUT, policy=defaults.POLICY,
           rules=(), tolerance=defaults.DESIGN_TOLERANCE, turns=None, close_wins=None, lost_treasures=None, drama=None,
           decided=None, budget=defaults.DESIGN_BUDGET,
           verify_games=None, best=defaults.DESIGN_BEST, trace_games=defaults.TRACE_GAMES, seed=0,
           out=defaults.DESIGN_OUT, threads=None, report=True, progress=True):
    """Find the rule numbers whose win rates come closest to a target per level, as `fisim design`
    does, playing into `out` (resumed by a design run again). `sets` the numbers and their ranges
    (["sandbags=0..4", "hand_limit=4..7"] or {"sandbags": "0..4", "hand_limit": [4, 5, 6]}),
    `target` the win rate per level ("novice=0.85,normal=0.65" or {"novice": 0.85}), `players` a
    count, "each" or "pooled" (or several counts, each held to the targets); the constraints
    `turns` (the mean game length in player turns), `close_wins` (the share of wins that came
    close), `lost_treasures` (the mean treasures captured in the games lost), `drama` (the lowest
    chance of winning in the traced games won, their mean) and `decided` (the share of the game
    after which the outcome was decided, the traced games' mean), each a window "10..20" or
    (10, 20); `verify_games` fresh games per cell of the `best` candidates verified (None: sized
    to the tolerance), their first `trace_games` traced (and the search's, when `drama` or
    `decided` is given).
    `report`: also write out/report/. `progress` as simulate's (a bar names the round). Returns a
    fisim.designing.answer.Design: `candidates`, a DataFrame of every candidate, best first (its
    numbers, change, status, curve, largest miss, how its games feel, and for the verified the
    same on fresh deals), `curves`, a DataFrame of each played candidate's win rate per level with
    its 95% interval and how its games feel, `arcs`, a DataFrame of each verified candidate's
    typical arc of the win chance per level, `answer` and `race` (settled, reached). Every argument
    is checked as the command line checks it, before anything is played or written: a bad value
    raises ConfigError in one line."""
    from fisim import arguments as check
    from fisim import progress as bars
    from fisim.designing import run
    from fisim.designing.request import plan
    from fisim.limits import max_threads
    for name, value in (("layout", layout), ("policy", policy)):
        check.text(name, value)
    team = None if team is None else ",".join(check.strings("team", team, "diver,pilot"))
    rules = check.strings("rules", rules, "heli-all") if rules else ()
    check.path("out", out)
    if threads is not None:
        check.whole("threads", threads, 1, max_threads())
    check.flag("report", report)
    bars.check(progress)
    windows = {name: window for name, window in (("turns", turns), ("close_wins", close_wins),
                                                 ("lost_treasures", lost_treasures), ("drama", drama),
                                                 ("decided", decided)) if window is not None}
    planned = plan(sets, target, players, team, layout, policy, rules, tolerance, windows, budget, verify_games, best,
                   trace_games, seed, option="")
    with bars.games(progress) as (update, describe):
        result = run(planned, out, threads, describe, played=update)
    if report:
        from fisim.reporting import write_report
        write_report(out)
    return result
