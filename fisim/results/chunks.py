"""Chunks: a cell's games are played and stored in chunks, runs of consecutive games.

Chunk k of every cell holds the same games whatever the target (chunk_slot: 1,000, 1,000, 2,000,
4,000 ... games, doubling up to the chunk size), so that more games are more chunks and a store is
extended by playing the chunks it lacks. A chunk's record is the aggregates a store keeps of it:
games, wins, each loss cause, histograms of turns and treasures, per-role games and wins, one bit
per game for paired comparisons, per tile the games it ended sunk, the losses it caused and the
games it sank first, the wins by how close they came (a histogram of the result's close mask),
and the win-chance traces of its games among a cell's first traced ones (fisim.results.feel).
Which of a cell's chunks count toward a target is decided in one place, `counted`.
"""
import itertools

import numpy as np

from fisim import defaults
from fisim.arguments import fraction, whole
from fisim.errors import ConfigError
from fisim.limits import CHUNK_GAMES, MAX_CHUNK_GAMES, MAX_CHUNKS
from fisim.results.games import CAUSES, TILE_RESULTS, cause_tiles
from fisim.rules.constants import CLOSE_NAMES, N_ROLES, N_TILES
from fisim.rules.state import R_CAPTURED, R_CAUSE, R_CLOSE, R_CONDITIONS, R_ROLE, R_STATUS, R_TURNS, WON
from fisim.stats import wilson

FIRST_CHUNK = 1000          # the games of a cell's first chunk: the first --ci step
# Per tile key (fisim.results.games.TILE_RESULTS) and kind of count, the record's column.
TILE_COUNTS = {"place": {"sunk": "tile_sunk", "caused": "tile_caused", "first": "tile_first"},
               "name": {"sunk": "named_sunk", "caused": "named_caused", "first": "named_first"}}
CHUNK_COLUMNS = ("cell", "chunk", "first_game", "games", "wins", "turns_hist", "treasures_hist", "role_games",
                 "role_wins", "win_bits", *(f"{kind}_{c}" for kind in ("cause", "cond") for c in CAUSES),
                 *(column for columns in TILE_COUNTS.values() for column in columns.values()),
                 "won_close_hist", "traces")
CLOSE_MASKS = 1 << len(CLOSE_NAMES)     # the values of a result's close mask (won_close_hist's length)


def tile_counts(rows, by):
    """Per island cell (`by` "place") or tile id ("name"), 0..23: the games it ended sunk, the
    losses it caused (cause_tiles), and the games in which it sank first."""
    mask, first, _ = TILE_RESULTS[by]
    masks = rows[:, mask].astype(np.int64)
    caused = cause_tiles(rows, by)
    firsts = rows[:, first]
    return {"sunk": ((masks[:, None] >> np.arange(N_TILES)) & 1).sum(axis=0),
            "caused": np.bincount(caused[caused >= 0], minlength=N_TILES),
            "first": np.bincount(firsts[firsts >= 0], minlength=N_TILES)}


def chunk_record(cell_key, chunk, first_game, rows, traces=()):
    """The aggregates of one chunk's result rows (fisim.rules.state R_* columns) as a dict, with the
    win-chance traces of its first games (fisim.engine.trace_batch's, each cut at its -1s)."""
    won = rows[:, R_STATUS] == WON
    roles = rows[:, R_ROLE:R_ROLE + 4]
    present = np.stack([(roles == r).any(axis=1) for r in range(N_ROLES)])
    record = {
        "cell": cell_key, "chunk": chunk, "first_game": first_game, "games": len(rows),
        "wins": int(won.sum()),
        "turns_hist": np.bincount(rows[:, R_TURNS]).astype(np.int64).tolist(),
        "treasures_hist": np.bincount(rows[:, R_CAPTURED], minlength=5).astype(np.int64).tolist(),
        "role_games": present.sum(axis=1).astype(np.int64).tolist(),
        "role_wins": (present & won).sum(axis=1).astype(np.int64).tolist(),
        "win_bits": np.packbits(won).tobytes(),
        "won_close_hist": np.bincount(rows[won, R_CLOSE], minlength=CLOSE_MASKS).astype(np.int64).tolist(),
        "traces": [[int(x) for x in trace if x >= 0] for trace in traces],
    }
    for by, columns in TILE_COUNTS.items():
        counts = tile_counts(rows, by)
        record.update({column: counts[kind].astype(np.int64).tolist() for kind, column in columns.items()})
    for i, name in enumerate(CAUSES):
        record[f"cause_{name}"] = int((rows[:, R_CAUSE] == 1 << i).sum())
        record[f"cond_{name}"] = int(((rows[:, R_CONDITIONS] >> i) & 1).sum())
    return record


def traced_in(first_game, games, trace_games):
    """How many of a chunk's games (games first_game.. of its cell) are among the cell's first
    `trace_games`, whose win chance is traced."""
    return max(0, min(first_game + games, trace_games) - first_game)


