"""Which tiles decide the game (issue 15, point 4): the cells and the named tiles sunk, the first
and the last to sink in each result row; per island cell and per named tile the share of games it
ended sunk, of losses it caused and of games it sank first, in the store, fisim.load_tiles and the
report, equal to the per-game rows'."""
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from support.board import island, play, position
from support.reports import md_tables, rate_ci

import fisim
from fisim import grid
from fisim.crosscheck import result_of_row
from fisim.engine.entries import PHASE_FLOOD
from fisim.position import TILE_CODES
from fisim.reporting import data, write_report
from fisim.results.games import cause_tiles
from fisim.rules import state as st
from fisim.rules.constants import TILE_NAMES
from fisim.rules.turn import result_row
from fisim.sweeping import run_sweep

CUSTOM = "######\n######\n######\n######\n"      # a 4 x 6 block: every cell a tile
TILE = {code: t for t, code in enumerate(TILE_CODES)}
SINKING = ("won", "cause", "sunk", "sunk_mask", "first_sunk", "last_sunk", "sunk_tiles", "first_sunk_tile",
           "last_sunk_tile")       # the result's items a hand-built position fixes (not its first seat)


def _flood(changes, rest):
    """The flood phase (R-FLOOD-1) played from ISLAND of tests/test_rules with `changes` and the
    lines `rest` on the engine and the reference (which must agree on every event): the engine's
    result row, checked against the reference's result (SINKING), and the position."""
    p = position(island(changes) + rest)
    run = play(p, PHASE_FLOOD)
    out = np.zeros(st.R_SIZE, np.int32)
    result_row(run.engine.g, out)
    engine, reference = result_of_row(out), run.reference.result
    assert {k: engine[k] for k in SINKING} == {k: reference[k] for k in SINKING}
    return out, p


def _mask(p, codes, by):
    return sum(1 << (p.cell_of(code) if by == "place" else TILE[code]) for code in codes)


def test_fools_landing_sunk_gives_the_masks_and_the_first_and_last_cell_and_tile():
    """R-LOSE landing-sunk: Dunes of Deception sinks, then Fools' Landing, which ends the game."""
    out, p = _flood("fl dd", "diver@IG:\nflood draw: WT FL DD\n")
    assert out[st.R_STATUS] == st.LOST and out[st.R_CAUSE] == 1          # landing-sunk
    assert out[st.R_SUNK_MASK] == _mask(p, ["DD", "FL"], "place")
    assert (out[st.R_FIRST_SUNK], out[st.R_LAST_SUNK]) == (p.cell_of("DD"), p.cell_of("FL"))
    assert out[st.R_SUNK_TILES] == _mask(p, ["DD", "FL"], "name") == (1 << 17) | (1 << 8)
    assert (out[st.R_FIRST_SUNK_TILE], out[st.R_LAST_SUNK_TILE]) == (TILE["DD"], TILE["FL"])
    assert TILE_NAMES[out[st.R_LAST_SUNK_TILE]] == "Fools' Landing"
    assert cause_tiles(out[None], "name").tolist() == [TILE["FL"]]
    # a tile sunk before the hand-built position: in both masks, but which sank first is unknown
    out, p = _flood("fl dd ~CA", "diver@IG:\nflood draw: WT FL DD\n")
    assert out[st.R_SUNK_MASK] == _mask(p, ["DD", "FL", "CA"], "place")
    assert out[st.R_SUNK_TILES] == _mask(p, ["DD", "FL", "CA"], "name")
    assert (out[st.R_FIRST_SUNK], out[st.R_LAST_SUNK]) == (-1, p.cell_of("FL"))
    assert (out[st.R_FIRST_SUNK_TILE], out[st.R_LAST_SUNK_TILE]) == (-1, TILE["FL"])


def test_the_second_temple_of_a_lost_treasure_is_the_tile_that_caused_the_loss():
    """R-LOSE treasure-lost: the Temple of the Moon has sunk; Dunes of Deception sinks, then the
    Temple of the Sun, the Earth Stone's second temple."""
    out, p = _flood("~TM ts dd", "diver@IG:\nflood draw: WT TS DD\n")
    assert out[st.R_STATUS] == st.LOST and out[st.R_CAUSE] == 2          # treasure-lost
    assert out[st.R_SUNK_TILES] == _mask(p, ["TM", "TS", "DD"], "name")
    assert (out[st.R_FIRST_SUNK_TILE], out[st.R_LAST_SUNK_TILE]) == (-1, TILE["TS"])
    assert cause_tiles(out[None], "name").tolist() == [TILE["TS"]]
    assert cause_tiles(out[None], "place").tolist() == [p.cell_of("TS")]


