"""The results store: a directory with a manifest and one Parquet file per finished chunk.

    DIR/manifest.json                      store format, versions, seed, chunk size, target, the cells
                                           (each with its variant's name and every rule number)
    DIR/chunks/<cell>-<chunk>.parquet      one row of aggregates per finished chunk (with, per
                                           island cell and per named tile, the games it ended
                                           sunk, the losses its sinking caused, the games it sank
                                           first)
    DIR/games/<cell>-<chunk>.parquet       one row per game (only with --per-game)
    DIR/lock                               who writes the store (the lock itself is the kernel's)

Every file is written to a temporary name and renamed into place, so a chunk file that exists is
complete; a run that is interrupted loses at most the chunks in flight. One sweep at a time
writes a store. Each chunk describes itself in its Parquet key-value metadata (cell, chunk index,
game range, seed, the fingerprint of its cell's configuration, a checksum of its content)
and every reader checks that description against the manifest: a chunk that does not match is
named in a StoreError and never used. Reports and comparisons read only this directory.

Chunk k of every cell holds the same games whatever the target (chunk_slot: 1,000, 1,000, 2,000,
4,000 ... games, doubling up to the chunk size), so a store is extended by playing more chunks: a
later sweep of the same configuration may ask for more games per cell or add cells (extended).
The store keeps one target, the last sweep's; its cells are those of every sweep into it, and a
cell the last sweep did not ask for keeps the games it has (shown as not complete when it has
fewer than the target).
"""
import contextlib
import fcntl
import hashlib
import json
import os
import re
import socket
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from fisim.files import atomic_write
from fisim.position import TILE_CODES
from fisim.rules.config import level_order
from fisim.rules.constants import (
    DROWNED,
    LANDING_SUNK,
    LOSS_NAMES,
    N_ROLES,
    N_TILES,
    ROLE_NAMES,
    TILE_NAMES,
    TREASURE_LOST,
)
from fisim.rules.state import WON
from fisim.rules.turn import (
    R_CAPTURED,
    R_CAUSE,
    R_CONDITIONS,
    R_FIRST_SUNK,
    R_FIRST_SUNK_TILE,
    R_LAST_SUNK,
    R_LAST_SUNK_TILE,
    R_ROLE,
    R_STATUS,
    R_SUNK_MASK,
    R_SUNK_TILES,
    R_TURNS,
)
from fisim.stats import wilson

STORE_FORMAT = 7            # 2: chunks describe themselves and are verified; a lock
                            # 3: chunks grow to the chunk size; fingerprints per cell; extensible
                            # 4: a chunk names its cell's settings and the order of its roles
                            # 5: per island cell: games it ended sunk, losses it caused, sank first
                            # 6: a cell names its variant and every rule number; so do per-game rows
                            # 7: the same per named tile (tile id) as per island cell
FIRST_CHUNK = 1000          # the games of a cell's first chunk: the first --ci step
MANIFEST = "manifest.json"
LOCK = "lock"
META_KEY = b"fisim.chunk"
CAUSES = [n.replace("-", "_") for n in LOSS_NAMES]
SETTINGS = ("layout", "level", "players", "team", "policy", "rules")
GAME_KEYS = ("store_format", "fisim_version", "rules_version", "seed", "chunk_size", "per_game")
MANIFEST_KEYS = ("fisim_version", "rules_version", "policies", "files", "seed", "chunk_size", "target",
                 "per_game", "cells")
# A tile's counts are kept by two keys: "place", its island cell (tiles are placed at random each
# game, R-SETUP-1, so a cell is a place on the grid), and "name", its tile id (TILE_NAMES). Per key:
# the result row's columns (the mask sunk by the end, the first, the last to sink) and, per kind
# of count, its chunk column.
TILE_RESULTS = {"place": (R_SUNK_MASK, R_FIRST_SUNK, R_LAST_SUNK),
                "name": (R_SUNK_TILES, R_FIRST_SUNK_TILE, R_LAST_SUNK_TILE)}
