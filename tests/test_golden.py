"""Golden transcripts: whole games replayed and diffed against the committed text, so that any
change to what the engine does shows up in review as a change in a readable game (OpenSpiel's
playthroughs). After an intended rules change: FISIM_UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py"""
import os
from pathlib import Path

import pytest

from fisim import engine
from fisim.rules.config import GameConfig
from fisim.rules.layouts import builtin_layout
from fisim.transcript import format_transcript
from policies import load_policy

GOLDEN = Path(__file__).parent / "golden"

GAMES = {
    "standard-3p-normal-random": ("standard", GameConfig(players=3, level="normal"), "random", 1, 0),
    "skull-island-4p-legendary-random-heli-all": (
        "skull-island", GameConfig(players=4, level="legendary", switches={"heli-all"}), "random", 2, 3),
    "coral-reef-2p-novice-random-navigator-plain": (
        "coral-reef", GameConfig(players=2, level="novice", team=("navigator", "diver"),
                                 switches={"navigator-plain"}), "random", 3, 11),
    "standard-solo-elite-passive": ("standard", GameConfig(players=1, level="elite", team=("pilot",),
                                                            switches={"solo"}), "passive", 4, 0),
    "standard-3p-novice-planner": ("standard", GameConfig(players=3, level="novice"), "planner", 5, 0),
    "standard-4p-normal-deep": ("standard", GameConfig(players=4, level="normal"), "deep", 6, 0),
}


@pytest.mark.parametrize("name", sorted(GAMES))
def test_transcript_matches_golden(name):
    layout_name, config, policy, seed, game = GAMES[name]
    layout = builtin_layout(layout_name)
    rec = engine.record(layout, config, load_policy(policy), seed, game)
    text = format_transcript(rec.events, layout, f"{name}: seed {seed}, game {game}")
    path = GOLDEN / f"{name}.txt"
    if os.environ.get("FISIM_UPDATE_GOLDEN"):
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(text)
    assert path.exists(), f"no golden transcript {path.name}; run with FISIM_UPDATE_GOLDEN=1 to create it"
    assert text == path.read_text()