def test_a_drowned_pawns_tile_is_the_tile_that_caused_the_loss():
    """R-LOSE drowned: the Messenger stands on flooded Lost Lagoon, all four of its neighbours
    gone once Dunes of Deception sinks; then Lost Lagoon sinks under it (R-SWIM-3)."""
    out, p = _flood("ll dd ~HG ~CE ~CG", "messenger@LL:\nflood draw: WT LL DD\n")
    assert out[st.R_STATUS] == st.LOST and out[st.R_CAUSE] == 4          # drowned
    assert out[st.R_SUNK_TILES] == _mask(p, ["HG", "CE", "CG", "DD", "LL"], "name")
    assert (out[st.R_FIRST_SUNK_TILE], out[st.R_LAST_SUNK_TILE]) == (-1, TILE["LL"])
    assert cause_tiles(out[None], "name").tolist() == [TILE["LL"]]
    # a game won, lost to the skull or stopped by an illegal choice has no tile that caused it
    for status, cause in ((st.WON, 0), (st.LOST, 8), (st.ERROR, 0)):
        row = out.copy()
        row[st.R_STATUS], row[st.R_CAUSE] = status, cause
        assert cause_tiles(row[None], "name").tolist() == cause_tiles(row[None], "place").tolist() == [-1]


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    """A small sweep with per-game rows: the standard island and a custom layout file, two chunks
    per cell (the second short), and its report."""
    root = tmp_path_factory.mktemp("tiles")
    layout = root / "block.txt"
    layout.write_text(CUSTOM)
    cells = grid.expand(["standard", str(layout)], ["novice", "elite"], [2, 3], "random", ["random"], [()])
    out = root / "sweep"
    run_sweep(cells, out, seed=5, target={"games": 1500}, per_game=True, chunk_games=1000)
    return out, write_report(out, out / "report", ("html", "md", "png"))


PER_GAME = {"place": ("sunk_cells", "cause_cell", "first_sunk"),
            "name": ("sunk_tiles", "cause_tile", "first_sunk_tile")}


def _from_games(games, by):
    """Per island cell (`by` "place") or named tile ("name"), the counts recomputed from per-game
    rows."""
    sunk, caused, first = PER_GAME[by]
    masks = games[sunk].to_numpy(np.int64)
    lost = games[~games["won"]]
    return {"sunk": [int(((masks >> t) & 1).sum()) for t in range(24)],
            "caused": [int((lost[caused] == t).sum()) for t in range(24)],
            "first": [int((games[first] == t).sum()) for t in range(24)],
            "games": len(games), "losses": len(lost)}


@pytest.mark.compiles
@pytest.mark.parametrize("by", ["place", "name"])
def test_the_criticality_numbers_equal_those_of_the_per_game_rows(swept, by):
    out, _ = swept
    games = pd.read_parquet(out / "games")
    tiles = fisim.load_tiles(out, by=by)
    assert len(tiles) == 24 * 8 and set(tiles["layout"]) == {"standard", "block.txt"}
    for key, mine in tiles.groupby("cell"):
        cell = mine.iloc[0]
        rows = games[(games["layout"] == cell["layout"]) & (games["level"] == cell["level"])
                     & (games["players"] == cell["players"])]
        expected = _from_games(rows, by)
        assert mine["games"].iloc[0] == expected["games"] == 1500 and mine["losses"].iloc[0] == expected["losses"]
        assert mine["tile"].tolist() == list(range(24))
        for kind in ("sunk", "caused", "first"):
            assert mine[kind].tolist() == expected[kind], (key, kind)
            n = expected["losses"] if kind == "caused" else expected["games"]
            assert np.allclose(mine[f"{kind}_share"], mine[kind] / n)
            assert (mine[f"{kind}_low"] <= mine[f"{kind}_share"]).all()
            assert (mine[f"{kind}_share"] <= mine[f"{kind}_high"]).all()
        assert sum(expected["caused"]) == int((rows["cause"].isin(["landing-sunk", "treasure-lost", "drowned"])).sum())
        assert sum(expected["sunk"]) == int(rows["tiles_sunk"].sum())
    # the report pools an island's cells: its counts are the per-game rows' of that island
    pooled = data.tiles(data.read(out), by=by)
    for layout, table in pooled.items():
        expected = _from_games(games[games["layout"] == layout], by)
        for kind in ("sunk", "caused", "first"):
            assert table[kind].tolist() == expected[kind]
    block = pooled["block.txt"]
    if by == "place":       # the grid places: the custom island's tiles fill its 4 x 6 block row by row
        assert list(zip(block["row"], block["col"])) == [(r, c) for r in range(4) for c in range(6)]
    else:                   # the named tiles, in tile id order, on any island
        assert list(zip(block["code"], block["name"])) == list(zip(TILE_CODES, TILE_NAMES))
        assert (tiles["code"] == tiles["tile"].map(dict(enumerate(TILE_CODES)))).all()


