"""The declared layouts of the engine's arrays (fisim.rules.schema): offsets derived and checked,
a readable dump, and the lookahead copy restoring exactly the fields actions change."""
import numpy as np
import pytest

from fisim import engine
from fisim.rules import config as cf
from fisim.rules import state as st
from fisim.rules.config import make_config
from fisim.rules.layouts import load_layout
from fisim.rules.schema import ACTION, PLAY, SETUP, Layout
from policies import load_policy


@pytest.mark.parametrize("layout", [st.PUB, st.GAME, st.RESULT, cf.CONFIG], ids=lambda x: x.title)
def test_fields_tile_their_array_without_gap_or_overlap(layout):
    at = layout.start
    for f in layout.fields:
        assert layout.offset[f.name] == at
        at += f.size
    assert at == layout.end
    names = [f.name for f in layout.fields]
    assert len(names) == len(set(names))


def test_the_layouts_fit_together():
    assert st.P_SIZE == st.PUB.size and st.GAME.start == st.P_SIZE
    assert st.PUB.field("P_CFG").size == cf.C_SIZE
    assert st.LOG == st.GAME.end - 1 and st.R_SIZE == st.RESULT.size


def test_a_constant_that_does_not_hold_its_fields_offset_is_refused():
    lay = Layout("demo")
    A = lay.add("A", 2, "two slots", SETUP)
    B = lay.add("B", 1, "one slot")
    assert (A, B) == (0, 2)
    assert lay.close({"A": 0, "B": 2}, size=3) is lay
    with pytest.raises(ValueError, match="constant B is 1"):
        lay.close({"A": 0, "B": 1})
    with pytest.raises(ValueError, match="add up to 3 ints, not 4"):
        lay.close({"A": 0, "B": 2}, size=4)
    with pytest.raises(ValueError, match="declared twice"):
        lay.add("A", 1, "again")
    with pytest.raises(ValueError, match="size 0"):
        lay.add("C", 0, "empty")


def test_lookahead_ranges_cover_exactly_the_action_fields():
    declared = {i for f in st.PUB.fields if f.changes == ACTION
                for i in range(st.PUB.offset[f.name], st.PUB.offset[f.name] + f.size)}
    ranged = {i for lo, hi in st.LOOKAHEAD_RANGES for i in range(lo, hi)}
    assert declared == ranged
    assert {f.name for f in st.PUB.fields if f.changes == ACTION} == {
        "P_FLOODED", "P_POS", "P_HAND", "P_CAPTURED", "P_TDISC", "P_ACTIONS_LEFT", "P_FLIGHT_USED"}
    assert all(f.changes in (SETUP, PLAY, ACTION) for f in st.PUB.fields)


def test_dump_names_every_field_of_a_played_game():
    rec = engine.record(load_layout("standard"), make_config("normal", 3), load_policy("random"), 5, 2)
    d = st.PUB.dump(rec.pub)
    assert list(d) == [f.name for f in st.PUB.fields]
    assert d["P_PLAYERS"] == 3 and len(d["P_POS"]) == 4 and d["P_POS"][3] == -1
    assert d["P_STATUS"] == rec.result[st.R_STATUS] and d["P_TURN"] == rec.result[st.R_TURNS]
    g = st.new_game_array(load_layout("standard").geometry, make_config("normal", 3).to_array(), 64)
    full = st.dump(g)
    assert "MEM" not in full and "OPTS" not in full and full["X_LOG_CAP"] == 64
    assert full["P_CFG"][cf.C_PLAYERS] == 3 and "MEM" in st.dump(g, scratch=True)


def test_restore_undoes_every_change_an_action_or_special_card_can_make():
    pub = np.arange(st.P_SIZE, dtype=np.int32)
    sp = pub.copy()
    for f in st.PUB.fields:
        if f.changes == ACTION:
            lo = st.PUB.offset[f.name]
            sp[lo:lo + f.size] = -7
    st.restore(sp, pub)
    assert (sp == pub).all()
