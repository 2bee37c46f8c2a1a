"""What a new user meets first (issue 31's smaller gaps): `simulate --out` says what it wrote,
the per-game masks decode as the README says, numbers as data carry no float noise, the level's
range is the same in --help and in its error, and the README and .gitignore fit the quick start."""
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
from test_cli import run

from fisim.rules.constants import N_TILES, TILE_NAMES

ROOT = Path(__file__).parent.parent
README = ROOT / "README.md"


def test_simulate_out_says_what_it_wrote_and_the_masks_decode_as_the_readme_says(tmp_path):
    out = tmp_path / "games.parquet"
    r = run("simulate", "--games", "300", "--players", "2", "--policy", "random", "--out", str(out), "--quiet")
    assert r.returncode == 0, r.stderr
    assert r.stderr.strip().splitlines()[-1] == f"fisim: wrote 300 games, one row each, to {out}"
    games = pd.read_parquet(out)
    assert len(games) == 300
    decode = README.read_text().split("<!-- decode masks -->")[1].split("```python")[1].split("```")[0]
    exec(decode.replace("\n  ", "\n"), {"games": games})     # the README's snippet, as a user runs it
    sunk = list(games["sunk_names"])
    assert [len(s) for s in sunk] == list(games["tiles_sunk"])
    assert all(set(s) <= set(TILE_NAMES) for s in sunk)
    lost = games[games["cause_tile"] >= 0]
    assert all(TILE_NAMES[t] in s for t, s in zip(lost["cause_tile"], np.array(sunk, dtype=object)[lost.index]))
    cells_sunk = sum((games["sunk_cells"].to_numpy() >> c) & 1 for c in range(N_TILES))
    assert list(cells_sunk) == list(games["tiles_sunk"])


def test_numbers_written_as_data_carry_no_float_noise():
    for fmt, read in (("csv", lambda text: pd.read_csv(__import__("io").StringIO(text))),
                      ("json", lambda text: pd.DataFrame(json.loads(text)))):
        r = run("simulate", "--games", "700", "--players", "2", "--policy", "random", "--format", fmt, "--quiet")
        assert r.returncode == 0, r.stderr
        assert not re.search(r"\d\.\d{11,}|\de-\d", r.stdout), r.stdout
        table = read(r.stdout)
        assert table.loc[table["measure"] == "win", "games"].iloc[0] == 700
        mean_turns = table.loc[table["measure"] == "mean turns", "value"].iloc[0]
        assert mean_turns == round(mean_turns, 10) and 1 < mean_turns < 40


def test_the_level_range_is_the_same_in_help_and_in_the_error():
    helped = " ".join(run("simulate", "--help").stdout.split())
    error = run("simulate", "--level", "0").stderr
    in_help = re.search(r"position from 1 to (\d+) below the skull", helped)
    in_error = re.search(r"position from 1 to (\d+) below the skull", error)
    assert in_help and in_error and in_help.group(1) == in_error.group(1)
