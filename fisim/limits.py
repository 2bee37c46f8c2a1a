"""The largest numbers fisim accepts, checked before any game is played.

Seeds and game indices are stored as 64-bit signed integers; `simulate` keeps one row per game in
memory; a sweep cell is at most MAX_CHUNKS chunks of at most MAX_CHUNK_GAMES games each (CHUNK_GAMES
unless the sweep says otherwise), its win chance traced over at most MAX_TRACE_GAMES games and
TRACE_ROUNDS rounds of each; a variant file is read whole, so it is at most MAX_VARIANT_BYTES.
"""
MAX_SEED = 2**63 - 1
MAX_ENGINE_SEED = 2**64 - 1         # the engine plays any 64-bit master seed (a script's derived ones)
MAX_GAME = 2**63 - 1                # the last game index of a seed
MAX_REPEAT = 2**31 - 1              # the last repeat of a game (fisim.rules.rng), kept as 32 bits
MAX_SIMULATE_GAMES = 100_000_000
CHUNK_GAMES = 50_000
MAX_CHUNK_GAMES = 1_000_000
MAX_CHUNKS = 1_000_000
MAX_TRACE_GAMES = 100_000          # games per cell whose win chance a sweep traces (--trace-games)
TRACE_ROUNDS = 100                  # the rounds of a game whose win chance is traced, at most (the rest: played)
MAX_VARIANT_BYTES = 65_536          # a variant file: a dozen keys and their comments
MAX_DIGITS = 100                    # a whole number given as text: far more digits than any fisim accepts


def is_whole(text):
    """Whether `text` is a whole number in ASCII digits, short enough for int(): str.isdigit()
    alone passes '³', which int() refuses."""
    return text.isascii() and text.isdigit() and len(text) <= MAX_DIGITS


def cut_range(lo, hi, high):
    """The numbers lo..hi up to one past `high`, the most a setting allows: each to be checked, the
    first one too many among them, without a list of 10^11 numbers."""
    return range(lo, min(hi, max(lo, high + 1)) + 1)


def max_threads():
    """The most Numba threads this machine runs."""
    import numba
    return numba.config.NUMBA_NUM_THREADS
