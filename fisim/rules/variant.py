"""Rules as data: a variant file sets the game's numbers; every number it leaves out keeps its
official value (docs/model.md "Variant files").

    name = "rising-tide"              # optional; the file's stem otherwise
    waters_rise = 4
    meter = [2, 2, 3, 3, 3, 4, 4, 5, 5, "skull"]

A file is TOML, read with the standard library. `load_variant` checks each key against
PARAMETERS (its type and range) and the keys against each other; `Variant.check_setting` checks
what needs the setting too (players, solo, the starting level). Every refusal is one ConfigError
line naming the file, the key's line, the key and what is allowed.
"""
import re
from dataclasses import dataclass, field
from pathlib import Path

from fisim.errors import ConfigError
from fisim.limits import MAX_VARIANT_BYTES, is_whole
from fisim.rules.constants import FLOOD_COUNT, N_TREASURES, SKULL

SKULL_MARK = "skull"
MAX_SKULL = 16          # the highest meter position the skull may take (the config array's room)
MAX_FLOODS = 12         # flood cards drawn at one meter position, at most


@dataclass(frozen=True)
class Parameter:
    key: str
    official: object
    low: int
    high: int
    rule: str
    meaning: str


# The numbers a variant may set, in the order manifests, rows and docs list them. For the meter,
# low..high bound each position's flood cards.
PARAMETERS = {p.key: p for p in (
    Parameter("treasure_cards", 5, 1, 10, "R-TDECK", "cards of each treasure in the treasure deck"),
    Parameter("helicopter_lifts", 3, 1, 6, "R-TDECK", "Helicopter Lift cards"),
    Parameter("sandbags", 2, 0, 6, "R-TDECK", "Sandbags cards"),
    Parameter("waters_rise", 3, 1, 6, "R-TDECK", "Waters Rise! cards (at least one keeps the treasure "
              "pile from running dry)"),
    Parameter("meter", (*(int(n) for n in FLOOD_COUNT[1:SKULL]), SKULL_MARK), 1, MAX_FLOODS, "R-METER",
              f"flood cards drawn at positions 1, 2, ..., then \"{SKULL_MARK}\" (at position 2 to {MAX_SKULL})"),
    Parameter("hand_limit", 5, 2, 10, "R-HAND", "cards a player may hold"),
    Parameter("actions", 3, 1, 6, "R-TURN", "actions per turn"),
    Parameter("draws", 2, 1, 5, "R-DRAW-1", "treasure cards drawn per turn"),
    Parameter("initial_floods", 6, 0, 12, "R-SETUP-2", "tiles flooded before the first turn"),
    Parameter("capture", 4, 1, 10, "R-ACT-CAPTURE", "matching cards discarded to capture a treasure"),
)}
DECK_KEYS = ("treasure_cards", "helicopter_lifts", "sandbags", "waters_rise")
# the most treasure cards a variant's deck holds: the hidden pile's room (fisim.rules.state)
MAX_TREASURE_CARDS = sum(PARAMETERS[k].high * (N_TREASURES if k == "treasure_cards" else 1) for k in DECK_KEYS)
NAME = re.compile(r"[a-z0-9][a-z0-9_.-]{0,39}")
DEALT = 2               # R-SETUP-4: cards dealt to each player
SHOWN = 20              # the entries of a list, or the characters of a text, a message shows


