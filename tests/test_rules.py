"""Rule tests on hand-built positions for the Numba engine, one or more per rule id of
docs/rules.md.

Every position is written in the text notation of fisim.position, so a test reads like the board.
Every position's legal options are asked of both the engine and the plain-Python reference and
must agree (`options`), and every part of a turn run on the engine (`play`) is also run on the
reference from the same position and seed, and must give the same events, the same decisions and
the same state. The asserted outcomes themselves are derived from docs/rules.md by hand.

tests/support/board.py holds the helpers; this module the tests of components, layouts, setup
and information, tests/test_rules_actions.py holds actions, adventurers and special cards, and
tests/test_rules_turn.py treasure draws, the hand limit, flooding, swimming, winning and losing.
"""
from collections import Counter

import numpy as np
import pytest
from support.board import (
    ALL_TILES,
    ISLAND,
    SCRIPTED,
    describe,
    encode,
    game_0_seed,
    hidden_piles,
    island,
    legal,
    play,
    position,
    set_up,
    story,
    tiles,
)

from fisim.engine import EngineGame
from fisim.engine.entries import PHASE_DRAW, PHASE_FLOOD, PHASE_TURN
from fisim.position import DRY, FLOODED, SUNK, TILE_CODES, PositionError
from fisim.reference import Game
from fisim.reference import setup as ref_setup
from fisim.rules import events as ev
from fisim.rules import state as st
from fisim.rules import view
from fisim.rules.config import SWITCHES, ConfigError, GameConfig
from fisim.rules.constants import (
    DECK_COUNTS,
    FLOOD_COUNT,
    KIND_NAMES,
    LEVELS,
    ROLE_NAMES,
    SKULL,
    START_TILE,
    TILE_NAMES,
    TREASURE_NAMES,
)
from fisim.rules.layouts import BUILTIN_NAMES, LayoutError, builtin_layout, load_layout, parse_layout
from fisim.rules.rng import FIRST, N_STREAMS, POLICY, game_seed, init_streams

# === tests: helpers ============================================================================


def test_helpers_read_the_board():
    p = position(island("ca ~BB") + "diver@IG: earth heli\npilot@FL:\n")
    assert p.status[p.cell_of("CA")] == FLOODED and p.status[p.cell_of("BB")] == SUNK
    assert p.status[p.cell_of("CS")] == DRY
    assert p.cell_of("CS") == 0 and p.cell_of("CF") == 23          # cells are numbered row-major
    for words in ("move WG", "dive FL", "heli diver diver+pilot TM", "give earth pilot", "sand pilot CA",
                  "nav diver CA", "shore2 CA DD", "discard heli", "end", "pass", "swim TM"):
        assert describe(p, encode(p, words)) == words


# === R-TILES, R-TDECK, R-FDECK, R-ROLES, R-METER ===============================================


