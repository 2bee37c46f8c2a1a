"""The results store: a directory with a manifest and one Parquet file per finished chunk.

    DIR/manifest.json                      store format, versions, seed, chunk size, target, the
                                           games traced per cell and the worlds per estimate, the
                                           cells (each with its variant's name and every rule number)
    DIR/chunks/<cell>-<chunk>.parquet      one row of aggregates per finished chunk (with, per
                                           island cell and per named tile, the games it ended
                                           sunk, the losses its sinking caused, the games it sank
                                           first; the wins by how close they came; the win-chance
                                           traces of its games among the cell's traced ones)
    DIR/games/<cell>-<chunk>.parquet       one row per game (only with --per-game)
    DIR/lock                               who writes the store (the lock itself is the kernel's)

Every file is written to a temporary name and renamed into place, so a chunk file that exists is
complete; a run that is interrupted loses at most the chunks in flight. One sweep at a time
writes a store. Each chunk describes itself in its Parquet key-value metadata (cell, chunk index,
game range, seed, the fingerprint of its cell's configuration, a checksum of its content)
and every reader checks that description against the manifest: a chunk that does not match is
named in a StoreError and never used; so is a per-game file that is not its verified chunk's
(pd.read_parquet of DIR/games reads every file there). Reports and comparisons read only this
directory.

Chunk k of every cell holds the same games whatever the target (fisim.results.chunks), so a store
is extended by playing more chunks: a later sweep of the same configuration may ask for more games
per cell or add cells (extended). The store keeps one target, the last sweep's; its cells are
those of every sweep into it, and a cell the last sweep did not ask for keeps the games it has
(shown as not complete when it has fewer than the target). What a store holds is read as tables
by fisim.tables.
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

from fisim.errors import PolicyChanged, StoreError
from fisim.files import atomic_write
from fisim.limits import CHUNK_GAMES, TRACE_ROUNDS
from fisim.results.chunks import CHUNK_COLUMNS, CLOSE_MASKS, TILE_COUNTS, chunk_slot, planned_games, traced_in
from fisim.results.games import CAUSES, CLOSE, games_table
from fisim.rules.config import RULES_VERSION
from fisim.rules.constants import N_TILES, ROLE_NAMES
from fisim.rules.layouts import BUILTIN_NAMES, load_layout
from fisim.version import VERSION

STORE_FORMAT = 8            # 2: chunks describe themselves and are verified; a lock
                            # 3: chunks grow to the chunk size; fingerprints per cell; extensible
                            # 4: a chunk names its cell's settings and the order of its roles
                            # 5: per island cell: games it ended sunk, losses it caused, sank first
                            # 6: a cell names its variant and every rule number; so do per-game rows
                            # 7: the same per named tile (tile id) as per island cell
                            # 8: wins by how close they came; the win chance over a cell's first games
MANIFEST = "manifest.json"
LOCK = "lock"
META_KEY = b"fisim.chunk"
SETTINGS = ("layout", "level", "players", "team", "policy", "rules")
GAME_KEYS = ("store_format", "fisim_version", "rules_version", "seed", "chunk_size", "per_game", "trace")
MANIFEST_KEYS = ("fisim_version", "rules_version", "policies", "files", "seed", "chunk_size", "target",
                 "per_game", "trace", "cells")
DESCRIPTION_KEYS = {"cell", "settings", "roles", "chunk", "first_game", "games", "seed", "fingerprint", "checksum"}
CHUNK_NAME = re.compile(r"([0-9a-f]{12})-([0-9]{6})\.parquet")


class ChunkError(StoreError):
    """A chunk file that does not belong, as it is, to the store it is in."""

    def __init__(self, path, reason, kind="chunk file", replayed=True):
        super().__init__(f"{kind} {Path(path).name} in {Path(path).parent} {reason}")
        self.path, self.reason = Path(path), reason
        self.replayed = replayed        # whether a sweep that deletes it plays its games again


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


def trace_setting(games=0, worlds=0):
    """The manifest's "trace": the first `games` games of every cell have their win chance traced,
    each estimate from `worlds` sampled worlds (fisim.engine.trace_batch); no games, no worlds."""
    return {"games": games, "worlds": worlds if games else 0}


def manifest_for(cells, seed, target, per_game, chunk_games=CHUNK_GAMES, trace=None):
    """What identifies a sweep: a store is only ever extended by the same configuration
    (extended), its win chance traced over the same games (`trace`, trace_setting's; default:
    none). User policy and layout files enter it by content ("files"), so an edited file is
    never mixed into a store. A cell's repeat is recorded when it is not 0, so a store of games as
    dealt has the manifest it had before repeats existed. A cell names its policy as given (a
    policy file by its path: provenance); "policy_labels" gives the NAME@VERSION that results show
    for it, as a per-game row does."""
    loaded = {c.policy.given: c.policy for c in sorted(cells, key=lambda c: c.policy.given)}
    layout_files = sorted({c.layout for c in cells if c.layout not in BUILTIN_NAMES})
    return {
        "store_format": STORE_FORMAT, "fisim_version": VERSION, "rules_version": RULES_VERSION,
        "policies": {name: p.VERSION for name, p in loaded.items()},
        "policy_labels": {name: p.label for name, p in loaded.items()},
        # a policy file's content, or a built-in's data file (tuned's weights), as the run read it
        "files": {**{path: file_digest(path) for path in layout_files},
                  **{name: p.content for name, p in loaded.items() if p.content}},
        "seed": seed, "chunk_size": chunk_games, "target": target, "per_game": per_game,
        "trace": trace or trace_setting(),
        "cells": [{"key": c.key, "layout": c.layout_label, "layout_shape": list(load_layout(c.layout).rows),
                   "level": c.level, "players": c.players, "team": c.team_label, "policy": c.policy.given,
                   "rules": c.rules_label, **c.variant_record,
                   **({"repeat": c.repeat} if c.repeat else {})} for c in cells],
    }


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
    elif not (isinstance(manifest["trace"], dict) and set(manifest["trace"]) == {"games", "worlds"}
              and all(_count(v, zero=True) for v in manifest["trace"].values())
              and (manifest["trace"]["games"] == 0) == (manifest["trace"]["worlds"] == 0)):
        problem = "its win-chance trace is not a number of games and of worlds"
    if problem:
        raise StoreError(f"{where} is damaged: {problem}")


def _count(value, zero=False):
    return isinstance(value, int) and not isinstance(value, bool) and value >= (0 if zero else 1)


def changed_policies(old, new):
    """The policies both manifests name whose games differ between them: another version, or
    another content of a policy file or of a built-in's data file."""
    return sorted(name for name in set(old["policies"]) & set(new["policies"])
                  if old["policies"][name] != new["policies"][name] or old["files"].get(name) != new["files"].get(name))