@dataclass(frozen=True)
class Variant:
    """The keys a variant sets (`values`: (key, value) pairs in PARAMETERS' order, a meter as a
    tuple ending in "skull"), its name, and, for messages, where it comes from ('variant file F',
    '--set KEY=VALUE') and, from a file, each key's line."""

    name: str
    values: tuple
    source: str = field(default=None, compare=False)
    lines: tuple = field(default=(), compare=False)

    def where(self, key):
        """Where `key` is set: 'variant file F, line N'; the source alone for a key it leaves out."""
        line = dict(self.lines).get(key)
        return self.source + (f", line {line}" if line else "")

    def check_setting(self, players, solo, start_level, parameters):
        """ConfigError for a setting this variant cannot be played in: `parameters` are the
        setting's values of every key (the file's, else solo's or the official ones)."""
        p = parameters
        dealable = p["treasure_cards"] * N_TREASURES + p["helicopter_lifts"] + p["sandbags"]
        if dealable < DEALT * players:
            key = next((k for k in DECK_KEYS if k in dict(self.values)), "treasure_cards")
            raise ConfigError(f"{self.where(key)}: {key}: a deck of {dealable} treasure and special cards cannot "
                              f"deal {DEALT} to each of {players} players (R-SETUP-4); give at least "
                              f"{DEALT * players}")
        if p["hand_limit"] < p["capture"]:
            key = "hand_limit" if "hand_limit" in dict(self.values) else "capture"
            raise ConfigError(f"{self.where(key)}: {key}: a hand limit of {p['hand_limit']}"
                              f"{' (solo)' if solo and 'hand_limit' not in dict(self.values) else ''} "
                              f"cannot hold the {p['capture']} cards a capture takes; make hand_limit at "
                              "least capture")
        skull = len(p["meter"])
        if skull <= start_level:
            raise ConfigError(f"{self.where('meter')}: meter: the skull at position {skull} is not above the "
                              f"starting position {start_level}; put it at {start_level + 1} to {MAX_SKULL}")


def parameter_text(key, value):
    """A rule number as a results table shows it: '4', or a meter '2 2 3 3 skull'."""
    return " ".join(map(str, value)) if key == "meter" else str(value)


def is_variant_file(text):
    return str(text).endswith(".toml")


def load_variant(path):
    """The Variant of a variant file; ConfigError in one line for anything wrong with it."""
    path = Path(path)
    text = _read(path)
    import tomllib  # Python 3.11 and later: only a variant file needs it
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"variant file {path}: not valid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"variant file {path}: not valid TOML: its arrays or tables nest too deeply") from None
    lines = tuple(_key_lines(text, data).items())
    where = Variant("", (), f"variant file {path}", lines).where
    name = data.pop("name", path.stem)
    if not isinstance(name, str) or not NAME.fullmatch(name) or name == "official":
        unnamed = "" if "name" in dict(lines) else " (the file's name is its name when it sets none)"
        shown = repr(name) if isinstance(name, str) and len(name) <= 40 else _show(name)
        raise ConfigError(f"{where('name')}: name {shown} cannot label results{unnamed}: give a name = of 1 to "
                          "40 lower-case letters, digits, '-', '_' or '.', other than 'official'")
    values = {}
    for key, value in data.items():
        if key not in PARAMETERS:
            raise ConfigError(f"{where(key)}: unknown key {key!r}; choose from: name, {', '.join(PARAMETERS)}")
        values[key] = parse_value(key, value, lambda problem, k=key: ConfigError(f"{where(k)}: {problem}"))
    _check_keys(values, where)
    return Variant(name, tuple((k, values[k]) for k in PARAMETERS if k in values), f"variant file {path}", lines)


def _read(path):
    """The text of a variant file: a regular file (a FIFO would block, a device never end) of at
    most MAX_VARIANT_BYTES."""
    try:
        if not path.is_file():
            problem = "is not a regular file" if path.exists() else "does not exist"
            raise ConfigError(f"variant file {path} {problem}")
        with path.open("rb") as f:
            data = f.read(MAX_VARIANT_BYTES + 1)
        if len(data) > MAX_VARIANT_BYTES:
            raise ConfigError(f"variant file {path} is larger than {MAX_VARIANT_BYTES:,} bytes; a variant file sets "
                              f"at most {len(PARAMETERS) + 1} keys")
        return data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"variant file {path} cannot be read: {getattr(exc, 'strerror', None) or exc}") from None


def variant_of_words(words, name):
    """A Variant from `key=value` words ('hand_limit=4', 'meter=2,2,3,skull'), such as a rule
    test's position gives; ConfigError naming the word otherwise."""
    values = {}
    for word in words:
        key, _, text = word.partition("=")
        items = [int(v) if is_whole(v.strip().lstrip("-")) else v.strip() for v in text.split(",")]
        values[key] = items if key == "meter" else items[0]
    return make_variant(values, name, name)


