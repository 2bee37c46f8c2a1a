"""`fisim sweep`, the results store and `fisim compare`."""
import json
import shutil
import signal
import subprocess
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from support.commands import FISIM, in_process, run

import fisim
from fisim import grid
from fisim.cell import Cell
from fisim.comparison import compare, paired_difference
from fisim.limits import CHUNK_GAMES
from fisim.reporting.data import read
from fisim.results.chunks import chunk_slot
from fisim.rules.config import SWITCHES, ConfigError
from fisim.rules.constants import ROLE_NAMES
from fisim.stats import wilson
from fisim.store import Store, manifest_for, read_store
from fisim.sweeping import DaskBackend, LocalBackend, format_table, run_sweep
from fisim.tables import win_bits

pytestmark = pytest.mark.compiles      # needs the compiled engine: games at its speed

GRID = ["--levels", "normal,elite", "--players", "2", "--policies", "random"]
SMALL = [*GRID, "--chunk-games", "3000"]


def fisim_cmd(*args):
    return run(*args, timeout=900)


def chunk_contents(directory):
    """Every chunk file's content, by name (the bytes may differ in nothing but their content)."""
    return {f.name: pq.read_table(f).to_pylist() for f in sorted((Path(directory) / "chunks").glob("*.parquet"))}


def file_bytes(directory, folder="chunks"):
    """Every Parquet file of a store's folder, by name, byte for byte."""
    return {f.name: f.read_bytes() for f in sorted((Path(directory) / folder).glob("*.parquet"))}


def half_width(wins, games):
    low, high = wilson(wins, games)
    return (high - low) / 2


def small_cells(policies="random"):
    return grid.expand(["standard"], ["normal", "elite"], [2, 3], "random", [policies], [()])


@pytest.mark.parametrize("args, words", [
    (["--levels", "novice..nope"], ["nope", "legendary"]),
    (["--levels", "elite..novice"], ["empty"]),
    (["--players", "5"], ["5", "2, 3, 4"]),
    (["--players", "2..4", "--teams", "diver+pilot+engineer+explorer+messenger"], ["5 adventurers"]),
    (["--teams", "diver+pilot", "--players", "3"], ["2 adventurers"]),
    (["--teams", "diver+wizard"], ["wizard"]),
    (["--layouts", "standard,atlantis"], ["atlantis"]),
    (["--policies", "genius"], ["genius"]),
    (["--rules", "official,house"], ["house"]),
    (["--games", "10", "--ci", "0.01"], ["--games or --ci"]),
    (["--ci", "2"], ["--ci"]),
])
def test_bad_grids_are_refused_in_one_line(tmp_path, args, words):
    r = fisim_cmd("sweep", *args, "--out", str(tmp_path / "out"))
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    for w in words:
        assert w in r.stderr
    assert not (tmp_path / "out").exists()


def test_axes_parse_ranges_lists_and_all():
    assert grid.parse_levels("novice..legendary") == ["novice", "normal", "elite", "legendary"]
    assert grid.parse_levels("normal,elite") == ["normal", "elite"]
    assert grid.parse_players("2..4") == [2, 3, 4]
    assert grid.parse_rules("official,heli-all+navigator-plain") == [(), ("heli-all", "navigator-plain")]
    assert grid.parse_rules("all") == [(), *((s,) for s in SWITCHES)]    # make_reports.sh's rule readings
    cells = grid.expand(["standard"], ["normal"], [2, 3, 4], "all", ["random"], [()])
    assert [sum(c.players == p for c in cells) for p in (2, 3, 4)] == [15, 20, 15]
    with pytest.raises(ConfigError):
        grid.parse_layouts("all,nowhere")


