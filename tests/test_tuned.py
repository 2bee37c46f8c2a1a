"""`tuned` (issue 30): expert's evaluation with learned weights, its data file, and the script that
makes it. R-INFO for tuned is tested with every legal policy's (tests/test_policies.py)."""
import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from support.scripts import script

import policies
from fisim import engine, grid
from fisim.engine.generated import source_key
from fisim.results.chunks import chunk_record
from fisim.rules.config import GameConfig
from fisim.rules.layouts import builtin_layout
from fisim.rules.state import R_SIZE
from fisim.store import Store, StoreError, file_digest, manifest_for
from fisim.sweeping import run_sweep
from policies import PolicyError, candidate, evaluation, internal, load_policy, planner, tuned
from policies.weights import WeightTable, learned

ROOT = Path(__file__).resolve().parent.parent


def _train_module():
    return script("train_tuned")


def test_the_weight_table_exchanges_values_by_name():
    table = WeightTable()
    a = table.scalar("A", 2.0, "a")
    v = table.vector("V", (1.0, 3.0), "v")
    double = table.derived(2, lambda values: [2 * values["V[0]"], 2 * values["V[1]"]])
    assert (a, v, double, table.size) == (0, 1, 3, 5)
    assert table.array({"V[1]": 5.0}).tolist() == [2.0, 1.0, 5.0, 2.0, 10.0]
    assert table.values(table.array({"A": 7.0})) == {"A": 7.0, "V[0]": 1.0, "V[1]": 3.0}
    with pytest.raises(ValueError, match="unknown weights B"):      # a stale data file
        table.array({"B": 1.0})
    with pytest.raises(TypeError):
        table.constant()[0] = 1.0


def test_experts_far_share_is_made_as_before():
    """The derived table holds the doubles the hand-set code computed (FAR * FAR_DECAY ** k)."""
    w = evaluation.HAND_SET
    assert [w[evaluation.FAR_SHARE + k] for k in range(evaluation.FAR_STEPS + 1)] == \
        [0.4 * 0.6 ** k for k in range(evaluation.FAR_STEPS + 1)]


def test_tuned_plays_the_data_files_weights_and_version():
    data = json.loads(tuned.DATA.read_text())
    assert tuned.VERSION == data["version"] >= 1 and set(data["weights"]) == set(evaluation.WEIGHTS.names)
    assert evaluation.WEIGHTS.values(tuned.LEARNED) == data["weights"] != evaluation.WEIGHTS.values(evaluation.HAND_SET)
    assert load_policy("tuned").label == f"tuned@{data['version']}"     # the shipped file (specs: data_digest)
    assert "scripts/train_tuned.py --seed" in data["made_by"] and "minutes" in data["running_time"]


def _edited_tuned(tmp_path, monkeypatch):
    """tuned resolved as a process would that read an edited tuned.json (CAP one more)."""
    edited = tmp_path / "tuned.json"
    data = json.loads(tuned.DATA.read_text())
    data["weights"]["CAP"] += 1.0
    edited.write_text(json.dumps(data))
    monkeypatch.setattr(tuned, "DATA", edited)
    return policies._builtin("tuned"), edited


def test_the_data_file_is_in_tuneds_cache_key_and_store_fingerprint(tmp_path, monkeypatch):
    """An edited tuned.json compiles afresh and is never mixed into a store of the old values."""
    cells = grid.expand(["standard"], ["normal"], [2], "random", grid.parse_policies("tuned"), [()])
    store = Store(tmp_path / "out")
    manifest = manifest_for(cells, 0, {"games": 2000}, False, 1000)
    assert manifest["files"] == {"tuned": file_digest(tuned.DATA)}
    store.open(manifest)
    rows = np.zeros((1000, R_SIZE), np.int32)
    rows[:, 0] = 2                                              # LOST, without running the engine
    store.write_chunk(chunk_record(cells[0].key, 0, 0, rows))
    key = source_key(load_policy("tuned"))
    edited, path = _edited_tuned(tmp_path, monkeypatch)
    assert source_key(edited) != key and edited.content == file_digest(path)
    with pytest.raises(StoreError, match=r"tuned@2 \(now tuned@2\+data:"):      # its label names it apart
        run_sweep([replace(cells[0], policy=edited)], tmp_path / "out", 0, {"games": 2000}, chunk_games=1000)


