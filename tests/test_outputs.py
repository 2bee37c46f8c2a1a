"""What a user reads and loads: simulate's defaults and outputs, help texts, per-game files that
read in one call, `fisim.load`'s columns, and `fisim compare` by team, by adventurer and as data."""
import inspect
import io
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from support.commands import run
from support.reports import fake_store

import fisim
from fisim import defaults, grid
from fisim.cell import Cell, play, play_chunks
from fisim.cli import cli
from fisim.comparison import compare, paired_difference, pairing
from fisim.results.games import games_frame, write_games
from fisim.rules.config import SWITCHES
from fisim.rules.constants import LEVELS, ROLE_NAMES, TILE_NAMES
from fisim.simulation import frames, simulate
from fisim.stats import Z95
from fisim.store import Store
from fisim.sweeping import run_sweep
from policies import BUILTIN, CLAIRVOYANT_NOTE, PUBLISHED, load_policy

pytestmark = pytest.mark.compiles      # needs the compiled engine: games at its speed

ROOT = Path(__file__).parent.parent
REFERENCE = ROOT / "docs" / "cli.md"


def flat(text):
    """Help text with click's line wrapping undone."""
    return re.sub(r"\s+", " ", text).replace("- ", "-")


# --- defaults and help -----------------------------------------------------------------------

def test_every_command_and_api_function_reads_its_defaults_from_one_module():
    """fisim.defaults is the one place a default is written: the Python API's arguments and the
    command line's options are those values."""
    for function, name in ((simulate, "policy"), (fisim.simulate, "policy"), (fisim.sweep, "policies"),
                           (fisim.tune, "policy")):
        assert inspect.signature(function).parameters[name].default == defaults.POLICY, function.__qualname__
    assert inspect.signature(fisim.simulate).parameters["games"].default == defaults.SIMULATE_GAMES
    assert inspect.signature(fisim.sweep).parameters["levels"].default == defaults.LEVELS
    assert inspect.signature(fisim.tune).parameters["max_games"].default == defaults.TUNE_MAX_GAMES
    expected = {"simulate": {"policy": defaults.POLICY, "games": defaults.SIMULATE_GAMES, "level": defaults.LEVEL},
                "replay": {"policy": defaults.POLICY},
                "sweep": {"policies_text": defaults.POLICY, "levels": defaults.LEVELS,
                          "players_text": defaults.PLAYER_COUNTS, "out": defaults.SWEEP_OUT},
                "tune": {"policy": defaults.POLICY, "max_games": defaults.TUNE_MAX_GAMES},
                "ladder": {"games": defaults.LADDER_GAMES, "deals": defaults.LADDER_DEALS,
                           "replayer": defaults.REPLAYER, "out": defaults.LADDER_OUT}}
    for command, options in expected.items():
        params = {p.name: p.default for p in cli.commands[command].params}
        for name, value in options.items():
            assert params[name] == value, (command, name)
    for command in ("simulate", "replay"):
        text = flat(run(command, "--help").stdout)
        assert f"[default: {defaults.POLICY}]" in text
        for name in BUILTIN:
            assert name in text.split("--policy")[1].split("--rules")[0], (command, name)
    assert CLAIRVOYANT_NOTE in flat(run("policies").stdout)     # where the --policy help points


def test_the_published_reports_were_played_by_the_published_policy_as_it_plays_now():
    """A policy whose play changes gets a new version; its published reports must be played again."""
    label = f"{PUBLISHED}@{load_policy(PUBLISHED).VERSION}"
    index = (ROOT / "reports" / "README.md").read_text()
    assert f"policy\n**{label}**" in index
    for report in ("balance", "layouts", "rules"):
        assert f"(policy {label}, expert@" in (ROOT / "reports" / report / "report.md").read_text(), report


@pytest.mark.parametrize("command", ["simulate", "replay", "sweep"])
def test_every_rule_switch_is_named_in_help_and_explained_in_the_reference(command):
    """The help lists the switches by name and points to the reference, which explains each
    (issue 47, 7: explained in the help, they made it about 25 lines)."""
    text = flat(run(command, "--help").stdout)
    reference = flat(REFERENCE.read_text())
    assert "docs/cli.md says what each switch reads" in text
    for name, meaning in SWITCHES.items():
        explained = meaning.split(": ", 1)[1]
        assert name in text, (command, name)
        assert f"`{name}`: {flat(meaning)}" in reference and explained in reference, name


