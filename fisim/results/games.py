"""One row per game: the result rows of games as a DataFrame, the columns `fisim simulate --out`
writes and a store keeps with --per-game, and the Parquet schema every such file has."""
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from fisim.files import atomic_write
from fisim.rules.config import RULES_VERSION, level_order
from fisim.rules.constants import CLOSE_NAMES, DROWNED, LANDING_SUNK, LOSS_NAMES, N_ROLES, ROLE_NAMES, TREASURE_LOST
from fisim.rules.state import (
    R_CAPTURED,
    R_CAUSE,
    R_CLOSE,
    R_CONDITIONS,
    R_FIRST,
    R_FIRST_SUNK,
    R_FIRST_SUNK_TILE,
    R_LAST_SUNK,
    R_LAST_SUNK_TILE,
    R_LEVEL,
    R_ROLE,
    R_STATUS,
    R_SUNK,
    R_SUNK_MASK,
    R_SUNK_TILES,
    R_TURNS,
    WON,
)
from fisim.rules.variant import PARAMETERS, parameter_text

CAUSES = [name.replace("-", "_") for name in LOSS_NAMES]      # the loss causes as column names
CAUSE_TYPE = pd.CategoricalDtype(["", *LOSS_NAMES])
CLOSE = [f"close_{name}" for name in CLOSE_NAMES]     # how close a game came to being lost, as column names
# A tile is told by two keys: "place", its island cell (tiles are placed at random each game,
# R-SETUP-1, so a cell is a place on the grid), and "name", its tile id (TILE_NAMES). Per key, the
# result row's columns: the mask sunk by the end, the first and the last to sink.
TILE_RESULTS = {"place": (R_SUNK_MASK, R_FIRST_SUNK, R_LAST_SUNK),
                "name": (R_SUNK_TILES, R_FIRST_SUNK_TILE, R_LAST_SUNK_TILE)}
_TEXT = pa.dictionary(pa.int32(), pa.string())
# Every per-game file has this schema, whatever its values, so a folder of them reads in one call.
GAMES_SCHEMA = pa.schema([
    ("game", pa.int64()), ("seed", pa.int64()), ("repeat", pa.int32()), ("won", pa.bool_()), ("cause", _TEXT),
    *[(name, pa.bool_()) for name in CAUSES],
    ("turns", pa.int16()), ("water_level", pa.int8()), ("treasures", pa.int8()), ("tiles_sunk", pa.int8()),
    ("sunk_cells", pa.int32()), ("first_sunk", pa.int8()), ("cause_cell", pa.int8()),
    ("sunk_tiles", pa.int32()), ("first_sunk_tile", pa.int8()), ("cause_tile", pa.int8()),
    *[(name, pa.bool_()) for name in CLOSE],
    ("team", _TEXT), ("first_player", pa.int8()), ("players", pa.int8()), ("layout", _TEXT),
    ("level", pa.dictionary(pa.int32(), pa.string(), ordered=True)), ("policy", _TEXT), ("rules", _TEXT),
    ("variant", _TEXT), *[(key, _TEXT if key == "meter" else pa.int8()) for key in PARAMETERS],
])


def cause_tiles(rows, by):
    """Per result row, the island cell (`by` "place") or the tile id ("name") whose sinking lost
    the game (Fools' Landing for landing-sunk, the second temple of a treasure for treasure-lost,
    the tile a pawn drowned on: each is the tile that sank last), or -1 (won, or lost to the
    skull, or not ended by a loss)."""
    by_tile = (rows[:, R_CAUSE] & (LANDING_SUNK | TREASURE_LOST | DROWNED)) != 0
    return np.where(by_tile, rows[:, TILE_RESULTS[by][2]], -1)