def test_tiles_names_treasures_and_starting_tiles():
    """R-TILES: the 24 tile names; each treasure's two tiles; each adventurer's starting tile."""
    assert set(TILE_NAMES) == {
        "Temple of the Moon", "Temple of the Sun", "Whispering Garden", "Howling Garden",
        "Cave of Embers", "Cave of Shadows", "Coral Palace", "Tidal Palace", "Fools' Landing",
        "Bronze Gate", "Copper Gate", "Gold Gate", "Iron Gate", "Silver Gate", "Breakers Bridge",
        "Cliffs of Abandon", "Crimson Forest", "Dunes of Deception", "Lost Lagoon", "Misty Marsh",
        "Observatory", "Phantom Rock", "Twilight Hollow", "Watchtower"}
    assert len(TILE_NAMES) == 24
    where = {TREASURE_NAMES[t]: {TILE_NAMES[2 * t], TILE_NAMES[2 * t + 1]} for t in range(4)}
    assert where == {"Earth Stone": {"Temple of the Moon", "Temple of the Sun"},
                     "Statue of the Wind": {"Whispering Garden", "Howling Garden"},
                     "Crystal of Fire": {"Cave of Embers", "Cave of Shadows"},
                     "Ocean's Chalice": {"Coral Palace", "Tidal Palace"}}
    start = {ROLE_NAMES[r]: TILE_NAMES[START_TILE[r]] for r in range(6)}
    assert start == {"pilot": "Fools' Landing", "engineer": "Bronze Gate", "explorer": "Copper Gate",
                     "navigator": "Gold Gate", "diver": "Iron Gate", "messenger": "Silver Gate"}
    # the notation's two-letter codes name the same tiles
    codes = dict(zip(TILE_CODES, TILE_NAMES))
    assert codes == {
        "TM": "Temple of the Moon", "TS": "Temple of the Sun", "WG": "Whispering Garden",
        "HG": "Howling Garden", "CE": "Cave of Embers", "CS": "Cave of Shadows", "CP": "Coral Palace",
        "TP": "Tidal Palace", "FL": "Fools' Landing", "BG": "Bronze Gate", "CG": "Copper Gate",
        "GG": "Gold Gate", "IG": "Iron Gate", "SG": "Silver Gate", "BB": "Breakers Bridge",
        "CA": "Cliffs of Abandon", "CF": "Crimson Forest", "DD": "Dunes of Deception",
        "LL": "Lost Lagoon", "MM": "Misty Marsh", "OB": "Observatory", "PR": "Phantom Rock",
        "TH": "Twilight Hollow", "WT": "Watchtower"}


def test_treasure_deck_flood_deck_and_roles():
    """R-TDECK: 28 cards, 5 per treasure, 3 Helicopter Lift, 2 Sandbags, 3 Waters Rise!.
    R-FDECK: one flood card per tile. R-ROLES: the six adventurers."""
    counts = dict(zip(KIND_NAMES, (int(x) for x in DECK_COUNTS)))
    assert counts == {"Earth Stone": 5, "Statue of the Wind": 5, "Crystal of Fire": 5, "Ocean's Chalice": 5,
                      "Helicopter Lift": 3, "Sandbags": 2, "Waters Rise!": 3}
    assert sum(counts.values()) == 28
    p = position(ISLAND + "diver@IG:\n")
    assert sorted(p.flood_draw) == list(range(24))          # a fresh position: every tile's card
    assert len(p.treasure_draw) == 28 and sorted(p.treasure_draw) == sorted(
        k for k in range(7) for _ in range(DECK_COUNTS[k]))
    assert set(ROLE_NAMES) == {"diver", "engineer", "explorer", "messenger", "navigator", "pilot"}


def test_meter_table_and_starting_levels():
    """R-METER: flood cards per turn at levels 1..9, the skull at 10, the four difficulties."""
    assert [int(x) for x in FLOOD_COUNT[1:]] == [2, 2, 3, 3, 3, 4, 4, 5, 5]
    assert SKULL == 10
    assert LEVELS == {"novice": 1, "normal": 2, "elite": 3, "legendary": 4}
    assert [GameConfig(level=name).start_level for name in ("novice", "normal", "elite", "legendary")] == [1, 2, 3, 4]


@pytest.mark.parametrize("level,count", list(zip(range(1, 10), (2, 2, 3, 3, 3, 4, 4, 5, 5))))
def test_meter_sets_the_flood_cards_drawn(level, count):
    """R-METER, R-FLOOD-1: at level L the flood phase draws the table's count of cards, top first."""
    pile = "WT MM CG BG CF TS"                                # top last: TS is drawn first
    p = position(ISLAND + f"pilot@FL:\nwater {level}\nflood draw: {pile}\n"
                 "flood discard: CS OB TP GG FL TH IG WG BB CA DD TM CP PR SG HG LL CE\n")
    run = play(p, PHASE_FLOOD)
    assert run.story == [f"flood {t}" for t in reversed(pile.split())][:count]