TILE_COUNTS = {"place": {"sunk": "tile_sunk", "caused": "tile_caused", "first": "tile_first"},
               "name": {"sunk": "named_sunk", "caused": "named_caused", "first": "named_first"}}
CHUNK_COLUMNS = ("cell", "chunk", "first_game", "games", "wins", "turns_hist", "treasures_hist", "role_games",
                 "role_wins", "win_bits", *(f"{kind}_{c}" for kind in ("cause", "cond") for c in CAUSES),
                 *(column for columns in TILE_COUNTS.values() for column in columns.values()))
DESCRIPTION_KEYS = {"cell", "settings", "roles", "chunk", "first_game", "games", "seed", "fingerprint", "checksum"}
CHUNK_NAME = re.compile(r"([0-9a-f]{12})-([0-9]{6})\.parquet")


class StoreError(ValueError):
    """A results directory fisim cannot use; the message says why."""


class ChunkError(StoreError):
    """A chunk file that does not belong, as it is, to the store it is in."""

    def __init__(self, path, reason, kind="chunk file"):
        super().__init__(f"{kind} {Path(path).name} in {Path(path).parent} {reason}")
        self.path, self.reason = Path(path), reason


def fingerprint(manifest, cell_key):
    """The configuration a chunk of cell `cell_key` was played under: a hash of what defines its
    games in the manifest (versions, seed, chunk size, the cell with its island's shape, its
    policy's version and a policy file's content), not of the target or the other cells, which
    an extension changes."""
    cell = next(c for c in manifest["cells"] if c["key"] == cell_key)
    return _sha256({**{k: manifest[k] for k in GAME_KEYS}, "cell": cell,
                    "policy": manifest["policies"][cell["policy"]], "file": manifest["files"].get(cell["policy"])})


def _sha256(value):
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), default=_plain)
    return hashlib.sha256(text.encode()).hexdigest()


def _plain(value):
    """JSON for what a chunk record holds besides JSON types: bytes and NumPy integers."""
    return value.hex() if isinstance(value, bytes) else int(value)


def policy_labels(manifest):
    """{a cell's policy as the manifest records it (a name, or a policy file's path): the
    NAME@VERSION its results show}. A store of an older fisim did not record them: a policy file
    is then named by its file name."""
    recorded = manifest.get("policy_labels", {})
    return {policy: recorded.get(policy) or f"{Path(policy).stem if policy.endswith('.py') else policy}@{version}"
            for policy, version in manifest["policies"].items()}


