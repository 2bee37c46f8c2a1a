"""scripts/strength.py (issue 45): the strength table grown cell by cell in resumable stores, its
numbers the games' own. Small stand-ins play the three arms (greedy as the player, random as
the search over it, passive as the reference) on a few deals."""
import json

import numpy as np
import pytest
from support.scripts import script

from fisim.comparison import paired_difference
from fisim.formatting import bracket
from fisim.simulation import simulate
from fisim.stats import wilson

ARMS = ("--player", "greedy", "--over", "random", "--reference", "passive")


def _script():
    return script("strength")


@pytest.fixture
def doc(tmp_path):
    path = tmp_path / "strength.md"
    strength = _script()
    path.write_text(f"# Strength\n\nbefore\n\n{strength.BEGIN}\nold table\n{strength.END}\n\nafter\n")
    return path


def _run(doc, out, *options):
    strength = _script()
    strength.main(["--out", str(out), "--doc", str(doc), "--levels", "novice", "--seed", "3", *ARMS, *options])
    return doc.read_text()


def _rows(text, table=0):
    """The rows of the strength table (table 0) or of how each loses (1): {(level, players): cells}."""
    part = text.split("How each loses")[table]
    rows = [line.strip("|").split(" | ") for line in part.splitlines() if line.startswith("| novice")]
    return {(r[0].strip(), int(r[1])): [c.strip() for c in r] for r in rows}


def test_the_table_is_the_games_own_numbers(doc, tmp_path):
    """Each cell's rates, paired differences and first-turn losses are those of the same deals
    played by simulate; the text outside the markers stays."""
    text = _run(doc, tmp_path / "stores", "--players", "2,4", "--start", "30", "--step", "10", "--halfwidth", "50")
    assert text.startswith("# Strength\n\nbefore\n\n") and text.endswith("\n\nafter\n") and "old table" not in text
    assert "`python scripts/strength.py --out " in text and "--seed 3" in text
    rows = _rows(text)
    assert set(rows) == {("novice", 2), ("novice", 4)}
    for players in (2, 4):
        games = {name: simulate(level="novice", players=players, policy=name, games=30, seed=3)
                 for name in ("greedy", "random", "passive")}
        row = rows[("novice", players)]
        assert row[2] == "30"
        wins = int(games["greedy"]["won"].sum())
        low, high = wilson(wins, 30)
        assert row[3] == f"{100 * wins / 30:.1f}% [{100 * low:.1f}, {100 * high:.1f}]"
        d, low, high = paired_difference(games["greedy"]["won"].to_numpy(), games["random"]["won"].to_numpy())
        assert row[6] == f"{100 * d:+.1f} {bracket(low, high, signed=True)}"  # digits kept off zero
        first_turn = [int(((~g["won"]) & (g["turns"] == 1)).sum()) for g in games.values()]
        assert row[8] == " / ".join(map(str, first_turn))
        losses = _rows(text, 1)[("novice", players)]
        assert losses[2] == "30"
        for column, cause in zip(losses[3:], ("landing-sunk", "treasure-lost", "drowned", "skull"), strict=True):
            assert column == " / ".join(f"{100 * (g['cause'] == cause).sum() / 30:.1f}" for g in games.values())
    assert any(_rows(text, 1)[("novice", p)][3:] != ["0.0 / 0.0 / 0.0"] * 4 for p in (2, 4))     # losses seen


def test_a_cell_grows_until_its_intervals_are_narrow_enough_and_resumes(doc, tmp_path, capsys):
    """A half-width no sample this small reaches grows the cell in steps to --max-deals; run
    again, the stores are complete and nothing is played; a wider half-width stops at once."""
    out = tmp_path / "stores"
    options = ("--players", "2", "--start", "10", "--step", "10", "--max-deals", "40", "--halfwidth", "1")
    _run(doc, out, *options)
    said = capsys.readouterr().out
    assert "10 deals; growing to" in said and "novice, 2 players: 40 deals; done" in said
    assert _rows(doc.read_text())[("novice", 2)][2] == "40"
    assert json.loads((out / "novice-2p" / "manifest.json").read_text())["trace"]["games"] == 0    # outcomes only
    files = sorted(p.stat().st_mtime_ns for p in (out / "novice-2p").rglob("*.parquet"))
    _run(doc, out, *options)
    assert capsys.readouterr().out == "novice, 2 players: 40 deals; done\n"
    assert sorted(p.stat().st_mtime_ns for p in (out / "novice-2p").rglob("*.parquet")) == files
    strength = _script()
    measured = strength.read(out / "novice-2p", strength.parse(["--out", str(out), "--doc", str(doc), *ARMS]))
    assert strength.deals_wanted(measured, 40, strength.parse(
        ["--out", str(out), "--doc", str(doc), *ARMS, "--halfwidth", "50", "--max-deals", "1000"])) == 40


