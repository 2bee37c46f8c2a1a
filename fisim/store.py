"""The results store: a directory with a manifest and one Parquet file per finished chunk.

    DIR/manifest.json                      versions, seed, chunk size, target, the cells
    DIR/chunks/<cell>-<chunk>.parquet      one row of aggregates per finished chunk
    DIR/games/<cell>-<chunk>.parquet       one row per game (only with --per-game)

Every file is written to a temporary name and renamed into place, so a chunk file that exists is
complete; a run that is interrupted loses at most the chunks in flight. Reports and comparisons
read only this directory.
"""
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from fisim.files import atomic_write
from fisim.rules.constants import LEVELS, LOSS_NAMES, N_ROLES, ROLE_NAMES
from fisim.rules.state import WON
from fisim.rules.turn import R_CAPTURED, R_CAUSE, R_CONDITIONS, R_ROLE, R_STATUS, R_TURNS
from fisim.stats import wilson

MANIFEST = "manifest.json"
CAUSES = [n.replace("-", "_") for n in LOSS_NAMES]


class StoreError(ValueError):
    """A results directory fisim cannot use; the message says why."""


def chunk_record(cell_key, chunk, first_game, rows):
    """The aggregates of one chunk's result rows (fisim.rules.turn R_* columns) as a dict."""
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
    }
    for i, name in enumerate(CAUSES):
        record[f"cause_{name}"] = int((rows[:, R_CAUSE] == 1 << i).sum())
        record[f"cond_{name}"] = int(((rows[:, R_CONDITIONS] >> i) & 1).sum())
    return record


class Store:
    def __init__(self, path):
        self.path = Path(path)

    @property
    def manifest_path(self):
        return self.path / MANIFEST

    def chunk_path(self, cell_key, chunk):
        return self.path / "chunks" / f"{cell_key}-{chunk:06d}.parquet"

    def games_path(self, cell_key, chunk):
        return self.path / "games" / f"{cell_key}-{chunk:06d}.parquet"

    def open(self, manifest):
        """Create the store, or check that an existing one was made by the same configuration."""
        if self.path.exists() and not self.path.is_dir():
            raise StoreError(f"{self.path} exists and is not a directory")
        if self.manifest_path.exists():
            old = self.read_manifest()
            if old != manifest:
                diff = sorted(k for k in set(old) | set(manifest) if old.get(k) != manifest.get(k))
                raise StoreError(f"{self.path} holds results of a different configuration "
                                 f"(differs in: {', '.join(diff)}); use another --out directory")
            return
        if self.path.exists() and any(self.path.iterdir()):
            raise StoreError(f"{self.path} is not empty and has no {MANIFEST}; use a new or empty directory")
        (self.path / "chunks").mkdir(parents=True, exist_ok=True)
        atomic_write(self.manifest_path, lambda p: p.write_text(json.dumps(manifest, indent=1, sort_keys=True)))

    def read_manifest(self):
        try:
            return json.loads(self.manifest_path.read_text())
        except FileNotFoundError:
            raise StoreError(f"{self.path} is not a fisim results directory (no {MANIFEST})") from None
        except (OSError, ValueError) as exc:
            raise StoreError(f"{self.manifest_path} cannot be read: {exc}") from None

    def has_chunk(self, cell_key, chunk):
        return self.chunk_path(cell_key, chunk).exists()

    def write_chunk(self, record, games_frame=None):
        if games_frame is not None:
            path = self.games_path(record["cell"], record["chunk"])
            path.parent.mkdir(exist_ok=True)
            from fisim.simulation import games_table
            atomic_write(path, lambda p: pq.write_table(games_table(games_frame), p))
        table = pa.Table.from_pylist([record])
        atomic_write(self.chunk_path(record["cell"], record["chunk"]), lambda p: pq.write_table(table, p))

    def read_chunks(self):
        """All finished chunks as a DataFrame (one row per chunk)."""
        files = sorted((self.path / "chunks").glob("*.parquet"))
        if not files:
            return pd.DataFrame(columns=["cell", "chunk", "games"])
        parts = []
        for f in files:
            try:
                parts.append(pq.read_table(f).to_pandas())
            except (OSError, pa.ArrowException) as exc:
                raise StoreError(f"chunk file {f.name} in {self.path} is damaged ({exc.__class__.__name__}); "
                                 "delete it and run the sweep again to replay that chunk") from None
        return pd.concat(parts, ignore_index=True)


