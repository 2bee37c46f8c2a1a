"""What a new user meets first (issue 31's smaller gaps): `simulate --out` says what it wrote,
the per-game masks decode as docs/cli.md says, numbers as data carry no float noise, the level's
range is the same in --help and in its error, and the README and .gitignore fit the quick start."""
import io
import json
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import tomllib
from support.commands import run

from fisim import load as fisim_load
from fisim.cli import cli, main
from fisim.rules.constants import N_TILES, TILE_NAMES
from fisim.sweeping import BackendError, DaskBackend

pytestmark = pytest.mark.compiles      # needs the compiled engine: games at its speed

ROOT = Path(__file__).parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"


def test_simulate_out_says_what_it_wrote_and_the_masks_decode_as_the_reference_says(tmp_path):
    out = tmp_path / "games.parquet"
    r = run("simulate", "--games", "300", "--players", "2", "--policy", "random", "--out", str(out), "--quiet")
    assert r.returncode == 0, r.stderr
    assert r.stderr.strip().splitlines()[-1] == f"fisim: wrote 300 games, one row each, to {out}"
    games = pd.read_parquet(out)
    assert len(games) == 300
    decode = (DOCS / "cli.md").read_text().split("<!-- decode masks -->")[1].split("```python")[1].split("```")[0]
    exec(decode, {"games": games})     # the command reference's snippet, as a user runs it
    sunk = list(games["sunk_names"])
    assert [len(s) for s in sunk] == list(games["tiles_sunk"])
    assert all(set(s) <= set(TILE_NAMES) for s in sunk)
    lost = games[games["cause_tile"] >= 0]
    assert all(TILE_NAMES[t] in s for t, s in zip(lost["cause_tile"], np.array(sunk, dtype=object)[lost.index]))
    cells_sunk = sum((games["sunk_cells"].to_numpy() >> c) & 1 for c in range(N_TILES))
    assert list(cells_sunk) == list(games["tiles_sunk"])