@pytest.mark.parametrize("start,rises", [("novice", 9), ("normal", 8), ("elite", 7), ("legendary", 6)])
def test_waters_rise_reach_the_skull(start, rises):
    """R-METER: from Legendary the 6th Waters Rise! reaches the skull (from Novice the 9th);
    R-LOSE skull: the game is lost at once."""
    level = LEVELS[start]
    p = position(ISLAND + f"pilot@FL: earth earth wind wind fire\nwater {level}\n"
                 "treasure draw: wr wr wr\n")
    g = EngineGame.from_position(p, seed=game_0_seed())
    seen = []
    for _ in range(5):                                       # the 3 Waters Rise! come round again
        seen += [e for e in story(p, g.run(PHASE_DRAW, SCRIPTED)) if e.startswith(("water", "lose"))]
        if g.pub[st.P_STATUS] != st.PLAYING:
            break
    assert seen == [f"water {level + i}" for i in range(1, rises + 1)] + ["lose skull: skull"]
    assert g.pub[st.P_STATUS] == st.LOST and g.pub[st.P_LEVEL] == SKULL


# === R-LAYOUT-1..4 ==============================================================================

# The shapes exactly as drawn in docs/rules.md (R-LAYOUT-1, R-LAYOUT-3).
RULES_SHAPES = {
    "standard": "..##.. .####. ###### ###### .####. ..##..",
    "skull-island": "###### #.##.# ###### .####. .####.",
    "harpoon-hideout": "####.. ###... ####.# #.#### ...### ..####",
    "atoll-of-decisions-card": "..###.. .#####. ##...## ##...## .#####. ..###..",
    "bay-of-gulls": "...##... ...##... #..##..# ######## .######. ...##...",
    "shipwreck-bay": "######## ##.##.## .##..##. .######.",
    "palm-springs": "..###.. ####### .#.#.#. ...#... .#####. .#####.",
    "mutiny-towers": "#.....# #.....# #.....# ##...## ####### #######",
    "davy-jones-locker": "....#.... .####.... ###.####. .####.### ....####. ....#....",
    "treasure-island": "##...## .#####. ..###.. ..###.. .#####. ##...##",
    "island-of-shadows": "###### ###### ###### ######",
    "volcano-island": "##### ##### ##.## ##### #####",
    "island-of-death": "..###.. ####### .#####. ..###.. ..###.. ..###..",
    "bone-island": ".##..##. ######## ######## .##..##.",
    "coral-reef": ".##.... ####... ######. .###### ...#### ....##.",
    "bridge-of-horrors": "###...#### ########## ####...###",
    "atoll-of-decisions-arena": "..###.. .##.##. ##...## #.....# ##...## .##.##. ..###..",
    "arch-of-fate": "...###... ..#####.. .###.###. ###...### ##.....##",
}


def test_builtin_layouts_have_the_shapes_of_the_rules():
    """R-LAYOUT-1, R-LAYOUT-3: the standard island and the 17 named islands, 24 cells each."""
    assert set(BUILTIN_NAMES) == set(RULES_SHAPES) and len(BUILTIN_NAMES) == 18
    for name, rows in RULES_SHAPES.items():
        layout = builtin_layout(name)
        assert layout.rows == tuple(rows.split()), name
        assert len(layout.cells) == 24, name
        assert sum(r.count("#") for r in rows.split()) == 24, name


def test_standard_layout_rows_and_orthogonal_adjacency():
    """R-LAYOUT-1: rows of 2, 4, 6, 6, 4, 2 tiles; R-LAYOUT-2: adjacency is orthogonal, the
    diagonal neighbours are kept apart (for the Explorer)."""
    layout = builtin_layout("standard")
    assert [r.count("#") for r in layout.rows] == [2, 4, 6, 6, 4, 2]
    geo = layout.geometry
    cells = {rc: i for i, rc in enumerate(layout.cells)}
    mask = lambda *rcs: sum(1 << cells[rc] for rc in rcs)    # noqa: E731
    assert geo[cells[(2, 2)], 0] == mask((1, 2), (3, 2), (2, 1), (2, 3))
    assert geo[cells[(2, 2)], 1] == mask((1, 1), (1, 3), (3, 1), (3, 3))
    assert geo[cells[(0, 2)], 0] == mask((0, 3), (1, 2))      # sea all round the rest
    assert geo[cells[(0, 2)], 1] == mask((1, 1), (1, 3))
    assert geo[cells[(2, 0)], 0] == mask((3, 0), (2, 1))
    assert geo[cells[(2, 0)], 1] == mask((1, 1), (3, 1))