def file_digest(path):
    """sha256 of a user file's content, as the manifest records it."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def cause_tiles(rows, by):
    """Per result row, the island cell (`by` "place") or the tile id ("name") whose sinking lost
    the game (Fools' Landing for landing-sunk, the second temple of a treasure for treasure-lost,
    the tile a pawn drowned on: each is the tile that sank last), or -1 (won, or lost to the
    skull, or not ended by a loss)."""
    by_tile = (rows[:, R_CAUSE] & (LANDING_SUNK | TREASURE_LOST | DROWNED)) != 0
    return np.where(by_tile, rows[:, TILE_RESULTS[by][2]], -1)


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
    for by, columns in TILE_COUNTS.items():
        counts = tile_counts(rows, by)
        record.update({column: counts[kind].astype(np.int64).tolist() for kind, column in columns.items()})
    for i, name in enumerate(CAUSES):
        record[f"cause_{name}"] = int((rows[:, R_CAUSE] == 1 << i).sum())
        record[f"cond_{name}"] = int(((rows[:, R_CONDITIONS] >> i) & 1).sum())
    return record


def check_manifest(manifest, where):
    """Raise StoreError unless `manifest` is a whole manifest of this store format."""
    if not isinstance(manifest, dict):
        raise StoreError(f"{where} is not a fisim manifest (not a JSON object)")
    found = manifest.get("store_format", 1)
    if found != STORE_FORMAT:
        age = "an older" if isinstance(found, int) and found < STORE_FORMAT else "another"
        raise StoreError(f"{where} was written by {age} fisim (store format {found}; this fisim uses format "
                         f"{STORE_FORMAT}); run the sweep again into a new directory")
    missing = [k for k in MANIFEST_KEYS if k not in manifest]
    if missing:
        raise StoreError(f"{where} is damaged: it has no {missing[0]!r} entry")
    cells, target, seed, size = manifest["cells"], manifest["target"], manifest["seed"], manifest["chunk_size"]
    problem = None
    if not isinstance(cells, list) or not cells:
        problem = "it lists no cells"
    elif not all(isinstance(c, dict) and all(k in c for k in ("key", *SETTINGS)) for c in cells):
        problem = "a cell lacks its key or a setting"
    elif not isinstance(target, dict) or not (_count(target.get("games")) or (
            _count(target.get("max_games")) and isinstance(target.get("ci"), float) and 0 < target["ci"] <= 0.5)):
        problem = "its target is neither a game count nor an interval width"
    elif not (_count(seed, zero=True) and _count(size)):
        problem = "its seed or chunk size is not a whole number"
    if problem:
        raise StoreError(f"{where} is damaged: {problem}")


def _count(value, zero=False):
    return isinstance(value, int) and not isinstance(value, bool) and value >= (0 if zero else 1)


def extended(old, new, where):
    """The manifest of a store that holds results under `old`, after a sweep under `new`: the same
    configuration with a target at least as large (new) and the cells of both (old ones first).
    StoreError naming what differs otherwise."""
    differ = [k for k in GAME_KEYS if old[k] != new[k]]
    differ += [k for k in ("policies", "files") if any(old[k][n] != new[k][n] for n in set(old[k]) & set(new[k]))]
    known = {c["key"]: c for c in old["cells"]}
    if any(known[c["key"]] != c for c in new["cells"] if c["key"] in known):
        differ.append("cells")
    shown = {_shown_as(c): c for c in old["cells"]}
    for cell in (c for c in new["cells"] if c["key"] not in known and _shown_as(c) in shown):
        differ.append("variant" if shown[_shown_as(cell)]["parameters"] != cell["parameters"] else "cells")
    differ = list(dict.fromkeys(differ))
    if differ:
        raise StoreError(f"{where} holds results of a different configuration (differs in: {', '.join(differ)}); "
                         "use another --out directory")
    if not _at_least(new["target"], old["target"]):
        raise StoreError(f"{where} holds results for a target of {target_text(old['target'])}: a sweep may extend it "
                         f"to more games per cell, not to a target of {target_text(new['target'])}; ask for at "
                         "least as many games, or use another --out directory")
    return {**new, "policies": {**old["policies"], **new["policies"]}, "files": {**old["files"], **new["files"]},
            "policy_labels": {**old.get("policy_labels", {}), **new.get("policy_labels", {})},
            "cells": old["cells"] + [c for c in new["cells"] if c["key"] not in known]}


def _shown_as(cell):
    """A manifest cell as results show it (its settings and names, not its key or rule numbers): two
    cells shown alike would be pooled, such as those of a variant file edited between sweeps."""
    return json.dumps({k: v for k, v in cell.items() if k not in ("key", "parameters", "layout_shape")},
                      sort_keys=True)


def _at_least(new, old):
    """Does target `new` ask every cell for at least the games `old` did?"""
    if "games" in new and "games" in old:
        return new["games"] >= old["games"]
    if "ci" in new and "ci" in old:
        return new["ci"] <= old["ci"] and new["max_games"] >= old["max_games"]
    return False


def target_text(target):
    """A target as the sweep's options say it."""
    if "games" in target:
        return f"--games {target['games']}"
    return f"--ci {target['ci']} --max-games {target['max_games']}"


