"""The largest numbers fisim accepts, checked before any game is played.

Seeds and game indices are stored as 64-bit signed integers; `simulate` keeps one row per game in
memory; a sweep cell is at most MAX_CHUNKS chunks of at most MAX_CHUNK_GAMES games each; a
variant file is read whole, so it is at most MAX_VARIANT_BYTES.
"""
MAX_SEED = 2**63 - 1
MAX_GAME = 2**63 - 1                # the last game index of a seed
MAX_REPEAT = 2**31 - 1              # the last repeat of a game (fisim.rules.rng), kept as 32 bits
MAX_SIMULATE_GAMES = 100_000_000
MAX_CHUNK_GAMES = 1_000_000
MAX_CHUNKS = 1_000_000
MAX_VARIANT_BYTES = 65_536          # a variant file: a dozen keys and their comments


def max_threads():
    """The most Numba threads this machine runs."""
    import numba
    return numba.config.NUMBA_NUM_THREADS