def test_custom_layout_errors_name_line_and_column(tmp_path):
    """R-LAYOUT-4: a bad character and a wrong cell count are rejected with line and column."""
    good = RULES_SHAPES["standard"].split()
    bad = list(good)
    bad[2] = "##x###"
    with pytest.raises(LayoutError, match=r"line 3, column 3: 'x'"):
        parse_layout("\n".join(bad))
    with pytest.raises(LayoutError, match=r"line 6, column 3: cell 25"):
        parse_layout("\n".join(good[:4] + ["######"] + good[5:]))
    with pytest.raises(LayoutError, match=r"line 6: ends with 23 '#' cells"):
        parse_layout("\n".join(good[:5] + ["..#..."]))
    with pytest.raises(LayoutError, match=r"ends with 0 '#' cells"):
        parse_layout("")
    path = tmp_path / "mine.txt"
    path.write_text("\n".join(good[:1] + ["#T####"] + good[2:]) + "\n")
    with pytest.raises(LayoutError, match=r"layout mine: line 2, column 2: 'T'"):
        load_layout(str(path))


def test_custom_layout_disconnected_is_accepted_and_reported(tmp_path):
    """R-LAYOUT-4: a layout that is not one orthogonally connected island is allowed, and said so."""
    text = "######\n......\n######\n......\n######\n......\n######\n"
    path = tmp_path / "strips.txt"
    path.write_text(text)
    layout = load_layout(str(path))
    assert len(layout.cells) == 24 and layout.connected is False
    assert load_layout("standard").connected is True
    # diagonal contact does not connect
    assert parse_layout("#.....\n.#####\n######\n######\n######\n").connected is False
    from click.testing import CliRunner

    from fisim.cli import cli
    result = CliRunner().invoke(cli, ["layouts", str(path)])
    assert result.exit_code == 0 and "NOT one connected island" in result.output


# === R-SETUP-1..6 ===============================================================================


def test_setup_places_all_24_tiles_dry_then_floods_six():
    """R-SETUP-1: every tile placed once, all dry; R-SETUP-2: 6 flood cards drawn, those tiles
    flooded and their cards on the flood discard, the other 18 in the draw pile."""
    for i in range(20):
        pub, hid, events = set_up(GameConfig(players=3), game_seed(7, i))
        tile_at = [int(x) for x in pub[st.P_TILE_AT:st.P_TILE_AT + 24]]
        assert sorted(tile_at) == list(range(24))
        assert [e for e in events if e[0] == ev.EV_PLACE] == [(ev.EV_PLACE, c, tile_at[c], 0) for c in range(24)]
        floods = [e[1] for e in events if e[0] == ev.EV_SETUP_FLOOD]
        assert len(floods) == 6 == len(set(floods))
        assert pub[st.P_EXISTS] == (1 << 24) - 1 and pub[st.P_FLOODED] == sum(1 << c for c in floods)
        assert pub[st.P_FDISC] == sum(1 << tile_at[c] for c in floods)
        pile = [int(x) for x in hid[st.H_FPILE:st.H_FPILE + pub[st.P_FDRAW_N]]]
        assert len(pile) == 18 and sorted(pile + [tile_at[c] for c in floods]) == list(range(24))