@pytest.mark.compiles
def test_the_named_and_the_placed_counts_of_a_game_are_the_same_tiles(swept):
    """Per game, the named tiles sunk, the first and the one that lost it are the tiles on the
    cells sunk, the first and the one that lost it (each game's placement maps one to the other):
    same counts, and Fools' Landing causes exactly the landing-sunk losses."""
    out, _ = swept
    games = pd.read_parquet(out / "games")
    cells = np.array([bin(m).count("1") for m in games["sunk_cells"]])
    assert (cells == [bin(m).count("1") for m in games["sunk_tiles"]]).all() and (cells == games["tiles_sunk"]).all()
    assert ((games["first_sunk"] < 0) == (games["first_sunk_tile"] < 0)).all()
    assert ((games["cause_cell"] < 0) == (games["cause_tile"] < 0)).all()
    assert ((games["cause_tile"] == TILE["FL"]) == (games["cause"] == "landing-sunk")).all()
    treasure = games[games["cause"] == "treasure-lost"]
    assert len(treasure) and (treasure["cause_tile"] < 8).all()          # a temple, garden, cave or palace
    twins = treasure["sunk_tiles"].to_numpy(np.int64) >> (treasure["cause_tile"].to_numpy(np.int64) ^ 1)
    assert (twins & 1).all()                                               # its twin had sunk before it


def test_the_report_draws_each_island_with_its_tiles(swept):
    out, written = swept
    report = out / "report"
    md = (report / "report.md").read_text()
    html = (report / "report.html").read_text()
    for layout, sid in (("standard", "tiles-standard"), ("block.txt", "tiles-block-txt")):
        assert (report / "figures" / f"{sid}.png").stat().st_size > 5000
        assert f"## Which tiles decide the game: {layout}" in md and f"](figures/{sid}.png)" in md
        assert f'id="figure-{sid}"' in html
    assert Path(report / "report.html") in written
    tables = md_tables(md)
    # the Markdown's top-five table names whole place numbers and grid places of the island
    rows = tables["block.txt: the five places whose tile's sinking lost the most games (95% CI)"]
    assert len(rows) == 5 and all(0 <= int(r["Place"]) < 24 and r["Row, column"].count(",") == 1 for r in rows)
    # the named tiles of each island, most losses caused first, each share with its 95% interval
    games = pd.read_parquet(out / "games")
    for layout in ("standard", "block.txt"):
        expected = _from_games(games[games["layout"] == layout], "name")
        order = sorted(range(24), key=lambda t: (-expected["caused"][t], t))[:10]
        rows = tables[f"{layout}: the 10 named tiles whose sinking lost the most games (95% CI)"]
        assert [r["Named tile"] for r in rows] == [f"{TILE_NAMES[t]} ({TILE_CODES[t]})" for t in order]
        for r, t in zip(rows, order):
            assert r["Caused the loss (of losses)"] == rate_ci(expected["caused"][t], expected["losses"])
            assert r["Ended sunk (of games)"] == rate_ci(expected["sunk"][t], expected["games"])
            assert r["Sank first (of games)"] == rate_ci(expected["first"][t], expected["games"])
        assert f"<caption>{layout}: every named tile, most losses caused first (95% CI)</caption>" in html
    # the named tiles drawn once, for the standard island
    assert "## Which named tiles decide the game: standard" in md and "](figures/named-tiles.png)" in md
    assert md.count("## Which named tiles decide") == 1
    assert (report / "figures" / "named-tiles.png").stat().st_size > 5000


def test_a_store_of_the_format_before_tiles_is_refused_in_one_line(swept, tmp_path):
    """Store format 7 added the per-named-tile counts: a format-6 store has none, and says so."""
    import json
    import shutil

    from fisim.store import STORE_FORMAT, StoreError
    old = tmp_path / "old"
    shutil.copytree(swept[0], old)
    manifest = json.loads((old / "manifest.json").read_text())
    manifest["store_format"] = STORE_FORMAT - 1
    (old / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(StoreError, match=f"older fisim \\(store format {STORE_FORMAT - 1}; this fisim uses format "
                                         f"{STORE_FORMAT}\\)"):
        fisim.load_tiles(old, by="name")


def test_a_chunk_whose_named_and_placed_counts_disagree_is_refused_and_by_is_checked(swept):
    """The same games sink as many tiles, have as many first and as many losing tiles counted by
    place as by name; fisim.load_tiles knows only those two keys."""
    import pyarrow.parquet as pq

    from fisim.store import Store, _inconsistency
    out, _ = swept
    record = pq.read_table(sorted((out / "chunks").glob("*.parquet"))[0]).to_pylist()[0]
    trace = Store(out).read_manifest()["trace"]
    assert _inconsistency(record, trace) is None
    for column in ("named_sunk", "named_caused", "named_first"):
        changed = {**record, column: [n + (t == 3) for t, n in enumerate(record[column])]}
        assert _inconsistency(changed, trace) == "is inconsistent (its per-tile counts do not fit its games)"
    with pytest.raises(ValueError, match="by must be one of 'place', 'name', not 'cell'"):
        fisim.load_tiles(out, by="cell")
