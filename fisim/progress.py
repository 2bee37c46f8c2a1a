"""The progress of a long Python API call (`progress=` of fisim.simulate, sweep and tune): True, a
tqdm.auto bar (a widget in Jupyter, a line on a terminal) shown once the call has run DELAY
seconds, so that a quick call prints nothing; False (or None), nothing; or a function of the
caller's, called with the number of games as each block of games finishes. Every bar of fisim's,
the command line's too, takes its size from `sized`."""
import contextlib
import os
import sys

from fisim.errors import ConfigError

DELAY = 2           # seconds a call runs before its bar is shown


def check(progress):
    """Refuse a `progress` that is none of True, False, None or a function, in one line."""
    if not (progress is None or isinstance(progress, bool) or callable(progress)):
        raise ConfigError(f"progress must be True (a progress bar), False or a function of the games finished, "
                          f"not {progress!r}")
    return progress


@contextlib.contextmanager
def games(progress, total=None):
    """(update, describe) for the call's length: update(n) as n more games finish, describe(text)
    to say what the call is doing (a tune's round), each a bar's, the caller's function or
    nothing, as `progress` asks."""
    if not progress or callable(progress):
        yield (progress if callable(progress) else _nothing), _nothing
        return
    from tqdm.auto import tqdm
    with tqdm(total=total, unit="game", unit_scale=True, delay=DELAY, **sized(sys.stderr)) as bar:
        yield bar.update, lambda text: bar.set_description(text, refresh=False)     # shown with the next update


def sized(file):
    """tqdm's ncols and nrows for a bar on `file`: 80 and 24 on a terminal that gives no size (0
    columns and 0 lines: a console or pseudo-terminal nobody sized), where tqdm would draw
    nothing; else tqdm's own (None)."""
    try:
        size = os.get_terminal_size(file.fileno())
    except (AttributeError, OSError, ValueError):       # not a terminal
        return {"ncols": None, "nrows": None}
    return {"ncols": size.columns or 80, "nrows": size.lines or 24}


def _nothing(*_):
    pass
