"""`fisim sweep`: play every cell of a grid in chunks and store each finished chunk.

Game i of every cell is game i of the master seed (common random numbers), and a chunk is a
fixed run of game indices (fisim.results.chunks), so what a chunk holds does not depend on
threads, processes, machines or the target: a sweep resumed after an interruption, run on a Dask
cluster, or extended with more games, gives the same store as one uninterrupted run.
"""
import gc

import pandas as pd

from fisim import defaults
from fisim.cell import play, trace
from fisim.errors import BackendError, EngineError
from fisim.formatting import interval, percent
from fisim.limits import CHUNK_GAMES
from fisim.results.chunks import chunk_count, chunk_record, chunks_to_play, counted_whole, per_game_wins, traced_in
from fisim.results.games import games_frame
from fisim.store import CHUNK_NAME, Store, manifest_for, trace_setting
from fisim.tables import load
from policies import seer_notes

CLUSTER_EXTRA = "a Dask cluster needs Dask, an optional extra of fisim: pip install 'fisim[cluster]'"
DASK_TIMEOUT = 10       # seconds a Dask scheduler has to answer


class Interrupted(KeyboardInterrupt):
    """A sweep stopped by Ctrl-C: `kept` games of its cells are in the store, and the same
    sweep resumes from there."""

    def __init__(self, kept):
        super().__init__(f"{kept:,} games kept")
        self.kept = kept


def play_chunk(cell, chunk, first, size, seed, threads, per_game, progress=None, traced=None):
    """Play chunk `chunk` of a cell, games first..first+size-1: its aggregate record and, with
    per_game, its per-game frame. `progress(k)` as each block of k games finishes. Its games among
    the cell's first traced ones (`traced`, the manifest's trace_setting) have their win chance
    traced into the record."""
    rows = play(cell, seed, first, size, threads, progress)
    frame = (games_frame(rows, cell.config, cell.layout_label, cell.policy_label, seed, first, cell.repeat)
             if per_game else None)
    count = traced_in(first, size, traced["games"]) if traced else 0
    traces = trace(cell, seed, first, count, traced["worlds"], threads) if count else ()
    return chunk_record(cell.key, chunk, first, rows, traces), frame


class LocalBackend:
    """Chunks one after another, each on `threads` Numba threads."""

    def __init__(self, threads=None):
        self.threads = threads

    def run(self, tasks, seed, per_game, progress, traced=None):
        """Each chunk's (record, frame); progress(games) as blocks of games finish."""
        for cell, chunk, first, size in tasks:
            yield play_chunk(cell, chunk, first, size, seed, self.threads, per_game, progress, traced)

    def close(self):
        pass


class DaskBackend:
    """Chunks as tasks on a Dask distributed cluster: `address` of a scheduler, or a local
    cluster of `workers` single-threaded processes. Results arrive in any order; each is stored
    as it comes."""

    def __init__(self, address=None, workers=None):
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError:
            raise BackendError(CLUSTER_EXTRA) from None
        self.cluster = None
        try:
            if address:
                _check_scheduler(address)
                self.client = Client(address, timeout=DASK_TIMEOUT)
            else:
                self.cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                            dashboard_address=None)
                self.client = Client(self.cluster)
        except Exception as exc:        # whatever distributed raises for a bad or dead address
            if self.cluster is not None:
                self.cluster.close()
            error = _first_line(exc)
        else:
            return
        # a Client that failed to start is closed now: closed by a later garbage collection that
        # happens inside another Client's start, it deadlocks on its event loop
        gc.collect()
        raise BackendError(f"cannot start the Dask cluster {address or ''}: {error}")

    def run(self, tasks, seed, per_game, progress, traced=None):
        """Each chunk's (record, frame) as it arrives; progress(games) then."""
        from dask.distributed import as_completed

        from policies import PolicyError
        futures = [self.client.submit(play_chunk, cell, chunk, first, size, seed, 1, per_game, traced=traced,
                                      pure=False)
                   for cell, chunk, first, size in tasks]
        try:
            for future in as_completed(futures):
                try:
                    result = future.result()
                except (EngineError, PolicyError):
                    raise
                except Exception as exc:    # the scheduler or a worker died, the connection broke
                    raise BackendError(f"the Dask cluster failed during the sweep: {_first_line(exc)}; "
                                       "finished chunks are kept: run the same command to resume") from None
                progress(result[0]["games"])
                yield result
        finally:
            for f in futures:
                f.cancel()

    def close(self):
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def _check_scheduler(address):
    """Raise unless a Dask scheduler answers at `address` within DASK_TIMEOUT seconds: Client's own
    timeout does not cover a server that accepts the connection and never answers (a web server)."""
    import asyncio

    from distributed.comm import connect

    async def identity():
        comm = await connect(address, timeout=DASK_TIMEOUT)
        try:
            await comm.write({"op": "identity"})
            return await comm.read()
        finally:
            comm.abort()

    try:
        answer = asyncio.run(asyncio.wait_for(identity(), DASK_TIMEOUT))
    except TimeoutError:
        raise TimeoutError(f"no Dask scheduler answered within {DASK_TIMEOUT} s") from None
    if not (isinstance(answer, dict) and answer.get("type") == "Scheduler"):
        raise ConnectionError("it answered, but not as a Dask scheduler")


