"""The policies as a house (issue 44): each built-in declared once (policies/specs.py) and everything
else derived from its spec; search over any policy by composition (search:N/BASE); a policy resolved
once per run, a file that changes under a run refused where it would be read again."""
import os
import pickle
import re
from dataclasses import replace

import numpy as np
import pytest
from support.commands import run

import policies
from fisim.cell import Cell, play
from fisim.rules.state import R_STATUS, WON
from fisim.store import file_digest
from policies import (
    ALIASES,
    BUILTIN,
    LADDER,
    LEGAL,
    REPLAYS_ALIKE,
    SEES_DECKS,
    SPECS,
    PolicyError,
    normalized,
    resolve,
)

# a policy file that does nothing (option 0: END at an action decision), draws nothing
IDLE = """from numba import njit

NAME = "idle"
VERSION = 4


@njit
def decide(pub, options, n, mem, rng):
    return 0
"""


@pytest.fixture
def idle(tmp_path):
    path = tmp_path / "idle.py"
    path.write_text(IDLE)
    return path


# --- one spec per policy, the rest derived ------------------------------------------------------

def test_the_registry_is_derived_from_the_specs():
    assert BUILTIN == tuple(spec.name for spec in SPECS)
    assert SEES_DECKS == ("clairvoyant",) and set(LEGAL) == set(BUILTIN) - {"clairvoyant"}
    assert set(REPLAYS_ALIKE) == {spec.name for spec in SPECS if not spec.stochastic} == \
        {"greedy", "expert", "tuned", "planner", "deep"}
    ranks = {name: rank for spec in SPECS for name, rank in spec.rungs.items()}
    assert list(LADDER) == sorted(ranks, key=ranks.get) and LADDER[0] == "random"
    assert sorted(ranks.values()) == list(range(len(ranks)))       # one rung per rank
    for rung in LADDER:
        assert resolve(rung).given == rung      # every rung is a name as a cell keeps it


def test_the_policy_help_is_short_and_names_every_policy():
    """The --policy help lists the names and points to `fisim policies` (issue 47 item 7), which
    says what each does from its spec."""
    text = run("simulate", "--help").stdout
    help_lines = text.split("--policy")[1].split("--rules")[0].strip().splitlines()
    assert len(help_lines) <= 7
    listing = run("policies").stdout
    for spec in SPECS:
        assert re.sub(r"\s+", " ", spec.name) in " ".join(help_lines)
        assert spec.summary[:40] in listing
    assert all(rung in listing for rung in LADDER)


def test_a_policy_is_checked_and_explained_by_fisim_policies(idle):
    done = run("policies", f"search:2/{idle}")
    assert done.returncode == 0, done.stderr
    assert "search:2/idle@2.4" in done.stdout and "plays its rollouts with idle@4" in done.stdout
    done = run("policies", "search:2/nobody")
    assert done.returncode == 2 and "unknown policy 'nobody'" in done.stderr and len(done.stderr.splitlines()) == 1


def test_a_composite_version_is_made_from_its_parents():
    """search:N/BASE names search's version and its base's; a policy built on another (the planner's
    weights were trained from tuned's) says so when that one is at another version than it was
    made over."""
    tuned, planner = resolve("tuned"), resolve("planner")
    assert resolve("search:8/planner").label == f"search:8/planner@2.{planner.VERSION}"
    assert resolve("search:8/tuned").VERSION == f"2.{tuned.VERSION}"
    version = planner.spec.version
    assert planner.VERSION == str(version) and planner.spec.builds_on == {"tuned": int(tuned.VERSION)}
    made_over_older = replace(planner.spec, builds_on={"tuned": 1})
    assert policies._version(made_over_older, planner.module, planner.sources) == f"{version}+tuned@{tuned.VERSION}"
    assert resolve("search:8/planner").content == planner.content == file_digest(planner.module.DATA) != tuned.content


def test_older_names_and_default_bases_are_one_policy():
    assert ALIASES == {"tuned-search": "search/tuned", "planner-search": "search/planner"}
    assert normalized("tuned-search:8") == "search:8/tuned" and normalized("planner-search") == "search:64/planner"
    assert normalized("search:8/expert") == "search:8" and normalized("search") == "search:64"
    assert resolve("tuned-search:8") is resolve("search:8/tuned")


@pytest.mark.parametrize("name, says", [
    ("search:2/search:4", "search runs over a policy"), ("search:2/clairvoyant", "search runs over a policy"),
    ("search:2/nobody", "unknown policy 'nobody'"), ("search:0/greedy", "from 1 to 4096")])
def test_a_composite_that_cannot_play_is_one_line(name, says):
    with pytest.raises(PolicyError, match=says) as refused:
        resolve(name)
    assert "\n" not in str(refused.value)


# --- a policy resolved once -----------------------------------------------------------------------

