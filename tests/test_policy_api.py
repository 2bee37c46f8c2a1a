"""The policy author's API (docs/policies.md): the example plugin loads from the command line,
plays legally on several islands and rule readings, and reads the game through fisim.rules.view
only; each view accessor reads what the raw offsets of fisim.rules.state hold, on the positions
real games ask about and on the final positions of recorded games."""
import ast
import inspect
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fisim import engine
from fisim.engine import runners
from fisim.rules import state as st
from fisim.rules import view
from fisim.rules.config import C_CAPTURE, C_DECK, C_FLOODS, C_HAND_LIMIT, C_SKULL, C_SUNK_CARD_STAYS, make_config
from fisim.rules.constants import FOOLS_LANDING, N_HAND_KINDS, N_KINDS, N_TILES, N_TREASURES
from fisim.rules.layouts import builtin_layout
from fisim.rules.options import DECISION_NAMES
from fisim.rules.rng import N_STREAMS
from fisim.simulation import simulate
from policies import load_policy

pytestmark = pytest.mark.compiles      # needs the compiled engine: games at its speed

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "docs" / "example_policy.py"
PROBE = Path(__file__).parent / "support" / "view_probe.py"
API = {"numba", "fisim.rules.view", "fisim.rules.options", "fisim.rules.rng"}

# (layout, level, players, rules): islands, player counts and every rule switch
RISING_TIDE = Path(__file__).parent.parent / "docs" / "variants" / "rising-tide.toml"   # a variant file
SETTINGS = [("standard", "novice", 3, ()), ("skull-island", "legendary", 4, ("heli-all", "swim-seed001")),
            ("harpoon-hideout", "normal", 2, ("navigator-plain", "swim-seed000", "diver-flooded-only")),
            ("davy-jones-locker", "elite", 3, ("no-heli-rescue", "diver-sunk-only", "sunk-card-stays",
                                               "hand-after-draw")),
            ("standard", "normal", 1, ("solo",)),
            ("standard", "elite", 3, ("heli-all", str(RISING_TIDE)))]


def accessors():
    """The names of fisim.rules.view's accessors (its jitted functions defined there)."""
    return sorted(name for name, f in vars(view).items()
                  if hasattr(f, "py_func") and f.py_func.__module__ == view.__name__)


# --- the example plugin --------------------------------------------------------------------

def test_the_example_imports_only_the_policy_api_and_reads_no_raw_offset():
    tree = ast.parse(EXAMPLE.read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            modules = {f"{node.module}.{a.name}" for a in node.names}
            imported |= modules if modules <= API else {node.module}
    assert imported and imported <= API, imported - API
    indexed = [n.value.id for n in ast.walk(tree) if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name)]
    assert "pub" not in indexed, "the example must read pub through fisim.rules.view only"