def test_a_data_file_other_than_the_shipped_one_is_labelled_apart(tmp_path, monkeypatch):
    """48.3: the same version with other weights is not tuned@2: its label names the file's digest."""
    edited, path = _edited_tuned(tmp_path, monkeypatch)
    assert edited.label == f"tuned@{tuned.VERSION}+data:{file_digest(path)[:8]}"


@pytest.mark.parametrize("content, problem", [
    ("{not json", "not readable JSON"),
    ("[1, 2]", "a JSON object is expected, not a list"),
    ('{"weights": {}}', "'version' must be a whole number"),
    ('{"version": 2, "weights": {}, "colour": 1}', "unknown entry 'colour'"),
    ('{"version": 2, "weights": {"CAP": "abc"}}', "weight CAP must be a finite number, not 'abc'"),
    ('{"version": 2, "weights": {"CAP": NaN}}', "weight CAP must be a finite number, not nan"),
    ('{"version": 2, "weights": {}}', "weight CAP is missing"),
])
def test_a_damaged_data_file_is_one_line_naming_it(tmp_path, content, problem):
    """48.3: a data file that is not whole, or holds a weight that is missing or not a finite
    number, is refused in one line naming the file, never played."""
    path = tmp_path / "tuned.json"
    path.write_text(content)
    with pytest.raises(PolicyError) as info:
        learned(path, evaluation.WEIGHTS)
    assert str(path) in str(info.value) and problem in str(info.value) and "\n" not in str(info.value)
    with pytest.raises(PolicyError, match="does not exist"):
        learned(tmp_path / "gone.json", evaluation.WEIGHTS)


def test_an_unknown_weight_is_refused(tmp_path):
    data = json.loads(tuned.DATA.read_text())
    data["weights"]["NOT_A_WEIGHT"] = 1.0
    path = tmp_path / "tuned.json"
    path.write_text(json.dumps(data))
    with pytest.raises(PolicyError, match="unknown weight 'NOT_A_WEIGHT'"):
        learned(path, evaluation.WEIGHTS)


def test_search_over_tuned_has_tuneds_version_and_data_file():
    """Search over tuned plays as tuned's values make it: its version is search's and tuned's, and
    a store of it refuses other values too. The older name tuned-search:2 is the same policy."""
    cells = grid.expand(["standard"], ["normal"], [2], "random", grid.parse_policies("tuned-search:2"), [()])
    manifest = manifest_for(cells, 0, {"games": 2000}, False, 1000)
    assert manifest["files"] == {"search:2/tuned": file_digest(tuned.DATA)}
    assert manifest["policy_labels"] == {"search:2/tuned": f"search:2/tuned@2.{tuned.VERSION}"}


def test_training_gives_the_same_numbers_from_the_same_seed(tmp_path):
    """scripts/train_tuned.py on a tiny budget, twice: the same file but for its running time."""
    train = _train_module()
    made = []
    for run in range(2):
        out = tmp_path / f"run{run}.json"
        train.main(["--seed", "5", "--games", "3", "--passes", "2", "--levels", "novice", "--players", "2",
                    "--weights", "CAP,SAND_PLAY", "--threads", "1", "--out", str(out)])
        data = json.loads(out.read_text())
        assert len(data["passes"]) == 2 and data["made_by"].startswith("python scripts/train_tuned.py --seed 5")
        made.append({k: v for k, v in data.items() if k != "running_time"})
    assert made[0] == made[1]


def test_training_for_the_planner_says_so(tmp_path):
    """--policy planner: the planner plays the candidates, and the file names it and the command."""
    out = tmp_path / "planner.json"
    _train_module().main(["--seed", "5", "--games", "2", "--passes", "1", "--levels", "novice", "--players", "2",
                          "--weights", "W_READY", "--threads", "1", "--policy", "planner", "--out", str(out)])
    data = json.loads(out.read_text())
    assert data["policy"] == "planner" and "--policy planner" in data["made_by"]
    assert len(data["passes"]) == 1 and set(data["weights"]) == set(evaluation.WEIGHTS.names)


def test_training_continues_from_a_file_it_wrote_and_says_how_that_was_made(tmp_path):
    """--start: the weights of a file this script wrote are the incumbent's first values, and the new
    file's made_by chains both commands (each from its seed)."""
    train = _train_module()
    small = ["--seed", "5", "--games", "3", "--levels", "novice", "--players", "2", "--weights", "CAP",
             "--threads", "1"]
    first = tmp_path / "first.json"
    train.main([*small, "--passes", "1", "--out", str(first)])
    data = json.loads(first.read_text())
    data["weights"]["CAP"] = 1234.0         # a start unlike the hand-set values
    first.write_text(json.dumps(data))
    second = tmp_path / "second.json"
    train.main([*small, "--passes", "0", "--start", str(first), "--out", str(second)])
    made = json.loads(second.read_text())
    assert made["weights"] == data["weights"]
    assert made["made_by"] == (f"{data['made_by']} --out first.json && python scripts/train_tuned.py --seed 5 "
                               "--games 3 --passes 0 --step 0.5 --shrink 0.7 --levels novice --players 2 "
                               "--weights CAP --start first.json")
    assert made["running_time"].startswith(f"{data['running_time']}, then ")


