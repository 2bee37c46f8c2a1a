"""`fisim tune`: the value of one parameter whose win rate is closest to a target.

The win rate is assumed to be monotone in the parameter (rising or falling; the ends of the range
say which): then the value closest to the target is closer than both its neighbours, and being
closer than both neighbours makes a value the closest of all. A tune plays rounds of 1,000,
2,000, 4,000 ... games per value (the store's chunks), up to the budget:

- round 0 brackets the target by bisection: both ends of the range, then the middle of the pair
  of values whose rates straddle the target, until they are neighbours;
- every round plays the value closest to the target so far and its neighbours to the round's
  games (again when the closest value changes), then tests whether it is settled: closer to the
  target than each neighbour at 95% confidence. The test takes each rate's side of the target
  from its interval (both sides while the interval holds the target) and, for every pair of sides
  the intervals allow, asks the paired difference of the two distances from the target (game i
  of every value is dealt alike) to be positive at its lower bound;
- every round also tests whether the target is out of reach: the rate, monotone, lies between the
  ends' rates, so when both ends' intervals lie on one side of the target no value reaches it, and
  the closest value is the answer (while the ends' rates lie on one side of the target, the round
  plays the end nearest it too, whose rate a plateau of equal rates may share).

The 5% error is spent by Bonferroni over every interval a tune may look at: the rounds its budget
allows, times 7 per round (the three rates' sides, the two ends' sides, the two comparisons), each
at the same level.
Decisions depend only on the games each value has been asked for, so an interrupted tune, run
again, plays the same rounds, reuses the stored chunks and gives the same answer.
"""
import math
from dataclasses import dataclass, replace
from statistics import NormalDist

import numpy as np
import pandas as pd

from fisim import defaults
from fisim.cell import Cell
from fisim.errors import ConfigError
from fisim.formatting import interval, percent
from fisim.grid import cell_with_numbers, parse_layouts, parse_policies
from fisim.limits import cut_range, is_whole
from fisim.results.chunks import FIRST_CHUNK
from fisim.rules.config import level_label, make_config, parse_level
from fisim.rules.variant import PARAMETERS
from fisim.stats import wilson, wins_interval
from fisim.store import Store, manifest_for
from fisim.sweeping import StoredGames

START_LEVEL = "start_level"
PARAMS = (START_LEVEL, *(k for k in PARAMETERS if k != "meter"))
ALPHA = 0.05
TESTS_PER_ROUND = 7     # the sides of the closest value, its two neighbours and both ends, two comparisons


def schedule(max_games):
    """The games per value of each round: 1,000, 2,000, 4,000 ... doubling, the last the budget."""
    rounds, n = [], min(FIRST_CHUNK, max_games)
    while n < max_games:
        rounds.append(n)
        n *= 2
    return [*rounds, max_games]


def critical_z(rounds, tests=TESTS_PER_ROUND):
    """The two-sided normal quantile of each interval: ALPHA split over every one a search may use
    (`tests` per round: a tune's TESTS_PER_ROUND by default)."""
    return NormalDist().inv_cdf(1 - ALPHA / (2 * tests * rounds))


