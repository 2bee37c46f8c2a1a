"""What one simulated setting is: players, level, team, first player, rule switches and a variant.

Rule switches and rule numbers are data (DESIGN): a variant is configuration, not a code path.
`GameConfig.validate` gives the one-line messages the command line shows for bad input, and
`GameConfig.to_array` packs the config into the int32 array the engine reads.
"""
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from fisim.errors import ConfigError
from fisim.limits import is_whole
from fisim.rules.constants import LEVELS, MAX_PLAYERS, N_KINDS, N_TREASURES, ROLE_NAMES
from fisim.rules.schema import Layout
from fisim.rules.variant import DECK_KEYS, MAX_SKULL, PARAMETERS, Variant, is_variant_file, load_variant, make_variant

# The rule switches of docs/rules.md, each off in the official rules.
SWITCHES = {
    "navigator-plain": "R-ROLE-NAVIGATOR: a moved pawn steps orthogonally over existing tiles only",
    "heli-all": "R-SPECIAL-HELI: a Helicopter Lift moves all pawns on the tile",
    "swim-seed000": "R-SWIM-2: only the Diver's swimming exception applies",
    "no-heli-rescue": "R-SPECIAL-WINDOWS: a Helicopter Lift may not rescue a pawn whose tile sinks",
    "swim-seed001": "R-SWIM-2: the Diver's and the Explorer's swimming exceptions apply, not the Pilot's",
    "diver-flooded-only": "R-ROLE-DIVER: the Diver's move passes through flooded tiles only",
    "diver-sunk-only": "R-ROLE-DIVER: the Diver's move passes through sunk cells only",
    "sunk-card-stays": "R-FLOOD-1: a sunk tile's flood card stays in the flood deck and does nothing when drawn",
    "hand-after-draw": "R-HAND: the hand limit is checked once, after the turn's treasure cards are drawn",
    "solo": "R-VAR-SOLO: one player, 3 treasure cards a turn, hand limit 7",
}
# Pairs of switches that read one rule two ways: a setting may hold one of each pair.
INCOMPATIBLE = (("swim-seed000", "swim-seed001"), ("diver-flooded-only", "diver-sunk-only"))
RULES_VERSION = 1   # bump whenever the engine's behaviour changes

# The engine's int32 config array.
CONFIG = Layout("config")
C_PLAYERS = CONFIG.add("C_PLAYERS", 1, "number of players")
C_LEVEL = CONFIG.add("C_LEVEL", 1, "starting water level")
C_ACTIONS = CONFIG.add("C_ACTIONS", 1, "actions per turn")
C_DRAWS = CONFIG.add("C_DRAWS", 1, "treasure cards drawn per turn")
C_HAND_LIMIT = CONFIG.add("C_HAND_LIMIT", 1, "hand limit")
C_NAV_PLAIN = CONFIG.add("C_NAV_PLAIN", 1, "switch navigator-plain")
C_HELI_ALL = CONFIG.add("C_HELI_ALL", 1, "switch heli-all")
C_SWIM000 = CONFIG.add("C_SWIM000", 1, "switch swim-seed000")
C_NO_HELI_RESCUE = CONFIG.add("C_NO_HELI_RESCUE", 1, "switch no-heli-rescue")
C_SWIM001 = CONFIG.add("C_SWIM001", 1, "switch swim-seed001")
C_DIVER_FLOODED = CONFIG.add("C_DIVER_FLOODED", 1, "switch diver-flooded-only")
C_DIVER_SUNK = CONFIG.add("C_DIVER_SUNK", 1, "switch diver-sunk-only")
C_SUNK_CARD_STAYS = CONFIG.add("C_SUNK_CARD_STAYS", 1, "switch sunk-card-stays")
C_HAND_AFTER_DRAW = CONFIG.add("C_HAND_AFTER_DRAW", 1, "switch hand-after-draw")
C_FIRST = CONFIG.add("C_FIRST", 1, "fixed first seat, or -1 for random")
C_TEAM = CONFIG.add("C_TEAM", MAX_PLAYERS, "fixed role per seat, or -1 for a random team")
C_DECK = CONFIG.add("C_DECK", N_KINDS, "treasure deck: cards per kind (R-TDECK)")
C_CAPTURE = CONFIG.add("C_CAPTURE", 1, "matching cards a capture discards (R-ACT-CAPTURE)")
C_INITIAL_FLOODS = CONFIG.add("C_INITIAL_FLOODS", 1, "tiles flooded at setup (R-SETUP-2)")
C_SKULL = CONFIG.add("C_SKULL", 1, "the skull's position on the water meter (R-METER)")
C_FLOODS = CONFIG.add("C_FLOODS", MAX_SKULL, "flood cards drawn at water levels 0..skull-1 (0 from the skull on)")
C_SIZE = CONFIG.close(globals()).size
NAMED_POSITIONS = {position: name for name, position in LEVELS.items()}


