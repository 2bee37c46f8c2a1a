"""The race of a design: which candidate comes first in the design's order, shown with as few
games as it takes.

The order: candidates that meet the feel constraints before those that do not; then the largest
miss beyond the tolerance (0 for a candidate within the tolerance of every target: it *fits*);
then the change from the base rules (fewer numbers changed, then fewer steps); then the estimated
largest miss; then the grid's order. Among the candidates that fit, the smallest change wins;
when none fits, the closest.

A candidate is played in *looks* of 100, 200, 400, 800, then 1,800, 2,800, 4,800 ... games per
cell (a level at a player count), every candidate on the same deals (game i of every cell is dealt
alike: common random numbers). After each look its Reading bounds every win rate and feel measure
at the race's confidence, which says whether it is shown to fit and meet the constraints
(*decided*), shown not to (*out*: a miss beyond the tolerance, or a constraint broken), or
neither (it still *hopes*).

Since the smallest change that fits comes first, candidates enter in order of change, a group of
one change at a time: the first group at once, the next when every candidate still hoping has
played SCREEN games (or none hopes). Each round plays every hoping candidate one look further and
the entering group its first look; those shown out wait, as they matter only if nothing fits.
After each round a candidate leaves when it is shown to come after another:

- a smaller change fits (LARGER): every candidate with a larger change than a decided one, played
  or not: so most of a grid is never played when a small change reaches the targets;
- it is shown worse (SHOWN): it breaks a constraint another is shown to meet; or its largest miss
  beyond the tolerance is, at its lower bound, above another's upper bound; or, paired game by
  game on the deals both played (fisim.tuning.closer), one of its misses beyond the tolerance is
  larger than every miss of the leader.

When no candidate hopes and every one has entered, those left race for the closest, all of them
playing on. The race is settled when one candidate is left, or no candidate's games could change
the answer: one is decided, and every one with a smaller change is shown not to fit (one of the
same change that may fit too ties with it: the one shown to fit answers, then the smaller
estimated miss).

When the candidates to play cost more than the budget affords (the games left shared over the
looks FINALISTS candidates could still play), a round keeps as many as it affords, best first by
their estimates, never fewer than FINALISTS, as successive halving does (Karnin, Koren and Somekh
2013): those leave by rank (CUT), not shown worse, and the answer says how many did. The race
stops unsettled when the next round would overrun the budget.

The 5% error is spent by Bonferroni over a candidate's intervals: its looks the budget allows
times its levels, player counts and constraints, as tune spends it (fisim.tuning). A constraint
measured on the traced games (drama, decisiveness) is held to its window by its estimate: its
games are the first of each cell, which later looks do not add to, so no look could narrow it.
"""
import math
from dataclasses import dataclass, field

from fisim.limits import MAX_CHUNK_GAMES

FIRST_ROUND = 100       # games per cell of a candidate's first look, and the screen's chunk size
SCREEN = 800            # the screen's games per cell (looks of 100 to 800): the next group enters here
RACE_CHUNK = MAX_CHUNK_GAMES    # the race store's largest chunk: its chunks double to it (fisim.results.chunks)
FINALISTS = 8           # a race the budget cannot afford is cut, by rank, to no fewer than this many
SHOWN, LARGER, CUT = "shown worse", "a smaller change fits", "ranked below the cut"    # why a candidate left
MET, BROKEN, OPEN = "met", "broken", "open"     # a constraint's window against a measure's interval


def schedule(budget, cells):
    """The games per cell of each look the budget allows one candidate (of `cells` cells): 100,
    200, 400, 800 (the screen's chunks), then SCREEN more than where each chunk of the race store
    ends (1,000, 2,000, 4,000 ... doubling up to RACE_CHUNK games a chunk, then a chunk more each):
    a look never plays part of a chunk."""
    from fisim.results.chunks import chunk_slot
    looks, n, k = [], FIRST_ROUND, 0
    while n * cells <= budget:
        looks.append(n)
        if n < SCREEN:
            n *= 2
        else:
            n = SCREEN + sum(chunk_slot(k, RACE_CHUNK))
            k += 1
    return looks


@dataclass
class Evidence:
    """What a candidate's first games say: per measure (level, players) the per-game values (wins,
    or per-game means of wins pooled over player counts), per feel measure of FEEL its (estimate,
    standard error), and how its games feel (the tables' columns, constraints.SUMMARY)."""

    values: dict
    feel: dict
    summary: dict = field(default_factory=dict)