class Store:
    def __init__(self, path):
        if not isinstance(path, (str, os.PathLike)):
            raise StoreError(f"a results directory is a path (a str or os.PathLike), not {path!r}")
        self.path = Path(path)
        self.manifest = None

    @property
    def manifest_path(self):
        return self.path / MANIFEST

    def chunk_path(self, cell_key, chunk):
        return self.path / "chunks" / f"{cell_key}-{chunk:06d}.parquet"

    def games_path(self, cell_key, chunk):
        return self.path / "games" / f"{cell_key}-{chunk:06d}.parquet"

    @contextlib.contextmanager
    def lock(self):
        """Be the store's only writer while the block runs; StoreError naming the holder if another
        process is. The lock is the kernel's (flock), so it dies with its process: a lock left by
        a killed sweep is simply taken over. The lock file only names the holder."""
        self._check_ours()
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise StoreError(f"cannot write the results directory {self.path}: {exc.strerror}") from None
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.pread(fd, 200, 0).decode(errors="replace").strip() or "another process"
                raise StoreError(f"{self.path} is being written by another fisim sweep ({holder}); wait for it "
                                 "to finish, or use another --out directory") from None
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"pid {os.getpid()} on host {socket.gethostname()}\n".encode(), 0)
            yield self
        finally:
            os.close(fd)

    def open(self, manifest):
        """Create the store, or extend an existing one made by the same configuration (see
        extended). A store that holds no finished chunk yet (a sweep that failed before its first,
        whatever manifest it left) takes the new manifest. The caller holds the lock."""
        self._check_ours()
        if self.manifest_path.exists() and self._has_results():
            old = self.read_manifest()
            if old != manifest:
                manifest = extended(old, manifest, self.path)
        text = json.dumps(manifest, indent=1, sort_keys=True)
        try:
            (self.path / "chunks").mkdir(parents=True, exist_ok=True)
            if not self.manifest_path.exists() or self.manifest_path.read_text(errors="replace") != text:
                atomic_write(self.manifest_path, lambda p: p.write_text(text))
        except OSError as exc:
            raise StoreError(f"cannot write the results directory {self.path}: {exc.strerror}") from None
        self.manifest = manifest

    def _check_ours(self):
        """StoreError unless the path is a store, or a place where fisim may make one."""
        if self.path.exists() and not self.path.is_dir():
            raise StoreError(f"{self.path} exists and is not a directory")
        if (self.path.is_dir() and not self.manifest_path.exists()
                and any(p.name != LOCK for p in self.path.iterdir())):
            raise StoreError(f"{self.path} is not empty and has no {MANIFEST}; use a new or empty directory")

    def _has_results(self):
        return any(any((self.path / d).glob("*.parquet")) for d in ("chunks", "games"))

    def read_manifest(self):
        """The manifest, checked to be whole and of this store format."""
        try:
            manifest = json.loads(self.manifest_path.read_text())
        except FileNotFoundError:
            raise StoreError(f"{self.path} is not a fisim results directory (no {MANIFEST})") from None
        except (OSError, ValueError) as exc:
            raise StoreError(f"{self.manifest_path} cannot be read: {exc}") from None
        check_manifest(manifest, self.manifest_path)
        return manifest

    def write_chunk(self, record, games_frame=None):
        """Store a chunk (and its per-game rows), described by its metadata; whole or not at all."""
        manifest = self.manifest or self.read_manifest()
        meta = _description(record, manifest)
        if games_frame is not None:
            path = self.games_path(record["cell"], record["chunk"])
            path.parent.mkdir(exist_ok=True)
            from fisim.simulation import games_table
            atomic_write(path, lambda p: pq.write_table(games_table(games_frame), p))
        table = pa.Table.from_pylist([record]).replace_schema_metadata({META_KEY: json.dumps(meta)})
        atomic_write(self.chunk_path(record["cell"], record["chunk"]), lambda p: pq.write_table(table, p))

    def read_chunks(self, manifest=None, rejected=None):
        """Every chunk file, verified against the manifest, as a DataFrame (one row per chunk). A
        file that fails raises ChunkError, or, with `rejected`, is passed to rejected(error) and
        left out."""
        manifest = manifest or self.read_manifest()
        folder = self.path / "chunks"
        if not folder.is_dir():
            raise StoreError(f"{self.path} has no chunks directory: no game of this sweep has been stored; "
                             "run the same sweep again")
        expected = {c["key"]: fingerprint(manifest, c["key"]) for c in manifest["cells"]}
        records = []
        for path in sorted(folder.glob("*.parquet")):
            try:
                record = _verified(path, manifest, expected)
                if manifest["per_game"]:
                    _check_games(self.games_path(record["cell"], record["chunk"]), record, manifest)
                records.append(record)
            except ChunkError as exc:
                if rejected is None:
                    raise
                rejected(exc)
        return pd.DataFrame(records) if records else pd.DataFrame(columns=["cell", "chunk", "games", "wins"])