@pytest.mark.compiles
def test_setup_placement_is_uniform():
    """R-LAYOUT-2, R-SETUP-1: tiles are placed uniformly at random: over 2400 games each tile
    lands on each cell about 100 times (a placement that favours cells fails)."""
    hits = np.zeros((24, 24), dtype=np.int64)
    for i in range(2400):
        pub, _, _ = set_up(GameConfig(players=2), game_seed(11, i))
        for c in range(24):
            hits[pub[st.P_TILE_AT + c], c] += 1
    assert hits.min() >= 55 and hits.max() <= 150
    # the 6 initial floods are uniform over cells too
    floods = np.zeros(24, dtype=np.int64)
    for i in range(800):
        pub, _, _ = set_up(GameConfig(players=2), game_seed(12, i))
        floods += [(pub[st.P_FLOODED] >> c) & 1 for c in range(24)]
    assert floods.sum() == 4800 and floods.min() >= 140 and floods.max() <= 260


def test_setup_pawns_start_on_their_tiles():
    """R-SETUP-3: one adventurer per player (fixed team in seat order, or at random without
    repeats); each pawn on its role's starting tile, flooded or not."""
    team = ("messenger", "pilot", "diver", "navigator")
    start_flooded = 0
    for i in range(40):
        pub, _, events = set_up(GameConfig(players=4, team=team), game_seed(3, i))
        cell_of = {int(pub[st.P_TILE_AT + c]): c for c in range(24)}
        for s, role in enumerate(team):
            r = ROLE_NAMES.index(role)
            assert pub[st.P_ROLE + s] == r and pub[st.P_POS + s] == cell_of[START_TILE[r]]
            start_flooded += pub[st.P_FLOODED] >> int(pub[st.P_POS + s]) & 1
        assert [e for e in events if e[0] == ev.EV_TEAM] == [
            (ev.EV_TEAM, s, ROLE_NAMES.index(r), cell_of[START_TILE[ROLE_NAMES.index(r)]]) for s, r in enumerate(team)]
    assert start_flooded > 0                                  # starting on a flooded tile happens
    dealt = Counter()
    for i in range(60):
        pub, _, _ = set_up(GameConfig(players=3), game_seed(4, i))
        roles = [int(pub[st.P_ROLE + s]) for s in range(4)]
        assert len(set(roles[:3])) == 3 and roles[3] == -1 and pub[st.P_POS + 3] == -1
        dealt.update(roles[:3])
    assert set(dealt) == set(range(6))                       # every adventurer gets dealt


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_setup_deals_two_cards_each_and_never_a_waters_rise(players):
    """R-SETUP-4: 2 treasure cards per player, face up; a Waters Rise! dealt is set aside and
    replaced, then shuffled back: the draw pile holds 28 - 2P cards, all 3 Waters Rise! among them."""
    config = GameConfig(players=players, switches={"solo"} if players == 1 else ())
    set_aside_seen = 0
    for i in range(40):
        pub, hid, events = set_up(config, game_seed(5, i))
        hands = [[int(pub[st.hand_at(s, k)]) for k in range(6)] for s in range(players)]
        assert all(sum(h) == 2 for h in hands)
        n = int(pub[st.P_TDRAW_N])
        assert n == 28 - 2 * players
        pile = Counter(int(k) for k in hid[st.H_TPILE:st.H_TPILE + n])
        assert pile[6] == 3
        assert [pile[k] + sum(h[k] for h in hands if k < 6) for k in range(7)] == [int(x) for x in DECK_COUNTS]
        assert [int(pub[st.P_TDRAW_COUNT + k]) for k in range(7)] == [pile[k] for k in range(7)]
        deals = [e for e in events if e[0] in (ev.EV_DEAL, ev.EV_DEAL_WR, ev.EV_DEAL_RESHUFFLE)]
        assert all(e[2] != 6 for e in deals if e[0] == ev.EV_DEAL)
        wr = [e for e in deals if e[0] == ev.EV_DEAL_WR]
        if wr:
            set_aside_seen += 1
            assert deals[-1] == (ev.EV_DEAL_RESHUFFLE, 28 - 2 * players, 0, 0)
        else:
            assert all(e[0] == ev.EV_DEAL for e in deals)
        seats = [e[1] for e in deals if e[0] == ev.EV_DEAL]
        assert seats == sorted(seats) and Counter(seats) == {s: 2 for s in range(players)}
    assert set_aside_seen > 0