@pytest.mark.parametrize("options, says", [
    (("--player", "random", "--over", "random"), "three different policies"),
    (("--halfwidth", "0"), "--halfwidth is in points"),
    (("--start", "0"), "--start must be at least 1"),
    (("--levels", "easy"), "unknown level"),
    (("--player", "nobody"), "unknown policy 'nobody'"),
])
def test_bad_options_are_one_line(doc, tmp_path, capsys, options, says):
    strength = _script()
    with pytest.raises(SystemExit) as exit_:
        strength.main(["--out", str(tmp_path / "s"), "--doc", str(doc), *ARMS, *options])
    assert exit_.value.code == 2 and says in capsys.readouterr().err


def test_a_doc_without_the_markers_is_refused(tmp_path, capsys):
    page = tmp_path / "page.md"
    page.write_text("# no table here\n")
    with pytest.raises(SystemExit) as exit_:
        _script().main(["--out", str(tmp_path / "s"), "--doc", str(page), *ARMS])
    assert exit_.value.code == 2 and "markers" in capsys.readouterr().err
    assert page.read_text() == "# no table here\n"


def test_first_turn_losses_are_read_from_the_turn_histograms(doc, tmp_path):
    """No game is won on the first turn, so the games that ended on it are the ones lost there."""
    games = simulate(level="legendary", players=4, policy="passive", games=200, seed=3)
    assert not (games["won"] & (games["turns"] == 1)).any()
    assert np.count_nonzero(games["turns"] == 1) > 0      # passive loses some on turn 1 at legendary


def test_a_store_made_traced_resumes_as_it_was_made(doc, tmp_path):
    """A cell's store whose first games were traced (a sweep's default) grows without being
    refused, its traced games kept, and its table is the untraced store's."""
    import fisim
    traced, plain = tmp_path / "traced", tmp_path / "plain"
    fisim.sweep(traced / "novice-2p", levels="novice", players=2, policies=["greedy", "random", "passive"], games=6,
                seed=3, chunk_games=6, trace_games=2, report=False, progress=False)
    options = ("--players", "2", "--start", "6", "--step", "6", "--max-deals", "12", "--halfwidth", "1")
    rows = _rows(_run(doc, traced, *options))
    assert json.loads((traced / "novice-2p" / "manifest.json").read_text())["trace"]["games"] == 2
    assert rows == _rows(_run(doc, plain, *options)) and rows[("novice", 2)][2] == "12"


def test_a_new_version_of_the_player_replays_its_arm_and_keeps_the_others(doc, tmp_path, capsys):
    """A player edited since the stores were made (here its version): refused in one line naming
    --replay-changed; with it, the player's arm is played again on the same deals, the other arms'
    files stay byte for byte, and the table names the new version."""
    mine, stores = tmp_path / "mine.py", tmp_path / "stores"

    def player(version):
        mine.write_text(f'NAME = "mine"\nVERSION = {version}\nfrom policies.greedy import decide  # noqa: E402,F401\n')

    options = ("--player", str(mine), "--players", "2", "--start", "20", "--step", "10", "--halfwidth", "50")
    player(1)
    _run(doc, stores, *options)
    others = {p.name: p.read_bytes() for p in (stores / "novice-2p" / "chunks").glob("*.parquet")}
    player(2)
    with pytest.raises(SystemExit) as stopped:
        _run(doc, stores, *options)
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and len(err.strip().splitlines()) == 1
    assert "mine@1 (now mine@2)" in err and "--replay-changed" in err
    assert "| mine@2 | random@" in _run(doc, stores, *options, "--replay-changed")
    chunks = {p.name: p.read_bytes() for p in (stores / "novice-2p" / "chunks").glob("*.parquet")}
    key = next(c["key"] for c in json.loads((stores / "novice-2p" / "manifest.json").read_text())["cells"]
               if c["policy"] == str(mine))
    assert chunks.keys() == others.keys()
    assert all((chunks[n] == others[n]) != n.startswith(key) for n in others)    # only the player's were replayed
