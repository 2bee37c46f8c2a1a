"""What a design asks, checked before anything is played: the rule numbers and their ranges (sweep's
--set axes), the win rate wanted per level, the player counts (one, each of several, or pooled),
the tolerance and the feel constraints, the budget, the verification and the seed; and the
candidates of the grid, each tuple of numbers a variant of the base rules whose cells are built
as a sweep builds its cells (fisim.grid)."""
import itertools
import math
from dataclasses import dataclass

from fisim import defaults
from fisim.arguments import fraction, whole
from fisim.designing.constraints import FEEL
from fisim.designing.race import FIRST_ROUND
from fisim.errors import ConfigError
from fisim.grid import expand, parse_layouts, parse_policies, parse_rules, parse_sets, with_numbers
from fisim.grid import parse_players as parse_counts
from fisim.limits import MAX_SEED, MAX_TRACE_GAMES, is_whole
from fisim.rules.config import level_position, parse_level, parse_team

MAX_CANDIDATES = 10_000
VERIFY_CHUNK = 1000     # the verification store's chunk size; --verify-games is a multiple of it
POOLED = "pooled"


@dataclass(frozen=True)
class Goal:
    """The curve asked for: (level, win rate) pairs in meter order, the player counts and whether
    they are pooled, the tolerance, and the constraints as (feel name, (low, high)) pairs."""

    targets: tuple
    counts: tuple
    pooled: bool = False
    tolerance: float = defaults.DESIGN_TOLERANCE
    windows: tuple = ()

    @property
    def measures(self):
        """(level, players) of each win rate held to a target: players a count, or POOLED."""
        return [(level, p) for level, _ in self.targets for p in ((POOLED,) if self.pooled else self.counts)]

    @property
    def cells(self):
        """(level, players) of each cell a candidate plays."""
        return [(level, p) for level, _ in self.targets for p in self.counts]

    @property
    def traced(self):
        """The constraints measured on the traced games (drama, decisiveness)."""
        return tuple(name for name, _ in self.windows if FEEL[name].traced)

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
    many tuples the setting cannot play, the budget, the verification's games per cell (None:
    sized to the tolerance), candidates and traced games, the seed, and the setting's labels."""

    goal: Goal
    axes: tuple
    candidates: tuple
    unplayable: int
    budget: int
    verify_games: object
    best: int
    trace_games: int
    seed: int
    setting: dict

    @property
    def verify_seed(self):
        return self.seed + 1

    @property
    def race_seed(self):
        return self.seed + 2


