"""Declared layouts of the engine's int32 arrays (the game array, the config array, a result row).

Each layout is a list of named fields, in order, each with a size, its meaning and what changes
it; every offset is derived from that list, so no offset is typed by hand and two fields can
never overlap or leave a gap. A declaring module assigns each offset to a constant of the field's
name (`P_POS = PUB.add("P_POS", 4, ...)`), which compiled code indexes with, and `close` checks
at import that every constant holds its field's offset and that the sizes add up.
"""
from dataclasses import dataclass

import numpy as np

# What changes a field, for code that copies or checks parts of an array:
SETUP = "setup"      # written before play begins (geometry, rules, placement), then fixed
PLAY = "play"        # changed as the rules run (draws, floods, turns, the decision asked)
ACTION = "action"    # changed by an action or a special card (apply_action, apply_special), or
                     # by a lookahead spending an action: what a lookahead copy must restore
SCRATCH = "scratch"  # the engine's and the policy's working space, not part of the position
CHANGES = (SETUP, PLAY, ACTION, SCRATCH)


@dataclass(frozen=True)
class Field:
    name: str          # the constant that holds its offset, e.g. "P_POS"
    size: int
    meaning: str
    changes: str = PLAY


class Layout:
    """Fields laid end to end from `start`, declared one by one with `add` (which returns the
    field's offset, to be assigned to the constant of the same name) and checked by `close`."""

    def __init__(self, title, start=0):
        self.title, self.start, self.end = title, start, start
        self.fields, self.offset = [], {}

    def add(self, name, size, meaning, changes=PLAY):
        """Declare the next field; its offset."""
        if name in self.offset:
            raise ValueError(f"{self.title}: field {name} declared twice")
        if not isinstance(size, int) or size < 1:
            raise ValueError(f"{self.title}: field {name} has size {size!r}")
        if changes not in CHANGES:
            raise ValueError(f"{self.title}: field {name}: unknown kind of change {changes!r}")
        self.fields.append(Field(name, size, meaning, changes))
        self.offset[name] = self.end
        self.end += size
        return self.offset[name]

    def close(self, namespace, size=None):
        """Check that every field's constant in `namespace` (a module's globals) holds its offset,
        and that the fields add up to `size` ints; return the layout."""
        for f in self.fields:
            if namespace.get(f.name) != self.offset[f.name]:
                raise ValueError(f"{self.title}: constant {f.name} is {namespace.get(f.name)!r}, "
                                 f"not its declared offset {self.offset[f.name]}")
        if size is not None and self.end - self.start != size:
            raise ValueError(f"{self.title}: fields add up to {self.end - self.start} ints, not {size}")
        return self

    def field(self, name):
        return next(f for f in self.fields if f.name == name)

    @property
    def size(self):
        return self.end - self.start

    def ranges(self, changes):
        """int32[k, 2]: the [start, stop) slot ranges of the fields of one kind of change, adjacent
        ones merged; what a copy of those fields loops over."""
        out = []
        for f in self.fields:
            if f.changes == changes:
                lo = self.offset[f.name]
                if out and out[-1][1] == lo:
                    out[-1][1] = lo + f.size
                else:
                    out.append([lo, lo + f.size])
        return np.array(out, dtype=np.int32).reshape(-1, 2)

    def dump(self, array):
        """A readable {field name: value} of `array` (ints, or lists for multi-slot fields)."""
        out = {}
        for f in self.fields:
            lo = self.offset[f.name]
            part = [int(x) for x in array[lo:lo + f.size]]
            out[f.name] = part[0] if f.size == 1 else part
        return out