def as_of(old, new, names):
    """`old` with policies `names` recorded as `new` records them (version, label, file)."""
    def entries(key):
        kept = {k: v for k, v in old.get(key, {}).items() if k not in names}
        return {**kept, **{k: v for k, v in new.get(key, {}).items() if k in names}}
    return {**old, **{key: entries(key) for key in ("policies", "policy_labels", "files")}}


def relabelled(old, new, names):
    """{label in manifest `old`: label in `new`} of policies `names`."""
    before, now = policy_labels(old), policy_labels(new)
    return {before[name]: now[name] for name in names}


def extended(old, new, where):
    """The manifest of a store that holds results under `old`, after a sweep under `new`: the same
    configuration with a target at least as large (new) and the cells of both (old ones first).
    PolicyChanged when policies changed and nothing else differs; StoreError naming what differs
    otherwise."""
    changed = changed_policies(old, new)
    if changed and not _differences(as_of(old, new, changed), new):
        games = [f"{b} (now {n})" if b != n else f"{b} (its file edited since)"
                 for b, n in relabelled(old, new, changed).items()]
        which = "policies that play" if len(games) > 1 else "a policy that plays"
        raise PolicyChanged(f"{where} holds the games of {', '.join(games)}: {which} differently now; use "
                            "another --out directory")
    differ = _differences(old, new)
    if differ:
        raise StoreError(f"{where} holds results of a different configuration (differs in: {', '.join(differ)}); "
                         "use another --out directory")
    if not _at_least(new["target"], old["target"]):
        raise StoreError(f"{where} holds results for a target of {target_text(old['target'])}: a sweep may extend it "
                         f"to more games per cell, not to a target of {target_text(new['target'])}; ask for at "
                         "least as many games, or use another --out directory")
    known = {c["key"] for c in old["cells"]}
    return {**new, "policies": {**old["policies"], **new["policies"]}, "files": {**old["files"], **new["files"]},
            "policy_labels": {**old.get("policy_labels", {}), **new.get("policy_labels", {})},
            "cells": old["cells"] + [c for c in new["cells"] if c["key"] not in known]}