def plan(sets, target, players=defaults.PLAYERS, team=None, layout=defaults.LAYOUT, policy=defaults.POLICY,
         rules=(), tolerance=defaults.DESIGN_TOLERANCE, windows=None, budget=defaults.DESIGN_BUDGET, verify_games=None,
         best=defaults.DESIGN_BEST,
         trace_games=defaults.TRACE_GAMES, seed=0, option="--"):
    """The Plan of a design from its options as `fisim design` takes them (strings, as the command
    line gives them, or the Python API's values); ConfigError in one line for the first thing
    wrong, before anything is played or written, naming the option (`option` "--") or the
    argument (""). `windows` is {feel name: 'LOW..HIGH' or (low, high)}."""
    def name(argument):
        return f"--{argument.replace('_', '-')}" if option else argument
    axes = tuple((k, tuple(v)) for k, v in parse_sets(_set_texts(sets)))
    if not axes:
        raise ConfigError("give the rule numbers to design, as --set sandbags=0..4 --set hand_limit=4..7")
    size = math.prod(len(values) for _, values in axes)
    if size > MAX_CANDIDATES:
        raise ConfigError(f"--set: the ranges make {size:,} candidates; fisim design races at most "
                          f"{MAX_CANDIDATES:,}: narrow a range")
    targets = parse_targets(target, name("target"))
    rules = (rules,) if isinstance(rules, str) else tuple(rules)
    counts, pooled = parse_players(players, "solo" in rules, name("players"))
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or not 0 <= tolerance < 0.5:
        raise ConfigError(f"{name('tolerance')} {tolerance}: give a distance in win rate from 0 to 0.5, such as 0.02")
    unknown = [w for w in (windows or {}) if w not in FEEL]
    if unknown:
        raise ConfigError(f"unknown constraint {unknown[0]!r}; choose from: {', '.join(FEEL)}")
    windows = tuple((w, window) for w in FEEL
                    if (window := parse_window(name(w), (windows or {}).get(w))) is not None)
    if team is not None and len(counts) > 1:
        raise ConfigError(f"{name('team')} fixes the adventurers of one player count; give {name('players')} N, "
                          f"or leave {name('team')} out")
    whole(name("budget"), budget, 1)
    if verify_games is not None:
        whole(name("verify_games"), verify_games, VERIFY_CHUNK)
        if verify_games % VERIFY_CHUNK:
            raise ConfigError(f"{name('verify_games')} {verify_games}: give a multiple of {VERIFY_CHUNK:,}")
    whole(name("best"), best, 1, 100)
    whole(name("trace_games"), trace_games, 0, MAX_TRACE_GAMES)
    traced = [w for w, _ in windows if FEEL[w].traced]
    if traced and trace_games < 2:
        raise ConfigError(f"{name(traced[0])} is measured on traced games: give {name('trace_games')} 2 or more, "
                          f"not {trace_games}")
    whole(name("seed"), seed, 0, MAX_SEED - 2)
    goal = Goal(targets, counts, pooled, float(tolerance), windows)
    candidates, unplayable, setting = _candidates(goal, axes, team, layout, policy, rules)
    least = min(c.change for c in candidates)
    first = sum(c.change == least for c in candidates) * len(goal.cells) * FIRST_ROUND
    if budget < first:
        raise ConfigError(f"{name('budget')} {budget:,}: the first round alone plays {FIRST_ROUND} games of each of "
                          f"{len(goal.cells)} cells of the {first // len(goal.cells) // FIRST_ROUND:,} candidates "
                          f"with the smallest change, {first:,} games; give at least that")
    return Plan(goal, axes, tuple(candidates), unplayable, budget, verify_games, best, trace_games, seed, setting)


def _candidates(goal, axes, team, layout, policy, rules):
    """The candidates of the grid that the setting can play (in grid order), how many tuples it
    cannot, and the setting's labels; ConfigError naming a value that no tuple can be played
    with. A candidate's cells are those a sweep of its variant would play (fisim.grid.expand)."""
    levels = [level for level, _ in goal.targets]
    teams = "random" if team is None else [parse_team(team) if isinstance(team, str) else tuple(team)]
    layouts, policies = parse_layouts(layout), parse_policies(policy)
    item = parse_rules("+".join(rules) or "official")[0]

    def cells(rule_item):
        return tuple(((cell.level, cell.players), cell)
                     for cell in expand(layouts, levels, list(goal.counts), teams, policies, [rule_item]))

    first = cells(item)[0][1]
    keys = [k for k, _ in axes]
    base = tuple((k, first.config.parameters[k]) for k in keys)
    candidates, refused = [], {}
    for combo in itertools.product(*(values for _, values in axes)):
        values = tuple(zip(keys, combo))
        try:
            played = cells(with_numbers(item, dict(values), "--set"))
        except ConfigError as exc:
            refused[values] = str(exc)
            continue
        candidates.append(Candidate(len(candidates), values, base, played))
    for key, values in axes:
        for v in values:
            mine = [reason for combo, reason in refused.items() if dict(combo)[key] == v]
            if len(mine) == math.prod(len(other) for k, other in axes if k != key):
                raise ConfigError(f"--set {key}={v}: no candidate with it can be played: {mine[0]}")
    if not candidates:
        raise ConfigError(f"--set: no tuple of the ranges can be played: {next(iter(refused.values()))}")
    setting = {"layout": first.layout_label, "team": first.team_label, "policy": first.policy_label,
               "rules": first.rules_label, "switches": list(first.rules)}
    return candidates, len(refused), setting