def test_replay_has_a_legend_for_the_tile_codes():
    r = run("replay", "--policy", "random", "--seed", "2", "--game", "1")
    assert r.returncode == 0, r.stderr
    legend = r.stdout.split("Tile codes:\n", 1)[1].split("\n  Turn")[0]
    board = r.stdout.split("Island (tile codes", 1)[1].split("Tile codes:")[0]
    for code in set(re.findall(r"\b[A-Z]{2}\b", board)):
        name = re.search(rf"\b{code} ([A-Z][\w' ]+?)(?:\s{{2,}}|\n|$)", legend)
        assert name and name.group(1) in TILE_NAMES, code


# --- simulate --------------------------------------------------------------------------------

def test_simulate_prints_each_adventurers_win_rate_and_machine_readable_rates():
    args = ["simulate", "--policy", "random", "--level", "novice", "--players", "2", "--games", "3000", "--seed", "4"]
    text = run(*args)
    as_json = run(*args, "--format", "json")
    as_csv = run(*args, "--format", "csv")
    assert text.returncode == as_json.returncode == as_csv.returncode == 0, text.stderr + as_json.stderr
    frame = simulate(level="novice", players=2, policy="random", games=3000, seed=4)
    rows = pd.DataFrame(json.loads(as_json.stdout))
    csv = pd.read_csv(io.StringIO(as_csv.stdout))
    assert csv["measure"].tolist() == rows["measure"].tolist()
    assert np.allclose(csv["value"], rows["value"]) and csv["games"].tolist() == rows["games"].tolist()
    by_role = rows[rows["measure"] == "win with"].set_index("of")
    assert "win rate of the games with each adventurer" in text.stdout
    for role in ROLE_NAMES:
        mine = frame["team"].astype(str).str.split("+").map(lambda team: role in team)
        assert by_role.loc[role, "games"] == mine.sum() and by_role.loc[role, "count"] == frame["won"][mine].sum()
        assert by_role.loc[role, "ci_low"] - 1e-12 <= by_role.loc[role, "value"] <= by_role.loc[role, "ci_high"]
        assert re.search(rf"^  {role} .* {mine.sum():,}$", text.stdout, flags=re.M), role
    losses = rows[rows["measure"] == "loss"].set_index("of")["count"]
    assert losses.to_dict() == {c: int((frame["cause"] == c).sum()) for c in losses.index} and len(losses) == 4
    win = rows[rows["measure"] == "win"].iloc[0]
    assert win["count"] == frame["won"].sum() and win["games"] == 3000
    assert set(rows["policy"]) == {f"random@{load_policy('random').VERSION}"}
    bad = run("simulate", "--format", "xml")
    assert "--format" in bad.stderr and bad.returncode == 2


def test_the_game_frame_names_teams_as_a_loop_over_games_would():
    cell = Cell.of(players=4, policy="random")
    rows = play(cell, 1, 0, 5000)
    frame = games_frame(rows, cell.config, "standard", cell.policy_label, 1, 0)
    names = np.array(ROLE_NAMES)
    assert frame["team"].astype(str).tolist() == ["+".join(names[r]) for r in rows[:, 8:12]]
    assert frame["level"].dtype == pd.CategoricalDtype(list(LEVELS), ordered=True)


def test_out_is_written_chunk_by_chunk_and_never_half(tmp_path):
    cell = Cell.of(players=3, policy="random")
    chunks = list(frames(cell, 2, play_chunks(cell, 2, 0, 3000, chunk=700)))
    assert len(chunks) == 5
    whole = simulate(players=3, policy="random", seed=2, games=3000)
    for name in ("games.parquet", "games.csv"):
        write_games(tmp_path / name, iter(chunks))
    assert pd.read_parquet(tmp_path / "games.parquet")["turns"].tolist() == whole["turns"].tolist()
    assert pd.read_csv(tmp_path / "games.csv")["team"].tolist() == whole["team"].astype(str).tolist()

    def interrupted():
        yield chunks[0]
        raise KeyboardInterrupt
    for name in ("games.parquet", "other.csv"):
        before = sorted(p.name for p in tmp_path.iterdir())
        with pytest.raises(KeyboardInterrupt):
            write_games(tmp_path / name, interrupted())
        assert sorted(p.name for p in tmp_path.iterdir()) == before     # old file kept, no temporary left
    assert len(pd.read_parquet(tmp_path / "games.parquet")) == 3000


# --- stores ----------------------------------------------------------------------------------