def _differences(old, new):
    """What keeps a store made under manifest `old` from being extended under `new`, its target
    aside: the names of the manifest entries that differ."""
    differ = [k for k in GAME_KEYS if old[k] != new[k]]
    differ += [k for k in ("policies", "files") if any(old[k][n] != new[k][n] for n in set(old[k]) & set(new[k]))]
    known = {c["key"]: c for c in old["cells"]}
    if any(known[c["key"]] != c for c in new["cells"] if c["key"] in known):
        differ.append("cells")
    shown = {_shown_as(c): c for c in old["cells"]}
    for cell in (c for c in new["cells"] if c["key"] not in known and _shown_as(c) in shown):
        differ.append("variant" if shown[_shown_as(cell)]["parameters"] != cell["parameters"] else "cells")
    return list(dict.fromkeys(differ))


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
        manifest = self.extended_by(manifest)
        text = json.dumps(manifest, indent=1, sort_keys=True)
        try:
            (self.path / "chunks").mkdir(parents=True, exist_ok=True)
            if not self.manifest_path.exists() or self.manifest_path.read_text(errors="replace") != text:
                atomic_write(self.manifest_path, lambda p: p.write_text(text))
        except OSError as exc:
            raise StoreError(f"cannot write the results directory {self.path}: {exc.strerror}") from None
        self.manifest = manifest

    def extended_by(self, manifest, replay_changed=False):
        """The manifest the store will have once a sweep under `manifest` opens it (extended), read
        and checked without writing anything: a sweep checks it before it compiles or plays. With
        `replay_changed`, as it will be once replay_changed has deleted the changed policies' games."""
        self._check_ours()
        if self.manifest_path.exists() and self._has_results():
            old = self.read_manifest()
            if replay_changed:
                old = as_of(old, manifest, changed_policies(old, manifest))
            if old != manifest:
                return extended(old, manifest, self.path)
        return manifest

    def replay_changed(self, manifest):
        """Delete the games of every cell whose policy has changed since the store was made
        (changed_policies against `manifest`) and record the policies as `manifest` has them: a
        sweep under `manifest` then plays those cells again and keeps every other cell's games. A
        cell's files go last chunk first (a chunk's per-game file just before it), the manifest is
        written after them: an interruption leaves a store of the old policies with fewer games (its
        last chunk perhaps without its per-game file, which a sweep plays again), and calling again
        finishes the work. Returns {label in the store: label now} of the policies replaced. The
        caller holds the lock."""
        if not (self.manifest_path.exists() and self._has_results()):
            return {}
        old = self.read_manifest()
        changed = changed_policies(old, manifest)
        if not changed:
            return {}
        for cell in (c for c in old["cells"] if c["policy"] in changed):
            for path in sorted((self.path / "chunks").glob(f"{cell['key']}-*.parquet"), reverse=True):
                (self.path / "games" / path.name).unlink(missing_ok=True)   # its per-game file, never left alone
                path.unlink()
            for path in (self.path / "games").glob(f"{cell['key']}-*.parquet"):
                path.unlink()
        replaced = as_of(old, manifest, changed)
        atomic_write(self.manifest_path, lambda p: p.write_text(json.dumps(replaced, indent=1, sort_keys=True)))
        return relabelled(old, manifest, changed)

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

    def made(self):
        """read_manifest, or None where no store has been made yet (no manifest)."""
        return self.read_manifest() if self.manifest_path.exists() else None

    def target_games(self):
        """The games per cell the store was last asked for (its target), 0 where none was made."""
        manifest = self.made()
        return manifest["target"].get("games", 0) if manifest else 0

    def write_chunk(self, record, games_frame=None):
        """Store a chunk (and its per-game rows), described by its metadata; whole or not at all."""
        manifest = self.manifest or self.read_manifest()
        meta = _description(record, manifest)
        if games_frame is not None:
            path = self.games_path(record["cell"], record["chunk"])
            path.parent.mkdir(exist_ok=True)
            atomic_write(path, lambda p: pq.write_table(games_table(games_frame), p))
        table = pa.Table.from_pylist([record]).replace_schema_metadata({META_KEY: json.dumps(meta)})
        atomic_write(self.chunk_path(record["cell"], record["chunk"]), lambda p: pq.write_table(table, p))

    def read_chunks(self, manifest=None, rejected=None, progress=None):
        """Every chunk file, verified against the manifest, as a DataFrame (one row per chunk). A
        file that fails raises ChunkError, or, with `rejected`, is passed to rejected(error) and
        left out. progress(1, total) as each of the `total` chunk files is read."""
        manifest = manifest or self.read_manifest()
        folder = self.path / "chunks"
        if not folder.is_dir():
            raise StoreError(f"{self.path} has no chunks directory: no game of this sweep has been stored; "
                             "run the same sweep again")
        expected = {c["key"]: fingerprint(manifest, c["key"]) for c in manifest["cells"]}
        records = []
        paths = sorted(folder.glob("*.parquet"))
        for path in paths:
            if progress:
                progress(1, len(paths))
            try:
                record = _verified(path, manifest, expected)
                if manifest["per_game"]:
                    _check_games(self.games_path(record["cell"], record["chunk"]), record, manifest)
                records.append(record)
            except ChunkError as exc:
                if rejected is None:
                    raise
                rejected(exc)
        for path in self._games_of_no_chunk({self.games_path(r["cell"], r["chunk"]).name for r in records}):
            error = ChunkError(path, f"belongs to no chunk of this store ({_ORPHAN}); delete it", "per-game file",
                               replayed=False)
            if rejected is None:
                raise error
            rejected(error)
        return pd.DataFrame(records) if records else pd.DataFrame(columns=list(CHUNK_COLUMNS))

    def _games_of_no_chunk(self, kept):
        """The files in games/ that pd.read_parquet(DIR/games) reads (any name but a hidden one) and
        that are not the per-game file of a verified chunk (`kept`: their names)."""
        folder = self.path / "games"
        if not folder.is_dir():
            return []
        return sorted(p for p in folder.iterdir() if not p.name.startswith((".", "_")) and p.name not in kept)


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
        problem = _inconsistency(record, manifest["trace"])
    if problem:
        raise ChunkError(path, f"{problem}; delete it and run the same sweep again to replay that chunk")
    return record


