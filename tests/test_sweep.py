"""`fisim sweep`, the results store and `fisim compare`."""
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

import fisim
from fisim import grid
from fisim.compare import compare, paired_difference
from fisim.rules.config import ConfigError
from fisim.stats import wilson
from fisim.sweep import DaskBackend, LocalBackend, run_sweep

FISIM = Path(sys.executable).parent / "fisim"
SMALL = ["--levels", "normal,elite", "--players", "2", "--policies", "random", "--chunk-games", "3000"]


def fisim_cmd(*args, **kw):
    return subprocess.run([str(FISIM), *args], capture_output=True, text=True, timeout=900, **kw)


def chunk_contents(directory):
    """Every chunk file's content, by name (the bytes may differ in nothing but their content)."""
    return {f.name: pq.read_table(f).to_pylist() for f in sorted((Path(directory) / "chunks").glob("*.parquet"))}


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
    cells = grid.expand(["standard"], ["normal"], [2, 3, 4], "all", ["random"], [()])
    assert [sum(c.players == p for c in cells) for p in (2, 3, 4)] == [15, 20, 15]
    with pytest.raises(ConfigError):
        grid.parse_layouts("all,nowhere")


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


def test_one_thread_two_threads_and_a_dask_cluster_give_identical_stores(tmp_path):
    cells = small_cells()
    target = {"games": 12_000}
    one = run_sweep(cells, tmp_path / "one", 3, target, backend=LocalBackend(1), chunk_games=5000)
    two = run_sweep(cells, tmp_path / "two", 3, target, backend=LocalBackend(2), chunk_games=5000)
    dask = run_sweep(cells, tmp_path / "dask", 3, target, backend=DaskBackend(workers=2), chunk_games=5000)
    assert chunk_contents(tmp_path / "one") == chunk_contents(tmp_path / "two") == chunk_contents(tmp_path / "dask")
    assert one.equals(two) and one.equals(dask)
    assert list(one["games"]) == [12_000] * 4


def test_adaptive_ci_stops_at_the_first_chunk_that_reaches_the_target(tmp_path):
    cells = small_cells("passive")
    target = {"ci": 0.0004, "max_games": 1_000_000}
    frame = run_sweep(cells, tmp_path / "ci", 1, target, chunk_games=1000)
    for games, wins in zip(frame["games"], frame["wins"]):
        low, high = wilson(wins, games)
        assert (high - low) / 2 <= 0.0004                       # reached ...
        low, high = wilson(wins, games - 1000)
        assert (high - low) / 2 > 0.0004                        # ... and not one chunk earlier
    capped = run_sweep(cells, tmp_path / "cap", 1, {"ci": 1e-6, "max_games": 3000}, chunk_games=1000)
    assert list(capped["games"]) == [3000] * 4


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
        assert (row["difference"], row["ci_low"], row["ci_high"]) == pytest.approx(paired_difference(a, b))
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
    from fisim.store import META_KEY, fingerprint
    out = tmp_path / "out"
    run_sweep(small_cells(), out, 7, {"games": 2500}, chunk_games=1000)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["store_format"] == 2
    described = [json.loads(pq.read_schema(f).metadata[META_KEY]) for f in sorted((out / "chunks").glob("*.parquet"))]
    assert len(described) == 4 * 3
    for meta in described:
        assert meta["seed"] == 7 and meta["fingerprint"] == fingerprint(manifest)
        assert (meta["first_game"], meta["games"]) == (1000 * meta["chunk"], [1000, 1000, 500][meta["chunk"]])
        assert len(meta["checksum"]) == 64
    assert {m["cell"] for m in described} == {c["key"] for c in manifest["cells"]}