def team_labels(roles):
    """'diver+pilot'-style labels of result rows' role columns (-1 for an empty seat), built once
    per distinct team: (categories, codes), no Python loop over games."""
    seats = roles.shape[1]
    key = (roles.astype(np.int64) + 1) @ (N_ROLES + 1) ** np.arange(seats)
    distinct, codes = np.unique(key, return_inverse=True)
    names = np.array(ROLE_NAMES)
    labels = ["+".join(names[r] for r in roles[np.flatnonzero(key == k)[0]] if r >= 0) for k in distinct]
    return labels, codes.reshape(-1)


def games_frame(rows, config, layout_name, policy_label, seed, first_game, repeat=0):
    """One row per game (the columns `fisim simulate --out` writes, GAMES_SCHEMA) from engine rows
    of games first_game.. of `seed`, played as their repeat `repeat`."""
    n = rows.shape[0]
    cond = rows[:, R_CONDITIONS]
    cause_bit = rows[:, R_CAUSE]
    cause_code = np.where(cause_bit > 0, np.log2(np.maximum(cause_bit, 1)).astype(np.int64) + 1, 0)
    labels, team_code = team_labels(rows[:, R_ROLE:R_ROLE + config.players])

    def same(value):
        return pd.Categorical.from_codes(np.zeros(n, np.int8), categories=[value])

    frame = pd.DataFrame({
        "game": np.arange(first_game, first_game + n, dtype=np.int64),
        "seed": np.full(n, seed, dtype=np.int64),
        "repeat": np.full(n, repeat, dtype=np.int32),
        "won": rows[:, R_STATUS] == WON,
        "cause": pd.Categorical.from_codes(cause_code, dtype=CAUSE_TYPE),
        **{name: (cond >> i & 1).astype(bool) for i, name in enumerate(CAUSES)},
        "turns": rows[:, R_TURNS].astype(np.int16),
        "water_level": rows[:, R_LEVEL].astype(np.int8),
        "treasures": rows[:, R_CAPTURED].astype(np.int8),
        "tiles_sunk": rows[:, R_SUNK].astype(np.int8),
        "sunk_cells": rows[:, R_SUNK_MASK].astype(np.int32),
        "first_sunk": rows[:, R_FIRST_SUNK].astype(np.int8),
        "cause_cell": cause_tiles(rows, "place").astype(np.int8),
        "sunk_tiles": rows[:, R_SUNK_TILES].astype(np.int32),
        "first_sunk_tile": rows[:, R_FIRST_SUNK_TILE].astype(np.int8),
        "cause_tile": cause_tiles(rows, "name").astype(np.int8),
        **{name: (rows[:, R_CLOSE] >> i & 1).astype(bool) for i, name in enumerate(CLOSE)},
        "team": pd.Categorical.from_codes(team_code, categories=labels),
        "first_player": rows[:, R_FIRST].astype(np.int8),
        "players": np.full(n, config.players, dtype=np.int8),
        "layout": same(layout_name),
        "level": pd.Categorical(np.full(n, config.level), categories=level_order([config.level]), ordered=True),
        "policy": same(policy_label),
        "rules": same(config.rules_label),
        "variant": same(config.variant.name if config.variant else "official"),
        **{key: same(parameter_text(key, value)) if key == "meter" else np.full(n, value, np.int8)
           for key, value in config.parameters.items()},
    })
    frame.attrs["rules_version"] = RULES_VERSION
    return frame


def games_table(frame):
    """A per-game frame as an Arrow table of GAMES_SCHEMA."""
    return pa.Table.from_pandas(frame, schema=GAMES_SCHEMA, preserve_index=False)


def write_games(path, frames):
    """Write per-game frames, as they come, to one .parquet or .csv file: whole or not at all
    (an interrupted run leaves no file behind, and an existing one untouched)."""
    def write(tmp):
        if str(path).endswith(".parquet"):
            with pq.ParquetWriter(tmp, GAMES_SCHEMA) as writer:
                for frame in frames:
                    writer.write_table(games_table(frame))
        else:
            with open(tmp, "w", newline="") as out:
                for i, frame in enumerate(frames):
                    frame.to_csv(out, index=False, header=i == 0)
    atomic_write(path, write)