def per_game_wins(record):
    """A chunk record's per-game wins, as a boolean array in game order."""
    return np.unpackbits(np.frombuffer(record["win_bits"], np.uint8))[:int(record["games"])].astype(bool)


def chunk_slot(chunk, chunk_games):
    """(first game, games) of chunk number `chunk` of every cell: 1,000, 1,000, 2,000, 4,000 ...
    games, doubling up to `chunk_games`, then `chunk_games` each. The same whatever the target, so
    that more games are more chunks, and so that --ci checks a loose target after few games."""
    first, size = 0, min(FIRST_CHUNK, chunk_games)
    for k in range(chunk):
        if size == chunk_games:
            return first + (chunk - k) * size, size
        first += size
        size = min(chunk_games, FIRST_CHUNK << k)
    return first, size


def chunk_count(games, chunk_games):
    """How many chunks hold a cell's first `games` games."""
    k = 0
    while True:
        first, size = chunk_slot(k, chunk_games)
        if games <= first:
            return k
        if size == chunk_games:
            return k - (first - games) // size
        k += 1


def sweep_target(games=None, ci=None, max_games=defaults.CI_MAX_GAMES, chunk_games=CHUNK_GAMES, option=""):
    """The target of a sweep's options, {"games": N} (by default defaults.SWEEP_GAMES) or {"ci": h,
    "max_games": M}, checked alike for the command line and the Python API: ConfigError in one
    line naming the argument (`option` "--": as the command line's option) before anything is
    played or written."""
    def name(argument):
        return f"--{argument.replace('_', '-')}" if option else argument
    if games is not None and ci is not None:
        raise ConfigError(f"give {name('games')} or {name('ci')}, not both")
    chunk_games = whole(name("chunk_games"), chunk_games, 1, MAX_CHUNK_GAMES)
    if ci is not None:
        target = {"ci": fraction(name("ci"), ci, 0.5, 0.005), "max_games": whole(name("max_games"), max_games, 1)}
    else:
        target = {"games": defaults.SWEEP_GAMES if games is None else whole(name("games"), games, 1)}
    limit = target.get("games", target.get("max_games"))
    if chunk_count(limit, chunk_games) > MAX_CHUNKS:
        raise ConfigError(f"{limit:,} games per cell in chunks of {chunk_games:,} is more than {MAX_CHUNKS:,} "
                          f"chunks; play fewer games or raise {name('chunk_games')}")
    return target


def planned_games(target, chunk, chunk_games):
    """Games that chunk number `chunk` of a cell holds under `target`: its slot, cut at a fixed
    count or at an adaptive target's cap."""
    first, size = chunk_slot(chunk, chunk_games)
    limit = target["games"] if "games" in target else target["max_games"]
    return max(0, min(size, limit - first))


def target_reached(target, wins, games):
    """Has a cell played enough? target is {"games": N} or {"ci": half-width, "max_games": M}."""
    if "games" in target:
        return games >= target["games"]
    if games >= target["max_games"]:
        return True
    low, high = wilson(wins, games)
    return games > 0 and (high - low) / 2 <= target["ci"]


def counted(chunks, target):
    """(how many of a cell's chunks count, whether they reach `target`): `chunks` are the (wins,
    games) of its chunks 0, 1, ... in order, and they count up to the one that reaches the target.
    With an adaptive target a chunk played past that point (by a parallel run) does not count, so
    the result is the same however the chunks were scheduled. The one rule by which the store's
    readers count a cell's games, and the sweep and tune find the games still to play."""
    wins = games = n = 0
    for chunk_wins, chunk_games in chunks:
        if target_reached(target, wins, games):
            break
        wins += int(chunk_wins)
        games += int(chunk_games)
        n += 1
    return n, target_reached(target, wins, games)


def counted_whole(stored, target, chunk_games):
    """(the next chunk to play, whether the target is reached) of a cell whose store holds
    `stored`, {chunk: (wins, games)}: its chunks count (counted) while each is there whole. One with
    fewer games than the target now wants of it (the last chunk of an earlier, smaller target) is
    the next to play, whole."""
    whole = itertools.takewhile(lambda k: k in stored and stored[k][1] >= planned_games(target, k, chunk_games),
                                itertools.count())
    return counted((stored[k] for k in whole), target)


def chunks_to_play(stored, target, chunk_games):
    """The chunks a cell whose store holds `stored` ({chunk: (wins, games)}) still needs for
    `target`, as (chunk, first game, games): for a fixed count every one at once; for an adaptive
    target the next one, after which the count is looked at again."""
    next_chunk, reached = counted_whole(stored, target, chunk_games)
    if reached:
        return []
    wanted = range(next_chunk, chunk_count(target["games"], chunk_games)) if "games" in target else [next_chunk]
    planned = {k: planned_games(target, k, chunk_games) for k in wanted}
    return [(k, chunk_slot(k, chunk_games)[0], games) for k, games in planned.items()
            if stored.get(k, (0, 0))[1] < games]