def parse_level(text):
    """A level's label: a name (novice..legendary) or a water meter position as a number, a
    position that has a name taking it ('2' is 'normal'); ConfigError otherwise. Whether the
    position is below the skull is the setting's check (GameConfig.validate)."""
    label = level_label(text)
    if label not in LEVELS and not (is_whole(label) and 1 <= int(label) < MAX_SKULL):
        raise ConfigError(f"unknown level {str(text)!r}; choose one of: {', '.join(LEVELS)}, or a water meter "
                          f"position from 1 to {MAX_SKULL - 1} below the skull (docs/model.md)")
    return label


def level_label(level):
    """The label of a level given as a name or a meter position (an int or digits): the name of a
    position that has one, else the position's digits; anything else as it is (parse_level
    refuses it)."""
    text = str(level).strip()
    if is_whole(text):
        return NAMED_POSITIONS.get(int(text), str(int(text)))
    return text


def level_position(label):
    """The water meter position a level label starts at."""
    return LEVELS[label] if label in LEVELS else int(label)


def level_order(labels):
    """The four level names and any other labels among `labels`, in meter order: the categories
    of an ordered `level` column."""
    return sorted(set(LEVELS) | set(labels), key=level_position)


def split_rules(rules):
    """(switches, Variant or None) of rule names as the command line gives them: switch names,
    'official', and at most one variant file (FILE.toml)."""
    files = [r for r in rules if is_variant_file(r)]
    if len(files) > 1:
        raise ConfigError(f"two variant files ({files[0]}, {files[1]}): give one --rules FILE.toml per setting")
    variant = load_variant(files[0]) if files else None
    if variant is not None and variant.name in SWITCHES:
        raise ConfigError(f"{variant.where('name')}: name {variant.name!r} is a rule switch's; choose another name")
    return frozenset(r for r in rules if r != "official" and not is_variant_file(r)), variant


def parse_team(text):
    """'diver,pilot' (or 'diver+pilot') -> ('diver', 'pilot'), checking names and repeats."""
    roles = tuple(r.strip().lower() for r in text.replace("+", ",").split(",") if r.strip())
    for r in roles:
        if r not in ROLE_NAMES:
            raise ConfigError(f"unknown adventurer {r!r}; choose from: {', '.join(ROLE_NAMES)}")
    seen = set()
    for r in roles:
        if r in seen:
            raise ConfigError(f"adventurer {r!r} appears twice in the team; each role can be dealt once")
        seen.add(r)
    if not roles:
        raise ConfigError(f"empty team; name 1 to 4 of: {', '.join(ROLE_NAMES)}")
    return roles