def make_variant(values, name, source):
    """A Variant named `name` setting `values` ({key: value}, a meter as a list or tuple ending in
    "skull"), checked as a file's would be; ConfigError starting with `source` otherwise."""
    checked = {}
    for key, value in values.items():
        if key not in PARAMETERS:
            raise ConfigError(f"{source}: unknown rule number {key!r}; choose from: {', '.join(PARAMETERS)}")
        value = list(value) if isinstance(value, tuple) else value
        checked[key] = parse_value(key, value, lambda problem: ConfigError(f"{source}: {problem}"))
    _check_keys(checked, lambda key: source)
    return Variant(name, tuple((k, checked[k]) for k in PARAMETERS if k in checked), source)


def parse_value(key, value, error):
    """A parameter's value checked against its type and range; error(text) is the exception
    raised, text naming the key, the value and what is allowed."""
    p = PARAMETERS[key]
    if key == "meter":
        return _parse_meter(value, error)
    if isinstance(value, bool) or not isinstance(value, int) or not p.low <= value <= p.high:
        raise error(f"{key} = {_show(value)}: give a whole number from {p.low} to {p.high} ({p.meaning}, {p.rule}; "
                    f"official {p.official})")
    return value


def _parse_meter(value, error):
    p = PARAMETERS["meter"]
    allowed = (f"give a list of {MAX_SKULL - 1} or fewer flood card counts from {p.low} to {p.high}, "
               f"ending in \"{SKULL_MARK}\", like [2, 2, 3, 3, 3, 4, 4, 5, 5, \"{SKULL_MARK}\"] (R-METER)")
    if not isinstance(value, list) or not value:
        raise error(f"meter = {_show(value)}: {allowed}")
    if value[-1] != SKULL_MARK:
        raise error(f"meter = {_show(value)} has no skull at its end: {allowed}")
    counts = value[:-1]
    if not counts or len(counts) >= MAX_SKULL:
        raise error(f"meter = {_show(value)} puts the skull at position {len(value)}: {allowed}")
    for position, n in enumerate(counts, 1):
        if isinstance(n, bool) or not isinstance(n, int) or not p.low <= n <= p.high:
            raise error(f"meter = {_show(value)}: position {position} holds {_show(n)}; {allowed}")
    return (*counts, SKULL_MARK)


def _check_keys(values, where):
    """The keys of one file against each other (those that need the setting: check_setting)."""
    cards = values.get("treasure_cards", PARAMETERS["treasure_cards"].official)
    capture = values.get("capture", PARAMETERS["capture"].official)
    if capture > cards:
        key = "capture" if "capture" in values else "treasure_cards"
        raise ConfigError(f"{where(key)}: {key}: a capture of {capture} cards needs at least {capture} cards of "
                          f"each treasure, and the deck has {cards} (make capture at most treasure_cards)")


KEY_LINE = re.compile(r"""\s*(?:\[+\s*)?(?:"([^"]*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*[=.\]]""")


def _key_lines(text, keys):
    """{key: the line where top-level key `key` is set (as `key =`, a dotted `key.x =`, or a `[key]`
    table), or None}, in one pass over the text."""
    found = {}
    for i, line in enumerate(text.splitlines(), 1):
        match = KEY_LINE.match(line)
        if match:
            found.setdefault(next(g for g in match.groups() if g is not None), i)
    return {key: found.get(key) for key in keys}


def _show(value, nested=False):
    """A value as a message shows it, cut short (a file may hold a list of a million entries)."""
    if isinstance(value, str):
        return f'"{value}"' if len(value) <= SHOWN else f'"{value[:SHOWN]}..."'
    if isinstance(value, list):
        if nested and value:
            return "[...]"
        more = f", ... {len(value) - SHOWN} more" if len(value) > SHOWN else ""
        return "[" + ", ".join(_show(v, nested=True) for v in value[:SHOWN]) + more + "]"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, dict):
        return "a table"
    return str(value)