def test_the_example_loads_from_the_command_line():
    fisim = Path(sys.executable).parent / "fisim"
    r = subprocess.run([str(fisim), "simulate", "--policy", "docs/example_policy.py", "--level", "novice",
                        "--players", "3",
                        "--games", "400", "--seed", "4", "--format", "json"],
                       capture_output=True, text=True, timeout=900, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    assert {row["policy"] for row in rows} == {"example@1"}
    assert rows[0]["measure"] == "win" and rows[0]["games"] == 400


@pytest.mark.parametrize("layout, level, players, rules", SETTINGS)
def test_the_example_plays_every_game_to_its_end_without_an_illegal_choice(layout, level, players, rules):
    """400 games per setting, 2,400 in all; an illegal choice would raise EngineError."""
    games = simulate(level=level, players=players, layout=layout, policy=str(EXAMPLE), rules=rules,
                     games=400, seed=11, threads=1)
    assert len(games) == 400 and games["policy"].eq("example@1").all()
    lost = games[["landing_sunk", "treasure_lost", "drowned", "skull"]].any(axis=1)
    assert (games["won"] != lost).all(), "every game ends either won or lost"


def test_the_readmes_policy_plays_as_written(readme_policy):
    """The README's 'Writing a policy' example, taken from the README, plays without an illegal
    choice (its LIFT_DEST branch included: it plays lifts at random)."""
    games = simulate(level="novice", players=4, policy=str(readme_policy), games=300, seed=2, threads=1)
    assert len(games) == 300 and games["policy"].eq("always-shore@1").all()


def test_the_example_plays_better_than_random():
    """Its plan is worth something: it captures more treasures than uniform choice, on the same
    games (difference of means beyond 4 standard errors)."""
    example = simulate(level="novice", players=3, policy=str(EXAMPLE), games=1000, seed=5, threads=1)
    uniform = simulate(level="novice", players=3, policy="random", games=1000, seed=5, threads=1)
    diff = example["treasures"].to_numpy(float) - uniform["treasures"].to_numpy(float)
    assert diff.mean() > 4 * diff.std(ddof=1) / np.sqrt(len(diff))


def test_the_built_ins_read_pub_through_view_only():
    """No built-in policy indexes pub (copying it whole for lookahead aside): they are the
    examples docs/policies.md cites."""
    for path in sorted((ROOT / "policies").glob("*.py")):
        tree = ast.parse(path.read_text())
        indexed = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name)
                   and n.value.id == "pub" and not isinstance(n.slice, ast.Slice)]
        assert indexed == [], (path.name, indexed)


def test_the_guide_names_every_accessor():
    guide = (ROOT / "docs" / "policies.md").read_text()
    assert [name for name in accessors() if f"{name}(" not in guide] == []


# --- fisim.rules.view against the raw offsets ------------------------------------------------

@pytest.fixture(scope="module")
def probe():
    return load_policy(str(PROBE))


def test_the_probe_checks_every_accessor(probe):
    source = inspect.getsource(probe.module)
    missing = [name for name in accessors() if f"view.{name}(" not in source]
    assert not missing


def test_every_accessor_reads_the_raw_offsets_at_every_decision_of_real_games(probe):
    """The probe checks each accessor at every decision of 30 random games per setting and ends
    a game as an error at the first disagreement; every kind of decision is met."""
    met = np.zeros(len(DECISION_NAMES), np.int64)
    for layout, level, players, rules in SETTINGS:
        island, config = builtin_layout(layout), make_config(level, players, rules=rules)
        for game in range(30):
            g = st.new_game_array(island.geometry, config.to_array(), 1 << 18)
            rng, out = np.zeros(N_STREAMS, np.uint64), np.zeros(st.R_SIZE, np.int32)
            runners.runner(probe).record_game(g, rng, np.uint64(7), np.int64(game), np.int64(0), out)
            mem = g[st.MEM:st.MEM + st.MEM_SIZE]
            assert out[st.R_STATUS] != st.ERROR, (layout, rules, game, f"check {mem[probe.module.FAILED]} failed")
            met += mem[:len(DECISION_NAMES)]
    assert (met > 0).all(), dict(zip(DECISION_NAMES, met.tolist()))


