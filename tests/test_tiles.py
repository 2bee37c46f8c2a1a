"""Which tiles decide the game (issue 15, point 4): the cells sunk, the first and the last to sink
in each result row; per tile the share of games it ended sunk, of losses it caused and of games it
sank first, in the store, fisim.load_tiles and the report, equal to the per-game rows'."""
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fisim
from fisim import grid
from fisim.engine import EngineGame
from fisim.position import TILE_CODES, parse_position
from fisim.report import data, write_report
from fisim.rules import state as st
from fisim.rules.runner import PHASE_FLOOD
from fisim.rules.turn import result_row
from fisim.sweep import run_sweep
from policies import load_policy

BOARD = """
    . . CS OB . .
    . TP GG {fl} TH .
    IG WG BB {ca} {dd} TM
    CP PR SG HG LL CE
    . TS WT MM CG .
    . . BG CF . .
    diver@IG:
    flood draw: WT FL DD
"""
CUSTOM = "######\n######\n######\n######\n"      # a 4 x 6 block: every cell a tile


def _flood(ca):
    """Result row after a flood phase that sinks flooded Dunes of Deception, then flooded Fools'
    Landing (the game lost), on a board whose Cave of Embers is `ca`; and the position."""
    p = parse_position(BOARD.format(fl="fl", dd="dd", ca=ca))
    game = EngineGame.from_position(p)
    game.run(PHASE_FLOOD, load_policy("passive"))
    out = np.zeros(st.R_SIZE, np.int32)
    result_row(game.g, out)
    return out, {code: p.tile_at.index(TILE_CODES.index(code)) for code in ("FL", "DD", "CA")}


def test_a_known_sinking_gives_the_mask_and_the_first_and_last_cell():
    out, cell = _flood("CA")
    assert out[st.R_STATUS] == st.LOST and out[st.R_CAUSE] == 1          # landing-sunk
    assert out[st.R_SUNK_MASK] == (1 << cell["DD"]) | (1 << cell["FL"])
    assert (out[st.R_FIRST_SUNK], out[st.R_LAST_SUNK]) == (cell["DD"], cell["FL"])
    # a tile sunk before the hand-built position: in the mask, but which sank first is unknown
    out, cell = _flood("~CA")
    assert out[st.R_SUNK_MASK] == (1 << cell["DD"]) | (1 << cell["FL"]) | (1 << cell["CA"])
    assert (out[st.R_FIRST_SUNK], out[st.R_LAST_SUNK]) == (-1, cell["FL"])


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


def _from_games(games):
    """Per island cell, the counts recomputed from per-game rows."""
    masks = games["sunk_cells"].to_numpy(np.int64)
    lost = games[~games["won"]]
    return {"sunk": [int(((masks >> t) & 1).sum()) for t in range(24)],
            "caused": [int((lost["cause_cell"] == t).sum()) for t in range(24)],
            "first": [int((games["first_sunk"] == t).sum()) for t in range(24)],
            "games": len(games), "losses": len(lost)}


def test_the_criticality_numbers_equal_those_of_the_per_game_rows(swept):
    out, _ = swept
    games = pd.read_parquet(out / "games")
    tiles = fisim.load_tiles(out)
    assert len(tiles) == 24 * 8 and set(tiles["layout"]) == {"standard", "block.txt"}
    for key, mine in tiles.groupby("cell"):
        cell = mine.iloc[0]
        rows = games[(games["layout"] == cell["layout"]) & (games["level"] == cell["level"])
                     & (games["players"] == cell["players"])]
        expected = _from_games(rows)
        assert mine["games"].iloc[0] == expected["games"] == 1500 and mine["losses"].iloc[0] == expected["losses"]
        for kind in ("sunk", "caused", "first"):
            assert mine.sort_values("tile")[kind].tolist() == expected[kind], (key, kind)
            n = expected["losses"] if kind == "caused" else expected["games"]
            assert np.allclose(mine[f"{kind}_share"], mine[kind] / n)
            assert (mine[f"{kind}_low"] <= mine[f"{kind}_share"]).all()
            assert (mine[f"{kind}_share"] <= mine[f"{kind}_high"]).all()
        assert sum(expected["caused"]) == int((rows["cause"].isin(["landing-sunk", "treasure-lost", "drowned"])).sum())
    # the report pools an island's cells: its counts are the per-game rows' of that island
    pooled = data.tiles(data.read(out))
    for layout, table in pooled.items():
        expected = _from_games(games[games["layout"] == layout])
        for kind in ("sunk", "caused", "first"):
            assert table[kind].tolist() == expected[kind]
    # the grid places: the custom island's tiles fill its 4 x 6 block row by row
    block = pooled["block.txt"]
    assert list(zip(block["row"], block["col"])) == [(r, c) for r in range(4) for c in range(6)]


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
    # the Markdown's top-five table names whole tile numbers and grid places of the island
    top = md.split("**block.txt: the five tiles whose sinking lost the most games (95% CI)**")[1].split("\n\n")[1]
    rows = [line.strip("|").split("|") for line in top.splitlines()[2:]]
    assert len(rows) == 5 and all(0 <= int(r[0]) < 24 and r[1].strip().count(",") == 1 for r in rows)


def test_a_store_of_the_format_before_tiles_is_refused_in_one_line(swept, tmp_path):
    """Store format 5 added the per-tile counts: a format-4 store has none, and says so."""
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
        fisim.load_tiles(old)