def test_a_per_game_folder_reads_in_one_pandas_call(tmp_path):
    """Two and four players: 30 and 360 possible teams, so the team dictionary once needed int8
    indices in one file and int16 in another."""
    cells = grid.expand(["standard"], ["normal", "novice"], [2, 4], "random", ["random"], [()])
    run_sweep(cells, tmp_path / "s", seed=1, target={"games": 1500}, per_game=True, chunk_games=1000)
    games = pd.read_parquet(tmp_path / "s" / "games")
    assert len(games) == 4 * 1500
    assert games.groupby(["players", "level"], observed=True).size().tolist() == [1500] * 4
    assert list(games.sort_values("level")["level"].unique()) == ["novice", "normal"]
    assert games["team"].str.count(r"\+").groupby(games["players"]).unique().map(list).to_dict() == {2: [1], 4: [3]}


def test_load_orders_levels_and_names_each_adventurers_results(tmp_path):
    cells = grid.expand(["standard"], list(LEVELS)[::-1], [3], "random", ["random"], [()])
    fake_store(tmp_path / "s", cells, 2000, 1000)
    frame = fisim.load(tmp_path / "s")
    assert frame["level"].cat.ordered and frame.sort_values("level")["level"].tolist() == list(LEVELS)
    chunks = Store(tmp_path / "s").read_chunks()
    for _, cell in frame.iterrows():
        mine = chunks[chunks["cell"] == cell["cell"]]
        for i, role in enumerate(ROLE_NAMES):
            games = sum(int(g[i]) for g in mine["role_games"])
            wins = sum(int(w[i]) for w in mine["role_wins"])
            assert (cell[f"{role}_games"], cell[f"{role}_wins"]) == (games, wins)
            assert cell[f"{role}_rate"] == pytest.approx(wins / games)
        assert sum(cell[f"{r}_games"] for r in ROLE_NAMES) == 3 * cell["games"]


# --- compare ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def teams_store(tmp_path_factory):
    out = tmp_path_factory.mktemp("teams") / "s"
    fake_store(out, grid.expand(["standard"], ["novice", "elite"], [2], "all", ["random"], [()]), 2000, 1000)
    return out


def test_compare_by_team_ranks_every_team_against_the_best(teams_store):
    frame = compare(teams_store, "team")
    cells = fisim.load(teams_store)
    for level, group in frame.groupby("level", observed=True):
        expected = cells[cells["level"] == level].sort_values(["rate", "team"], ascending=[False, True])
        assert group["team"].tolist() == expected["team"].tolist() and len(group) == 15
        assert group["rank"].tolist() == list(range(1, 16))
        assert set(group["baseline"]) == {expected["team"].iloc[0]}
        assert (group["difference"].iloc[1:] <= 0).all()
    text = run("compare", str(teams_store), "--by", "team").stdout
    assert text.count("(best)") == 2 and text.count(" 15. ") == 2


def test_compare_by_role_and_as_csv_or_json(tmp_path):
    cells = grid.expand(["standard"], ["normal"], [2, 3], "random", ["random"], [()])
    fake_store(tmp_path / "s", cells, 3000, 1000)
    frame = compare(tmp_path / "s", "role")
    loaded = fisim.load(tmp_path / "s").set_index("players")
    assert len(frame) == 2 * len(ROLE_NAMES)
    for _, r in frame.iterrows():
        cell = loaded.loc[r["players"]]
        assert r["games"] == cell[f"{r['role']}_games"] and r["rate"] == pytest.approx(cell[f"{r['role']}_rate"])
        without = (cell["wins"] - cell[f"{r['role']}_wins"]) / (cell["games"] - cell[f"{r['role']}_games"])
        assert r["difference"] == pytest.approx(r["rate"] - without)
    for fmt, read in (("csv", lambda s: pd.read_csv(io.StringIO(s))), ("json", lambda s: pd.DataFrame(json.loads(s)))):
        r = run("compare", str(tmp_path / "s"), "--by", "role", "--format", fmt)
        assert r.returncode == 0, r.stderr
        assert np.allclose(read(r.stdout)["rate"], frame["rate"], rtol=0, atol=0.5e-10)    # 10 decimals


def test_the_pairing_correlation_and_how_much_it_narrows_the_interval():
    rng = np.random.default_rng(5)
    luck = rng.random(20_000)
    for noise in (0.0, 0.3, 1.0):
        a = luck + noise * rng.random(20_000) < 0.5 + noise / 2
        b = luck + noise * rng.random(20_000) < 0.45 + noise / 2
        r, narrowing = pairing(a, b)
        assert r == pytest.approx(np.corrcoef(a, b)[0, 1])
        _, low, high = paired_difference(a, b)
        unpaired = Z95 * np.sqrt(a.mean() * (1 - a.mean()) / len(a) + b.mean() * (1 - b.mean()) / len(b))
        assert narrowing == pytest.approx(1 - (high - low) / 2 / unpaired)
    assert np.isnan(pairing(np.ones(10, bool), np.zeros(10, bool))[0])