@pytest.mark.slow
def test_resume_after_a_kill_gives_the_same_store_as_an_uninterrupted_run(tmp_path):
    args = [*SMALL, "--games", "60000", "--seed", "5", "--quiet"]
    whole, resumed = tmp_path / "whole", tmp_path / "resumed"
    assert fisim_cmd("sweep", *args, "--out", str(whole)).returncode == 0
    proc = subprocess.Popen([str(FISIM), "sweep", *args, "--out", str(resumed), "--threads", "1"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 300
    while time.time() < deadline and len(list((resumed / "chunks").glob("*.parquet"))) < 3:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    partial = len(list((resumed / "chunks").glob("*.parquet")))
    assert 3 <= partial < 40, "the kill should land mid-sweep"
    r = fisim_cmd("sweep", *args, "--out", str(resumed))
    assert r.returncode == 0, r.stderr
    assert chunk_contents(whole) == chunk_contents(resumed)
    assert fisim.load(whole).equals(fisim.load(resumed))


@pytest.mark.slow
def test_one_thread_two_threads_and_a_dask_cluster_give_identical_stores(tmp_path):
    """The same chunks, their win-chance traces included (the first 8 games of each cell)."""
    cells = small_cells()
    target = {"games": 12_000}
    one = run_sweep(cells, tmp_path / "one", 3, target, backend=LocalBackend(1), chunk_games=5000, trace_games=8)
    two = run_sweep(cells, tmp_path / "two", 3, target, backend=LocalBackend(2), chunk_games=5000, trace_games=8)
    dask = run_sweep(cells, tmp_path / "dask", 3, target, backend=DaskBackend(workers=2), chunk_games=5000,
                     trace_games=8)
    assert chunk_contents(tmp_path / "one") == chunk_contents(tmp_path / "two") == chunk_contents(tmp_path / "dask")
    assert one.equals(two) and one.equals(dask)
    assert list(one["games"]) == [12_000] * 4 and list(one["traced"]) == [8] * 4


def test_adaptive_ci_stops_at_the_first_step_that_reaches_the_target(tmp_path):
    cells = small_cells("passive")
    target = {"ci": 0.0004, "max_games": 1_000_000}
    frame = run_sweep(cells, tmp_path / "ci", 1, target)
    _, chunks = read_store(tmp_path / "ci")
    steps = [sum(chunk_slot(k, CHUNK_GAMES)) for k in range(10)]     # 1,000, 2,000, 4,000 ... games
    for _, cell in frame.iterrows():
        won = win_bits(chunks, cell["cell"], target)
        assert len(won) == cell["games"] and cell["games"] in steps[1:] and cell["complete"]
        assert half_width(won.sum(), len(won)) <= 0.0004                 # reached ...
        earlier = steps[steps.index(cell["games"]) - 1]
        assert half_width(won[:earlier].sum(), earlier) > 0.0004        # ... and not one step earlier
    capped = run_sweep(cells, tmp_path / "cap", 1, {"ci": 1e-6, "max_games": 3000}, chunk_games=1000)
    assert list(capped["games"]) == [3000] * 4


@pytest.mark.slow
def test_a_store_of_another_configuration_or_version_is_refused(tmp_path):
    out = tmp_path / "out"
    assert fisim_cmd("sweep", *SMALL, "--games", "3000", "--out", str(out), "--quiet").returncode == 0
    r = fisim_cmd("sweep", *SMALL, "--games", "3000", "--seed", "9", "--out", str(out))
    assert r.returncode == 2 and "seed" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["fisim_version"] = "0.0.1"
    (out / "manifest.json").write_text(json.dumps(manifest))
    r = fisim_cmd("sweep", *SMALL, "--games", "3000", "--out", str(out))
    assert r.returncode == 2 and "fisim_version" in r.stderr


def _policy_file(path, version):
    """A policy file that plays random's game under its own name and `version`."""
    path.write_text(f'NAME = "mine"\nVERSION = {version}\nfrom policies.random import decide  # noqa: E402,F401\n')
    return str(path)


def test_a_changed_policy_is_refused_or_its_cells_alone_are_played_again(tmp_path):
    """A policy file edited since the store was made (here its version): refused in one line that
    names both versions and --replay-changed, nothing touched; with --replay-changed its cells'
    games are deleted and played again, the other policy's files stay byte for byte, and the store
    is the one a fresh sweep of the new configuration makes."""
    mine = _policy_file(tmp_path / "mine.py", 1)
    args = ["sweep", "--levels", "normal", "--players", "2,3", "--policies", f"random,{mine}", "--games", "3000",
            "--chunk-games", "1000", "--per-game", "--quiet", "--no-report"]
    out, fresh = tmp_path / "out", tmp_path / "fresh"
    assert fisim_cmd(*args, "--out", str(out)).returncode == 0
    randoms = {c["key"] for c in json.loads((out / "manifest.json").read_text())["cells"] if c["policy"] == "random"}

    def random_files():
        return {folder: {n: b for n, b in file_bytes(out, folder).items() if n[:12] in randoms}
                for folder in ("chunks", "games")}

    kept = random_files()
    _policy_file(tmp_path / "mine.py", 2)
    before = {f: f.read_bytes() for f in sorted(out.rglob("*")) if f.is_file() and f.name != "lock"}
    r = fisim_cmd(*args, "--out", str(out))
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "mine@1 (now mine@2)" in r.stderr and "--replay-changed" in r.stderr, r.stderr
    assert {f: f.read_bytes() for f in sorted(out.rglob("*")) if f.is_file() and f.name != "lock"} == before
    assert fisim_cmd(*args, "--out", str(out), "--replay-changed").returncode == 0
    assert random_files() == kept
    assert fisim_cmd(*args, "--out", str(fresh)).returncode == 0
    assert json.loads((out / "manifest.json").read_text()) == json.loads((fresh / "manifest.json").read_text())
    assert chunk_contents(out) == chunk_contents(fresh)
    assert pd.read_parquet(out / "games").equals(pd.read_parquet(fresh / "games"))
    assert sorted(fisim.load(out)["policy"].unique()) == ["mine@2", "random@3"]


def test_replaying_a_changed_policy_interrupted_leaves_the_old_store_with_fewer_games(tmp_path, monkeypatch):
    """Store.replay_changed deletes a cell's chunks last first and rewrites the manifest after
    them: stopped part way, the store reads as the old policy's with a prefix of each cell's
    chunks, and the sweep run again finishes it as if never stopped."""
    def cells(version):
        policies = grid.parse_policies(f"random,{_policy_file(tmp_path / 'mine.py', version)}")
        return grid.expand(["standard"], ["normal"], [2], "random", policies, [()])

    run_sweep(cells(1), tmp_path / "out", 5, {"games": 3000}, chunk_games=1000)
    new = cells(2)
    deleted, unlink = [], Path.unlink

    def unlink_twice(path, missing_ok=False):
        if path.exists() and len(deleted) == 2:
            raise KeyboardInterrupt
        if path.exists():
            deleted.append(path.name)
        unlink(path, missing_ok=missing_ok)

    monkeypatch.setattr(Path, "unlink", unlink_twice)
    store = Store(tmp_path / "out")
    with pytest.raises(KeyboardInterrupt):
        store.replay_changed(manifest_for(new, 5, {"games": 3000}, False, 1000))
    monkeypatch.undo()
    key = next(c.key for c in new if c.policy.NAME == "mine")
    assert deleted == [f"{key}-000002.parquet", f"{key}-000001.parquet"]
    frame = fisim.load(tmp_path / "out")
    assert dict(zip(frame["policy"], frame["games"])) == {"random@3": 3000, "mine@1": 1000}
    run_sweep(new, tmp_path / "out", 5, {"games": 3000}, chunk_games=1000, replay_changed=True)
    run_sweep(new, tmp_path / "fresh", 5, {"games": 3000}, chunk_games=1000)
    assert chunk_contents(tmp_path / "out") == chunk_contents(tmp_path / "fresh")


def test_half_written_chunk_files_are_never_read_and_damaged_ones_are_reported(tmp_path):
    out = tmp_path / "out"
    run_sweep(small_cells(), out, 2, {"games": 4000}, chunk_games=2000)
    before = fisim.load(out)
    (out / "chunks" / ".deadbeef0000-000005.parquet.123.tmp").write_bytes(b"PAR1 half")
    assert fisim.load(out).equals(before)
    victim = sorted((out / "chunks").glob("*.parquet"))[0]
    victim.write_bytes(victim.read_bytes()[:40])
    r = fisim_cmd("compare", str(out), "--by", "level")
    assert r.returncode == 2 and victim.name in r.stderr and "Traceback" not in r.stderr


def test_load_gives_rates_intervals_and_shares_from_the_chunks(tmp_path):
    out = tmp_path / "out"
    frame = run_sweep(small_cells(), out, 4, {"games": 5000}, per_game=True, chunk_games=2000)
    games = pd.concat(pd.read_parquet(f) for f in sorted((out / "games").glob("*.parquet")))
    assert len(games) == 4 * 5000
    for _, cell in frame.iterrows():
        mine = games[(games["level"] == cell["level"]) & (games["players"] == cell["players"])]
        assert cell["games"] == len(mine) and cell["wins"] == mine["won"].sum()
        assert cell["share_landing_sunk"] == pytest.approx((mine["cause"] == "landing-sunk").mean())
        assert cell["mean_turns"] == pytest.approx(mine["turns"].mean())
        assert (cell["ci_low"], cell["ci_high"]) == pytest.approx(wilson(cell["wins"], cell["games"]))


def test_a_store_opened_before_its_first_chunk_loads_as_cells_of_no_games(tmp_path):
    """Stopped before a chunk is written (or a design's race store that nothing needed yet): each
    cell reads as no games, its rates undefined, not a missing column."""
    Store(tmp_path / "out").open(manifest_for(small_cells(), 0, {"games": 100}, False))
    cells = fisim.load(tmp_path / "out")
    assert len(cells) == len(small_cells()) and (cells["games"] == 0).all()
    assert cells[["rate", "mean_turns", "close_any_share"]].isna().all().all()


def test_a_store_says_whether_it_was_made_and_the_games_it_was_asked_for(tmp_path):
    """Store.made: the manifest, or None before a sweep made the store (an empty directory too);
    target_games: the games per cell it was last asked for, 0 before."""
    store = Store(tmp_path / "out")
    (tmp_path / "out").mkdir()
    assert store.made() is None and store.target_games() == 0
    cells = grid.expand(["standard"], ["novice"], [2], "random", grid.parse_policies("random"), [()])
    store.open(manifest_for(cells, 0, {"games": 300}, False))
    assert store.made() == store.read_manifest() and store.target_games() == 300


def test_compare_gives_paired_differences_that_match_the_games(tmp_path):
    out = tmp_path / "out"
    cells = grid.expand(["standard"], ["novice"], [2], "random", ["random", "passive"], [(), ("heli-all",)])
    run_sweep(cells, out, 6, {"games": 4000}, per_game=True, chunk_games=2000)
    table = compare(out, "rules")
    assert len(table) == 2 and set(table["rules"]) == {"heli-all"} and set(table["baseline"]) == {"official"}
    games = pd.concat(pd.read_parquet(f) for f in sorted((out / "games").glob("*.parquet")))
    for _, row in table.iterrows():
        pick = games[games["policy"].str.startswith(row["policy"])]
        a = pick[pick["rules"] == "heli-all"].sort_values("game")["won"].to_numpy()
        b = pick[pick["rules"] == "official"].sort_values("game")["won"].to_numpy()
        assert (row["difference"], row["difference_ci_low"], row["difference_ci_high"]) == pytest.approx(
            paired_difference(a, b))
    r = fisim_cmd("compare", str(out), "--by", "rules")
    assert r.returncode == 0 and "heli-all vs official" in r.stdout


def test_paired_difference_interval():
    a = np.array([1, 1, 0, 0, 1] * 200, bool)
    b = np.array([1, 0, 0, 1, 0] * 200, bool)
    diff, low, high = paired_difference(a, b)
    d = a.astype(int) - b.astype(int)
    assert diff == pytest.approx(d.mean())
    assert high - diff == pytest.approx(1.959963984540054 * d.std() / np.sqrt(len(d)))


def test_every_chunk_describes_itself(tmp_path):
    """A chunk read on its own says which settings it played and the order of its role arrays."""
    from fisim.store import META_KEY, STORE_FORMAT, fingerprint
    out = tmp_path / "out"
    run_sweep(small_cells(), out, 7, {"games": 2500}, chunk_games=1000)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["store_format"] == STORE_FORMAT
    settings = {c["key"]: {k: c[k] for k in ("layout", "level", "players", "team", "policy", "rules")}
                for c in manifest["cells"]}
    described = [json.loads(pq.read_schema(f).metadata[META_KEY]) for f in sorted((out / "chunks").glob("*.parquet"))]
    assert len(described) == 4 * 3
    for meta in described:
        assert meta["seed"] == 7 and meta["fingerprint"] == fingerprint(manifest, meta["cell"])
        assert (meta["first_game"], meta["games"]) == (1000 * meta["chunk"], [1000, 1000, 500][meta["chunk"]])
        assert len(meta["checksum"]) == 64
        assert meta["settings"] == settings[meta["cell"]] and meta["roles"] == list(ROLE_NAMES)
    assert {m["cell"] for m in described} == {c["key"] for c in manifest["cells"]}


# --- extending a store (issue 16) and --ci steps that start small ---------------------------------

def test_a_store_extended_with_more_games_and_cells_is_one_run_of_the_total(tmp_path):
    normal = grid.expand(["standard"], ["normal"], [2], "random", ["random"], [()])
    both = grid.expand(["standard"], ["normal", "elite"], [2], "random", ["random"], [()])
    run_sweep(normal, tmp_path / "extended", 8, {"games": 2500}, per_game=True, chunk_games=2000)
    assert [json.loads(pq.read_schema(f).metadata[b"fisim.chunk"])["games"]
            for f in sorted((tmp_path / "extended" / "chunks").glob("*.parquet"))] == [1000, 1000, 500]
    extended = run_sweep(both, tmp_path / "extended", 8, {"games": 5000}, per_game=True, chunk_games=2000)
    whole = run_sweep(both, tmp_path / "whole", 8, {"games": 5000}, per_game=True, chunk_games=2000)
    assert file_bytes(tmp_path / "extended") == file_bytes(tmp_path / "whole")       # the short chunk played whole
    assert file_bytes(tmp_path / "extended", "games") == file_bytes(tmp_path / "whole", "games")
    assert extended.equals(whole) and fisim.load(tmp_path / "extended").equals(whole)
    assert list(whole["games"]) == [5000, 5000]


def test_a_store_extended_to_a_tighter_ci_is_one_run_of_the_tighter_ci(tmp_path):
    cells = small_cells()
    run_sweep(cells, tmp_path / "extended", 2, {"ci": 0.002, "max_games": 100_000})
    loose = fisim.load(tmp_path / "extended")
    extended = run_sweep(cells, tmp_path / "extended", 2, {"ci": 0.0003, "max_games": 100_000})
    whole = run_sweep(cells, tmp_path / "whole", 2, {"ci": 0.0003, "max_games": 100_000})
    assert file_bytes(tmp_path / "extended") == file_bytes(tmp_path / "whole")
    assert extended.equals(whole) and (whole["games"] > loose["games"]).all()


def test_cells_a_later_sweep_does_not_ask_for_stay_as_they_are(tmp_path):
    out = tmp_path / "out"
    first = run_sweep(small_cells(), out, 3, {"games": 2000}, chunk_games=1000)
    elite = [c for c in small_cells() if c.level == "elite"]
    frame = run_sweep(elite, out, 3, {"games": 3000}, chunk_games=1000)
    assert len(frame) == 4 and list(frame["cell"]) == list(first["cell"])
    is_elite = frame["level"] == "elite"
    assert list(frame.loc[is_elite, "games"]) == [3000, 3000] and frame.loc[is_elite, "complete"].all()
    kept = frame[~is_elite].drop(columns="complete").reset_index(drop=True)
    assert kept.equals(first[first["level"] != "elite"].drop(columns="complete").reset_index(drop=True))
    assert not frame.loc[~is_elite, "complete"].any()           # fewer games than the store's target now
    assert "2 of 4 cells have fewer games than the store's target" in format_table(frame)


@pytest.mark.parametrize("args, words", [
    (["--games", "2000", "--chunk-games", "3000"], ["target of --games 3000", "--games 2000"]),
    (["--ci", "0.01", "--chunk-games", "3000"], ["target of --games 3000", "--ci 0.01"]),
    (["--games", "6000", "--chunk-games", "2000"], ["differs in: chunk_size"]),
    (["--games", "6000", "--chunk-games", "3000", "--per-game"], ["differs in: per_game"]),
])
def test_a_store_is_extended_only_with_more_games_of_the_same_configuration(tmp_path, args, words):
    out = tmp_path / "out"
    assert fisim_cmd("sweep", *SMALL, "--games", "3000", "--out", str(out), "--quiet", "--no-report").returncode == 0
    before = {f: f.read_bytes() for f in sorted(out.rglob("*")) if f.is_file() and f.name != "lock"}
    r = fisim_cmd("sweep", *GRID, *args, "--out", str(out), "--quiet", "--no-report")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    for w in words:
        assert w in r.stderr
    assert {f: f.read_bytes() for f in sorted(out.rglob("*")) if f.is_file() and f.name != "lock"} == before


def test_a_loose_ci_stops_after_the_first_step_the_same_on_any_thread_count(tmp_path):
    runs = []
    for threads in (1, 2):
        out = tmp_path / f"threads{threads}"
        r = fisim_cmd("sweep", "--levels", "normal,elite", "--players", "2,3", "--policies", "random", "--ci", "0.05",
                      "--seed", "4", "--threads", str(threads), "--out", str(out), "--quiet", "--no-report")
        assert r.returncode == 0, r.stderr
        runs.append(out)
    frame = fisim.load(runs[0])
    assert list(frame["games"]) == [1000] * 4                  # not the 50,000 of a whole chunk
    assert all(half_width(w, n) <= 0.05 for w, n in zip(frame["wins"], frame["games"]))
    assert file_bytes(runs[0]) == file_bytes(runs[1]) and frame.equals(fisim.load(runs[1]))


def test_an_extension_interrupted_before_it_replayed_a_short_chunk_loses_nothing(tmp_path):
    """Chunks arrive in any order (Dask): a later chunk may be stored before the short one is
    played again whole. Readers then count the games up to the short chunk, and resuming ends
    in the store of one run."""
    cells = grid.expand(["standard"], ["normal"], [2], "random", ["random"], [()])
    short = run_sweep(cells, tmp_path / "short", 9, {"games": 2500}, chunk_games=2000)
    whole = run_sweep(cells, tmp_path / "whole", 9, {"games": 6000}, chunk_games=2000)
    out = tmp_path / "interrupted"
    shutil.copytree(tmp_path / "short", out)
    shutil.copy(tmp_path / "whole" / "manifest.json", out / "manifest.json")
    later = sorted((tmp_path / "whole" / "chunks").glob("*-000003.parquet"))[0]
    shutil.copy(later, out / "chunks" / later.name)
    frame = fisim.load(out)
    assert list(frame["games"]) == [2500] and not frame["complete"].any()
    assert frame.drop(columns="complete").equals(short.drop(columns="complete"))
    assert read(out).cells["games"].tolist() == [2500]                 # the report reads the same
    assert run_sweep(cells, out, 9, {"games": 6000}, chunk_games=2000).equals(whole)
    assert file_bytes(out) == file_bytes(tmp_path / "whole")


def test_progress_counts_every_game_as_blocks_finish_within_a_chunk(tmp_path):
    """A slow policy's cell (search plays a few games a second) shows progress before its first
    chunk ends: the local backend reports each block of games as it finishes, then each cell."""
    calls = []
    run_sweep(small_cells(), tmp_path / "s", seed=3, target={"games": 1500}, chunk_games=1000,
              backend=LocalBackend(threads=1), progress=lambda games, cells: calls.append((games, cells)))
    games = [g for g, _ in calls if g]
    assert sum(games) == 4 * 1500 and max(games) < 1000          # 4 cells: chunks of 1000 and 500
    assert sum(c for _, c in calls) == 4
    assert len(games) > 4 * 2                                      # more than once per chunk


def test_a_variant_cell_carries_its_name_and_every_rule_number(tmp_path):
    """A sweep item naming a variant file (with a switch) is a cell of its own, labelled
    'heli-all+tide'; the manifest's cells name their variant (None: the official numbers) and every
    rule number, and so do the per-game rows; the report says what the variant changes."""
    path = tmp_path / "tide.toml"
    path.write_text("waters_rise = 4\nhand_limit = 6\n")
    rules = grid.parse_rules(f"official,{path}+heli-all")
    cells = grid.expand(["standard"], ["normal"], [2], "random", ["random"], rules)
    frame = run_sweep(cells, tmp_path / "out", 3, {"games": 1000}, per_game=True, chunk_games=1000)
    assert sorted(frame["rules"]) == ["heli-all+tide", "official"]
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    by_rules = {c["rules"]: c for c in manifest["cells"]}
    official = dict(cells[0].config.parameters, meter=list(cells[0].config.parameters["meter"]))
    assert by_rules["official"]["variant"] is None and by_rules["official"]["parameters"] == official
    assert by_rules["heli-all+tide"]["variant"] == "tide"
    assert by_rules["heli-all+tide"]["parameters"] == {**official, "waters_rise": 4, "hand_limit": 6}
    games = pd.read_parquet(tmp_path / "out" / "games")
    tide = games[games["rules"] == "heli-all+tide"]
    assert len(tide) == 1000 and set(tide["variant"]) == {"tide"} and set(tide["waters_rise"]) == {4}
    assert set(tide["meter"]) == {"2 2 3 3 3 4 4 5 5 skull"} and set(games["hand_limit"]) == {5, 6}
    from fisim.reporting import write_report
    write_report(tmp_path / "out", None, ("md",))
    assert "tide: variant: waters_rise 4, hand_limit 6" in (tmp_path / "out" / "report" / "report.md").read_text()


def test_set_axes_give_one_cell_per_value_each_changing_one_rule_number():
    """--set waters_rise=2..4 --set hand_limit=4,6: one more rules item per value that changes that
    one number from each --rules item (solo's hand limit is 7, so 5 is a change there); the item's
    own value is the item itself."""
    axes = grid.parse_sets(["waters_rise=2..4", "hand_limit=4,6,5"])
    assert axes == [("waters_rise", [2, 3, 4]), ("hand_limit", [4, 6, 5])]
    items = grid.with_axes(grid.parse_rules("official,solo"), axes)
    labels = [Cell("standard", "normal", 1, None, "random", grid._switches_of(r), grid._variant_of(r)).rules_label
              for r in items]
    assert labels == ["official", "solo", "waters_rise=2", "waters_rise=4", "hand_limit=4", "hand_limit=6",
                      "solo+waters_rise=2", "solo+waters_rise=4", "solo+hand_limit=4", "solo+hand_limit=6",
                      "solo+hand_limit=5"]
    assert dict(grid._variant_of(items[5]).values) == {"hand_limit": 6}


@pytest.mark.parametrize("texts, words", [
    (["meter=2"], "a meter needs a variant file"), (["hand_limit=1..3"], "from 2 to 10"),
    (["waters_rise=5..2"], "empty"), (["actions=two"], "whole numbers"), (["draws=2", "draws=3"], "twice"),
    (["colour=3"], "choose a rule number"),
])
def test_a_bad_set_axis_is_one_line(texts, words):
    with pytest.raises(ConfigError, match=words) as info:
        grid.parse_sets(texts)
    assert "\n" not in str(info.value) and texts[-1].split("=")[0] in str(info.value)


def test_a_sweep_with_set_axes_reports_each_value_against_the_official_one(tmp_path):
    """The parameter effects: each --set value's win rate and its paired difference from the
    official value, equal to those computed from the stored per-game wins; the games of a --set
    cell share the official cell's island, team and first player game by game."""
    from fisim.reporting import write_report
    from fisim.reporting.data import parameter_effects
    rules = grid.with_axes(grid.parse_rules("official"), grid.parse_sets(["waters_rise=1,5", "actions=5"]))
    cells = grid.expand(["standard"], ["novice"], [2], "random", ["greedy"], rules)
    run_sweep(cells, tmp_path / "out", 4, {"games": 2000}, per_game=True, chunk_games=1000)
    manifest, chunks = read_store(tmp_path / "out")
    keys = {c["rules"]: c["key"] for c in manifest["cells"]}
    effects = parameter_effects(read(tmp_path / "out"))
    assert sorted(zip(effects["parameter"], effects["value"])) == [
        ("actions", 3), ("actions", 5), ("waters_rise", 1), ("waters_rise", 3), ("waters_rise", 5)]
    official = win_bits(chunks, keys["official"], manifest["target"])
    for _, r in effects.iterrows():
        bits = official if r["official"] else win_bits(chunks, keys[f"{r['parameter']}={r['value']}"],
                                                         manifest["target"])
        assert r["games"] == 2000 and r["wins"] == bits.sum()
        assert r["difference"] == pytest.approx(bits.mean() - official.mean())
        assert r["ci_low"] <= r["rate"] <= r["ci_high"] and r["d_low"] <= r["difference"] <= r["d_high"]
    fewer = effects[(effects["parameter"] == "waters_rise") & (effects["value"] == 1)].iloc[0]
    assert fewer["difference"] > 0 and fewer["significant"]      # one Waters Rise! instead of three
    games = pd.read_parquet(tmp_path / "out" / "games").sort_values("game")
    for label in ("waters_rise=5", "actions=5"):
        a, b = games[games["rules"] == "official"], games[games["rules"] == label]
        assert list(a["team"].astype(str)) == list(b["team"].astype(str))
        assert list(a["first_player"]) == list(b["first_player"])
    write_report(tmp_path / "out", None, ("md",))
    text = (tmp_path / "out" / "report" / "report.md").read_text()
    assert "## Parameter effects" in text and "| waters_rise | 3 (official) | novice |" in text


def test_the_summary_table_keeps_its_columns_apart_for_a_team_of_four():
    frame = pd.DataFrame([{"layout": "standard", "level": "normal", "players": p, "team": team, "policy": "search:8",
                           "rules": "official", "games": 240, "rate": 0.3, "ci_low": 0.2, "ci_high": 0.4,
                           "complete": True}
                          for p, team in ((2, "diver+pilot"), (4, "diver+engineer+explorer+messenger"))])
    lines = format_table(frame).splitlines()
    assert {line.index("search:8") for line in lines[1:3]} == {lines[0].index("policy")}
    assert "diver+engineer+explorer+messenger  search:8" in lines[2]




def test_the_summary_table_lists_teams_and_islands_by_win_rate():
    """A sweep of teams (or islands) lists them highest win rate first within each setting of the
    rest, whatever order the grid played them in (issue 47 item 7)."""
    frame = pd.DataFrame([{"layout": "standard", "level": level, "players": 2, "team": team, "policy": "expert@1",
                           "rules": "official", "games": 1000, "rate": rate, "ci_low": rate - 0.03,
                           "ci_high": rate + 0.03, "complete": True}
                          for level in ("novice", "elite")
                          for team, rate in (("diver+pilot", 0.2), ("engineer+explorer", 0.5), ("messenger+navigator",
                                                                                                0.3))])
    lines = format_table(frame).splitlines()[1:7]
    assert [line.split()[1] for line in lines] == ["novice"] * 3 + ["elite"] * 3
    assert [line.split()[3] for line in lines] == ["engineer+explorer", "messenger+navigator", "diver+pilot"] * 2


def test_a_rerun_says_what_the_store_holds_and_an_interrupt_what_is_kept(tmp_path, capsys, monkeypatch):
    from fisim import sweeping as sweep
    args = ["sweep", *GRID, "--out", tmp_path / "out", "--no-report"]
    code, _, err = in_process(capsys, *args, "--games", "2000")
    assert code == 0 and "resuming" not in err and "nothing to play" not in err
    code, _, err = in_process(capsys, *args, "--games", "2000")
    assert code == 0 and "fisim: nothing to play: the store is complete (4,000 games in 2 cells)" in err
    code, _, err = in_process(capsys, *args, "--ci", "0.2")
    assert code == 2 and "for a target of --games 2000" in err       # another kind of target: refused
    played = sweep.play_chunk

    def interrupted_at_the_second_chunk(*a, **kw):
        if played.calls:
            raise KeyboardInterrupt
        played.calls += 1
        return played(*a, **kw)
    played.calls = 0
    monkeypatch.setattr(sweep, "play_chunk", interrupted_at_the_second_chunk)
    code, _, err = in_process(capsys, *args, "--games", "8000")
    assert code == 130 and err.splitlines()[-1] == (
        f"fisim: interrupted; 6,000 games (the finished chunks) are kept in {tmp_path / 'out'}: run the same "
        "command to resume")
    assert "fisim: resuming: 4,000 of 16,000 games stored" in err
    monkeypatch.undo()
    code, _, err = in_process(capsys, *args, "--games", "8000")
    assert code == 0 and "fisim: resuming: 6,000 of 16,000 games stored" in err
    assert list(fisim.load(tmp_path / "out")["games"]) == [8000, 8000]