def _first_line(exc):
    return (str(exc).strip().splitlines() or [exc.__class__.__name__])[0]


def warm(cells, traced=False):
    """Compile what the cells' policies need (at once: fisim.engine.runners.prepare), and with
    `traced` what tracing the win chance needs, before chunks fan out to threads or worker
    processes."""
    from fisim.engine.runners import prepare
    prepare(list({c.policy.given: c.policy for c in cells}.values()),
            ("run_games", "trace_games") if traced else "run_games")


def tracing(games):
    """The manifest's trace of a sweep that traces the win chance over the first `games` games of
    each cell, defaults.TRACE_WORLDS worlds per estimate (fisim.engine.trace_batch)."""
    return trace_setting(games, defaults.TRACE_WORLDS)


def run_sweep(cells, out, seed=0, target=None, per_game=False, backend=None, progress=None, chunk_games=CHUNK_GAMES,
              warn=None, note=None, trace_games=0, replay_changed=False):
    """Play every cell until its target ({"games": N} or {"ci": h, "max_games": M}) and return
    fisim.tables.load(out) of every cell in the store. The win chance over the first `trace_games`
    games of each cell is traced (`tracing`). Chunks already in the store are not played again,
    so a store of the same configuration is resumed or extended (more games per cell, more cells);
    a chunk file of this sweep that fails verification is deleted and played again, with
    `warn(text)`. `progress(games, cells_done)` is called as games (blocks of a chunk, on a Dask
    cluster whole chunks) and cells finish. `note(text)` says what a store already holds before
    playing: "resuming: 16,000 of 60,000 games stored", or "nothing to play: the store is
    complete". A store whose games were played by a policy that has changed since is refused
    (PolicyChanged), or with `replay_changed` has those cells' games deleted and played again
    (Store.replay_changed; `note` names the policies). Ctrl-C raises Interrupted with the games
    kept. The store is locked while the sweep runs."""
    target = target or {"games": defaults.SWEEP_GAMES}
    store = Store(out)
    backend = backend or LocalBackend()
    progress = progress or (lambda games, cells_done: None)
    try:
        with store.lock():
            manifest = manifest_for(cells, seed, target, per_game, chunk_games, tracing(trace_games))
            replaced = store.replay_changed(manifest) if replay_changed else {}
            if note and replaced:
                note("playing again the cells of " + ", ".join(f"{now} (its games of {before} deleted)"
                                                          for before, now in replaced.items()))
            store.open(manifest)
            records = {c["key"]: {} for c in store.manifest["cells"]}
            rejected = lambda error: replace_rejected(error, records, warn)  # noqa: E731
            for _, row in store.read_chunks(store.manifest, rejected).iterrows():
                records[row["cell"]][int(row["chunk"])] = (int(row["wins"]), int(row["games"]))
            resuming = _resume_text(cells, records, target, chunk_games)
            if note and resuming:
                note(resuming)
            try:
                _play(cells, store, seed, target, per_game, backend, progress, chunk_games, records)
            except KeyboardInterrupt:
                raise Interrupted(_stored(cells, records, target, chunk_games)) from None
    finally:
        backend.close()
    return load(out)


def _stored(cells, records, target, chunk_games):
    """The games of `cells` in the store that count toward `target` (a short last chunk of an
    earlier, smaller target does not: it is played again whole)."""
    total = 0
    for cell in cells:
        done, _ = counted_whole(records[cell.key], target, chunk_games)
        total += sum(records[cell.key][k][1] for k in range(done))
    return total


def _resume_text(cells, records, target, chunk_games):
    """What the store holds of this sweep before it plays (None: nothing yet)."""
    stored = _stored(cells, records, target, chunk_games)
    complete = sum(counted_whole(records[c.key], target, chunk_games)[1] for c in cells)
    if complete == len(cells):
        return f"nothing to play: the store is complete ({stored:,} games in {len(cells):,} cells)"
    if not stored:
        return None
    if "games" in target:
        return f"resuming: {stored:,} of {target['games'] * len(cells):,} games stored"
    return f"resuming: {stored:,} games stored, {complete:,} of {len(cells):,} cells complete"


def replace_rejected(error, records, warn):
    """A chunk file (or a per-game file) that failed verification: delete it, to play it again, if
    it is named as a chunk of this sweep, else stop (it is not ours to delete)."""
    name = CHUNK_NAME.fullmatch(error.path.name)
    if not name or name[1] not in records:
        raise error
    if warn:
        warn(f"{error}; {'playing it again' if error.replayed else 'deleting it'}")
    error.path.unlink(missing_ok=True)


