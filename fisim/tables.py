"""What a results store holds, as tables: one row per cell (`fisim.load`), one row per cell and
tile (`fisim.load_tiles`), and a cell's per-game wins, each from the chunks that count
(fisim.results.chunks.counted) of a store read and verified by fisim.store."""
import numpy as np
import pandas as pd

from fisim.errors import ConfigError
from fisim.position import TILE_CODES
from fisim.results import feel
from fisim.results.chunks import CLOSE_MASKS, TILE_COUNTS, counted, per_game_wins
from fisim.results.games import CAUSES, CLOSE
from fisim.rules.config import level_order
from fisim.rules.constants import N_ROLES, N_TILES, ROLE_NAMES, TILE_NAMES
from fisim.stats import wilson
from fisim.store import SETTINGS, policy_labels, read_store


def load(path):
    """The aggregates of a results directory: one row per cell with its settings (`policy` as
    NAME@VERSION, as in per-game rows; `level` ordered
    by the water meter: novice < normal < elite < legendary, a position by its number among them),
    games, wins, win rate and 95% Wilson interval,
    loss-cause shares, mean turns and treasures, per adventurer the games whose team included
    it, their wins and win rate (<role>_games, <role>_wins, <role>_rate), and how the game feels
    (fisim.results.feel; docs/model.md): game length (mean_turns, sd_turns, p10_turns,
    median_turns, p90_turns); of the wins, those that came close (close_skull, close_landing,
    close_temple, close_any, each with its <measure>_share of wins); the losses' mean treasures
    captured (lost_mean_treasures); and over the traced games (traced, traced_wins) the mean
    chance of winning before the first turn (start_chance), drama (the mean lowest chance of the
    games won) and decisiveness (decided_round, the mean round from which the chance stayed on
    the outcome's side, and decided_share, that round over the game's rounds), each with its 95%
    interval (<measure>_low, <measure>_high)."""
    return cell_table(*read_store(path))


def counted_chunks(chunks, cell_key, target):
    """A cell's chunk records that count (fisim.results.chunks.counted), in order, and whether
    they reach the target; `chunks` as fisim.store.read_store gives them."""
    mine = chunks[chunks["cell"] == cell_key].sort_values("chunk")
    n, reached = counted(zip(mine["wins"], mine["games"]), target)
    return mine.iloc[:n], reached


def cell_totals(done, tiles=()):
    """A cell's counted chunks (counted_chunks) added up: games, wins, each loss cause
    (cause_<name>), the histograms of turns and treasures, per role the games and wins, the wins
    by how close they came (won_close_hist), the win-chance traces in game order, and per tile the
    counts of each key of `tiles` ("place", "name": TILE_COUNTS's columns). The one sum of a
    cell's chunks: load, load_tiles and the report read their cells through it."""
    totals = {"games": int(done["games"].sum()), "wins": int(done["wins"].sum()),
              **{f"cause_{name}": int(done[f"cause_{name}"].sum()) for name in CAUSES},
              "turns_hist": summed(done["turns_hist"]), "treasures_hist": summed(done["treasures_hist"], 5),
              "role_games": summed(done["role_games"], N_ROLES), "role_wins": summed(done["role_wins"], N_ROLES),
              "won_close_hist": summed(done["won_close_hist"], CLOSE_MASKS),
              "traces": [trace for traces in done["traces"] for trace in traces]}
    for by in tiles:
        totals.update({column: summed(done[column], N_TILES) for column in TILE_COUNTS[by].values()})
    return totals


def mean_of(hist, games):
    """The mean of a histogram of counts (turns, treasures) over `games` games (NaN of none)."""
    return float(np.dot(np.arange(len(hist)), hist) / games) if games else np.nan


def cell_table(manifest, chunks):
    """load's table from a store's verified manifest and chunks."""
    rows = []
    labels = policy_labels(manifest)
    for cell in manifest["cells"]:
        done, complete = counted_chunks(chunks, cell["key"], manifest["target"])
        totals = cell_totals(done)
        games, wins = totals["games"], totals["wins"]
        low, high = wilson(wins, games)
        row = {**{k: cell[k] for k in SETTINGS}, "policy": labels[cell["policy"]]}
        row.update(cell=cell["key"], games=games, wins=wins, rate=wins / games if games else np.nan,
                   ci_low=low, ci_high=high, complete=complete)
        for name in CAUSES:
            row[f"share_{name}"] = totals[f"cause_{name}"] / games if games else np.nan
        row.update(feel.length(totals["turns_hist"]))
        row["mean_treasures"] = mean_of(totals["treasures_hist"], games)
        for role, n, w in zip(ROLE_NAMES, totals["role_games"], totals["role_wins"]):
            row.update({f"{role}_games": int(n), f"{role}_wins": int(w), f"{role}_rate": w / n if n else np.nan})
        row.update(feel_columns(totals, manifest["trace"]["worlds"]))
        rows.append(row)
    return ordered_levels(pd.DataFrame(rows))


