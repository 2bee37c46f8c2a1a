"""`fisim design`: the rule numbers whose win rates come closest to a difficulty curve.

The designer gives rule numbers, each over a range (sweep's --set axes), and a target win rate per
level; every tuple of the ranges that the setting can play is a *candidate*. A candidate's *curve*
is its win rate at each level: at one player count; at each of several, every count held to the
level's target; or pooled over several, each deal played at every count and its wins averaged (the
win rate of a table whose player count is drawn evenly). Its *largest miss* is the largest distance
of its curve from the targets. Candidates are ordered by

1. the feel constraints (`--turns 10..20`, a window on one of FEEL's measures): met before not;
2. the largest miss beyond the tolerance (0 for a candidate within the tolerance of every target:
   it *fits*);
3. the change from the base rules (the printed ones unless --rules names a variant): fewer numbers
   changed, then fewer steps in all;

and the estimated largest miss orders what is left. So among the candidates that fit, the smallest
change wins; when none fits, the closest.

The search races the grid (Maron and Moore's Hoeffding races, Birattari's F-race) within a budget:
rounds of 100, 200, 400, 800, 1,800, 2,800, 4,800 ... games per cell, every candidate on the same
deals (game i of every cell is dealt alike: common random numbers). A round plays the candidates
still in the race to its games, then drops every one shown to come after another in the order above:
one whose largest miss beyond the tolerance is, at its lower bound, above another's upper bound, or,
paired game by game (tuning.closer), is larger than every miss of the leader; one that breaks a
constraint another is shown to meet; and, once a candidate is shown to fit and to meet the
constraints, every one with a larger change. When those left cost more than the budget affords (the
games left shared evenly over the rounds FINALISTS candidates could still play), the round keeps as
many as it affords, best first by their estimates, never fewer than FINALISTS, as successive halving
does (Karnin, Koren and Somekh 2013): those leave by rank, not shown worse, and the answer says how
many did. So the games go where candidates are close: one far from the targets leaves after a round
of few games, close ones play on. The race is settled when one candidate is left, or those left are
all shown to fit with the same, smallest change (a tie, which the estimated miss breaks); it stops
unsettled when the next round would overrun the budget, and says so. The 5% error is spent by
Bonferroni over the rounds the budget allows and a candidate's intervals (its levels and player
counts, its constraints), as tune spends it (fisim.tuning).

The grid is raced whole rather than sampled by bandits over tuples (NTBEA): a designer's grid of a
few hundred to a few thousand tuples is screened in full at 100 games per cell, which finds the
targets' region with no model of how the numbers interact, and a race's decisions are statements at
a stated confidence ("told apart", "no candidate reaches the targets") that a bandit does not make.

The best few are then played on fresh deals, games 0.. of the seed after the search's, which the
search never used: each level's win rate with its 95% interval beside its target. The search's games
of a cell are games 0..799 of its seed (DIR/screen, chunks of 100 games), then games 0.. of the seed
two after it (DIR/race, a sweep's chunks of 1,000, 1,000, 2,000 ...); the verification's are a third
store (DIR/verify): a design stopped part-way, run again, replays its rounds from the stored chunks
to the same answer. DIR/design.json and the tables (candidates, curves; CSV and JSON) hold the
request and all it found, enough for a report; DIR/best.toml is the answer as a variant file.
"""
import itertools
import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from fisim import defaults
from fisim.cell import Cell
from fisim.errors import ConfigError, StoreError
from fisim.files import atomic_write
from fisim.grid import cell_with_numbers, parse_layouts, parse_policies, parse_sets
from fisim.grid import parse_players as parse_counts
from fisim.limits import MAX_SEED, is_whole
from fisim.rules.config import level_position, make_config, parse_level
from fisim.rules.variant import PARAMETERS
from fisim.stats import Z95, wins_interval
from fisim.version import VERSION

FIRST_ROUND = 100       # games per cell of the first round, and the screen's chunk size
SCREEN = 800            # the screen's games per cell: rounds of 100, 200, 400, 800
RACE_STEP = 1000        # then rounds of SCREEN + 1,000, 2,000, 4,000 ...: the race store's chunks
VERIFY_CHUNK = 1000     # the verification store's chunk size; --verify-games is a multiple of it
TOLERANCE = 0.02
BEST = 3                # candidates verified on fresh deals
MAX_CANDIDATES = 10_000
FINALISTS = 8           # a race the budget cannot afford is cut, by rank, to no fewer than this many
SHOWN, CUT = "shown worse", "ranked below the cut"    # why a candidate left the race
DIGITS = 6              # the decimals the tables as data keep (no float noise)
POOLED = "pooled"
STORES = ("screen", "race", "verify")
OUTPUTS = ("design.json", "candidates.csv", "candidates.json", "curves.csv", "curves.json", "best.toml")


# === how a candidate's games feel ===============================================================

@dataclass(frozen=True)
class Feel:
    """A measure of how a candidate's games feel, read from columns the store keeps of each chunk:
    measure(cells) takes, per cell of the candidate, the list of its chunks' `columns` and gives
    (estimate, standard error). Its name is its column in the tables and its constraint's option,
    --NAME LOW..HIGH."""

    name: str
    meaning: str
    unit: str
    columns: tuple
    measure: object