class StoredGames:
    """The games of some cells in an open store, for a search that asks for more of them as it goes
    (tune, design): chunks found there are reused, missing ones played and stored as they finish.
    Of each chunk, keep(record) is held (its per-game wins unless told otherwise); a chunk file
    that fails verification is played again, with warn(text); progress(k) as each block of k
    games finishes. The games the store's manifest says to trace are traced (play_chunk)."""

    def __init__(self, store, cells, seed, threads=None, warn=None, keep=per_game_wins, progress=None):
        self.store, self.seed, self.threads, self.keep, self.progress = store, seed, threads, keep, progress
        self.chunk_games = store.manifest["chunk_size"]
        self.chunks = {cell.key: {} for cell in cells}      # key -> {chunk: (wins, games, kept)}
        for _, row in store.read_chunks(store.manifest, lambda error: replace_rejected(error, self.chunks, warn)
                                        ).iterrows():
            if row["cell"] in self.chunks:
                self.chunks[row["cell"]][int(row["chunk"])] = (int(row["wins"]), int(row["games"]), keep(row))
        self.played = 0

    def first(self, cell, n):
        """What is held of each chunk that games 0..n-1 of `cell` lie in, in order, playing the
        chunks the store lacks (a chunk may hold games past n, of an earlier, larger search)."""
        mine = self.chunks[cell.key]
        stored = {k: (wins, games) for k, (wins, games, _) in mine.items()}
        for k, first, size in chunks_to_play(stored, {"games": n}, self.chunk_games):
            record, _ = play_chunk(cell, k, first, size, self.seed, self.threads, False, self.progress,
                                   self.store.manifest["trace"])
            self.store.write_chunk(record)
            mine[k] = (record["wins"], record["games"], self.keep(record))
            self.played += size
        return [mine[k][2] for k in range(chunk_count(n, self.chunk_games))]

    @property
    def held(self):
        """The games of the chunks held, stored before or played now."""
        return sum(games for chunks in self.chunks.values() for _, games, _ in chunks.values())


def _play(cells, store, seed, target, per_game, backend, progress, chunk_games, records):
    """Play and store the chunks each cell still needs; `records` is {cell key: {chunk: (wins, games)}}.
    An adaptive target plays one chunk of each unfinished cell at a time, so where a cell stops
    depends only on its results."""
    warmed = False
    traced = store.manifest["trace"]
    while True:
        tasks = []
        for cell in cells:
            tasks += [(cell, *chunk) for chunk in chunks_to_play(records[cell.key], target, chunk_games)]
        if not tasks:
            return
        if not warmed:
            warm(cells, any(traced_in(first, size, traced["games"]) for _, _, first, size in tasks))
            warmed = True
        for record, frame in backend.run(tasks, seed, per_game, lambda games: progress(games, 0), traced):
            store.write_chunk(record, frame)
            cell_records = records[record["cell"]]
            before = counted_whole(cell_records, target, chunk_games)[1]
            cell_records[record["chunk"]] = (record["wins"], record["games"])
            progress(0, int(counted_whole(cell_records, target, chunk_games)[1] and not before))


RANKED = ("team", "layout")      # a sweep that varies one of these lists its cells by win rate


def format_table(frame):
    """The summary table of a sweep: one line per cell, each text column as wide as its longest
    value (a team of four names is long). A sweep of teams or islands lists them by win rate,
    highest first, within each setting of the rest."""
    ranked = [a for a in RANKED if frame[a].nunique() > 1]
    if ranked:
        others = [a for a in ("layout", "level", "players", "team", "policy", "rules") if a not in ranked]
        frame = pd.concat([g.sort_values("rate", ascending=False, kind="stable")
                           for _, g in frame.groupby(others, sort=False, observed=True)])
    width = {c: max(len(c), *frame[c].astype(str).str.len()) + 2
             for c in ("layout", "level", "team", "policy", "rules")}

    def line(layout, level, players, team, policy, rules, numbers):
        return (f"{layout:<{width['layout']}}{level:<{width['level']}}{players:>2} {team:<{width['team']}}"
                f"{policy:<{width['policy']}}{rules:<{width['rules']}}{numbers}")

    lines = [line("layout", "level", "pl", "team", "policy", "rules", f"{'games':>10}{'win rate':>10}  95% CI")]
    for _, r in frame.iterrows():
        lines.append(line(r["layout"], r["level"], r["players"], r["team"], r["policy"], r["rules"],
                          f"{r['games']:>10,}{percent(r['rate'], width=9)}  "
                          f"{interval(r['ci_low'], r['ci_high'], dash='-', unit='%')}"))
    lines.append("Win rates are the computer team's (the policy named), not a human team's.")
    lines += seer_notes(frame["policy"])
    waiting = int((~frame["complete"]).sum())
    if waiting:
        lines.append(f"{waiting} of {len(frame)} cells have fewer games than the store's target: a sweep that "
                     "names them plays the rest.")
    return "\n".join(lines)