def ordered_levels(frame):
    """`frame` with its `level` column (if it has one) an ordered categorical, by the water meter:
    novice < normal < elite < legendary, a position by its number among them."""
    if "level" in frame:
        frame["level"] = frame["level"].astype(pd.CategoricalDtype(level_order(frame["level"]), ordered=True))
    return frame


def feel_columns(totals, worlds):
    """load's columns of how close the games came and of their win chance, from a cell's totals
    (cell_totals) and the worlds of each traced estimate."""
    row = {}
    wins = totals["wins"]
    close = feel.closeness(totals["won_close_hist"], totals["treasures_hist"], wins, totals["games"])
    for name in [*CLOSE, "close_any"]:
        row.update({name: close[name], f"{name}_share": close[name] / wins if wins else np.nan})
    row["lost_mean_treasures"] = close["lost_mean_treasures"]
    row.update(feel.chance_summary(feel.traced_games(totals["traces"], worlds)))
    return row


def load_tiles(path, by="place"):
    """Which tiles decide the game, per cell of a results directory: one row per cell and tile,
    by "place" each island cell (`tile`, 0..23 in the island's row-major order, at grid `row`,
    `col`) or by "name" each named tile (`tile`, its id, with its `code` and `name`), with the
    share of games it ended sunk (of `games`), of losses its sinking caused (of `losses`: Fools'
    Landing, a treasure's second temple, a drowned pawn's tile) and of games it sank first (of
    `games`), each with its count and Wilson 95% interval (<measure>, <measure>_share, _low,
    _high)."""
    if by not in TILE_COUNTS:
        raise ConfigError(f"load_tiles: by must be one of {', '.join(map(repr, TILE_COUNTS))}, not {by!r}")
    return tile_table(*read_store(path), by)


def tile_table(manifest, chunks, by):
    """load_tiles's table from a store's verified manifest and chunks."""
    rows = []
    labels = policy_labels(manifest)
    for cell in manifest["cells"]:
        done, _ = counted_chunks(chunks, cell["key"], manifest["target"])
        totals = cell_totals(done, (by,))
        counts = {kind: totals[column] for kind, column in TILE_COUNTS[by].items()}
        settings = {**{k: cell[k] for k in SETTINGS}, "policy": labels[cell["policy"]], "cell": cell["key"]}
        rows += [{**settings, **row} for row in tile_rows(tile_labels(by, cell["layout_shape"]), totals["games"],
                                                          totals["wins"], counts)]
    return pd.DataFrame(rows)


def tile_labels(by, shape):
    """What names each tile of key `by` (TILE_COUNTS), in index order: an island cell ("place")
    its grid `row` and `col` on an island of `shape` (rows of '#' and '.'), numbered row-major; a
    named tile ("name") its two-letter `code` and its `name`."""
    if by == "place":
        return [{"row": r, "col": c} for r, line in enumerate(shape) for c, ch in enumerate(line) if ch == "#"]
    return [{"code": code, "name": name} for code, name in zip(TILE_CODES, TILE_NAMES)]


def tile_rows(labels, games, wins, counts):
    """One row per tile (tile_labels): `tile` (its index), its labels, `games`, `losses`, and for
    each kind of count in `counts` (per tile) the count, its share (of losses for "caused", else
    of games) and Wilson 95% interval (<kind>, <kind>_share, <kind>_low, <kind>_high)."""
    losses = games - wins
    rows = []
    for tile, label in enumerate(labels):
        row = {"tile": tile, **label, "games": games, "losses": losses}
        for kind in counts:
            n = losses if kind == "caused" else games
            k = int(counts[kind][tile])
            low, high = wilson(k, n)
            row.update({kind: k, f"{kind}_share": k / n if n else np.nan, f"{kind}_low": low, f"{kind}_high": high})
        rows.append(row)
    return rows


def summed(arrays, width=0):
    """The element-wise sum of count arrays of any lengths (histograms), at least `width` long."""
    arrays = [np.asarray(a, np.int64) for a in arrays]
    total = np.zeros(max([width, *(len(a) for a in arrays)]), np.int64)
    for a in arrays:
        total[:len(a)] += a
    return total


def win_bits(chunks, cell_key, target):
    """The per-game wins of a cell's counted chunks, as a boolean array in game order."""
    done, _ = counted_chunks(chunks, cell_key, target)
    parts = [per_game_wins(record) for record in done.to_dict("records")]
    return np.concatenate(parts) if parts else np.zeros(0, bool)
