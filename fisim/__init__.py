"""fisim: a Monte Carlo difficulty analyzer for the cooperative board game Forbidden Island."""
__version__ = "0.1.0"


def load(path):
    """The aggregates of a `fisim sweep` results directory as a pandas DataFrame (one row per cell)."""
    from fisim.store import load as _load
    return _load(path)


def load_tiles(path, by="place"):
    """Which tiles decide the game in a `fisim sweep` results directory: per cell and island cell
    (`by="place"`) or named tile (`by="name"`), the shares of games it ended sunk, of losses it
    caused, of games it sank first (see fisim.store.load_tiles)."""
    from fisim.store import load_tiles as _load_tiles
    return _load_tiles(path, by)


def simulate(*args, **kwargs):
    """Play games of one setting; one row per game (see fisim.simulation.simulate)."""
    from fisim.simulation import simulate as _simulate
    return _simulate(*args, **kwargs)
