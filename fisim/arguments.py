"""The Python API's arguments checked as the command line's options are: a refusal is one
ConfigError line naming the argument, the value given and what is allowed, raised before anything
is played or written (the command line's option types give the same ranges)."""
import math
import numbers
import os

from fisim.errors import ConfigError


def whole(name, value, low, high=None):
    """`value` as an int from `low` to `high` (no bound: None); bool, float and text refused."""
    if (isinstance(value, bool) or not isinstance(value, numbers.Integral)
            or value < low or (high is not None and value > high)):
        allowed = f"from {low:,} to {high:,}" if high is not None else f"of at least {low:,}"
        raise ConfigError(f"{name} must be a whole number {allowed}, not {value!r}")
    return int(value)


def fraction(name, value, high, example, below=False):
    """`value` as a float above 0 and at most `high` (below it, when `below`): a win rate strictly
    between 0 and 1, an interval's half-width above 0 and at most 0.5. NaN, inf and text refused."""
    if (isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value)
            or not 0 < value <= high or below and value == high):
        raise ConfigError(f"{name} must be a number above 0 and {'below' if below else 'at most'} {high:g}, "
                          f"such as {example:g}, not {value!r}")
    return float(value)


def path(name, value):
    """A file or directory argument: a str or an os.PathLike."""
    if isinstance(value, bool) or not isinstance(value, (str, os.PathLike)):
        raise ConfigError(f"{name} must be a path (a str or os.PathLike), not {value!r}")
    return value


def flag(name, value):
    """A yes-or-no argument: True or False."""
    if not isinstance(value, bool):
        raise ConfigError(f"{name} must be True or False, not {value!r}")
    return value


def text(name, value, optional=False):
    """A str argument (None too when `optional`)."""
    if not (isinstance(value, str) or optional and value is None):
        raise ConfigError(f"{name} must be a str{' or None' if optional else ''}, not {value!r}")
    return value


def axis(name, value, example):
    """A sweep axis as the command line's option takes it: a str ("2..4", "novice,elite"), an int
    (3), or a list or tuple of them (a team or a rule item in a list may itself be a list of names,
    joined by '+'); the option's text, checked by its parser."""
    def item(v):
        if isinstance(v, str) or isinstance(v, numbers.Integral) and not isinstance(v, bool):
            return str(v)
        if isinstance(v, (list, tuple)) and v and all(isinstance(x, str) for x in v):
            return "+".join(v)
        raise ConfigError(f"{name} must be a str such as {example!r}, an int or a list of them, not {value!r}")
    if isinstance(value, (list, tuple)):
        if not value:
            raise ConfigError(f"{name} is empty: give a str such as {example!r}, an int or a list of them")
        return ",".join(item(v) for v in value)
    return item(value)


def strings(name, value, example):
    """A list of str given as one str or a list of them ('html,md', or ['html', 'md'])."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return list(value)
    raise ConfigError(f"{name} must be a str such as {example!r} or a list of str, not {value!r}")