def histogram_mean(column):
    """A Feel's measure: the mean of a per-game count the store keeps as a histogram (games with
    count 0, 1, 2, ...), each cell weighted alike."""
    def measure(cells):
        means, variances = [], []
        for chunks in cells:
            counts = np.zeros(max(len(chunk[column]) for chunk in chunks), np.int64)
            for chunk in chunks:
                counts[:len(chunk[column])] += chunk[column]
            x, n = np.arange(len(counts)), counts.sum()
            mean = float(x @ counts / n)
            means.append(mean)
            variances.append(float((x - mean) ** 2 @ counts / n / n))
        return float(np.mean(means)), math.sqrt(sum(variances)) / len(cells)
    return measure


FEEL = {f.name: f for f in (
    Feel("turns", "the mean game length in turns, each level and player count weighted alike", "turns",
         ("turns_hist",), histogram_mean("turns_hist")),
)}
FEEL_COLUMNS = tuple(sorted({column for f in FEEL.values() for column in f.columns}))


# === what is asked =============================================================================

@dataclass(frozen=True)
class Goal:
    """The curve asked for: (level, win rate) pairs in meter order, the player counts and whether
    they are pooled, the tolerance, and the constraints as (feel name, (low, high)) pairs."""

    targets: tuple
    counts: tuple
    pooled: bool = False
    tolerance: float = TOLERANCE
    windows: tuple = ()

    @property
    def measures(self):
        """(level, players) of each win rate held to a target: players a count, or POOLED."""
        return [(level, p) for level, _ in self.targets for p in ((POOLED,) if self.pooled else self.counts)]

    @property
    def cells(self):
        """(level, players) of each cell a candidate plays."""
        return [(level, p) for level, _ in self.targets for p in self.counts]

    def target(self, measure):
        return dict(self.targets)[measure[0]]

    def label(self, measure):
        """'elite', or 'elite at 2 players' when each of several counts is held to the targets."""
        return measure[0] if self.pooled or len(self.counts) == 1 else f"{measure[0]} at {measure[1]} players"

    def column(self, measure):
        """A measure's name in a table's column: 'elite', or 'elite_2p'."""
        return measure[0] if self.pooled or len(self.counts) == 1 else f"{measure[0]}_{measure[1]}p"

    @property
    def players_label(self):
        counts = ", ".join(map(str, self.counts))
        if len(self.counts) == 1:
            return f"{counts} players"
        return f"{counts} players {'pooled' if self.pooled else 'each'}"


@dataclass(frozen=True, eq=False)
class Candidate:
    """One tuple of rule numbers: `values` the (key, value) of each designed number, `base` the
    base rules' value of each, `cells` the ((level, players), Cell) it plays."""

    index: int
    values: tuple
    base: tuple
    cells: tuple = ()

    @property
    def changes(self):
        """(key, base value, value) of each number it changes."""
        return tuple((k, b, v) for (k, v), (_, b) in zip(self.values, self.base) if v != b)

    @property
    def change(self):
        """(numbers changed, steps in all): the order of 'a smaller change'."""
        return len(self.changes), sum(abs(v - b) for _, b, v in self.changes)

    @property
    def label(self):
        return ", ".join(f"{k} {b}->{v}" for k, b, v in self.changes) or "no change"


@dataclass(frozen=True)
class Plan:
    """A design checked before anything is played: the goal, the --set axes, the candidates, how
    many tuples the setting cannot play, the budget, the verification's games and candidates, the
    seed, and the setting's labels."""

    goal: Goal
    axes: tuple
    candidates: tuple
    unplayable: int
    budget: int
    verify_games: int
    best: int
    seed: int
    setting: dict

    @property
    def verify_seed(self):
        return self.seed + 1

    @property
    def race_seed(self):
        return self.seed + 2

    @property
    def schedule(self):
        return schedule(self.budget, len(self.goal.cells))


def schedule(budget, cells):
    """The games per cell of each round the budget allows (while one candidate's `cells` can play
    that many): 100, 200, 400, 800, then 800 more than 1,000, 2,000, 4,000 ...: the screen's, then
    the race store's, each round a whole number of chunks."""
    rounds, n, step = [], FIRST_ROUND, RACE_STEP
    while n * cells <= budget:
        rounds.append(n)
        if n < SCREEN:
            n *= 2
        else:
            n, step = SCREEN + step, 2 * step
    return rounds


def parse_targets(target):
    """--target 'novice=0.85,normal=0.65' (or a dict) -> ((level, rate), ...) in meter order."""
    items = list(target.items()) if isinstance(target, dict) else [
        t.partition("=")[::2] for t in str(target).split(",") if t.strip()]
    example = "give LEVEL=RATE pairs, as novice=0.85,normal=0.65,elite=0.40,legendary=0.20"
    if not items:
        raise ConfigError(f"--target: no target given; {example}")
    targets = {}
    for level, rate in items:
        if isinstance(rate, str):
            try:
                rate = float(rate)
            except ValueError:
                raise ConfigError(f"--target {str(level).strip()}={rate.strip()}: {example}") from None
        label = parse_level(str(level).strip())
        if label in targets:
            raise ConfigError(f"--target: level {label} is given twice")
        if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 < rate < 1:
            raise ConfigError(f"--target {label}={rate}: give a win rate strictly between 0 and 1, such as 0.4")
        targets[label] = float(rate)
    return tuple(sorted(targets.items(), key=lambda item: level_position(item[0])))