def test_setup_water_level_and_first_player():
    """R-SETUP-5: the meter at the difficulty's position (or any position below the skull, engine
    and reference); R-SETUP-6: a fixed first player, or a random one (every seat happens)."""
    for name, level in LEVELS.items():
        pub, _, events = set_up(GameConfig(players=2, level=name, first=1), game_seed(6, level))
        assert pub[st.P_LEVEL] == level and pub[st.P_ACTIVE] == 1
        assert events[-1] == (ev.EV_FIRST, 1, level, 0)
    for start in (5, 9):                                     # a meter position below the skull, unnamed
        pub, _, events = set_up(GameConfig(players=2, level=str(start), first=0), game_seed(6, start))
        assert pub[st.P_LEVEL] == start and events[-1] == (ev.EV_FIRST, 0, start, 0)
        ref = Game(builtin_layout("standard"), GameConfig(players=2, level=str(start), first=0),
                   seed=game_seed(6, start))
        ref_setup.set_up(ref)
        assert ref.level == start and tuple(ref.events[-1][:3]) == (ev.EV_FIRST, 0, start)
    firsts = Counter()
    for i in range(200):
        pub, _, _ = set_up(GameConfig(players=4), game_seed(8, i))
        firsts[int(pub[st.P_ACTIVE])] += 1
    assert set(firsts) == {0, 1, 2, 3} and min(firsts.values()) > 25


@pytest.mark.parametrize("active,players", [(0, 2), (1, 2), (2, 3), (3, 4)])
def test_play_passes_clockwise_in_seat_order(active, players):
    """R-SETUP-6, R-TURN: after a turn, the next seat (seat + 1, wrapping) is active."""
    team = ["diver", "engineer", "messenger", "navigator"][:players]
    seats = "".join(f"{r}@{g}:\n" for r, g in zip(team, ("IG", "BG", "SG", "GG")))
    p = position(island() + seats + f"active {active}\nturn 5\ntreasure draw: earth wind fire\n")
    run = play(p, PHASE_TURN, ["end"])
    assert run.story[0] == f"turn 6 {team[active]}"
    assert run.pub[st.P_ACTIVE] == (active + 1) % players


# === R-INFO =====================================================================================


def test_policy_sees_no_pile_order():
    """R-INFO: two positions that differ only in the order of the draw piles give the policy the
    same public state and the same options at every kind of decision; the order is kept outside
    `pub`, the only thing a policy is given."""
    def pos(treasure, flood, decision):
        return position(island("ca wg") + "navigator@GG: earth heli\ndiver@IG: sand earth earth wind fire ocean\n"
                        f"treasure draw: {treasure}\nflood draw: {flood}\ndecision: {decision}\n"
                        "flood discard: CS OB TP GG FL TH IG WG BB CA DD CP PR SG HG LL WT MM CG BG TS\n")
    for decision in ("action", "window", "discard diver"):
        a = pos("fire ocean wr earth wind", "TM CE CF", decision)
        b = pos("wind wr earth ocean fire", "CF TM CE", decision)
        ea, eb = EngineGame.from_position(a), EngineGame.from_position(b)
        assert np.array_equal(ea.pub, eb.pub)
        assert hidden_piles(ea) != hidden_piles(eb)
        assert legal(a) == legal(b)