@dataclass(frozen=True)
class GameConfig:
    """One setting. `team` None deals a random team each game; `first` None draws the first player;
    `variant` None plays the official numbers. A variant's value wins over solo's (3 draws, hand
    limit 7), which wins over the official one."""

    players: int = 3
    level: str = "normal"
    team: tuple = None
    first: int = None
    switches: frozenset = field(default_factory=frozenset)
    variant: object = None      # a fisim.rules.variant.Variant

    def __post_init__(self):
        object.__setattr__(self, "switches", frozenset(self.switches))
        object.__setattr__(self, "level", level_label(self.level))
        if self.team is not None:
            object.__setattr__(self, "team", tuple(self.team))

    def validate(self):
        """Raise ConfigError for a setting the rules do not allow; return self. The engine's batch
        entries check every config they are handed with it (fisim.engine), whoever builds it."""
        for a, b in INCOMPATIBLE:
            if a in self.switches and b in self.switches:
                raise ConfigError(f"rule switches {a!r} and {b!r} read the same rule two ways; choose one of them")
        if self.players == 1 and not self.solo:
            raise ConfigError("1 player needs the solo variant: add --rules solo (or choose 2, 3 or 4 players)")
        self.check_playable()
        if self.solo and self.players != 1:
            raise ConfigError(f"the solo variant is for 1 player, not {self.players}")
        return self

    def check_playable(self):
        """Raise ConfigError for a config the engine cannot play: a field of the wrong kind or out of
        range, a rule number outside its range (checked as a variant file's are), a deck that cannot
        deal; return self. A hand-built position of the rule tests (fisim.engine.EngineGame) is
        checked with this alone: it may seat one pawn without the solo variant."""
        parse_level(self.level)
        if self.variant is not None:
            if not isinstance(self.variant, Variant):
                raise ConfigError(f"variant must be a fisim.rules.variant.Variant or None, not {self.variant!r}")
            make_variant(dict(self.variant.values), self.variant.name, self.variant.source or "variant")
        for s in self.switches:
            if s not in SWITCHES:
                raise ConfigError(f"unknown rule switch {s!r}; choose from: official, {', '.join(SWITCHES)}")
        if isinstance(self.players, bool) or not isinstance(self.players, int) or not 1 <= self.players <= MAX_PLAYERS:
            raise ConfigError(f"players must be 2, 3 or 4 (or 1 with --rules solo), not {self.players!r}")
        if self.team is not None:
            if not all(isinstance(r, str) for r in self.team):
                raise ConfigError(f"team must be role names, not {self.team!r}")
            parse_team(",".join(self.team))
            if len(self.team) != self.players:
                raise ConfigError(f"the team has {len(self.team)} adventurers but there are {self.players} players")
        if self.first is not None and (isinstance(self.first, bool) or not isinstance(self.first, int)
                                       or not 0 <= self.first < self.players):
            raise ConfigError(f"first player must be a seat from 0 to {self.players - 1}, not {self.first!r}")
        if self.start_level >= self.skull and "meter" not in dict(self.variant.values if self.variant else ()):
            raise ConfigError(f"level {self.level}: the water meter's skull is at position {self.skull}; start "
                              f"below it, at a position from 1 to {self.skull - 1}")
        if self.variant is not None:
            self.variant.check_setting(self.players, self.solo, self.start_level, self.parameters)
        return self

    @property
    def solo(self):
        return "solo" in self.switches

    @cached_property
    def parameters(self):
        """Every rule number of this setting, by variant key (fisim.rules.variant.PARAMETERS)."""
        values = {key: p.official for key, p in PARAMETERS.items()}
        if self.solo:
            values.update(draws=3, hand_limit=7)          # R-VAR-SOLO
        if self.variant is not None:
            values.update(self.variant.values)
        return values

    @property
    def actions(self):
        return self.parameters["actions"]

    @property
    def draws(self):
        return self.parameters["draws"]

    @property
    def hand_limit(self):
        return self.parameters["hand_limit"]

    @property
    def capture(self):
        return self.parameters["capture"]

    @property
    def initial_floods(self):
        return self.parameters["initial_floods"]

    @property
    def deck(self):
        """Treasure deck cards per kind: the 4 treasures, Helicopter Lift, Sandbags, Waters Rise!."""
        p = self.parameters
        return (p["treasure_cards"],) * N_TREASURES + tuple(p[k] for k in DECK_KEYS[1:])

    @property
    def flood_counts(self):
        """Flood cards drawn at water levels 0..skull-1 (level 0 unused: 0)."""
        return (0, *self.parameters["meter"][:-1])

    @property
    def skull(self):
        return len(self.parameters["meter"])

    @property
    def start_level(self):
        return level_position(self.level)

    @property
    def rules_label(self):
        """'official', or the switches, sorted, then the variant's name, joined by '+'."""
        return rules_label(self.switches, self.variant)

    def to_array(self):
        a = np.full(C_SIZE, -1, dtype=np.int32)
        a[C_PLAYERS] = self.players
        a[C_LEVEL] = self.start_level
        a[C_ACTIONS] = self.actions
        a[C_DRAWS] = self.draws
        a[C_HAND_LIMIT] = self.hand_limit
        a[C_NAV_PLAIN] = "navigator-plain" in self.switches
        a[C_HELI_ALL] = "heli-all" in self.switches
        a[C_SWIM000] = "swim-seed000" in self.switches
        a[C_NO_HELI_RESCUE] = "no-heli-rescue" in self.switches
        a[C_SWIM001] = "swim-seed001" in self.switches
        a[C_DIVER_FLOODED] = "diver-flooded-only" in self.switches
        a[C_DIVER_SUNK] = "diver-sunk-only" in self.switches
        a[C_SUNK_CARD_STAYS] = "sunk-card-stays" in self.switches
        a[C_HAND_AFTER_DRAW] = "hand-after-draw" in self.switches
        if self.first is not None:
            a[C_FIRST] = self.first
        if self.team is not None:
            for i, r in enumerate(self.team):
                a[C_TEAM + i] = ROLE_NAMES.index(r)
        a[C_DECK:C_DECK + N_KINDS] = self.deck
        a[C_CAPTURE] = self.capture
        a[C_INITIAL_FLOODS] = self.initial_floods
        a[C_SKULL] = self.skull
        a[C_FLOODS:C_FLOODS + MAX_SKULL] = 0
        a[C_FLOODS:C_FLOODS + self.skull] = self.flood_counts
        return a


def make_config(level="normal", players=3, team=None, rules=(), first=None):
    """A validated GameConfig from command-line style arguments (`rules` may include 'official' and
    one variant file)."""
    if not isinstance(rules, (list, tuple, set, frozenset)) or not all(isinstance(r, str) for r in rules):
        raise ConfigError(f"rules must be a list of rule switch names and variant files, such as ['heli-all'] or "
                          f"[] for the official rules, not {rules!r}")
    if not (team is None or isinstance(team, str)
            or isinstance(team, (list, tuple)) and all(isinstance(r, str) for r in team)):
        raise ConfigError(f"team must be None (a random team each game), 'diver,pilot' or a list of role names, "
                          f"not {team!r}")
    switches, variant = split_rules(rules)
    if isinstance(team, str):
        team = parse_team(team)
    return GameConfig(players=players, level=level, team=team, first=first, switches=switches,
                      variant=variant).validate()


def rules_label(switches, variant):
    """'official', or the switches, sorted, then the variant's name, joined by '+'."""
    return "+".join([*sorted(switches), *([variant.name] if variant else [])]) or "official"