def _description(record, manifest):
    """What a chunk says about itself: its cell and the cell's settings, the order of the roles in
    role_games and role_wins, its place in the sweep, the seed, the fingerprint of its cell's
    configuration, and a checksum of all of that and of the record's content."""
    meta = {"cell": record["cell"], "settings": _settings(manifest, record["cell"]), "roles": list(ROLE_NAMES),
            "chunk": record["chunk"], "first_game": record["first_game"], "games": record["games"],
            "seed": manifest["seed"], "fingerprint": fingerprint(manifest, record["cell"])}
    return {**meta, "checksum": _checksum(meta, record)}


def _settings(manifest, cell_key):
    cell = next(c for c in manifest["cells"] if c["key"] == cell_key)
    return {k: cell[k] for k in SETTINGS}


def _checksum(meta, record):
    return _sha256({**{k: v for k, v in meta.items() if k != "checksum"}, "content": record})


def _verified(path, manifest, fingerprints):
    """The record of chunk file `path`, or ChunkError saying how it does not belong to the store."""
    name = CHUNK_NAME.fullmatch(path.name)
    if not name:
        raise ChunkError(path, "is not named like a chunk (<cell>-<chunk>.parquet); remove it")
    try:
        table = pq.read_table(path)
        described = META_KEY in (table.schema.metadata or {})
        meta = json.loads(table.schema.metadata[META_KEY]) if described else None
        record = table.to_pylist()[0]
    except Exception as exc:        # any way a damaged Parquet file fails to decode
        raise ChunkError(path, f"is damaged ({exc.__class__.__name__}); delete it and run the sweep again "
                               "to replay that chunk") from None
    if not described:
        raise ChunkError(path, "has no chunk description: written by an older fisim or another program")
    if (not isinstance(meta, dict) or set(meta) != DESCRIPTION_KEYS or set(record) != set(CHUNK_COLUMNS)
            or meta["checksum"] != _checksum(meta, record)):
        raise ChunkError(path, "does not match its checksum: it is damaged; delete it and run the sweep again")
    cell, chunk = name[1], int(name[2])
    first = chunk_slot(chunk, manifest["chunk_size"])[0]
    most = planned_games(manifest["target"], chunk, manifest["chunk_size"])
    if (meta["cell"], meta["chunk"]) != (cell, chunk) or (record["cell"], record["chunk"]) != (cell, chunk):
        problem = f"holds chunk {meta['chunk']} of cell {meta['cell']}, not what its name says"
    elif cell not in fingerprints:
        problem = "is of a cell this sweep does not have"
    elif meta["seed"] != manifest["seed"]:
        problem = f"was played with seed {meta['seed']}, not this sweep's seed {manifest['seed']}"
    elif meta["fingerprint"] != fingerprints[cell]:
        problem = "was played under another configuration (its fingerprint differs from the manifest's)"
    elif (meta["settings"], meta["roles"]) != (_settings(manifest, cell), list(ROLE_NAMES)):
        problem = "describes other settings than its cell's in the manifest"
    elif most == 0:
        problem = f"is beyond this sweep's target ({target_text(manifest['target'])})"
    elif (meta["first_game"], record["first_game"], record["games"]) != (first, first, meta["games"]) \
            or not 0 < meta["games"] <= most:
        problem = (f"holds games {meta['first_game']}.. ({meta['games']} games), not games {first}.. "
                   f"(at most {most} games) as chunk {chunk} of this sweep")
    else:
        problem = _inconsistency(record)
    if problem:
        raise ChunkError(path, f"{problem}; delete it and run the same sweep again to replay that chunk")
    return record