class Reading:
    """What a candidate's first `games` games per cell say (Evidence), at the level of `z`: per
    measure its rate and interval, and its miss with bounds; the largest miss, beyond the
    tolerance ('excess') with its bounds; the feel measures with their intervals and whether the
    constraints are met: those named in `on_estimate` by their estimates (a sample more games
    would not grow), the others by their intervals."""

    def __init__(self, games, evidence, goal, z, on_estimate=()):
        from fisim.stats import wins_interval
        self.games, self.values, self.summary = games, evidence.values, evidence.summary
        self.rate, self.low, self.high, self.miss = {}, {}, {}, {}
        bounds = {}
        for m in goal.measures:
            t = goal.target(m)
            self.rate[m] = float(self.values[m].mean())
            self.low[m], self.high[m] = wins_interval(self.values[m], z)
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
                     for name, (estimate, error) in evidence.feel.items()}
        windows = [(self.feel[name] if name not in on_estimate else judged_on_estimate(self.feel[name][0]), low, high)
                   for name, (low, high) in goal.windows]
        self.violates = any(not low <= estimate <= high for (estimate, _, _), low, high in windows
                            if estimate == estimate)
        verdicts = [window_verdict(bounds, low, high) for bounds, low, high in windows]
        self.shown_violating = BROKEN in verdicts
        self.shown_meeting = all(v == MET for v in verdicts)
        self.decided = self.excess_high == 0 and self.shown_meeting
        self.out = self.excess_low > 0 or self.shown_violating
        self.hopes = not (self.decided or self.out)


def window_verdict(bounds, low, high):
    """MET when a measure's interval (its (estimate, low, high) bounds) lies within the window
    LOW..HIGH, BROKEN when it lies outside, else OPEN."""
    _, bottom, top = bounds
    return MET if low <= bottom and top <= high else BROKEN if top < low or bottom > high else OPEN


def judged_on_estimate(estimate):
    """(estimate, low, high) of a measure judged by its estimate: the estimate three times; one
    that cannot be measured (drama with no traced game won) below every window (whose low end is
    at least 0), so shown to break it."""
    return (estimate,) * 3 if estimate == estimate else (-math.inf,) * 3


def order(candidate, reading):
    """The design's order, on estimates: constraints met, largest miss beyond the tolerance, change,
    shown to fit before not, largest miss, then the grid's order."""
    return (reading.violates, reading.excess, candidate.change, not reading.decided, reading.largest_miss,
            candidate.index)


def paired_worse(c, d, goal, z):
    """Is Reading `c` shown, game by game on the deals both played, to miss some target beyond the
    tolerance by more than Reading `d` misses any?"""
    from fisim.tuning import closer
    n = min(c.games, d.games)
    return any(all(closer(d.values[m][:n], c.values[worst][:n], goal.target(m), z, goal.target(worst))
                   for m in goal.measures)
               for worst in c.out_at)


def losers(alive, readings, goal, z):
    """{candidate: why it leaves} of `alive` shown to come after another in the design's order
    (LARGER, SHOWN); the played ones are in `readings`."""
    played = [c for c in alive if c in readings]

    def read(c):
        return readings[c]

    out = {}
    decided = [c for c in played if read(c).decided]
    if decided:
        least = min(c.change for c in decided)
        out.update((c, LARGER) for c in alive if c.change > least)
    meeting = [c for c in played if read(c).shown_meeting]
    if meeting:
        out.update((c, SHOWN) for c in played if c not in out and read(c).shown_violating)
    # a candidate that may meet the constraints is measured against those shown to; one shown to
    # break them, against all
    for pool, judged in ((meeting, [c for c in played if not read(c).shown_violating]),
                         (played, [c for c in played if read(c).shown_violating])):
        if not pool or not judged:
            continue
        bound = min(read(d).excess_high for d in pool)
        champions = {min(pool, key=lambda d: read(d).excess_high), min(pool, key=lambda d: order(d, read(d)))}
        for c in judged:
            if c not in out and (read(c).excess_low > bound or any(
                    d is not c and paired_worse(read(c), read(d), goal, z) for d in champions)):
                out[c] = SHOWN
    if played and all(c in out for c in played):    # evidence at odds with itself (by chance): the leader stays
        out.pop(min(played, key=lambda c: order(c, read(c))))
    return out