def next_probe(values, rates, target):
    """Round 0's bisection: the next value to probe, given the rates of those probed ({value:
    rate}), or None once the target is bracketed by neighbours (or lies beyond an end)."""
    for end in (values[0], values[-1]):
        if end not in rates:
            return end
    probed = [v for v in values if v in rates]
    rising = rates[values[-1]] >= rates[values[0]]
    for a, b in zip(probed, probed[1:]):
        low, high = (rates[a], rates[b]) if rising else (rates[b], rates[a])
        if low <= target <= high:
            between = values[values.index(a) + 1:values.index(b)]
            return between[len(between) // 2] if between else None
    return None


def closest(rates, target):
    """The value whose rate is closest to the target (the smaller value on a tie)."""
    return min(sorted(rates), key=lambda v: abs(rates[v] - target))


def neighbours(values, value):
    i = values.index(value)
    return values[max(i - 1, 0):i] + values[i + 1:i + 2]


def sides(won, target, z):
    """The sides of the target (+1 above, -1 below) that a rate's interval allows: `won` the
    per-game wins (or per-game means of wins, fisim.stats.wins_interval)."""
    low, high = wins_interval(won, z)
    return [s for s, allowed in ((1, high >= target), (-1, low <= target)) if allowed]


def closer(a, b, target, z, target_b=None):
    """Is the rate of per-game wins `a` closer to the target than that of `b` (the same games) is
    to `target_b` (the same target unless given), at the level of `z`? For each pair of sides
    allowed, the distance |p_b - t_b| - |p_a - t| is the mean of s_b b_i - s_a a_i less
    s_b t_b - s_a t; its lower bound must be above 0."""
    n = len(a)
    target_b = target if target_b is None else target_b
    for sa in sides(a, target, z):
        for sb in sides(b, target_b, z):
            y = sb * b.astype(float) - sa * a.astype(float)
            gap = y.mean() - sb * target_b + sa * target
            spread = math.sqrt(max(y.var(), 1 / n) / n)      # at least one discordant game's worth
            if gap - z * spread <= 0:
                return False
    return True


def near_end(values, rates, target):
    """The end of `values` nearest the target when both ends' rates lie on one side of it (the
    target looks out of reach), else None."""
    ends = (values[0], values[-1])
    if all(rates[v] < target for v in ends) or all(rates[v] > target for v in ends):
        return min(ends, key=lambda v: abs(rates[v] - target))
    return None


def out_of_reach(values, wins, target, z):
    """Is the target beyond the rate of every value in `values`? The rate being monotone, it lies
    between the ends' rates: the target is out of reach when both ends' intervals lie on the same
    side of it. `wins` holds the per-game wins of both ends."""
    first, last = (sides(wins[v], target, z) for v in (values[0], values[-1]))
    return len(first) == 1 and first == last


def settled(values, answer, wins, target, z):
    """Is `answer` closer to the target than each of its neighbours in `values`? `wins` holds the
    per-game wins of the answer and its neighbours, the same games for each."""
    return all(closer(wins[answer], wins[b], target, z) for b in neighbours(values, answer))


@dataclass
class Tuning:
    """A tune's outcome: every value probed with its games and wins, the answer and whether it
    is settled, the rounds played, the games played now and reused from the store, and whether
    the target is out of reach (the answer is then the closest value)."""

    param: str
    target: float
    values: list
    probes: dict            # value -> (games, wins)
    answer: object
    settled: bool
    rounds: int
    max_rounds: int
    played: int
    reused: int
    out_of_reach: bool = False

    def table(self):
        """One row per value probed: games, wins, rate and its 95% Wilson interval, and which is the answer."""
        rows = []
        for value, (games, wins) in sorted(self.probes.items()):
            low, high = wilson(wins, games)
            rows.append({"param": self.param, "value": value, "label": value_label(self.param, value),
                         "target": self.target, "games": games, "wins": wins, "rate": wins / games,
                         "ci_low": low, "ci_high": high, "answer": value == self.answer,
                         "settled": self.settled and value == self.answer,
                         "out_of_reach": self.out_of_reach and value == self.answer})
        return pd.DataFrame(rows)

    def _repr_html_(self):
        """In Jupyter: the answer, settled or not, above every value probed with its games and rate."""
        from fisim.results.display import html_table, shown_rate
        table = self.table()
        shown = pd.DataFrame({self.param: table["label"], "games": table["games"],
                              "win rate (95% CI)": [shown_rate(*r) for r in zip(table["rate"], table["ci_low"],
                                                                                 table["ci_high"])],
                              "": ["<- answer" if a else "" for a in table["answer"]]})
        verdict = ("the closest value; the target is out of reach at 95% confidence" if self.out_of_reach
                   else "settled at 95% confidence" if self.settled
                   else "not settled within the budget: the best estimate")
        return html_table(shown, f"tune {self.param} to a win rate of {percent(self.target, None)}: answer "
                                 f"{value_label(self.param, self.answer)}, {verdict}")


def value_label(param, value):
    """'4 (legendary)' for a named starting position, else the value."""
    label = level_label(value) if param == START_LEVEL else str(value)
    return f"{value} ({label})" if label != str(value) else label


def parse_values(text, allowed):
    """--values 'a..b' or 'a,b,c' -> the whole numbers in order; ConfigError naming the values
    allowed (`allowed`, in order) otherwise."""
    lo, dots, hi = text.partition("..")
    items = [lo, hi] if dots else [t for t in text.split(",") if t.strip()]
    choose = f"give whole numbers, as {allowed[0]}..{allowed[-1]} (the values this setting allows)"
    if len(items) < (2 if dots else 1) or not all(is_whole(t.strip()) for t in items):
        raise ConfigError(f"--values {text}: {choose}")
    values = list(cut_range(int(lo), int(hi), allowed[-1])) if dots else sorted({int(t) for t in items})
    if not values:
        raise ConfigError(f"--values {text}: the range is empty; {choose}")
    return values


def setting(param, level=defaults.LEVEL, players=defaults.PLAYERS, team=None, layout=defaults.LAYOUT,
            policy=defaults.POLICY, rules=(), repeat=0, values=None):
    """(the Cell of the setting to tune, the values to search): `values` as --values takes them
    ('a..b' or 'a,b,c', or a list), by default every value the setting allows; ConfigError
    naming a bad parameter, setting or value."""
    check_param(param)
    config = make_config(parse_level(level), players, team, (rules,) if isinstance(rules, str) else rules)
    base = Cell.of_config(config, parse_layouts(layout)[0], parse_policies(policy)[0], repeat)
    allowed = allowed_values(base, param)
    if values is None:
        values = allowed
    else:
        values = parse_values(values if isinstance(values, str) else ",".join(map(str, values)), allowed)
    tune_cells(base, param, values)
    return base, values


def check_param(param):
    """ConfigError for a parameter fisim cannot tune, naming those it can."""
    if param not in PARAMS:
        raise ConfigError(f"unknown --param {param!r}; choose from: {', '.join(PARAMS)} (a whole meter is not a "
                          "number: tune its start, start_level, or give a meter in a variant file)")


def tune_cells(base, param, values):
    """{value: Cell}: the Cell `base` with `param` set to each value; ConfigError naming the first
    value the rules or the setting forbid, and the values allowed."""
    cells = {}
    for v in values:
        try:
            cells[v] = _cell(base, param, v)
        except ConfigError as exc:
            allowed = allowed_values(base, param)
            raise ConfigError(f"--values: {str(exc).removeprefix('--values: ')}; this setting allows {param} "
                              f"from {allowed[0]} to {allowed[-1]}") from None
    return cells


def allowed_values(base, param):
    """The values of `param` the setting of Cell `base` can be played with, in order: the starting
    positions below its skull, or the number's range less what the setting forbids."""
    p = PARAMETERS.get(param)
    candidates = range(1, base.config.skull) if param == START_LEVEL else range(p.low, p.high + 1)
    allowed = []
    for v in candidates:
        try:
            _cell(base, param, v)
        except ConfigError:
            continue
        allowed.append(v)
    return allowed


def _cell(base, param, value):
    """Cell `base` with `param` at `value`, validated."""
    if param == START_LEVEL:
        cell = replace(base, level=level_label(value))
    else:
        cell = cell_with_numbers(base, {param: value}, "--values")
    cell.config
    return cell


def search(values, target, max_games, wins, progress=None):
    """The tune's rounds over `values` (in order) to the win rate `target`, at most `max_games`
    games per value; wins(value, n) gives the per-game wins of games 0..n-1 of a value (the same
    deals for every value). (answer, settled, rounds played, {value: games asked of it}, whether the
    target is out of reach)."""
    progress = progress or (lambda text: None)
    rounds = schedule(max_games)
    z = critical_z(len(rounds))
    asked = {}

    def rates():
        return {v: wins(v, n).mean() for v, n in asked.items()}

    for r, n in enumerate(rounds):
        progress(f"round {r + 1} of at most {len(rounds)}: {n:,} games per value")
        while r == 0 and (probe := next_probe(values, rates(), target)) is not None:
            asked[probe] = n
        while True:
            answer = closest(rates(), target)
            end = near_end(values, rates(), target)
            group = [answer, *neighbours(values, answer), *([end] if end is not None else [])]
            todo = [v for v in group if asked.get(v, 0) < n]
            if not todo:
                break
            asked.update((v, n) for v in todo)
        beyond = out_of_reach(values, {v: wins(v, asked[v]) for v in (values[0], values[-1])}, target, z)
        done = settled(values, answer, {v: wins(v, n) for v in group}, target, z)
        if done or beyond:
            return answer, done, r + 1, asked, beyond
    return answer, False, len(rounds), asked, False


def tune(base, param, target, values, max_games, out, seed=0, threads=None, progress=None, warn=None, played=None):
    """Tune `param` (START_LEVEL or a rule number) of the setting of Cell `base` over `values` (in
    order) to the win rate `target`, playing at most `max_games` games per value into the store
    `out` (resumed if it holds games of this tune); a Tuning. progress(text) at each round;
    warn(text) for a damaged chunk file, played again; played(n) as each block of n games finishes."""
    cells = tune_cells(base, param, values)
    store = Store(out)
    with store.lock():
        budget = {"games": max(max_games, store.target_games())}   # a smaller budget keeps the store's
        store.open(manifest_for(list(cells.values()), seed, budget, per_game=False))
        games = StoredGames(store, cells.values(), seed, threads, warn, progress=played)

        def wins(value, n):
            return np.concatenate(games.first(cells[value], n))[:n]

        answer, done, rounds, asked, beyond = search(values, target, max_games, wins, progress)
        probes = {v: (n, int(wins(v, n).sum())) for v, n in asked.items()}
    return Tuning(param, target, list(values), probes, answer, done, rounds, len(schedule(max_games)), games.played,
                  sum(asked.values()) - games.played, beyond)


def format_tuning(tuning, setting):
    """The tune as text: the setting, every value probed with its games, rate and 95% interval, and
    the answer, settled or the best estimate."""
    t = tuning
    table = t.table()
    lines = [f"tune {t.param} to a win rate of {percent(t.target, None)}: {setting}",
             f"{t.param:>16}{'games':>10}{'win rate':>10}  95% CI"]
    for _, r in table.iterrows():
        mark = "  <- answer" if r["answer"] else ""
        lines.append(f"{r['label']:>16}{r['games']:>10,}{percent(r['rate'], width=9)}  "
                     f"{interval(r['ci_low'], r['ci_high'], dash='-', unit='%')}{mark}")
    answer = table[table["answer"]].iloc[0]
    rate = (f"win rate {percent(answer['rate'])} "
            f"(95% CI {interval(answer['ci_low'], answer['ci_high'], dash='-', unit='%')})")
    others = " and ".join(value_label(t.param, v) for v in neighbours(t.values, t.answer))
    if t.out_of_reach:
        side = "above" if answer["rate"] > t.target else "below"
        verdict = (f"the closest value; the target is out of reach: every value's win rate is {side} "
                   f"{percent(t.target, None)} at 95% confidence (the rate lies between the ends')")
    elif t.settled:
        verdict = (f"settled after {t.rounds} of at most {t.max_rounds} rounds: closer to the target than "
                   f"{others} at 95% confidence" if others else "settled: the only value")
    else:
        verdict = (f"not settled within the budget of {int(table['games'].max()):,} games per value; "
                   "the best estimate")
    lines.append(f"answer: {t.param} {answer['label']}, {rate}, {verdict}")
    lines.append(f"{int(table['games'].sum()):,} games ({t.played:,} played now, {t.reused:,} reused from the "
                 f"store); assumes the win rate is monotone in {t.param}; 95% overall by Bonferroni over "
                 f"{t.max_rounds} rounds x {TESTS_PER_ROUND} intervals. Win rates are the computer team's.")
    return "\n".join(lines)