def test_numbers_written_as_data_carry_no_float_noise():
    for fmt, read in (("csv", lambda text: pd.read_csv(io.StringIO(text))),
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


def test_the_quick_starts_output_folders_are_ignored_by_git():
    ignored = (ROOT / ".gitignore").read_text().splitlines()
    for name in ("sweep", "tune", "ladder"):
        out = next(p.default for p in cli.commands[name].params if p.name == "out")
        assert f"/{out}/" in ignored, out


def test_dask_is_an_optional_extra_named_when_missing(tmp_path, capsys, monkeypatch):
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert not any(d.startswith("dask") for d in project["dependencies"])
    assert project["optional-dependencies"]["cluster"] == ["dask[distributed]>=2024.1"]
    for module in ("distributed", "dask.distributed"):
        monkeypatch.setitem(sys.modules, module, None)      # as if not installed: importing it fails
    with pytest.raises(BackendError, match=r"pip install 'fisim\[cluster\]'"):
        DaskBackend(workers=1)
    with pytest.raises(SystemExit) as exit_status:
        main(["sweep", "--levels", "normal", "--players", "2", "--games", "10", "--dask-local", "1", "--out",
              str(tmp_path / "out"), "--no-report"])
    err = capsys.readouterr().err.strip().splitlines()
    assert exit_status.value.code == 2 and len(err) == 1
    assert err[0] == "fisim: error: --dask-local: a Dask cluster needs Dask, an optional extra of fisim: pip install " \
                     "'fisim[cluster]'"


def test_the_readme_names_its_rules_document_and_compares_speeds_measured_together():
    readme = README.read_text()
    assert "RULES.md" not in readme and "[docs/rules.md](docs/rules.md)" in readme
    for link in re.findall(r"\]\(((?:docs|reports)/[^)#]+)\)", readme):
        assert (ROOT / link).exists(), link
    for doc in DOCS.glob("*.md"):       # their links (not the code they quote) lead to files that are there
        for link in re.findall(r"\]\(([^):#]+)(?:#[^)]*)?\)", re.sub(r"`[^`]*`", "", doc.read_text())):
            assert (DOCS / link).exists(), (doc.name, link)
    strength = (DOCS / "strength.md").read_text()
    assert "6.6 games per second" not in strength and "about 800 times expert's processor time" in strength
    assert "the strongest legal computer team (`search:32`)" not in readme + strength


CAPTURE_FIRST = '''from numba import njit

from fisim.rules.rng import randbelow

NAME = "capture-first"
VERSION = 3


@njit
def decide(pub, options, n, mem, rng):
    return randbelow(rng, n)
'''


@pytest.mark.slow
def test_a_policy_file_has_one_name_everywhere_and_its_path_only_as_provenance(tmp_path):
    from policies import load_policy
    policy = tmp_path / "my_policy.py"
    policy.write_text(CAPTURE_FIRST)
    random = f"random@{load_policy('random').VERSION}"
    out = tmp_path / "sweep"
    r = run("sweep", "--levels", "normal", "--players", "2", "--policies", f"random,{policy}", "--games", "300",
            "--out", str(out), "--quiet")
    assert r.returncode == 0, r.stderr
    assert "capture-first@3" in r.stdout and str(policy) not in r.stdout
    assert set(fisim_load(out)["policy"]) == {random, "capture-first@3"}
    compared = run("compare", str(out), "--by", "policy", "--format", "csv")
    rows = pd.read_csv(io.StringIO(compared.stdout))
    assert list(rows["policy"]) == ["capture-first@3"] and list(rows["baseline"]) == [random]
    report = (out / "report" / "report.md").read_text()
    assert "capture-first@3" in report and "my_policy" not in report
    assert "policy capture-first@3," in run("simulate", "--policy", str(policy), "--games", "50", "--quiet").stdout
    manifest = json.loads((out / "manifest.json").read_text())
    assert {c["policy"] for c in manifest["cells"]} == {"random", str(policy)}       # the path, as provenance
    assert manifest["policy_labels"][str(policy)] == "capture-first@3"


def test_the_python_api_has_real_signatures_and_docstrings_and_returns_tables(tmp_path):
    import inspect
    import pkgutil

    import fisim
    assert not {m.name for m in pkgutil.iter_modules(fisim.__path__)} & set(fisim.API)    # no module shadows one
    for name in fisim.API:
        function = getattr(fisim, name)
        assert callable(function), name
        kinds = {p.kind for p in inspect.signature(function).parameters.values()}
        assert not kinds & {inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD}, name
        assert len(inspect.getdoc(function)) > 150, name
    assert {"levels", "players", "teams", "layouts", "policies", "rules", "sets", "games", "ci", "seed"} <= set(
        inspect.signature(fisim.sweep).parameters)
    assert {"param", "target", "values", "level", "policy", "max_games"} <= set(
        inspect.signature(fisim.tune).parameters)
    out = tmp_path / "store"
    cells = fisim.sweep(out, levels="novice", players=[2], policies=["random", "passive"], games=1000, report=False)
    assert isinstance(cells, pd.DataFrame) and list(cells["games"]) == [1000, 1000]
    assert cells.equals(fisim.load(out))
    compared = fisim.compare(out, by="policy")
    assert isinstance(compared, pd.DataFrame) and len(compared) == 1 and compared["ci_low"].iloc[0] <= \
        compared["difference"].iloc[0] <= compared["ci_high"].iloc[0]
    written = fisim.report(out, formats=["md", "csv"])
    assert (out / "report" / "report.md") in written and (out / "report" / "tables" / "outcome-shares.csv") in written
    games = fisim.simulate(level="novice", players=2, policy="random", games=500, seed=2)
    table = fisim.summary(games)
    win = table.set_index("measure").loc["win"]
    assert isinstance(table, pd.DataFrame) and win["games"] == 500 and win["count"] == games["won"].sum()
    assert win["ci_low"] <= win["value"] <= win["ci_high"]
    assert list(table["measure"]).count("loss") == 4 and table["measure"].iloc[-1] == "mean treasures"
    tuned = fisim.tune("start_level", 0.2, values="1..3", players=2, policy="greedy", max_games=2000,
                       out=tmp_path / "tune")
    assert tuned.answer in (1, 2, 3) and isinstance(tuned.table(), pd.DataFrame)
    with pytest.raises(ValueError, match="unknown level .hard.; choose one of"):
        fisim.sweep(tmp_path / "bad", levels="hard")


def test_a_decide_without_njit_is_told_to_add_it(tmp_path):
    path = tmp_path / "plain.py"
    path.write_text("NAME = 'plain'\ndef decide(pub, options, n, mem, rng):\n    return 0\n")
    r = run("simulate", "--policy", str(path), "--games", "10")
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert "plain.py: decide() is not compiled: decorate it with @njit" in r.stderr


# --- notebooks (issue 47 item 5) ----------------------------------------------------------------

def test_every_api_axis_takes_an_int_or_a_list_as_well_as_a_string(tmp_path):
    """fisim.sweep(players=3) raised TypeError although simulate takes an int."""
    import fisim
    as_text = fisim.sweep(tmp_path / "text", levels="novice,2", players="2", policies="random",
                          rules="official,heli-all", games=300, report=False, progress=False)
    as_values = fisim.sweep(tmp_path / "values", levels=[1, "normal"], players=2, policies=["random"],
                            rules=["official", ("heli-all",)], games=300, report=False, progress=False)
    assert as_values.equals(as_text) and len(as_text) == 4
    assert list(fisim.sweep(tmp_path / "one", levels=3, players=[3], teams=[("diver", "pilot", "engineer")],
                            policies="random", games=100, report=False, progress=False)["team"]) == \
        ["diver+pilot+engineer"]
    tuned = fisim.tune("hand_limit", 0.3, values=[4, 5], level=1, players=2, policy="random", max_games=1000,
                       out=tmp_path / "tune", progress=False)
    assert sorted(tuned.table()["value"]) == [4, 5]


def test_long_api_calls_report_their_progress(tmp_path, capsys, monkeypatch):
    """progress=True (the default) shows a tqdm.auto bar once a call has run fisim.progress.DELAY
    seconds; a function is called with the games as blocks finish; False shows nothing."""
    import fisim
    from fisim import progress
    seen = {}
    for name, call in (("simulate", lambda p: fisim.simulate(players=2, policy="random", games=700, progress=p)),
                       ("sweep", lambda p: fisim.sweep(tmp_path / "s", levels="novice", players=2, policies="random",
                                                       games=1500, report=False, progress=p)),
                       ("tune", lambda p: fisim.tune("start_level", 0.2, values="1..2", players=2, policy="random",
                                                     max_games=1000, out=tmp_path / "t", progress=p))):
        counted = []
        call(counted.append)
        seen[name] = sum(counted)
    assert seen == {"simulate": 700, "sweep": 1500, "tune": 2000}
    capsys.readouterr()
    fisim.simulate(players=2, policy="random", games=700, progress=False)
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(progress, "DELAY", 0)
    fisim.simulate(players=2, policy="random", games=700)
    assert "700/700" in capsys.readouterr().err


def test_a_tuning_and_a_summary_show_themselves_in_jupyter(tmp_path):
    import fisim
    games = fisim.simulate(players=2, policy="random", level="novice", games=400, seed=3, progress=False)
    table = fisim.summary(games)
    win = table.set_index("measure").loc["win"]
    shown = table._repr_html_()
    low, high = f"{100 * win['ci_low']:.2f}", f"{100 * win['ci_high']:.2f}"
    assert f"400 games: win rate {100 * win['value']:.2f}% ({low}-{high}%)" in shown and "<table" in shown
    assert type(table.head(2)) is pd.DataFrame and table["value"].dtype == float        # numbers stay numbers
    tuned = fisim.tune("start_level", 0.2, values="1..3", players=2, policy="random", max_games=1000,
                       out=tmp_path / "t", progress=False)
    shown = tuned._repr_html_()
    assert f"tune start_level to a win rate of 20%: answer {tuned.table().query('answer')['label'].iloc[0]}" in shown
    assert shown.count("&lt;- answer") == 1 and "<table" in shown


def test_fisim_compare_names_its_columns_as_the_report_tables_and_orders_levels(tmp_path):
    """fisim.compare's level is an ordered category, as in fisim.load; its difference's interval is
    difference_ci_low/high and each rate has its own, as in the report's policies-compared table,
    whose rows it matches for one player count; the command's CSV has the same columns."""
    import fisim
    out = tmp_path / "store"
    fisim.sweep(out, levels="elite,novice", players=2, policies="random,passive", games=1000, report=False,
                progress=False)
    compared = fisim.compare(out, by="policy")
    assert isinstance(compared["level"].dtype, pd.CategoricalDtype) and compared["level"].cat.ordered
    assert list(compared["level"].cat.categories[:2]) == ["novice", "normal"]
    assert compared["level"].dtype == fisim.load(out)["level"].dtype
    fisim.report(out, formats="csv")
    table = pd.read_csv(out / "report" / "tables" / "policies-compared.csv")
    assert set(table.columns) <= set(compared.columns)
    mine = compared.set_index("level").loc[list(table["level"])]
    for column in ("rate", "ci_low", "baseline_ci_high", "difference", "difference_ci_low", "difference_ci_high"):
        assert np.allclose(table[column], mine[column], atol=1e-9), column
    csv = pd.read_csv(io.StringIO(run("compare", str(out), "--by", "policy", "--format", "csv").stdout))
    assert list(csv.columns) == list(compared.columns)
    roles = fisim.compare(out, by="role")
    assert {"difference_ci_low", "difference_ci_high"} <= set(roles.columns) and roles["level"].cat.ordered


def test_fisim_compare_takes_the_agreement_options_of_its_command(tmp_path):
    import fisim
    out = tmp_path / "store"
    fisim.sweep(out, levels="novice,normal,elite", players=2, policies="random,passive", games=1000, report=False,
                progress=False)
    result = fisim.compare(out, by="level", agreement=["random", "passive"], disjoint=True)
    assert result.policies == ("random", "passive") and result.disjoint and set(result.items["games"]) == {500}
    csv = run("compare", str(out), "--by", "level", "--agreement", "random,passive", "--disjoint", "--format", "csv")
    assert np.allclose(pd.read_csv(io.StringIO(csv.stdout))["rate_random"], result.items["rate_random"])


def test_the_ladder_the_agreement_and_a_replay_are_in_the_python_api(tmp_path):
    """issue 44 item 6: fisim.ladder plays and reads what `fisim ladder` does (the same stores, the
    same tables), fisim.agreement is compare's --agreement, fisim.replay the transcript `fisim
    replay` prints."""
    import fisim
    out = tmp_path / "ladder"
    tables = fisim.ladder(out, levels="novice", players=2, games=20, policies="random,passive", clairvoyant=0,
                          deals=4, repeats=2, replayer="passive", progress=False)
    assert set(tables) == {"ladder", "gap", "deals"} and tables["gap"].empty
    assert set(tables["ladder"]["games"]) == {20} and len(tables["deals"]) == 1
    assert (out / "report" / "report.md").exists()
    again = run("ladder", "--levels", "novice", "--players", "2", "--games", "20", "--policies", "random,passive",
                "--no-clairvoyant", "--deals", "4", "--repeats", "2", "--replayer", "passive", "--out", str(out))
    assert again.returncode == 0 and "nothing to play" in again.stderr + again.stdout       # the same stores
    with pytest.raises(ValueError, match="replayer expert plays every replay of a deal alike"):
        fisim.ladder(tmp_path / "bad", levels="novice", players=2, games=20, policies="random", replayer="expert")
    with pytest.raises(ValueError, match="deals 50 needs games of at least 50"):
        fisim.ladder(tmp_path / "bad", games=20, deals=50)
    text = fisim.replay(level="novice", players=2, policy="random", seed=3, game=1)
    assert text == run("replay", "--level", "novice", "--players", "2", "--policy", "random", "--seed", "3",
                       "--game", "1").stdout
    store = tmp_path / "store"
    fisim.sweep(store, levels="novice,normal,elite", players=2, policies="random,passive", games=1000, report=False,
                progress=False)
    result = fisim.agreement(store, "random,passive", by="level")
    assert result.policies == ("random", "passive") and len(result.items) == 3