@dataclass
class Race:
    """A race's outcome: each round played ({"candidates", "entered", "fewest", "most" games per
    cell, "games"}), the games per cell of each look the budget allowed, the level of its intervals,
    each played candidate's last Reading, the round (from 0) each one left in and why (SHOWN,
    LARGER or CUT), those left, whether it is settled, the games its rounds asked for, and every
    candidate best first: those left, then those that left, each the played by the order on their
    estimates, then those never played by change."""

    rounds: list
    looks: list
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
        one left has played and is shown to miss a target beyond the tolerance or to break a
        constraint), or 'open'."""
        read = self.readings
        played = [c for c in self.alive if c in read]
        if any(read[c].decided for c in played):
            return "reached"
        if len(played) == len(self.alive) and all(read[c].out for c in played):
            return "unreachable"
        return "open"

    @property
    def cut(self):
        """How many candidates left the race by rank, not shown worse than another."""
        return sum(why == CUT for _, why in self.dropped.values())


def next_up(alive, readings, asked):
    """The candidates whose games could change the answer now, and of them those that enter: every
    one that still hopes, and the next group of change when each of those has played SCREEN
    games; once a candidate is decided, only those of a smaller change (one of the same change
    that may fit too ties with it, and the one shown to fit answers); when none hopes and every
    one has played, all those left but the decided (the race for the closest)."""
    hoping = [c for c in alive if c in readings and readings[c].hopes]
    waiting = [c for c in alive if c not in readings]
    decided = [c.change for c in alive if c in readings and readings[c].decided]
    if decided:
        hoping, waiting = ([c for c in group if c.change < min(decided)] for group in (hoping, waiting))
    entering = []
    if waiting and all(asked[c] >= SCREEN for c in hoping):
        least = min(c.change for c in waiting)
        entering = [c for c in waiting if c.change == least]
    if hoping or entering or decided:
        return hoping + entering, entering
    return [c for c in alive if not readings[c].decided], []


def affordable(looks, cells, budget):
    """How many candidates the next round may take: the budget left shared evenly over the looks
    that FINALISTS candidates could still play (`looks` from the one they have played), but never
    fewer than FINALISTS."""
    later = [n for n in looks[1:] if FINALISTS * cells * (n - looks[0]) <= budget]
    if not later:
        return FINALISTS
    return max(FINALISTS, int(budget / len(later) // (cells * (later[0] - looks[0]))))


def race(candidates, goal, budget, evidence, progress=None):
    """Race `candidates` toward `goal` within `budget` games; evidence(candidate, n) gives the
    Evidence of games 0..n-1 of each of its cells, the same deals for every candidate.
    progress(text) at each round."""
    from fisim.formatting import count, plural
    from fisim.tuning import critical_z
    progress = progress or (lambda text: None)
    cells = len(goal.cells)
    looks = schedule(budget, cells)
    z = critical_z(len(looks), len(goal.measures) + len(goal.windows) - len(goal.traced))
    readings, asked, dropped, rounds = {}, {}, {}, []
    alive, spent, settled = list(candidates), 0, False

    def rank(c):
        return (0, order(c, readings[c])) if c in readings else (1, c.change, c.index)

    while True:
        todo, entering = next_up(alive, readings, asked)
        if not todo or len(alive) == 1 and alive[0] in readings:
            settled = True
            break
        upto = {c: next((n for n in looks if n > asked.get(c, 0)), None) for c in todo}
        todo = [c for c in todo if upto[c] is not None]         # a candidate at the budget's last look stays there
        played = sorted((c for c in todo if c in readings), key=rank)
        if played:
            keep = affordable(looks[looks.index(min(asked[c] for c in played)):], cells, budget - spent)
            dropped.update((c, (len(rounds), CUT)) for c in played[keep:])
            alive = [c for c in alive if c not in dropped]
            todo = [c for c in todo if c not in dropped]
        cost = cells * sum(upto[c] - asked.get(c, 0) for c in todo)
        if not todo or cost > budget - spent:
            break
        games = sorted({upto[c] for c in todo})
        progress(f"round {len(rounds) + 1}: {plural(len(todo), 'candidate')} to play"
                 + (f" ({count(len(entering))} entering)" if entering else "")
                 + f", {count(games[0])}{'' if len(games) == 1 else f' to {count(games[-1])}'} games per cell "
                 f"({count(cost)} games)")
        for c in todo:
            readings[c] = Reading(upto[c], evidence(c, upto[c]), goal, z, goal.traced)
            asked[c] = upto[c]
        spent += cost
        rounds.append({"candidates": len(todo), "entered": len(entering), "fewest": games[0], "most": games[-1],
                       "games": cost})
        dropped.update((c, (len(rounds) - 1, why)) for c, why in losers(alive, readings, goal, z).items())
        alive = [c for c in alive if c not in dropped]
    ranked = sorted(alive, key=rank) + sorted(dropped, key=rank)
    return Race(rounds, looks, z, readings, dropped, alive, settled, spent, ranked)