GAME_SETTINGS = ("layout", "level", "players", "team", "rules")     # as per-game rows and the manifest name them


def _check_games(path, record, manifest):
    """ChunkError unless per-game file `path` holds the games of verified chunk `record`: the
    same game numbers, seed, repeat and settings, and the wins, turns and treasures its
    aggregates count (so a file deleted, or copied from another seed, cell or chunk, is named)."""
    def refuse(problem):
        raise ChunkError(path, f"{problem}; run the same sweep again to replay chunk {record['chunk']} of its cell",
                         "per-game file")

    if not path.is_file():
        refuse("is missing")
    try:
        games = pq.read_table(path, columns=["game", "seed", "repeat", "won", "turns", "treasures",
                                             *GAME_SETTINGS]).to_pandas()
    except Exception as exc:        # any way a damaged Parquet file fails to decode
        refuse(f"is damaged ({exc.__class__.__name__})")
    cell = next(c for c in manifest["cells"] if c["key"] == record["cell"])
    n, first = record["games"], record["first_game"]
    if len(games) != n or not np.array_equal(games["game"], np.arange(first, first + n)):
        refuse(f"does not hold games {first}..{first + n - 1}, as its chunk does")
    expected = {"seed": manifest["seed"], "repeat": cell.get("repeat", 0),
                **{k: cell[k] for k in GAME_SETTINGS if not (k == "team" and cell[k] == "random")}}
    wrong = next((k for k, v in expected.items() if set(games[k].astype(object)) != {v}), None)
    if wrong:
        refuse(f"holds games of another {wrong} than its chunk's ({expected[wrong]})")
    if (np.packbits(games["won"].to_numpy()).tobytes() != record["win_bits"]
            or np.bincount(games["turns"]).tolist() != record["turns_hist"]
            or np.bincount(games["treasures"], minlength=5).tolist() != record["treasures_hist"]):
        refuse("holds other games than its chunk counts")


def _inconsistency(record):
    """What in a chunk's aggregates does not add up, or None."""
    games, wins = record["games"], record["wins"]
    bits = np.unpackbits(np.frombuffer(record["win_bits"], np.uint8))
    if games <= 0 or not 0 <= wins <= games:
        return f"is inconsistent ({wins} wins in {games} games)"
    if len(bits) < games or int(bits[:games].sum()) != wins or bits[games:].any():
        return "is inconsistent (its per-game wins do not add up to its win count)"
    if sum(record["turns_hist"]) != games or sum(record["treasures_hist"]) != games:
        return "is inconsistent (its turn or treasure counts do not add up to its games)"
    if sum(record[f"cause_{c}"] for c in CAUSES) > games - wins:
        return "is inconsistent (more loss causes than lost games)"
    tiles = {by: {kind: record[column] for kind, column in columns.items()} for by, columns in TILE_COUNTS.items()}
    if (any(len(t) != N_TILES or min(t) < 0 or max(t) > games for counts in tiles.values() for t in counts.values())
            or sum(tiles["place"]["caused"]) > games - wins or sum(tiles["place"]["first"]) > games
            or any(sum(tiles["place"][kind]) != sum(tiles["name"][kind]) for kind in tiles["place"])):
        return "is inconsistent (its per-tile counts do not fit its games)"
    return None


def read_store(path):
    """(manifest, chunks) of a results directory for a reader: the manifest checked, every chunk
    verified against it, and no chunk missing before one that is there. StoreError otherwise. A
    chunk shorter than its slot ends its cell's games: chunks after it (of an extension that was
    interrupted before it replayed that chunk whole) are left out until it has."""
    store = Store(path)
    manifest = store.read_manifest()
    chunks = store.read_chunks(manifest)
    keep = pd.Series(True, index=chunks.index)
    size = manifest["chunk_size"]
    for cell in manifest["cells"]:
        mine = chunks.loc[chunks["cell"] == cell["key"], ["chunk", "games"]].sort_values("chunk")
        gap = next((k for k, n in enumerate(mine["chunk"]) if n != k), None)
        if gap is not None:
            label = ", ".join(str(cell[k]) for k in SETTINGS)
            raise StoreError(f"chunk file {cell['key']}-{gap:06d}.parquet of cell [{label}] is missing from "
                             f"{store.path / 'chunks'}; run the same sweep again to replay it")
        short = [k for k, n in zip(mine["chunk"], mine["games"]) if n < chunk_slot(k, size)[1]]
        if short:
            keep[mine.index[mine["chunk"] > short[0]]] = False
    return manifest, chunks[keep]