def _expected(pub):
    """What each accessor should return on `pub`, from the schema's named fields."""
    d = st.PUB.dump(pub)
    players = range(d["P_PLAYERS"])
    hand = np.array(d["P_HAND"]).reshape(-1, N_HAND_KINDS)
    exists, flooded = d["P_EXISTS"], d["P_FLOODED"]
    cells = range(N_TILES)
    return {
        "decision": d["P_DECISION"], "decider": d["P_DECIDER"], "sunk_cell": d["P_SUNK_CELL"],
        "pending_lift": d["P_LIFT"], "lift_chosen_at": d["P_LIFT_FROM"],
        "players": d["P_PLAYERS"], "active": d["P_ACTIVE"], "actions_left": d["P_ACTIONS_LEFT"],
        "flight_used": d["P_FLIGHT_USED"] == 1, "turn": d["P_TURN"],
        "role": {(s,): d["P_ROLE"][s] for s in players}, "position": {(s,): d["P_POS"][s] for s in players},
        "cards": {(s, k): hand[s, k] for s in players for k in range(N_HAND_KINDS)},
        "cards_in_hand": {(s,): hand[s].sum() for s in players},
        "hand_limit": d["P_CFG"][C_HAND_LIMIT], "policy_arg": d["P_POLICY_ARG"],
        "capture_cards": d["P_CFG"][C_CAPTURE], "deck_cards": {(k,): d["P_CFG"][C_DECK + k] for k in range(N_KINDS)},
        "skull": d["P_CFG"][C_SKULL],
        "tile_at": {(c,): d["P_TILE_AT"][c] for c in cells}, "cell_of": {(t,): d["P_CELL_OF"][t] for t in cells},
        "fools_landing": d["P_CELL_OF"][FOOLS_LANDING],
        "temple_cells": {(t,): ((1 << d["P_CELL_OF"][2 * t]) | (1 << d["P_CELL_OF"][2 * t + 1])) & exists
                         for t in range(N_TREASURES)},
        "tile_status": {(c,): view.SUNK if not exists >> c & 1 else view.FLOODED if flooded >> c & 1 else view.DRY
                        for c in cells},
        "existing_cells": exists, "flooded_cells": flooded,
        "neighbours": {**{(c, False): d["P_GEO"][2 * c] for c in cells},
                       **{(c, True): d["P_GEO"][2 * c] | d["P_GEO"][2 * c + 1] for c in cells}},
        "captured": {(t,): bool(d["P_CAPTURED"] >> t & 1) for t in range(N_TREASURES)},
        "captured_mask": d["P_CAPTURED"], "water_level": d["P_LEVEL"],
        "flood_draws": d["P_CFG"][C_FLOODS + d["P_LEVEL"]] if d["P_LEVEL"] < d["P_CFG"][C_SKULL] else 0,
        "flood_draws_at": {(level,): d["P_CFG"][C_FLOODS + level] for level in range(d["P_CFG"][C_SKULL])},
        "treasure_pile_size": d["P_TDRAW_N"],
        "treasure_pile_count": {(k,): d["P_TDRAW_COUNT"][k] for k in range(N_KINDS)},
        "treasure_discard_count": {(k,): d["P_TDISC"][k] for k in range(N_KINDS)},
        "flood_pile_size": d["P_FDRAW_N"],
        "in_flood_discard": {(t,): bool(d["P_FDISC"] >> t & 1) for t in cells},
        "flood_discard_mask": d["P_FDISC"],
        "flood_layer": {(t,): d["P_FLAYER"][t] for t in cells},
        "flood_draw_mask": sum(1 << t for t in cells if not d["P_FDISC"] >> t & 1
                               and (d["P_CFG"][C_SUNK_CARD_STAYS] or exists >> d["P_CELL_OF"][t] & 1)),
    }


@pytest.mark.parametrize("layout, level, players, rules", SETTINGS[:3])
def test_every_accessor_reads_the_named_fields_of_recorded_games(probe, layout, level, players, rules):
    """On the final position of recorded games, every accessor returns what the schema's dump
    names, and the result row (written by the engine, not read through pub) agrees."""
    island, config = builtin_layout(layout), make_config(level, players, rules=rules)
    for game in range(3):
        rec = engine.record(island, config, probe, 2, game)
        pub = rec.pub
        for name, want in _expected(pub).items():
            f = getattr(view, name)
            for args, value in (want.items() if isinstance(want, dict) else [((), want)]):
                assert f(pub, *args) == value, (name, args)
        assert view.water_level(pub) == rec.result[st.R_LEVEL]
        assert view.popcount(view.captured_mask(pub)) == rec.result[st.R_CAPTURED]
        assert view.N_CELLS - view.popcount(view.existing_cells(pub)) == rec.result[st.R_SUNK]
        assert [view.role(pub, s) for s in range(players)] == list(rec.result[st.R_ROLE:st.R_ROLE + players])
    assert set(_expected(pub)) == set(accessors())
