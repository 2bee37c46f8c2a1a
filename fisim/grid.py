"""The sweep grid: parse each axis (ranges and lists) and expand them into cells.

A cell is one setting: layout, level, players, team (None = a random team each game), policy
and rule switches, and the repeat its games are played as (fisim.rules.rng; 0, the games as
dealt, unless a ladder replays deals). Every bad value is a ConfigError naming it and the valid
choices.
"""
import hashlib
import itertools
import json
from dataclasses import asdict, dataclass
from pathlib import Path

from fisim.rules.config import SWITCHES, ConfigError, GameConfig, parse_team
from fisim.rules.constants import LEVELS, ROLE_NAMES
from fisim.rules.layouts import BUILTIN_NAMES, LayoutError, load_layout


@dataclass(frozen=True)
class Cell:
    layout: str          # built-in name or layout file path
    level: str
    players: int
    team: tuple          # roles in seat order, or None for a random team each game
    policy: str
    rules: tuple         # sorted rule switches; () for the official rules
    repeat: int = 0      # the policy stream's repeat index (0: the games as dealt)

    @property
    def config(self):
        return GameConfig(players=self.players, level=self.level, team=self.team,
                          switches=frozenset(self.rules)).validate()

    @property
    def layout_label(self):
        """A built-in island's name, or a layout file's name (never that of a built-in island)."""
        return self.layout if self.layout in BUILTIN_NAMES else Path(self.layout).name

    @property
    def team_label(self):
        return "+".join(self.team) if self.team else "random"

    @property
    def rules_label(self):
        return "+".join(self.rules) or "official"

    @property
    def key(self):
        """A short stable id of the cell, used in chunk file names. Repeat 0 is left out, so a
        cell keeps the key it had before repeats existed."""
        fields = asdict(self)
        if not self.repeat:
            del fields["repeat"]
        text = json.dumps(fields, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:12]


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
    return _range_or_list(text, list(LEVELS), "level")


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
        try:
            load_layout(name)
        except LayoutError as exc:
            raise ConfigError(str(exc)) from None
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
    """'official,navigator-plain,heli-all+no-heli-rescue' -> [(), ('navigator-plain',), (...)]."""
    variants = []
    for item in (t.strip() for t in text.split(",") if t.strip()):
        switches = tuple(sorted({s for s in item.split("+") if s != "official"}))
        for s in switches:
            if s not in SWITCHES:
                raise ConfigError(f"unknown rule switch {s!r}; choose from: official, {', '.join(SWITCHES)}")
        variants.append(switches)
    return list(dict.fromkeys(variants)) or [()]


def parse_teams(text):
    """'random', 'all', or explicit teams 'diver+pilot,engineer+explorer+messenger'."""
    text = text.strip()
    if text in ("random", "all"):
        return text
    return [parse_team(t) for t in text.split(",") if t.strip()]


def parse_policies(text):
    """Registry names and policy files; a file is named by its absolute path (see parse_layouts)."""
    from policies import PolicyError, load_policy
    names = [t.strip() for t in text.split(",") if t.strip()]
    for name in names:
        try:
            load_policy(name)
        except PolicyError as exc:
            raise ConfigError(str(exc)) from None
    names = [str(Path(n).resolve()) if n.endswith(".py") else n for n in dict.fromkeys(names)]
    _labels_unique([Path(n).stem if n.endswith(".py") else n.partition("@")[0] for n in names], "policy")
    return names


def expand(layouts, levels, players, teams, policies, rules):
    """Every cell of the grid, in a fixed order."""
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
        for layout, level, team, policy, switches in itertools.product(layouts, levels, team_list, policies, rules):
            if (p == 1) != ("solo" in switches):
                continue
            cell = Cell(layout, level, p, team, policy, switches)
            cell.config        # validates the setting
            cells.append(cell)
    if not cells:
        raise ConfigError("the grid is empty: no cell fits these options (1 player needs --rules solo, "
                          "and solo needs --players 1)")
    return cells