def parse_targets(target, option="--target"):
    """'novice=0.85,normal=0.65' (or a dict) -> ((level, rate), ...) in meter order."""
    if not isinstance(target, (str, dict)):
        raise ConfigError(f"{option} must be LEVEL=RATE pairs as a str, such as 'novice=0.85,normal=0.65', or a dict "
                          f"{{level: rate}}, not {target!r}")
    items = list(target.items()) if isinstance(target, dict) else [
        t.partition("=")[::2] for t in target.split(",") if t.strip()]
    example = "give LEVEL=RATE pairs, as novice=0.85,normal=0.65,elite=0.40,legendary=0.20"
    if not items:
        raise ConfigError(f"{option}: no target given; {example}")
    targets = {}
    for level, rate in items:
        if isinstance(rate, str):
            try:
                rate = float(rate)
            except ValueError:
                raise ConfigError(f"{option} {str(level).strip()}={rate.strip()}: {example}") from None
        label = parse_level(str(level).strip())
        if label in targets:
            raise ConfigError(f"{option}: level {label} is given twice")
        targets[label] = fraction(f"{option} {label}", rate, 1, 0.4, below=True)
    return tuple(sorted(targets.items(), key=lambda item: level_position(item[0])))


def parse_players(players, solo=False, option="--players"):
    """3, 2..4 or 2,4 (each count held to the targets), each (2..4 each), pooled (2..4 pooled), or
    a list of counts -> (counts, pooled)."""
    if isinstance(players, bool) or not isinstance(players, (str, int, list, tuple)):
        raise ConfigError(f"{option} must be a count, 'A..B', 'each', 'pooled' or a list of counts, not {players!r}")
    text = ",".join(map(str, players)) if isinstance(players, (list, tuple)) else str(players).strip()
    if text in ("each", POOLED):
        return (2, 3, 4), text == POOLED
    try:
        return tuple(parse_counts(text, solo)), False
    except ConfigError as exc:
        raise ConfigError(f"{option} {text}: {exc}; or each (2..4, each held to the targets), or pooled "
                          "(2..4 pooled)") from None


def parse_window(option, window):
    """'LOW..HIGH' ('LOW..', '..HIGH'; or a pair) -> (low, high); None for none."""
    if window is None:
        return None
    if isinstance(window, str):
        low, dots, high = window.partition("..")
        ends = [low.strip(), high.strip()]
        if not dots or not all(_is_number(e) or e == "" for e in ends) or ends == ["", ""]:
            raise ConfigError(f"{option} {window}: give a window LOW..HIGH of numbers, as 10..20 (or 10.., ..20)")
        window = (float(ends[0]) if ends[0] else 0.0, float(ends[1]) if ends[1] else math.inf)
    if (not isinstance(window, (list, tuple)) or len(window) != 2
            or not all(isinstance(e, (int, float)) and not isinstance(e, bool) for e in window)):
        raise ConfigError(f"{option} must be 'LOW..HIGH' or a pair of numbers (low, high), not {window!r}")
    low, high = window
    if not 0 <= low <= high:
        raise ConfigError(f"{option} {low:g}..{high:g}: give a window LOW..HIGH with 0 <= LOW <= HIGH")
    return float(low), float(high)


def _is_number(text):
    whole_part, _, fraction_part = text.partition(".")
    return is_whole(whole_part) and (fraction_part == "" or is_whole(fraction_part))


def _set_texts(sets):
    """--set texts from what the API takes: a string, a list of strings, or {key: 'a..b' or values}."""
    if isinstance(sets, str):
        return [sets]
    if isinstance(sets, dict):
        return [f"{k}={v if isinstance(v, str) else ','.join(map(str, v))}" for k, v in sets.items()]
    if isinstance(sets, (list, tuple)) and all(isinstance(s, str) for s in sets):
        return list(sets)
    raise ConfigError(f"sets must be 'NUMBER=A..B', a list of them or a dict {{number: 'A..B' or values}}, "
                      f"not {sets!r}")