def test_waters_rise_tells_which_cards_are_on_top_but_not_their_order():
    """R-INFO: after a Waters Rise! the policy may know which flood cards were put on top (pub
    marks them) but not their order: under eight seeds the hidden order varies, pub does not."""
    p = position(island("tp dd cp") + "diver@IG:\ntreasure draw: fire earth wr\n"
                 "flood discard: TP DD CP GG\n")
    run = play(p, PHASE_DRAW)
    assert run.story == ["draw diver wr", "water 3", "flood discard on top 4", "draw diver earth"]
    on_top = {TILE_CODES[t] for t in range(24) if run.pub[st.P_FLAYER + t] > 0}
    assert on_top == tiles("TP DD CP GG")
    orders = {tuple(run.flood_pile()[-4:])}
    for i in range(1, 8):
        g = EngineGame.from_position(p, seed=game_seed(0, i))
        g.run(PHASE_DRAW, SCRIPTED)
        assert np.array_equal(g.pub, run.pub)
        orders.add(tuple(TILE_CODES[t] for t in hidden_piles(g)[1][-4:]))
    assert len(orders) > 1 and all(set(o) == tiles("TP DD CP GG") for o in orders)


def test_a_position_says_which_flood_cards_a_waters_rise_put_on_top():
    """R-DRAW-WR, R-INFO: the notation's 'flood on top' groups are the top cards of the flood draw
    pile, the latest group on top, and pub marks them layer by layer as a Waters Rise! would."""
    p = position(island("tp") + "diver@IG:\nflood on top: TP DD | CP\n")
    g = EngineGame.from_position(p)
    layers = {TILE_CODES[t]: int(g.pub[st.P_FLAYER + t]) for t in range(24) if g.pub[st.P_FLAYER + t]}
    assert layers == {"TP": 1, "DD": 1, "CP": 2} and g.pub[st.P_LAYER_TOP] == 2
    pile = [TILE_CODES[t] for t in hidden_piles(g)[1]]
    assert pile[-1] == "CP" and set(pile[-3:-1]) == {"TP", "DD"} and len(pile) == 24
    run = play(p, PHASE_FLOOD)          # water 2: two cards, CP then one of the first group
    assert run.story[0] == "flood CP" and run.story[1] in ("sink TP", "flood DD")
    with pytest.raises(PositionError, match="top cards of the flood draw pile"):
        position(island("") + "diver@IG:\nflood on top: TP\nflood draw: TP GG\n")


def test_flood_draw_mask_names_the_cards_in_the_flood_draw_pile():
    """R-INFO, R-FLOOD-1: view.flood_draw_mask is every tile's card but those in the flood discard
    and those of the sunk tiles CA and BB; switch sunk-card-stays: the sunk tiles' cards are in
    the deck too, CA's in the pile, BB's in the discard. Either way it equals the contents of the
    hidden pile, which it does not read."""
    board = island("~CA ~BB wg") + "diver@IG:\n"
    for rules, discard, in_pile in (("", "WG TM", ALL_TILES - tiles("WG TM CA BB")),
                                    ("rules: sunk-card-stays\n", "WG TM BB", ALL_TILES - tiles("WG TM BB"))):
        g = EngineGame.from_position(position(board + f"flood discard: {discard}\n" + rules))
        mask = view.flood_draw_mask(g.pub)
        assert {TILE_CODES[t] for t in range(24) if mask >> t & 1} == in_pile
        assert mask == sum(1 << t for t in hidden_piles(g)[1]) and len(hidden_piles(g)[1]) == len(in_pile)


SPLITMIX_M1, SPLITMIX_M2 = 0xBF58476D1CE4E5B9, 0x94D049BB133111EB   # splitmix64's published constants