def test_a_policy_file_is_executed_once_per_content(tmp_path):
    path = tmp_path / "counted.py"
    count = tmp_path / "executions"
    path.write_text(IDLE.replace('NAME = "idle"', f'NAME = "counted"\nopen({str(count)!r}, "a").write("x")'))
    first = resolve(str(path))
    assert resolve(str(path)) is first and Cell("standard", "novice", 2, None, str(path), ()).policy is first
    assert count.read_text() == "x"
    path.write_text(path.read_text() + "\n# edited\n")      # a new content is a new module
    assert resolve(str(path)) is not first and count.read_text() == "xx"


def test_a_policy_file_changed_during_a_run_is_refused_where_it_is_read_again(idle):
    """A cell carries the Policy it was made with: a Dask worker that receives it (pickled) resolves
    it again and refuses it if the file changed since the run began."""
    cell = Cell("standard", "novice", 2, None, str(idle), ())
    again = pickle.loads(pickle.dumps(cell))
    assert again.policy.digest == cell.policy.digest and again.key == cell.key
    idle.write_text(IDLE.replace("return 0", "return n - 1"))
    with pytest.raises(PolicyError, match="changed since the run began"):
        pickle.loads(pickle.dumps(cell))


def test_a_policy_file_that_exits_as_it_loads_is_one_line(tmp_path):
    """48.8: os._exit at import would end fisim with exit 0 and no word."""
    path = tmp_path / "quits.py"
    path.write_text("import os\nos._exit(0)\n")
    done = run("simulate", "--policy", str(path), "--games", "1")
    assert done.returncode == 2 and "calls os._exit(0) as it is loaded" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_policy_path_that_is_not_a_regular_file_says_so(tmp_path):
    """48.8: a FIFO, a device or a directory given as a policy file."""
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    for name in (str(fifo), "/dev/zero", str(tmp_path)):
        with pytest.raises(PolicyError, match="is not a regular file") as refused:
            resolve(name)
        assert "\n" not in str(refused.value)


# --- search over any policy ----------------------------------------------------------------------

@pytest.mark.compiles
def test_search_over_a_policy_file_with_one_world_plays_its_games(idle):
    """With one world per decision no alternative's gain is clear (MIN_NET): search:1 over a
    policy that never draws on its stream plays that policy's very games, through the composed
    code (its choice first, the evaluation's options as the alternatives)."""
    for base in ("greedy", str(idle)):
        rows = [play(Cell("standard", "novice", 3, None, name, ()), 11, 0, 40, threads=1)
                for name in (base, f"search:1/{base}")]
        assert np.array_equal(rows[0], rows[1]), base


@pytest.mark.compiles
def test_search_over_a_policy_file_makes_it_stronger(tmp_path):
    """A designer's heuristic gets its searched version for free: search:8 over a policy file (here
    one that plays as greedy) wins more of the same deals, by a sign test on the deals where the
    two differ (two standard deviations)."""
    path = tmp_path / "my_greedy.py"
    path.write_text("from numba import njit\n\nfrom policies.greedy import decide as greedy\n\n"
                    'NAME = "my-greedy"\n\n\n@njit\ndef decide(pub, options, n, mem, rng):\n'
                    "    return greedy(pub, options, n, mem, rng)\n")
    base, searched = (play(Cell("standard", "novice", 3, None, name, ()), 3, 0, 200)[:, R_STATUS] == WON
                      for name in (str(path), f"search:8/{path}"))
    gained, lost = int((searched & ~base).sum()), int((base & ~searched).sum())
    assert gained - lost >= 2 * np.sqrt(gained + lost)


def test_a_store_refuses_an_edited_policy_file_before_anything_compiles(tmp_path, idle, monkeypatch):
    """48.8: a sweep into a store of another content of the policy file is refused at once, before
    the policy compiles (a fresh compile cache stays empty)."""
    from fisim.results.chunks import chunk_record
    from fisim.rules.state import R_SIZE
    from fisim.store import Store, manifest_for
    cells = [Cell("standard", "novice", 2, None, str(idle), ())]
    store = Store(tmp_path / "out")
    store.open(manifest_for(cells, 0, {"games": 1000}, False, 1000))
    rows = np.zeros((1000, R_SIZE), np.int32)
    rows[:, 0] = 2                                              # LOST, without running the engine
    store.write_chunk(chunk_record(cells[0].key, 0, 0, rows))
    idle.write_text(IDLE.replace("return 0", "return n - 1"))
    cache = tmp_path / "cache"
    monkeypatch.setenv("FISIM_CACHE_DIR", str(cache))
    monkeypatch.delenv("NUMBA_DISABLE_JIT", raising=False)      # (it would compile, were it not refused)
    done = run("sweep", "--policies", str(idle), "--levels", "novice", "--players", "2", "--games", "1000",
               "--chunk-games", "1000", "--trace-games", "0", "--out", str(tmp_path / "out"), "--no-report")
    assert done.returncode != 0 and "(its file edited since)" in done.stderr
    assert not list(cache.rglob("*.py"))        # nothing was written to compile