def target_reached(target, wins, games):
    """Has a cell played enough? target is {"games": N} or {"ci": half-width, "max_games": M}."""
    if "games" in target:
        return games >= target["games"]
    if games >= target["max_games"]:
        return True
    low, high = wilson(wins, games)
    return games > 0 and (high - low) / 2 <= target["ci"]


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


def planned_games(target, chunk, chunk_games):
    """Games that chunk number `chunk` of a cell holds under `target`: its slot, cut at a fixed
    count or at an adaptive target's cap."""
    first, size = chunk_slot(chunk, chunk_games)
    limit = target["games"] if "games" in target else target["max_games"]
    return max(0, min(size, limit - first))


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
    """The aggregates of a results directory: one row per cell with its settings (`policy` as
    NAME@VERSION, as in per-game rows; `level` ordered
    by the water meter: novice < normal < elite < legendary, a position by its number among them),
    games, wins, win rate and 95% Wilson interval,
    loss-cause shares, mean turns and treasures, and per adventurer the games whose team included
    it, their wins and win rate (<role>_games, <role>_wins, <role>_rate)."""
    return cell_table(*read_store(path))


def cell_table(manifest, chunks):
    """fisim.store.load's table from a store's verified manifest and chunks."""
    rows = []
    labels = policy_labels(manifest)
    for cell in manifest["cells"]:
        done, complete = counted_chunks(chunks, cell["key"], manifest["target"])
        games = int(done["games"].sum())
        wins = int(done["wins"].sum()) if games else 0
        low, high = wilson(wins, games)
        row = {**{k: cell[k] for k in SETTINGS}, "policy": labels[cell["policy"]]}
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
    frame["level"] = frame["level"].astype(pd.CategoricalDtype(level_order(frame["level"]), ordered=True))
    return frame


def load_tiles(path, by="place"):
    """Which tiles decide the game, per cell of a results directory: one row per cell and tile,
    by "place" each island cell (`tile`, 0..23 in the island's row-major order, at grid `row`,
    `col`) or by "name" each named tile (`tile`, its id, with its `code` and `name`), with the
    share of games it ended sunk (of `games`), of losses its sinking caused (of `losses`: Fools'
    Landing, a treasure's second temple, a drowned pawn's tile) and of games it sank first (of
    `games`), each with its count and Wilson 95% interval (<measure>, <measure>_share, _low,
    _high)."""
    if by not in TILE_COUNTS:
        raise ValueError(f"load_tiles: by must be one of {', '.join(map(repr, TILE_COUNTS))}, not {by!r}")
    return tile_table(*read_store(path), by)


def tile_table(manifest, chunks, by):
    """fisim.store.load_tiles's table from a store's verified manifest and chunks."""
    rows = []
    labels = policy_labels(manifest)
    for cell in manifest["cells"]:
        done, _ = counted_chunks(chunks, cell["key"], manifest["target"])
        games = int(done["games"].sum())
        counts = {kind: _sum_hists(done[column]) if games else np.zeros(N_TILES, np.int64)
                  for kind, column in TILE_COUNTS[by].items()}
        settings = {**{k: cell[k] for k in SETTINGS}, "policy": labels[cell["policy"]], "cell": cell["key"]}
        rows += [{**settings, **row} for row in tile_rows(tile_labels(by, cell["layout_shape"]), games,
                                                          int(done["wins"].sum()) if games else 0, counts)]
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