def test_training_refuses_an_unknown_weight_level_or_start_file(capsys, tmp_path):
    train = _train_module()
    stale = tmp_path / "stale.json"
    stale.write_text(json.dumps({"weights": {"NOPE": 1.0}, "made_by": "", "running_time": ""}))
    for args, words in ((["--weights", "CAP,NOPE"], "unknown weights NOPE"), (["--levels", "hard"], "unknown level"),
                        (["--start", str(tmp_path / "none.json")], "cannot be read"),
                        (["--start", str(stale)], "unknown weights NOPE")):
        with pytest.raises(SystemExit) as exit_info:
            train.parse_args([*args, "--out", str(tmp_path / "trial.json")])
        assert exit_info.value.code == 2 and words in capsys.readouterr().err


@pytest.mark.compiles
def test_the_candidate_plays_the_games_of_the_policy_whose_weights_it_is_given():
    """policies.candidate reads its weights from the exported array at each decision: with
    expert's it plays expert's games, then with tuned's tuned's, with the planner's and PLANS set
    the planner's, without a compile between."""
    layout, config = builtin_layout("standard"), GameConfig(players=3, level="normal")
    weights = {"expert": evaluation.HAND_SET, "tuned": tuned.LEARNED, "planner": planner.LEARNED}
    try:
        for name in ("expert", "tuned", "planner", "expert"):
            candidate.PLAYED[:] = weights[name]
            candidate.PLANS[0] = name == "planner"
            rows = [engine.play_batch(layout, config, p, 7, 0, 300, threads=1)
                    for p in (internal(candidate), load_policy(name))]
            assert np.array_equal(rows[0], rows[1])
    finally:
        candidate.PLANS[0] = 0.0
    assert not np.array_equal(*(engine.play_batch(layout, config, load_policy(name), 7, 0, 300, threads=1)
                                for name in ("expert", "tuned")))


# --- issue 48 item 1: the script checks its arguments, and writes where it is told ----------------

@pytest.mark.parametrize("args, words", [
    (["--players", "7"], "--players 7: give player counts from 2 to 4"),
    (["--players", "2,x"], "give player counts from 2 to 4"),
    (["--games", "0"], "argument --games: '0': give a whole number from 1"),
    (["--games", "1e3"], "argument --games: '1e3'"),
    (["--step", "1"], "argument --step: '1': give a number above 0 and below 1"),
    (["--step", "nan"], "argument --step: 'nan'"),
    (["--passes", "-1"], "argument --passes: '-1': give a whole number from 0 to 100"),
    (["--out", "missing/tuned.json"], "the directory"),
    (["--out", "."], "is a directory"),
])
def test_train_tuned_checks_every_argument_before_training(tmp_path, monkeypatch, capsys, args, words):
    train = _train_module()
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_info:
        train.parse_args(["--out", "trial.json", *args])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and words in err.strip().splitlines()[-1], err
    assert list(tmp_path.iterdir()) == []


def test_train_tuned_with_seven_players_is_one_line_not_an_abort(tmp_path):
    """In a child process: the abort (SIGABRT) was a status, not a message."""
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "train_tuned.py"), "--players", "7", "--out",
                           str(tmp_path / "trial.json")], capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and done.stderr.strip().splitlines()[-1].endswith(
        "--players 7: give player counts from 2 to 4, such as 2,3,4"), done.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_trial_training_never_writes_the_shipped_weights_by_default(capsys):
    """--out has no default: only `--out policies/tuned.json` replaces the file tuned plays, as the
    script's docstring and docs/policies.md say."""
    train = _train_module()
    with pytest.raises(SystemExit) as exit_info:
        train.parse_args(["--games", "3", "--passes", "1"])
    assert exit_info.value.code == 2 and "required: --out" in capsys.readouterr().err
    assert "--out policies/tuned.json" in train.__doc__
    assert "only `--out policies/tuned.json`" in (ROOT / "docs" / "policies.md").read_text()
