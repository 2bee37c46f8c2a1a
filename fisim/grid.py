"""The sweep grid: parse each axis (ranges and lists) and expand them into cells (fisim.cell).
Every bad value is a ConfigError naming it and the valid choices.
"""
import itertools
from dataclasses import replace
from pathlib import Path

from fisim import defaults
from fisim.cell import Cell
from fisim.limits import cut_range, is_whole
from fisim.rules.config import (
    SWITCHES,
    ConfigError,
    GameConfig,
    level_label,
    level_position,
    parse_level,
    parse_team,
    split_rules,
)
from fisim.rules.constants import ROLE_NAMES
from fisim.rules.layouts import BUILTIN_NAMES, load_layout
from fisim.rules.variant import PARAMETERS, make_variant, parse_value


def _range_or_list(text, choices, what):
    """'a..c' (inclusive, in the order of `choices`) or 'a,b' or 'a' -> list of choices."""
    text = text.strip()
    if ".." in text:
        lo, _, hi = text.partition("..")
        for end in (lo, hi):
            if end not in choices:
                raise ConfigError(f"unknown {what} {end!r} in {text!r}; choose from: {', '.join(map(str, choices))}")
        i, j = choices.index(lo), choices.index(hi)
        if i > j:
            raise ConfigError(f"empty {what} range {text!r}: {lo} comes after {hi}")
        return list(choices[i:j + 1])
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise ConfigError(f"no {what} given")
    for item in items:
        if item not in choices:
            raise ConfigError(f"unknown {what} {item!r}; choose from: {', '.join(map(str, choices))}")
    return list(dict.fromkeys(items))


def parse_levels(text):
    """'novice..legendary', 'elite,6' or '5..8' -> level labels: names or water meter positions
    (parse_level), a range a..b running over the meter's positions in order."""
    lo, dots, hi = text.partition("..")
    if not dots:
        items = [parse_level(t) for t in text.split(",") if t.strip()]
        if not items:
            raise ConfigError("no level given")
        return list(dict.fromkeys(items))
    first, last = level_position(parse_level(lo)), level_position(parse_level(hi))
    if first > last:
        raise ConfigError(f"empty level range {text.strip()!r}: {lo.strip()} comes after {hi.strip()}")
    return [level_label(p) for p in range(first, last + 1)]


def parse_players(text, solo=False):
    choices = ["1", "2", "3", "4"] if solo else ["2", "3", "4"]
    try:
        return [int(p) for p in _range_or_list(text, choices, "player count")]
    except ConfigError as exc:
        raise ConfigError(f"{exc} (1 player needs --rules solo)") from None


def parse_layouts(text):
    """Built-in names (or 'all') and layout files; a file is named by its absolute path, so that
    Dask workers started elsewhere find it, and labelled by its file name."""
    names = list(BUILTIN_NAMES) if text.strip() == "all" else [t.strip() for t in text.split(",") if t.strip()]
    for name in names:
        load_layout(name)
        if name not in BUILTIN_NAMES and Path(name).name in BUILTIN_NAMES:
            raise ConfigError(f"layout file {name} has the name of a built-in island; rename the file")
    names = [n if n in BUILTIN_NAMES else str(Path(n).resolve()) for n in dict.fromkeys(names)]
    _labels_unique([n if n in BUILTIN_NAMES else Path(n).name for n in names], "layout")
    return names


def _labels_unique(labels, what):
    """Refuse two inputs that the results would show under one label."""
    twice = next((label for label in labels if labels.count(label) > 1), None)
    if twice is not None:
        raise ConfigError(f"two {what}s are both called {twice!r}; rename one of the files")


def parse_rules(text):
    """'official,navigator-plain,heli-all+no-heli-rescue,hard.toml+solo' -> [(), ('navigator-plain',),
    ('heli-all', 'no-heli-rescue'), ('solo', <Variant hard>)]: per item its sorted switches,
    followed by the Variant of its variant file (FILE.toml) if it names one. 'all': the official
    rules and every switch on its own."""
    if text.strip() == "all":
        text = ",".join(["official", *SWITCHES])
    variants = []
    for item in (t.strip() for t in text.split(",") if t.strip()):
        switches, variant = split_rules([s.strip() for s in item.split("+")])
        for s in switches:
            if s not in SWITCHES:
                raise ConfigError(f"unknown rule switch {s!r}; choose from: official, {', '.join(SWITCHES)}, "
                                  "or a variant file FILE.toml")
        variants.append((*sorted(switches), *([variant] if variant else [])))
    variants = list(dict.fromkeys(variants)) or [()]
    _labels_unique([v.name for v in dict.fromkeys(_variant_of(r) for r in variants) if v], "variant")
    return variants


def parse_sets(texts):
    """--set options, ['waters_rise=2..5', 'hand_limit=4,5,6'] -> [('waters_rise', [2, 3, 4, 5]),
    ('hand_limit', [4, 5, 6])]: per rule number the values of its axis (a range a..b of whole
    numbers, or a list), each checked against the number's range."""
    axes = {}
    for text in texts:
        key, _, values = text.partition("=")
        key = key.strip()
        if key not in PARAMETERS or key == "meter":
            raise ConfigError(f"--set {text}: choose a rule number from: "
                              f"{', '.join(k for k in PARAMETERS if k != 'meter')} (a meter needs a variant file)")
        if key in axes:
            raise ConfigError(f"--set {text}: {key} is given twice; give all its values in one --set")
        lo, dots, hi = values.partition("..")
        items = [lo, hi] if dots else [v for v in values.split(",") if v.strip()]
        if not items or not all(is_whole(v.strip()) for v in items):
            raise ConfigError(f"--set {text}: give whole numbers, as {key}=2..5 or {key}=4,5,6")
        numbers = list(cut_range(int(lo), int(hi), PARAMETERS[key].high)) if dots else [int(v) for v in items]
        if not numbers:
            raise ConfigError(f"--set {text}: the range {values} is empty")
        for n in numbers:
            parse_value(key, n, lambda problem: ConfigError(f"--set {text}: {problem}"))
        axes[key] = list(dict.fromkeys(numbers))
    return list(axes.items())