GAME_SETTINGS = ("layout", "level", "players", "team", "rules")     # as per-game rows and the manifest name them
_ORPHAN = "pd.read_parquet of the games directory would read its rows with the store's"


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
        games = pq.read_table(path, columns=["game", "seed", "repeat", "won", "turns", "treasures", *CLOSE,
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
    won = games[games["won"]]
    close = sum(won[name].to_numpy(np.int64) << i for i, name in enumerate(CLOSE))
    if (np.packbits(games["won"].to_numpy()).tobytes() != record["win_bits"]
            or np.bincount(games["turns"]).tolist() != record["turns_hist"]
            or np.bincount(games["treasures"], minlength=5).tolist() != record["treasures_hist"]
            or np.bincount(close, minlength=CLOSE_MASKS).tolist() != record["won_close_hist"]):
        refuse("holds other games than its chunk counts")


def _inconsistency(record, trace):
    """What in a chunk's aggregates does not add up (under the manifest's `trace`), or None."""
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
    close = record["won_close_hist"]
    if len(close) != CLOSE_MASKS or min(close) < 0 or sum(close) != wins or record["treasures_hist"][4] < wins:
        return "is inconsistent (its wins by how close they came, or by treasures captured, do not fit its wins)"
    traces, worlds = record["traces"], trace["worlds"]
    expected = traced_in(record["first_game"], games, trace["games"])
    if len(traces) != expected:
        return f"is inconsistent (it holds {len(traces)} win-chance traces, not the {expected} of its traced games)"
    if any(not 2 <= len(t) <= TRACE_ROUNDS + 1 or min(t) < 0 or max(t) > worlds or t[-1] != worlds * int(bit)
           for t, bit in zip(traces, bits)):
        return "is inconsistent (a win-chance trace does not fit its game)"
    return None


def read_store(path, progress=None):
    """(manifest, chunks) of a results directory for a reader: the manifest checked, every chunk
    verified against it, and no chunk missing before one that is there. StoreError otherwise. A
    chunk shorter than its slot ends its cell's games: chunks after it (of an extension that was
    interrupted before it replayed that chunk whole) are left out until it has. progress(1, total)
    as each chunk file is read (a large store takes seconds)."""
    store = Store(path)
    manifest = store.read_manifest()
    chunks = store.read_chunks(manifest, progress=progress)
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