def _unmix64(z):
    """The inverse of splitmix64's finalizer (fisim.rules.rng.mix64): what a policy could compute."""
    def unshift(z, s):
        x = z
        for _ in range(64 // s):
            x = z ^ (x >> s)
        return x
    z = unshift(z, 31)
    z = unshift(z * pow(SPLITMIX_M2, -1, 2**64) % 2**64, 27)
    z = unshift(z * pow(SPLITMIX_M1, -1, 2**64) % 2**64, 30)
    return z


def _seed_behind(counter, stream):
    """The game seed a stream seeded as init_streams seeds the others, mix64(seed ^ (k + 1) * M2),
    was seeded from: the attack a policy could make on the counter it is handed."""
    return _unmix64(int(counter)) ^ ((stream + 1) * SPLITMIX_M2 % 2**64)


def test_the_policy_stream_tells_nothing_of_the_piles():
    """R-INFO: the counter of the random stream a policy is handed does not give the game away.
    The attack that works on a stream seeded as the others are (undo the mix: the game's seed, and
    a setup from it: every pile) recovers every seed from the FIRST stream; on the policy stream
    (seeded one-way, fisim.rules.rng) it predicts the next treasure card no better than a guess
    from the public counts: hits within 4 standard deviations of what such a guess expects."""
    games, hits, expected, variance = 600, 0, 0.0, 0.0
    config = GameConfig(players=3)
    for i in range(games):
        seed = game_seed(13, i)
        streams = np.zeros(N_STREAMS, np.uint64)
        init_streams(np.uint64(seed), streams)
        assert _seed_behind(streams[FIRST], FIRST) == seed
        pub, g, _ = set_up(config, seed)
        top = int(g[st.H_TPILE + pub[st.P_TDRAW_N] - 1])
        guessed_pub, guessed, _ = set_up(config, _seed_behind(streams[POLICY], POLICY))
        guess = int(guessed[st.H_TPILE + guessed_pub[st.P_TDRAW_N] - 1])
        chance = pub[st.P_TDRAW_COUNT + guess] / pub[st.P_TDRAW_N]      # of a guess blind to the order
        hits += guess == top
        expected += chance
        variance += chance * (1 - chance)
    assert hits <= expected + 4 * variance ** 0.5, (hits, expected, variance ** 0.5)


# === rule switches and the solo variant: configuration ==========================================


def test_switches_are_the_rules_switches():
    """The rule switches fisim implements (docs/rules.md §8): navigator-plain, heli-all,
    swim-seed000, no-heli-rescue, swim-seed001, diver-flooded-only, diver-sunk-only,
    sunk-card-stays, hand-after-draw, solo."""
    assert set(SWITCHES) == {"navigator-plain", "heli-all", "swim-seed000", "no-heli-rescue", "swim-seed001",
                             "diver-flooded-only", "diver-sunk-only", "sunk-card-stays", "hand-after-draw", "solo"}
    with pytest.raises(ConfigError):
        GameConfig(switches={"heli-some"}).validate()


@pytest.mark.parametrize("pair", [("swim-seed000", "swim-seed001"), ("diver-flooded-only", "diver-sunk-only")])
def test_two_readings_of_one_rule_cannot_be_combined(pair):
    """R-SWIM-2 (swim-seed000, swim-seed001) and R-ROLE-DIVER (diver-flooded-only,
    diver-sunk-only) each have two switches that read the rule two ways: a setting takes one of
    them, with any other switch; both are refused in one message naming the two."""
    for s in pair:
        GameConfig(switches={s, "heli-all", "sunk-card-stays", "hand-after-draw"}).validate()
    with pytest.raises(ConfigError) as refused:
        GameConfig(switches=set(pair)).validate()
    message = str(refused.value)
    assert "\n" not in message and all(repr(s) in message for s in pair)


def test_solo_config_draws_three_and_holds_seven():
    """R-VAR-SOLO: 1 player with 1 adventurer, 3 treasure cards a turn, hand limit 7; solo is for
    one player only, and one player needs solo."""
    solo = GameConfig(players=1, switches={"solo"}).validate()
    assert (solo.draws, solo.hand_limit, solo.actions) == (3, 7, 3)
    assert (GameConfig(players=2).draws, GameConfig(players=2).hand_limit) == (2, 5)
    with pytest.raises(ConfigError, match="solo"):
        GameConfig(players=1).validate()
    with pytest.raises(ConfigError, match="solo"):
        GameConfig(players=2, switches={"solo"}).validate()
    pub, _, _ = set_up(solo, game_seed(1, 1))
    assert pub[st.P_PLAYERS] == 1 and pub[st.P_ROLE + 1] == -1