def parse_players(players, solo=False):
    """--players 3, 2..4 or 2,4 (each count held to the targets), each (2..4 each), pooled (2..4
    pooled) -> (counts, pooled)."""
    text = ",".join(map(str, players)) if isinstance(players, (list, tuple)) else str(players).strip()
    if text in ("each", POOLED):
        return (2, 3, 4), text == POOLED
    try:
        return tuple(parse_counts(text, solo)), False
    except ConfigError as exc:
        raise ConfigError(f"--players {text}: {exc}; or each (2..4, each held to the targets), or pooled "
                          "(2..4 pooled)") from None


def parse_window(name, window):
    """--NAME 'LOW..HIGH' ('LOW..', '..HIGH'; or a pair) -> (low, high); None for none."""
    if window is None:
        return None
    if isinstance(window, str):
        low, dots, high = window.partition("..")
        ends = [low.strip(), high.strip()]
        if not dots or not all(_is_number(e) or e == "" for e in ends) or ends == ["", ""]:
            raise ConfigError(f"--{name} {window}: give a window LOW..HIGH of numbers, as 10..20 (or 10.., ..20)")
        window = (float(ends[0]) if ends[0] else 0.0, float(ends[1]) if ends[1] else math.inf)
    low, high = window
    if not 0 <= low <= high:
        raise ConfigError(f"--{name} {low:g}..{high:g}: give a window LOW..HIGH with 0 <= LOW <= HIGH")
    return float(low), float(high)


def _is_number(text):
    whole, _, fraction = text.partition(".")
    return is_whole(whole) and (fraction == "" or is_whole(fraction))


def _set_texts(sets):
    """--set texts from what the API takes: a string, a list of strings, or {key: 'a..b' or values}."""
    if isinstance(sets, str):
        return [sets]
    if isinstance(sets, dict):
        return [f"{k}={v if isinstance(v, str) else ','.join(map(str, v))}" for k, v in sets.items()]
    return list(sets)


