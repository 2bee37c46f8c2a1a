"""A heuristic's weights as one named table: each weight's place in a float64 array, its hand-set
value and what it scores.

The compiled evaluation reads weight `CAP` as `w[CAP]`, with `CAP` the place the table gave it (a
constant to Numba), so one evaluation plays any set of values: the hand-set ones (`expert`) and
those read from a data file (`tuned`) as Constants, for which it is compiled with the values
folded in (fisim.jit.constants), or candidates a training script writes into an array between
runs. Values are exchanged by name ({"CAP": 2500.0, "TOT_V[2]": 120.0, ...}), never by place, so
a data file stays readable and a new weight cannot shift the others. Derived entries (a table made
from weights, as expert's FAR_SHARE) are made in Python, where the hand-set code made them, so
every value the evaluation reads is the same double it was.
"""
import json
import math
from pathlib import Path

import numpy as np

from fisim.jit.constants import Constants
from policies import PolicyError


class WeightTable:
    """Weights laid out in one array, in the order they are declared."""

    def __init__(self):
        self.names = []         # one per tuned place: "CAP", "TOT_V[0]", ...
        self.hand_set = []      # their hand-set values
        self.notes = {}         # weight (or vector) name -> what it scores
        self._derived = []      # (place, count, function of the values by name -> count floats)

    def scalar(self, name, value, note):
        """Declare one weight; its place in the array."""
        self.notes[name] = note
        return self._add([name], [float(value)])

    def vector(self, name, values, note):
        """Declare a vector of weights (read as w[NAME + k]); the place of its first."""
        self.notes[name] = note
        return self._add([f"{name}[{k}]" for k in range(len(values))], [float(v) for v in values])

    def derived(self, count, make):
        """Reserve `count` places after the weights for make(values by name): a table of floats
        computed from them (not tuned itself); the place of its first."""
        place = len(self.names) + sum(c for _, c, _ in self._derived)
        self._derived.append((place, count, make))
        return place

    def _add(self, names, values):
        if self._derived:
            raise ValueError("declare every weight before the derived tables")
        place = len(self.names)
        self.names += names
        self.hand_set += values
        return place

    def array(self, values=None):
        """The float64 array the evaluation reads: the hand-set values, with those named in
        `values` in their place (a name not in the table is an error: a stale data file)."""
        by_name = dict(zip(self.names, self.hand_set))
        unknown = sorted(set(values or {}) - set(by_name))
        if unknown:
            raise ValueError(f"unknown weights {', '.join(unknown)}; the table has {', '.join(self.names)}")
        by_name.update({name: float(v) for name, v in (values or {}).items()})
        out = np.array([by_name[name] for name in self.names]
                       + [0.0] * sum(count for _, count, _ in self._derived))
        for place, count, make in self._derived:
            out[place:place + count] = make(by_name)
        return out

    def constant(self, values=None):
        """`array` as Constants: a compiled evaluation handed them is compiled for these values,
        which fold into its code (fisim.jit.constants)."""
        return Constants(self.array(values))

    def values(self, array):
        """{name: value} of the tuned places of an array made by `array`."""
        return {name: float(array[k]) for k, name in enumerate(self.names)}

    @property
    def size(self):
        """How many floats `array` makes (the weights and the derived tables)."""
        return len(self.names) + sum(count for _, count, _ in self._derived)


KEYS = {"policy", "version", "weights", "made_by", "running_time", "passes"}     # what the training script writes


def learned(path, table):
    """(version, the table's constant of its values) of a data file scripts/train_tuned.py wrote,
    every weight of the table given as a finite number; PolicyError in one line naming the file and
    what is wrong."""
    def refused(problem):
        return PolicyError(f"policy data file {path}: {problem}")
    try:
        data = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise refused("it does not exist (reinstall fisim, or run scripts/train_tuned.py)") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise refused(f"not readable JSON ({exc})") from None
    if not isinstance(data, dict):
        raise refused(f"a JSON object is expected, not a {type(data).__name__}")
    extra = sorted(set(data) - KEYS)
    if extra:
        raise refused(f"unknown entry {extra[0]!r}; it holds {', '.join(sorted(KEYS))}")
    version, weights = data.get("version"), data.get("weights")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise refused(f"'version' must be a whole number from 1, not {version!r}")
    if not isinstance(weights, dict):
        raise refused("'weights' must be an object of weight names and numbers")
    for name in table.names:
        value = weights.get(name)
        if name not in weights:
            raise refused(f"weight {name} is missing")
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
            raise refused(f"weight {name} must be a finite number, not {value!r}")
    unknown = sorted(set(weights) - set(table.names))
    if unknown:
        raise refused(f"unknown weight {unknown[0]!r}")
    return version, table.constant(weights)