def target_reached(target, wins, games):
    """Has a cell played enough? target is {"games": N} or {"ci": half-width, "max_games": M}."""
    if "games" in target:
        return games >= target["games"]
    if games >= target["max_games"]:
        return True
    low, high = wilson(wins, games)
    return games > 0 and (high - low) / 2 <= target["ci"]


def chunk_size(target, size, chunk):
    """Games in chunk number `chunk` of a cell (the last chunk of a fixed count may be short)."""
    if "games" in target:
        return max(0, min(size, target["games"] - chunk * size))
    return size


def counted_chunks(chunks, cell_key, target):
    """A cell's chunks that count, in order: those up to the one that reached the target. With an
    adaptive target, a chunk played past that point (by a parallel run) is ignored, so the result
    is the same however the chunks were scheduled."""
    mine = chunks[chunks["cell"] == cell_key].sort_values("chunk")
    wins = games = 0
    keep = 0
    for expected, (_, row) in enumerate(mine.iterrows()):
        if row["chunk"] != expected or target_reached(target, wins, games):
            break
        wins += int(row["wins"])
        games += int(row["games"])
        keep += 1
    return mine.iloc[:keep], target_reached(target, wins, games)


def load(path):
    """The aggregates of a results directory: one row per cell with its settings (`level` ordered
    novice < normal < elite < legendary), games, wins, win rate and 95% Wilson interval,
    loss-cause shares, mean turns and treasures, and per adventurer the games whose team included
    it, their wins and win rate (<role>_games, <role>_wins, <role>_rate)."""
    store = Store(path)
    manifest = store.read_manifest()
    chunks = store.read_chunks()
    rows = []
    for cell in manifest["cells"]:
        done, complete = counted_chunks(chunks, cell["key"], manifest["target"])
        games = int(done["games"].sum())
        wins = int(done["wins"].sum()) if games else 0
        low, high = wilson(wins, games)
        row = {k: cell[k] for k in ("layout", "level", "players", "team", "policy", "rules")}
        row.update(cell=cell["key"], games=games, wins=wins, rate=wins / games if games else np.nan,
                   ci_low=low, ci_high=high, complete=complete)
        for name in CAUSES:
            row[f"share_{name}"] = done[f"cause_{name}"].sum() / games if games else np.nan
        turns = _sum_hists(done["turns_hist"]) if games else np.zeros(1)
        treasures = _sum_hists(done["treasures_hist"]) if games else np.zeros(1)
        row["mean_turns"] = float(np.dot(np.arange(len(turns)), turns) / games) if games else np.nan
        row["mean_treasures"] = float(np.dot(np.arange(len(treasures)), treasures) / games) if games else np.nan
        role_games = _sum_hists(done["role_games"]) if games else np.zeros(N_ROLES, np.int64)
        role_wins = _sum_hists(done["role_wins"]) if games else np.zeros(N_ROLES, np.int64)
        for role, n, w in zip(ROLE_NAMES, role_games, role_wins):
            row.update({f"{role}_games": int(n), f"{role}_wins": int(w), f"{role}_rate": w / n if n else np.nan})
        rows.append(row)
    frame = pd.DataFrame(rows)
    frame["level"] = frame["level"].astype(pd.CategoricalDtype(list(LEVELS), ordered=True))
    return frame


def _sum_hists(hists):
    width = max(len(h) for h in hists)
    total = np.zeros(width, np.int64)
    for h in hists:
        total[:len(h)] += np.asarray(h, np.int64)
    return total


def win_bits(chunks, cell_key, target):
    """The per-game wins of a cell's counted chunks, as a boolean array in game order."""
    chunks, _ = counted_chunks(chunks, cell_key, target)
    parts = [np.unpackbits(np.frombuffer(b, np.uint8))[:n].astype(bool)
             for b, n in zip(chunks["win_bits"], chunks["games"])]
    return np.concatenate(parts) if parts else np.zeros(0, bool)