def plan(sets, target, players=defaults.PLAYERS, team=None, layout=defaults.LAYOUT, policy=defaults.POLICY,
         rules=(), tolerance=TOLERANCE, windows=None, budget=defaults.DESIGN_BUDGET,
         verify_games=defaults.DESIGN_VERIFY_GAMES, best=BEST, seed=0):
    """The Plan of a design from its options as `fisim design` takes them; ConfigError in one line
    for the first thing wrong, before anything is played or written. `windows` is {feel name:
    'LOW..HIGH' or (low, high)}."""
    axes = tuple((k, tuple(v)) for k, v in parse_sets(_set_texts(sets)))
    if not axes:
        raise ConfigError("give the rule numbers to design, as --set sandbags=0..4 --set hand_limit=4..7")
    size = math.prod(len(values) for _, values in axes)
    if size > MAX_CANDIDATES:
        raise ConfigError(f"--set: the ranges make {size:,} candidates; fisim design races at most "
                          f"{MAX_CANDIDATES:,}: narrow a range")
    targets = parse_targets(target)
    rules = (rules,) if isinstance(rules, str) else tuple(rules)
    counts, pooled = parse_players(players, "solo" in rules)
    if not isinstance(tolerance, (int, float)) or isinstance(tolerance, bool) or not 0 <= tolerance < 0.5:
        raise ConfigError(f"--tolerance {tolerance}: give a distance in win rate from 0 to 0.5, such as 0.02")
    unknown = [name for name in (windows or {}) if name not in FEEL]
    if unknown:
        raise ConfigError(f"unknown constraint {unknown[0]!r}; choose from: {', '.join(FEEL)}")
    windows = tuple((name, w) for name in FEEL if (w := parse_window(name, (windows or {}).get(name))) is not None)
    if team is not None and len(counts) > 1:
        raise ConfigError("--team fixes the adventurers of one player count; give --players N, or leave --team out")
    for name, value, low in (("budget", budget, 1), ("verify-games", verify_games, VERIFY_CHUNK), ("best", best, 1),
                             ("seed", seed, 0)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ConfigError(f"--{name} {value}: give a whole number of at least {low}")
    if verify_games % VERIFY_CHUNK:
        raise ConfigError(f"--verify-games {verify_games}: give a multiple of {VERIFY_CHUNK:,}")
    if seed > MAX_SEED - 2:
        raise ConfigError(f"--seed {seed}: give a seed up to {MAX_SEED - 2} (the design plays the next two seeds' "
                          "games too)")
    goal = Goal(targets, counts, pooled, float(tolerance), windows)
    layout, policy = parse_layouts(layout)[0], parse_policies(policy)[0]
    bases = {(level, p): Cell.of_config(make_config(level, p, team, rules), layout, policy) for level, p in goal.cells}
    candidates, unplayable = _candidates(bases, axes)
    first = len(candidates) * len(goal.cells) * FIRST_ROUND
    if budget < first:
        raise ConfigError(f"--budget {budget:,}: the first round alone plays {FIRST_ROUND} games of each of "
                          f"{len(goal.cells)} cells of {len(candidates):,} candidates, {first:,} games; give at "
                          "least that, or narrow a range")
    cell = next(iter(bases.values()))
    setting = {"layout": cell.layout_label, "team": cell.team_label, "policy": cell.policy_label,
               "rules": cell.rules_label, "switches": list(cell.rules)}
    return Plan(goal, axes, tuple(candidates), unplayable, budget, verify_games, best, seed, setting)


def _candidates(bases, axes):
    """The candidates of the grid that the setting can play (in grid order), and how many tuples it
    cannot; ConfigError naming a value that no tuple can be played with."""
    keys = [k for k, _ in axes]
    parameters = next(iter(bases.values())).config.parameters
    base = tuple((k, parameters[k]) for k in keys)
    candidates, refused = [], {}
    for combo in itertools.product(*(values for _, values in axes)):
        values = tuple(zip(keys, combo))
        try:
            cells = tuple((m, cell_with_numbers(cell, dict(values), "--set")) for m, cell in bases.items())
            for _, cell in cells:
                cell.config     # validates the setting with every number set
        except ConfigError as exc:
            refused[values] = str(exc)
            continue
        candidates.append(Candidate(len(candidates), values, base, cells))
    for key, values in axes:
        for v in values:
            mine = [reason for combo, reason in refused.items() if dict(combo)[key] == v]
            if len(mine) == math.prod(len(other) for k, other in axes if k != key):
                raise ConfigError(f"--set {key}={v}: no candidate with it can be played: {mine[0]}")
    if not candidates:
        raise ConfigError(f"--set: no tuple of the ranges can be played: {next(iter(refused.values()))}")
    return candidates, len(refused)


# === what a candidate's games say ==============================================================

class Reading:
    """What a candidate's first `games` games per cell say, at the level of `z`: per measure its
    per-game values, rate and interval, and its miss with bounds; the largest miss, beyond the
    tolerance ('excess') with its bounds; the feel measures with their intervals and whether the
    constraints are met."""

    def __init__(self, games, values, feel, goal, z):
        self.games, self.values = games, values
        self.rate, self.low, self.high, self.miss = {}, {}, {}, {}
        bounds = {}
        for m in goal.measures:
            t = goal.target(m)
            self.rate[m] = float(values[m].mean())
            self.low[m], self.high[m] = wins_interval(values[m], z)
            self.miss[m] = abs(self.rate[m] - t)
            bounds[m] = (max(0.0, self.low[m] - t, t - self.high[m]), max(self.high[m] - t, t - self.low[m]))
        tolerance = goal.tolerance
        self.worst = max(goal.measures, key=lambda m: self.miss[m])
        self.largest_miss = self.miss[self.worst]
        self.excess = max(0.0, self.largest_miss - tolerance)
        self.excess_low = max(0.0, max(low for low, _ in bounds.values()) - tolerance)
        self.excess_high = max(0.0, max(high for _, high in bounds.values()) - tolerance)
        self.out_at = [m for m in goal.measures if bounds[m][0] > tolerance]    # shown beyond the tolerance
        self.feel = {name: (estimate, estimate - z * error, estimate + z * error)
                     for name, (estimate, error) in feel.items()}
        windows = [(self.feel[name], low, high) for name, (low, high) in goal.windows]
        self.violates = any(not low <= estimate <= high for (estimate, _, _), low, high in windows)
        self.shown_violating = any(top < low or bottom > high for (_, bottom, top), low, high in windows)
        self.shown_meeting = all(low <= bottom and top <= high for (_, bottom, top), low, high in windows)
        self.decided = self.excess_high == 0 and self.shown_meeting


def order(candidate, reading):
    """The design's order, on estimates: constraints met, largest miss beyond the tolerance, change,
    largest miss, then the grid's order."""
    return reading.violates, reading.excess, candidate.change, reading.largest_miss, candidate.index


def paired_worse(c, d, goal, z):
    """Is Reading `c` shown, game by game on the deals both played, to miss some target beyond the
    tolerance by more than Reading `d` misses any?"""
    from fisim.tuning import closer
    n = min(c.games, d.games)
    return any(all(closer(d.values[m][:n], c.values[worst][:n], goal.target(m), z, goal.target(worst))
                   for m in goal.measures)
               for worst in c.out_at)


def losers(alive, readings, goal, z):
    """The candidates of `alive` shown to come after another in the design's order."""
    def read(c):
        return readings[c]

    out = set()
    decided = [c for c in alive if read(c).decided]
    if decided:
        least = min(c.change for c in decided)
        out.update(c for c in alive if c.change > least)
    meeting = [c for c in alive if read(c).shown_meeting]
    if meeting:
        out.update(c for c in alive if read(c).shown_violating)
    # a candidate that may meet the constraints is measured against those shown to; one shown to
    # break them, against all
    for pool, judged in ((meeting, [c for c in alive if not read(c).shown_violating]),
                         (alive, [c for c in alive if read(c).shown_violating])):
        if not pool or not judged:
            continue
        bound = min(read(d).excess_high for d in pool)
        champions = {min(pool, key=lambda d: read(d).excess_high), min(pool, key=lambda d: order(d, read(d)))}
        for c in judged:
            if c not in out and (read(c).excess_low > bound or any(
                    d is not c and paired_worse(read(c), read(d), goal, z) for d in champions)):
                out.add(c)
    if len(out) == len(alive):      # evidence at odds with itself (by chance): the leader stays
        out.discard(min(alive, key=lambda c: order(c, read(c))))
    return out


@dataclass
class Race:
    """A race's outcome: the games per cell of each round played and of each the budget allowed,
    the level of its intervals, each candidate's last Reading, the round (from 0) each one left
    in and why (SHOWN or CUT), those left, whether it is settled, the games its rounds asked for,
    every candidate best first."""

    rounds: list
    schedule: list
    z: float
    readings: dict
    dropped: dict
    alive: list
    settled: bool
    games: int
    ranked: list

    @property
    def reached(self):
        """'reached' (a candidate is shown to fit and meet the constraints), 'unreachable' (every
        one left is shown to miss a target beyond the tolerance or break a constraint), or 'open'."""
        read = self.readings
        if any(read[c].decided for c in self.alive):
            return "reached"
        if all(read[c].excess_low > 0 or read[c].shown_violating for c in self.alive):
            return "unreachable"
        return "open"

    @property
    def cut(self):
        """How many candidates left the race by rank, not shown worse than another."""
        return sum(why == CUT for _, why in self.dropped.values())


def affordable(rounds, cells, budget):
    """How many candidates the next round may take: the budget left shared evenly over the rounds
    that FINALISTS candidates could still play (`rounds` from the one just played), but never
    fewer than FINALISTS."""
    later = [n for n in rounds[1:] if FINALISTS * cells * (n - rounds[0]) <= budget]
    if not later:
        return FINALISTS
    return max(FINALISTS, int(budget / len(later) // (cells * (later[0] - rounds[0]))))


def race(candidates, goal, budget, evidence, progress=None):
    """Race `candidates` toward `goal` within `budget` games; evidence(candidate, n) gives (per
    measure the per-game values of games 0..n-1, per feel measure (estimate, standard error)),
    the same deals for every candidate. progress(text) at each round."""
    from fisim.tuning import critical_z
    progress = progress or (lambda text: None)
    cells = len(goal.cells)
    planned = schedule(budget, cells)
    z = critical_z(len(planned), len(goal.measures) + len(goal.windows))
    readings, asked, dropped = {}, {}, {}
    alive, rounds, spent, settled = list(candidates), [], 0, False
    for r, n in enumerate(planned):
        active = [c for c in alive if not (c in readings and readings[c].decided)]
        cost = cells * sum(n - asked.get(c, 0) for c in active)
        if cost > budget - spent:
            break
        progress(f"round {r + 1} of at most {len(planned)}: {len(active):,} candidate{'s' * (len(active) != 1)} "
                 f"to play, {n:,} games per cell ({cost:,} games)")
        for c in active:
            readings[c] = Reading(n, *evidence(c, n), goal, z)
            asked[c] = n
        spent += cost
        rounds.append(n)
        dropped.update((c, (r, SHOWN)) for c in losers(alive, readings, goal, z))
        alive = sorted((c for c in alive if c not in dropped), key=lambda c: order(c, readings[c]))
        keep = affordable(planned[r:], cells, budget - spent)
        dropped.update((c, (r, CUT)) for c in alive[keep:])
        alive = alive[:keep]
        settled = len(alive) == 1 or all(readings[c].decided for c in alive)
        if settled:
            break
    ranked = alive + sorted(dropped, key=lambda c: (-dropped[c][0], order(c, readings[c])))
    return Race(rounds, planned, z, readings, dropped, alive, settled, spent, ranked)


# === playing it ================================================================================

def _kept(record):
    """What a design holds of a chunk: its per-game wins and the columns the feel measures read."""
    from fisim.results.chunks import per_game_wins
    return per_game_wins(record), {column: np.asarray(record[column]) for column in FEEL_COLUMNS}


def evidence(games, candidate, n, goal):
    """(per measure the per-game values, per feel measure (estimate, standard error)) of games
    0..n-1 of every cell of `candidate`, from StoredGames `games`."""
    wins, columns = {}, []
    for measure, cell in candidate.cells:
        kept = games.first(cell, n)
        wins[measure] = np.concatenate([won for won, _ in kept])[:n]
        columns.append([chunk for _, chunk in kept])
    if goal.pooled:
        wins = {(level, POOLED): np.mean([wins[level, p] for p in goal.counts], axis=0) for level, _ in goal.targets}
    return wins, {name: feel.measure(columns) for name, feel in FEEL.items()}


class SearchGames:
    """The search's games of each cell: games 0..SCREEN-1 of the seed from the screen store (chunks
    of FIRST_ROUND), then games 0.. of the race's seed from the race store (standard chunks of
    1,000, 1,000, 2,000 ...), so that the many short rounds of the first candidates and the few
    long ones of the last write files of a size alike."""

    def __init__(self, screen, race):
        self.screen, self.race = screen, race

    def first(self, cell, n):
        """What StoredGames.first holds of the chunks of the first n games of `cell`, in order."""
        later = self.race.first(cell, n - SCREEN) if n > SCREEN else []
        return self.screen.first(cell, min(n, SCREEN)) + later

    @property
    def played(self):
        return self.screen.played + self.race.played


def _open(store, cells, seed, games, chunk_games, threads, warn):
    """StoredGames of `cells` in `store`, opened for up to `games` games per cell (or the more
    that an earlier design asked of it)."""
    from fisim.store import manifest_for
    from fisim.sweeping import StoredGames
    kept = store.read_manifest()["target"].get("games", 0) if store.manifest_path.exists() else 0
    store.open(manifest_for(cells, seed, {"games": max(games, kept)}, False, chunk_games))
    return StoredGames(store, cells, seed, threads, warn, keep=_kept)


def check_folder(out):
    """StoreError unless `out` is new, empty or a design's folder (nothing else is written into)."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise StoreError(f"{out} exists and is not a directory")
    if out.is_dir():
        strange = [p.name for p in out.iterdir() if p.name not in (*STORES, *OUTPUTS) and not p.name.startswith(".")]
        if strange:
            raise StoreError(f"{out} holds {strange[0]}, which a design does not write: use a new or empty "
                             "directory, or a design's")


def run(plan, out, threads=None, progress=None, warn=None):
    """Race the plan's candidates into the stores out/screen and out/race, verify the best on fresh
    deals in out/verify, write the tables and best.toml into `out`; the Design. progress(text) as
    rounds start; warn(text) for a damaged chunk file, played again."""
    from fisim.limits import CHUNK_GAMES
    from fisim.store import Store
    progress = progress or (lambda text: None)
    out = Path(out)
    check_folder(out)
    screen, race_store = Store(out / "screen"), Store(out / "race")
    with screen.lock(), race_store.lock():
        cells = [cell for c in plan.candidates for _, cell in c.cells]
        last = plan.schedule[-1]
        games = SearchGames(_open(screen, cells, plan.seed, min(last, SCREEN), FIRST_ROUND, threads, warn),
                            _open(race_store, cells, plan.race_seed, max(last - SCREEN, RACE_STEP), CHUNK_GAMES,
                                  threads, warn))
        result = race(plan.candidates, plan.goal, plan.budget, lambda c, n: evidence(games, c, n, plan.goal),
                      progress)
        best = result.ranked[:plan.best]
        progress(f"verifying the best {len(best)} on {plan.verify_games:,} fresh games per cell "
                 f"(seed {plan.verify_seed})")
        verify = Store(out / "verify")
        with verify.lock():
            fresh = _open(verify, [cell for c in best for _, cell in c.cells], plan.verify_seed, plan.verify_games,
                          VERIFY_CHUNK, threads, warn)
            verified = {c: Reading(plan.verify_games, *evidence(fresh, c, plan.verify_games, plan.goal), plan.goal,
                                   Z95) for c in best}
    asked = result.games + len(plan.goal.cells) * plan.verify_games * len(best)
    design = Design(plan, result, verified, games.played + fresh.played, asked)
    design.write(out)
    return design


# === the answer ================================================================================

@dataclass
class Design:
    """A design's outcome: its plan, the race, the Readings of the verified candidates on fresh
    deals, and the games played now and asked for in all (the rest reused from the stores).
    `candidates` and `curves` are its tables; `record` what design.json holds."""

    plan: Plan
    race: Race
    verified: dict
    played: int
    asked: int

    @property
    def answer(self):
        return self.race.ranked[0]

    @property
    def candidates(self):
        """One row per candidate, best first: its numbers and change, where it left the race, its
        search estimates (each level's rate, the largest miss, the feel measures) and, for the
        verified, the same on fresh deals."""
        import pandas as pd
        goal, rows = self.plan.goal, []
        for rank, c in enumerate(self.race.ranked, 1):
            r = self.race.readings[c]
            row = {"rank": rank, "candidate": c.index, **dict(c.values), "changes": c.label,
                   "numbers_changed": c.change[0], "steps": c.change[1], "status": self._status(c),
                   "left_in_round": self.race.dropped[c][0] + 1 if c in self.race.dropped else None,
                   "left_as": self.race.dropped[c][1] if c in self.race.dropped else None,
                   "games": r.games, **_curve(r, goal, ""), **_feel(r, goal, ""),
                   "fits_shown": r.excess_high == 0, "verified": c in self.verified}
            v = self.verified.get(c)
            row.update(_curve(v, goal, "verified_") if v else {})
            row.update(_feel(v, goal, "verified_") if v else {})
            rows.append(row)
        frame = pd.DataFrame(rows)
        frame["left_in_round"] = frame["left_in_round"].astype("Int64")
        return frame

    def _status(self, c):
        if c is self.answer:
            return "answer"
        return "out" if c in self.race.dropped else "in the race"

    @property
    def curves(self):
        """One row per candidate, phase (search, verify) and level (and player count): games, win
        rate and its 95% interval, target, miss."""
        import pandas as pd
        goal, rows = self.plan.goal, []
        phases = (("search", self.plan.seed, self.race.readings), ("verify", self.plan.verify_seed, self.verified))
        for phase, seed, readings in phases:
            for rank, c in enumerate(self.race.ranked, 1):
                if c not in readings:
                    continue
                r = readings[c]
                for m in goal.measures:
                    low, high = wins_interval(r.values[m])
                    rows.append({"rank": rank, "candidate": c.index, "phase": phase, "seed": seed, "level": m[0],
                                 "players": str(m[1]) if not goal.pooled else goal.players_label,
                                 "games": r.games, "rate": r.rate[m], "ci_low": low, "ci_high": high,
                                 "target": goal.target(m), "miss": r.rate[m] - goal.target(m)})
        return pd.DataFrame(rows)

    @property
    def record(self):
        """The request and the outcome, as design.json holds them."""
        plan, goal, result, answer = self.plan, self.plan.goal, self.race, self.answer
        verified = self.verified[answer]
        constraints = {name: [low, None if math.isinf(high) else high] for name, (low, high) in goal.windows}
        return {
            "fisim_version": VERSION,
            "request": {"sets": {k: list(v) for k, v in plan.axes}, "base": dict(answer.base),
                        "targets": dict(goal.targets), "players": list(goal.counts), "pooled": goal.pooled,
                        "tolerance": goal.tolerance, "constraints": constraints,
                        **plan.setting, "budget": plan.budget, "verify_games": plan.verify_games, "best": plan.best,
                        "seed": plan.seed, "race_seed": plan.race_seed, "verify_seed": plan.verify_seed},
            "outcome": {"settled": result.settled, "reached": result.reached, "rounds": result.rounds,
                        "schedule": result.schedule, "z": round(result.z, 4), "candidates": len(plan.candidates),
                        "unplayable": plan.unplayable, "in_the_race": len(result.alive), "cut": result.cut,
                        "games": self.asked,
                        "played": self.played, "answer": answer.index, "answer_changes": answer.label,
                        "verified_largest_miss": round(verified.largest_miss, DIGITS),
                        "verified_within_tolerance": bool(verified.excess == 0)},
        }

    def write(self, out):
        """design.json, the tables as CSV and JSON, and best.toml, each written whole."""
        out = Path(out)
        atomic_write(out / "design.json", lambda p: p.write_text(json.dumps(self.record, indent=1) + "\n"))
        for name, frame in (("candidates", self.candidates), ("curves", self.curves)):
            frame = frame.round(DIGITS)
            atomic_write(out / f"{name}.csv", lambda p, f=frame: f.to_csv(p, index=False))
            atomic_write(out / f"{name}.json", lambda p, f=frame: f.to_json(p, orient="records", indent=1))
        atomic_write(out / "best.toml", lambda p: p.write_text(self.variant_text()))

    def variant_text(self):
        """The answer as a variant file: the base variant's numbers with the designed ones."""
        answer, goal = self.answer, self.plan.goal
        cell = answer.cells[0][1]
        values = {**(dict(cell.variant.values) if cell.variant else {}), **dict(answer.values)}
        targets = ", ".join(f"{level} {100 * rate:g}%" for level, rate in goal.targets)
        options = [*(f"--rules {s}" for s in cell.rules),
                   *([f"--layout {cell.layout}"] if cell.layout != defaults.LAYOUT else []),
                   *([f"--policy {cell.policy.given}"] if cell.policy.given != defaults.POLICY else []),
                   *([f"--team {','.join(cell.team)}"] if cell.team else []),
                   f"--players {cell.players}", f"--level {cell.level}"]
        lines = [f"# fisim design's answer for {targets} (within {100 * goal.tolerance:g} points), "
                 f"{goal.players_label}, policy {self.plan.setting['policy']}: {answer.label}",
                 f"# play it: fisim simulate --rules best.toml {' '.join(options)}"]
        lines += [f"{k} = {json.dumps(list(values[k])) if k == 'meter' else values[k]}" for k in PARAMETERS
                  if k in values]
        return "\n".join(lines) + "\n"


def _curve(reading, goal, prefix):
    """A Reading's columns in the candidates table: each measure's rate, the largest miss and where."""
    return {**{f"{prefix}rate_{goal.column(m)}": reading.rate[m] for m in goal.measures},
            f"{prefix}largest_miss": reading.largest_miss, f"{prefix}worst": goal.label(reading.worst),
            f"{prefix}within_tolerance": reading.excess == 0}


def _feel(reading, goal, prefix):
    """A Reading's feel measures in the candidates table, with their 95% intervals."""
    row = {}
    for name, (estimate, low, high) in reading.feel.items():
        row.update({f"{prefix}{name}": estimate, f"{prefix}{name}_low": low, f"{prefix}{name}_high": high})
    return row


def format_design(design, out):
    """The design as text: what was asked, how the search ended, the answer's curve on the
    search's and on fresh deals, the best candidates, and the files written."""
    plan, goal, result = design.plan, design.plan.goal, design.race
    answer = design.answer
    searched, fresh = result.readings[answer], design.verified[answer]
    pct = lambda x: f"{100 * x:.1f}%"  # noqa: E731
    points = lambda x: f"{100 * x:.1f}"  # noqa: E731
    tolerance = f"within {points(goal.tolerance)} points"
    axes = ", ".join(f"{k} {_span(v)}" for k, v in plan.axes)
    windows = "".join(f", {n} {_window(w)}" for n, w in goal.windows)
    lines = [f"design: {len(plan.candidates):,} candidates ({axes}) toward "
             + ", ".join(f"{level} {pct(rate)}" for level, rate in goal.targets)
             + f" ({tolerance}{windows}); {goal.players_label}, team {plan.setting['team']}, "
             f"{plan.setting['layout']}, policy {plan.setting['policy']}, rules {plan.setting['rules']}, "
             f"seed {plan.seed}"
             + (f"; {plan.unplayable:,} tuples the rules cannot play left out" if plan.unplayable else "")]
    lines.append(f"search: {len(result.rounds)} rounds of {result.rounds[0]:,} to {result.rounds[-1]:,} games per "
                 f"cell, {result.games:,} games; {_verdict(design)}")
    numbers, steps = answer.change
    lines.append(f"answer: {answer.label}" + (f" ({numbers} number{'s' * (numbers > 1)} changed, {steps} "
                                               f"step{'s' * (steps > 1)})" if numbers else " from the base rules"))
    lines.append(f"  {'level':<22}{'target':>7}   {'search (' + format(searched.games, ',') + ' games)':<25}"
                 f"fresh deals ({fresh.games:,} games, seed {plan.verify_seed})")
    for m in goal.measures:
        low, high = wins_interval(fresh.values[m])
        s_low, s_high = wins_interval(searched.values[m])
        lines.append(f"  {goal.label(m):<22}{pct(goal.target(m)):>7}   "
                     f"{pct(searched.rate[m]) + ' (' + pct(s_low) + '-' + pct(s_high) + ')':<25}"
                     f"{pct(fresh.rate[m])} ({pct(low)}-{pct(high)}), "
                     f"miss {100 * (fresh.rate[m] - goal.target(m)):+.1f}")
    within = "within" if fresh.excess == 0 else "NOT within"
    lines.append(f"  largest miss on fresh deals: {points(fresh.largest_miss)} points ({goal.label(fresh.worst)}): "
                 f"{within} {points(goal.tolerance)} points of every target")
    for name, (estimate, low, high) in fresh.feel.items():
        lines.append(f"  {FEEL[name].meaning}: {estimate:.1f} {FEEL[name].unit} ({low:.1f}-{high:.1f})")
    lines.append("best candidates (search; fresh deals):")
    lines.append(f"  {'rank':>4}  {'changes':<44}{'games':>8}  {'largest miss':<20}{'fresh deals':<20}"
                 + "".join(f"{n:>8}" for n in FEEL))
    for rank, c in enumerate(result.ranked[:plan.best], 1):
        r, v = result.readings[c], design.verified[c]
        lines.append(f"  {rank:>4}  {c.label:<44}{r.games:>8,}  "
                     f"{points(r.largest_miss) + ' (' + goal.label(r.worst) + ')':<20}"
                     f"{points(v.largest_miss) + ' (' + goal.label(v.worst) + ')':<20}"
                     + "".join(f"{v.feel[n][0]:>8.1f}" for n in FEEL))
    lines.append(f"{design.asked:,} games ({design.played:,} played now, {design.asked - design.played:,} reused from "
                 f"the stores). Win rates are the computer team's.")
    lines.append(f"files: {Path(out) / 'best.toml'} (the answer as a variant file), design.json, candidates.csv/.json, "
                 "curves.csv/.json")
    return "\n".join(lines)


def _verdict(design):
    """How the search ended, in words: settled or not, whether the targets are reached, and how
    many candidates left by rank, untested."""
    result, goal, answer = design.race, design.plan.goal, design.answer
    tolerance = f"{100 * goal.tolerance:.1f} points"
    smaller = [c for c in result.dropped if c.change < answer.change]
    if result.reached == "reached":
        what = f"the answer is within {tolerance} of every target at 95%"
        what += " and meets the constraints" if goal.windows else ""
        if smaller and all(result.dropped[c][1] == SHOWN for c in smaller):
            what += ", and every candidate with a smaller change is shown not to be"
    elif result.reached == "unreachable":
        r = result.readings[answer]
        broken = "a target beyond the tolerance" + (" or to break a constraint" if goal.windows else "")
        what = (f"no candidate {'left in the race ' if result.cut else ''}reaches the targets: every one is shown "
                f"to miss {broken}; the closest misses by {100 * r.largest_miss:.1f} points ({goal.label(r.worst)})")
    else:
        what = f"whether a candidate is within {tolerance} of every target is open"
    if result.cut:
        what += (f"; {result.cut:,} candidates left the race by rank, as the budget required, not shown worse "
                 "(a larger --budget tests more of them)")
    if result.settled:
        ties = len(result.alive) - 1
        return (f"settled: {what}" + (f" ({ties} more with the same change tie; the smaller estimated miss answers)"
                                      if ties else ""))
    return (f"not settled: the budget ({design.plan.budget:,} games) ended with {len(result.alive):,} candidates in "
            f"the race, the answer the best estimate; {what}")


def _span(values):
    values = list(values)
    return f"{values[0]}..{values[-1]}" if len(values) > 1 else str(values[0])


def _window(window):
    low, high = window
    return f"{low:g}..{'' if math.isinf(high) else format(high, 'g')}"