def with_axes(rules, axes):
    """parse_rules items, and for each, one item per value of each --set axis (parse_sets) that
    changes that one rule number from the item's: its variant is the item's with that number set,
    named 'key=value' ('tide/key=value' from a variant file's 'tide'). The official value of a
    number is its base item itself."""
    out = list(rules)
    for item in rules:
        for key, numbers in axes:
            out += [with_numbers(item, {key: n}, f"--set {key}={n}") for n in numbers]
    return list(dict.fromkeys(out))


def with_numbers(item, numbers, source):
    """The parse_rules item `item` with the rule numbers `numbers` ({key: n}) set: the item itself
    if each is its value, else the item with a variant named after the numbers that change, in
    PARAMETERS' order ('key=n', 'key=n/key=m'; 'tide/key=n' from a variant 'tide'); ConfigError
    starting with `source` for numbers the rules do not allow together."""
    base = _variant_of(item)
    values = GameConfig(switches=frozenset(_switches_of(item)), variant=base).parameters
    changed = {k: numbers[k] for k in PARAMETERS if k in numbers and numbers[k] != values[k]}
    if not changed:
        return item
    name = "/".join([*([base.name] if base else []), *(f"{k}={n}" for k, n in changed.items())])
    return (*_switches_of(item), make_variant({**(dict(base.values) if base else {}), **changed}, name, source))


def cell_with_numbers(cell, numbers, source):
    """Cell `cell` with the rule numbers `numbers` ({key: n}) set (with_numbers)."""
    item = with_numbers((*cell.rules, *([cell.variant] if cell.variant else [])), numbers, source)
    return replace(cell, rules=_switches_of(item), variant=_variant_of(item))


def _switches_of(rules):
    """The switches of a parse_rules item."""
    return tuple(r for r in rules if isinstance(r, str))


def _variant_of(rules):
    """The Variant of a parse_rules item, or None."""
    return next((r for r in rules if not isinstance(r, str)), None)


def parse_teams(text):
    """'random', 'all', or explicit teams 'diver+pilot,engineer+explorer+messenger'."""
    text = text.strip()
    if text in ("random", "all"):
        return text
    return [parse_team(t) for t in text.split(",") if t.strip()]


def parse_policies(text):
    """Policies by name, as a search over another or as files, each resolved once (policies.Policy;
    a cell names it as given, a file by its absolute path: see parse_layouts)."""
    from policies import choices, resolve
    names = [t.strip() for t in text.split(",") if t.strip()]
    if not names:
        raise ConfigError(f"no policy given; choose from: {', '.join(choices())}, or a policy .py file")
    resolved = list({p.given: p for p in map(resolve, names)}.values())
    _labels_unique([p.NAME for p in resolved], "policy")
    return resolved


def policy_name(policy):
    """The name a policy's cells carry (policies.Policy.given: search is search:64, tuned-search:8
    is search:8/tuned, a file its absolute path)."""
    from policies import resolve
    return resolve(policy).given


def sweep_cells(levels=defaults.LEVELS, players=defaults.PLAYER_COUNTS, teams="random", layouts=defaults.LAYOUT,
                policies=defaults.POLICY, rules="official", sets=()):
    """The cells of a sweep from its options as `fisim sweep` takes them (each a string such as
    "novice..elite" or "2,4", or a list of values); `sets` lists --set axes ("waters_rise=2..5")."""
    def text(value):
        return value if isinstance(value, str) else ",".join(map(str, value))
    rule_variants = with_axes(parse_rules(text(rules)), parse_sets([sets] if isinstance(sets, str) else sets))
    solo = any("solo" in r for r in rule_variants)
    return expand(parse_layouts(text(layouts)), parse_levels(text(levels)), parse_players(text(players), solo),
                  parse_teams(text(teams)), parse_policies(text(policies)), rule_variants)


def expand(layouts, levels, players, teams, policies, rules):
    """Every cell of the grid, in a fixed order; `rules` items as parse_rules gives them."""
    if teams not in ("random", "all"):
        wrong = [t for t in teams if len(t) not in players]
        if wrong:
            raise ConfigError(f"team {'+'.join(wrong[0])} has {len(wrong[0])} adventurers but --players is "
                              f"{','.join(map(str, players))}")
    cells = []
    for p in players:
        if teams == "random":
            team_list = [None]
        elif teams == "all":
            team_list = list(itertools.combinations(ROLE_NAMES, p))
        else:
            team_list = [t for t in teams if len(t) == p]
        for layout, level, team, policy, item in itertools.product(layouts, levels, team_list, policies, rules):
            if (p == 1) != ("solo" in item):
                continue
            cell = Cell(layout, level, p, team, policy, _switches_of(item), _variant_of(item))
            cell.config        # validates the setting
            cells.append(cell)
    if not cells:
        raise ConfigError("the grid is empty: no cell fits these options (1 player needs --rules solo, "
                          "and solo needs --players 1)")
    return cells
