"""Tests of the plain-Python reference implementation of the rules (fisim.reference).

Whole games under the `random` policy on every layout and rule switch, with invariants checked
at every decision; and hand-built positions whose legal options are asserted, one per
adventurer's power, Helicopter Lifts and swimming (rule ids from docs/rules.md).
"""
import re

import pytest

from fisim.position import CARD_CODES, DRY, FLOODED, SUNK, TILE_CODES, parse_position
from fisim.reference import Game, play, random_chooser
from fisim.rules.config import SWITCHES, GameConfig
from fisim.rules.constants import DECK_COUNTS, FOOLS_LANDING, LEVELS, ROLE_NAMES, SKULL
from fisim.rules.events import (
    EV_CHOICE,
    EV_DEAL,
    EV_DEAL_WR,
    EV_DROWN,
    EV_FIRST,
    EV_FLOOD,
    EV_LOSE,
    EV_PLACE,
    EV_SETUP_FLOOD,
    EV_SINK,
    EV_TEAM,
    EV_TURN,
    EV_WATERS_RISE,
    EV_WIN,
)
from fisim.rules.layouts import BUILTIN_NAMES, builtin_layout
from fisim.rules.options import ACTION, DISCARD, LIFT, LIFT_DEST, PASS, SWIM, WINDOW, decode, otype, unpack
from fisim.rules.options import code as option_code

# --- reading options ---------------------------------------------------------------------------


def describe(game, c):
    """An option as words, e.g. 'dive CF', 'nav explorer CF', 'heli pilot diver+pilot FL'."""
    name, f1, f2, f3 = decode(c)
    tile = lambda cell: TILE_CODES[game.board.tile_at[cell]]           # noqa: E731
    role = lambda seat: ROLE_NAMES[game.players[seat].role]            # noqa: E731
    if name in ("end", "pass"):
        return name
    if name in ("move", "fly", "dive", "swim", "shore", "lift-to"):
        return f"{name} {tile(f1)}"
    if name == "nav":
        return f"nav {role(f1)} {tile(f2)}"
    if name == "shore2":
        return f"shore2 {tile(f1)} {tile(f2)}"
    if name == "give":
        return f"give {CARD_CODES[f1]} {role(f2)}"
    if name in ("capture", "discard"):
        return f"{name} {CARD_CODES[f1]}"
    if name == "heli":
        pawns = "+".join(role(s) for s in range(len(game.players)) if f2 >> s & 1)
        return f"heli {role(f1)} {pawns} {tile(f3)}"
    if name == "sand":
        return f"sand {role(f1)} {tile(f2)}"
    raise AssertionError(name)


def options(game, prefix=None):
    """The legal options of a position as a set of words (only those starting with `prefix`);
    a Helicopter Lift (chosen in two steps) as each lift it can become, with its destination."""
    found = game.legal_options()
    assert found == sorted(set(found))
    lifts = [c | unpack(d)[1] for c in found if unpack(c)[0] == LIFT for d in game.lift_options(c)]
    words = {describe(game, c) for c in [c for c in found if unpack(c)[0] != LIFT] + lifts}
    return {w for w in words if prefix is None or w.split()[0] == prefix}


def tiles(text):
    return set(text.split())


BOARD = """
.  .  TM TS .  .
.  WG HG CE CS .
CP TP FL BG CG GG
IG SG BB CA CF DD
.  LL MM OB PR .
.  .  TH WT .  .
"""
ALL_TILES = set(TILE_CODES)


def board(changes=""):
    """The standard board above with some tiles flooded ('sg') or sunk ('~BB')."""
    text = BOARD
    for token in changes.split():
        text = re.sub(rf"(?<!\S){token.lstrip('~').upper()}(?!\S)", token, text)
    return text


def position(changes, rest):
    return Game.from_position(parse_position(board(changes) + rest))


def test_board_helper():
    p = parse_position(board("sg ~BB") + "diver@IG:\n")
    assert p.status[p.cell_of("SG")] == 1 and p.status[p.cell_of("BB")] == SUNK


# --- invariants over whole games -----------------------------------------------------------------


def check_invariants(game, kind=None, seat=None, sunk=-1):
    """What must hold at every decision point and at the end of every game."""
    # each of the 28 treasure cards in exactly one place (R-TDECK)
    counts = [0] * len(DECK_COUNTS)
    for k in game.treasure_draw + game.treasure_discard:
        counts[k] += 1
    for p in game.players:
        assert min(p.hand) >= 0
        for k, n in enumerate(p.hand):
            counts[k] += n
    assert counts == list(DECK_COUNTS)
    # flood cards are exactly the tiles that have not sunk (R-FDECK, R-FLOOD-1), or all of them
    # (switch sunk-card-stays)
    unsunk = sorted(t for c, t in enumerate(game.board.tile_at)
                    if game.board.status[c] != SUNK or game.sunk_card_stays)
    assert sorted(game.flood_draw + game.flood_discard) == unsunk
    # no pawn on a sunk tile, except those still to swim from the tile that just sank
    for p in game.players:
        assert game.board.exists(p.cell) or (kind == SWIM and p.cell == sunk)
    # R-HAND: only a player at a discard decision is over the limit (switch hand-after-draw: or
    # the active player at a window between two cards drawn)
    limit = game.config.hand_limit
    drawing = game.hand_after_draw and kind == WINDOW
    for p in game.players:
        assert sum(p.hand) <= limit or (kind == DISCARD and p.seat == seat) or (drawing and p.seat == game.active)
    assert game.config.start_level <= game.level <= SKULL


def check_end(game):
    """The invariants at the end; a lost game may leave pawns on the tile whose sinking lost it."""
    last_sunk = next((e[1] for e in reversed(game.events) if e[0] == EV_SINK), -1)
    if game.result["won"] or game.result["cause"] == "skull":
        last_sunk = -1
    check_invariants(game, SWIM, None, last_sunk)


class Checker:
    """A chooser that checks the invariants at every decision, then plays like `random`."""

    def __init__(self):
        self.level = 0
        self.decisions = 0

    def __call__(self, game, kind, seat, found):
        assert len(found) >= 2 and found == sorted(set(found))
        assert game.legal_options() == found
        d = game.decision
        assert (d.kind, d.seat) == (kind, seat)
        if kind == LIFT_DEST:       # the state of the decision the lift was chosen at
            kind = d.lift_from
        check_invariants(game, kind, seat, d.sunk)
        assert game.level >= self.level                      # the water level never falls
        self.level = game.level
        self.decisions += 1
        return random_chooser(game, kind, seat, found)


SETTINGS = ([("official", 3)] + [(s, 1 if s == "solo" else 2 + i % 3) for i, s in enumerate(SWITCHES)]
            + [("heli-all+navigator-plain+no-heli-rescue+swim-seed000", 4)])
LEVEL_NAMES = tuple(LEVELS)


@pytest.mark.parametrize("rules,players", SETTINGS)
@pytest.mark.parametrize("layout_name", BUILTIN_NAMES)
def test_random_games_keep_invariants(layout_name, rules, players):
    layout = builtin_layout(layout_name)
    switches = () if rules == "official" else tuple(rules.split("+"))
    for i in range(20):
        config = GameConfig(players=players, level=LEVEL_NAMES[i % 4], switches=switches).validate()
        checker = Checker()
        game = play(layout, config, 2024, i, checker)
        check_end(game)
        check_transcript(game, config)


def check_transcript(game, config):
    """Events are 4 ints; setup comes first in model order; the game ends with WIN or LOSE."""
    ev = game.events
    assert all(len(e) == 4 and all(type(x) is int for x in e) for e in ev)
    codes = [e[0] for e in ev]
    p = config.players
    assert codes[:24] == [EV_PLACE] * 24 and [e[1] for e in ev[:24]] == list(range(24))
    assert codes[24:24 + p] == [EV_TEAM] * p
    assert codes[24 + p:30 + p] == [EV_SETUP_FLOOD] * 6
    deal_end = codes.index(EV_FIRST)
    assert sum(1 for c in codes[30 + p:deal_end] if c == EV_DEAL) == 2 * p
    assert codes[deal_end + 1] == EV_TURN
    assert codes[-1] in (EV_WIN, EV_LOSE) and codes.count(EV_WIN) + codes.count(EV_LOSE) == 1
    r = game.result
    assert r["turns"] == codes.count(EV_TURN) and r["level"] == game.level
    assert r["won"] == (codes[-1] == EV_WIN)
    if not r["won"]:
        primary, mask = ev[-1][1], ev[-1][2]
        assert r["cause"] in r["conditions"] and mask & primary and primary & -primary == primary
    assert r["first"] == ev[deal_end][1] and len(r["team"]) == p
    assert r["sunk"] == sum(1 for s in game.board.status if s == SUNK)
    team_events = [e for e in ev if e[0] == EV_TEAM]
    assert tuple(ROLE_NAMES[e[2]] for e in team_events) == r["team"]
    for e in ev:
        if e[0] == EV_CHOICE:
            assert e[1] in (ACTION, WINDOW, DISCARD, SWIM) and otype(e[3]) != PASS
    # the transcript alone retraces the tiles' states and the water level
    status, level = [DRY] * 24, config.start_level
    for code, a, b, c in ev:
        if code in (EV_SETUP_FLOOD, EV_FLOOD):
            status[a] = FLOODED
        elif code == EV_SINK:
            status[a] = SUNK
        elif code == EV_WATERS_RISE:
            level = a
        elif code == EV_CHOICE:
            name, f1, f2, _ = decode(c)
            dried = {"shore": [f1], "shore2": [f1, f2], "sand": [f2]}.get(name, [])
            for cell in dried:
                status[cell] = DRY
    assert status == game.board.status and level == game.level


def test_same_seed_same_game_and_replay_by_decisions():
    layout, config = builtin_layout("standard"), GameConfig(players=4)
    a = play(layout, config, 5, 3, random_chooser)
    b = play(layout, config, 5, 3, random_chooser)
    assert a.events == b.events and a.result == b.result
    picks = []

    def recorder(game, kind, seat, found):
        i = random_chooser(game, kind, seat, found)
        picks.append(i)
        return i

    c = play(layout, config, 5, 4, recorder)
    replay = iter(picks)
    d = play(layout, config, 5, 4, lambda *args: next(replay))
    assert c.events == d.events


def test_fixed_team_and_first_player():
    config = GameConfig(players=2, team=("pilot", "diver"), first=1)
    game = play(builtin_layout("standard"), config, 1, 1, random_chooser)
    teams = [e for e in game.events if e[0] == EV_TEAM]
    landing = game.board.cell_of_tile[FOOLS_LANDING]
    assert teams[0][1:] == (0, ROLE_NAMES.index("pilot"), landing)
    assert game.result["first"] == 1 and game.result["team"] == ("pilot", "diver")
    first_turn = next(e for e in game.events if e[0] == EV_TURN)
    assert first_turn == (EV_TURN, 1, 1, 0)


def test_waters_rise_dealt_is_set_aside():
    """R-SETUP-4: some game deals a Waters Rise!, and nobody is dealt one."""
    layout = builtin_layout("standard")
    seen = False
    for i in range(30):
        game = play(layout, GameConfig(players=4), 9, i, random_chooser)
        deal_end = [e[0] for e in game.events].index(EV_FIRST)
        seen |= any(e[0] == EV_DEAL_WR for e in game.events[:deal_end])
        assert all(e[2] != 6 for e in game.events[:deal_end] if e[0] == EV_DEAL)
    assert seen


# --- adventurers' powers -------------------------------------------------------------------------


def test_plain_move_and_shore():
    """R-ACT-MOVE, R-ACT-SHORE: orthogonal, onto existing tiles; shore own or adjacent tile."""
    g = position("sg ~TP cp", "engineer@CP:\n")
    assert options(g, "move") == {"move IG"}
    assert options(g, "shore") == {"shore CP"}


def test_diver_dives_through_flooded_and_sunk_chains():
    """R-ROLE-DIVER: through flooded/sunk cells, any existing end; dry tiles block; moves excluded."""
    g = position("sg ~BB ca ll", "diver@IG:\nmessenger@WT:\n")
    assert options(g, "move") == {"move CP", "move SG"}
    assert options(g, "dive") == {f"dive {t}" for t in tiles("TP LL FL MM CA BG CF OB")}
    # WT lies behind the dry OB, TH behind the dry MM: out of reach
    assert "dive WT" not in options(g) and "dive TH" not in options(g)


def test_diver_without_flooded_neighbours_cannot_dive():
    g = position("ca ~CF", "diver@IG:\n")
    assert options(g, "dive") == set()


def test_navigator_moves_diver_over_a_sunk_cell():
    """R-ROLE-NAVIGATOR default: a moved Diver's intermediate step may be a sunk cell."""
    rest = "navigator@TM:\ndiver@SG:\n"
    g = position("~BB", rest)
    assert options(g, "nav") == {f"nav diver {t}" for t in tiles("TP IG LL WG CP FL MM CA")}
    plain = position("~BB", rest + "rules: navigator-plain\n")
    assert options(plain, "nav") == {f"nav diver {t}" for t in tiles("TP IG LL WG CP FL MM")}


def test_navigator_moves_explorer_diagonally():
    """R-ROLE-NAVIGATOR default: the moved Explorer keeps its diagonal steps."""
    rest = "navigator@IG:\nexplorer@CE:\n"
    g = position("", rest)
    two_king_steps = tiles("TM TS WG HG CS TP FL BG CG GG SG BB CA CF DD")   # up to 2 king steps
    assert options(g, "nav") == {f"nav explorer {t}" for t in two_king_steps}
    plain = position("", rest + "rules: navigator-plain\n")
    two_steps = tiles("TM TS WG HG CS FL BG CG CA")                 # up to 2 orthogonal steps
    assert options(plain, "nav") == {f"nav explorer {t}" for t in two_steps}


def test_navigator_moves_pilot_without_flight_and_not_himself():
    g = position("~FL", "navigator@TM:\npilot@BB:\n")
    assert options(g, "nav") == {f"nav pilot {t}" for t in tiles("SG CA MM IG TP LL OB CF BG TH")}
    assert not any(w.startswith("nav navigator") for w in options(g))


def test_explorer_moves_and_shores_diagonally():
    """R-ROLE-EXPLORER: 8 neighbours for moving and shoring up."""
    g = position("tp fl bb", "explorer@SG:\n")
    assert options(g, "move") == {f"move {t}" for t in tiles("CP TP FL IG BB LL MM")}
    assert options(g, "shore") == {"shore TP", "shore FL", "shore BB"}


def test_pilot_flies_once_per_turn():
    """R-ROLE-PILOT: fly to any existing tile, once per turn, on his own turn."""
    g = position("~TM", "pilot@FL:\ndiver@IG:\n")
    flights = options(g, "fly")
    assert flights == {f"fly {t}" for t in ALL_TILES - {"FL", "TM"}}
    fly = next(c for c in g.legal_options() if describe(g, c) == "fly WT")
    g.apply(fly)
    assert g.players[0].cell == g.board.cell_of_tile[TILE_CODES.index("WT")]
    assert g.flight_used and g.actions_left == 2
    assert options(g, "fly") == set()
    assert options(position("", "pilot@FL:\nflight used\n"), "fly") == set()
    # not on another player's turn
    assert options(position("", "pilot@FL:\ndiver@IG:\nactive 1\n"), "fly") == set()


def test_engineer_shores_pairs():
    """R-ROLE-ENGINEER: one tile (SHORE) or two (SHORE2 a b, a < b) in his shore-up range."""
    g = position("hg tp fl ca", "engineer@FL:\n")
    assert options(g, "shore") == {"shore HG", "shore TP", "shore FL"}
    assert options(g, "shore2") == {"shore2 HG TP", "shore2 HG FL", "shore2 TP FL"}
    assert all(decode(c)[1] < decode(c)[2] for c in g.legal_options() if decode(c)[0] == "shore2")


def test_messenger_gives_at_range_others_on_the_same_tile():
    """R-ACT-GIVE, R-ROLE-MESSENGER: treasure cards only; Messenger anywhere, others on the same tile."""
    g = position("", "messenger@TM: earth earth fire heli sand\npilot@WT:\ndiver@TM:\n")
    assert options(g, "give") == {f"give {k} {r}" for k in ("earth", "fire") for r in ("pilot", "diver")}
    g = position("", "diver@TM: earth heli\npilot@WT:\nengineer@TM:\n")
    assert options(g, "give") == {"give earth engineer"}


def test_capture_needs_four_cards_on_a_treasure_tile():
    """R-ACT-CAPTURE: 4 matching cards, on either tile of that treasure, not captured yet."""
    g = position("", "diver@TM: earth earth earth earth wind wind\n")
    assert options(g, "capture") == {"capture earth"}
    assert options(position("", "diver@TS: wind wind wind wind\n"), "capture") == set()
    assert options(position("", "diver@TS: earth earth earth earth\ncaptured: earth\n"),
                   "capture") == set()


# --- special cards -------------------------------------------------------------------------------


def test_heli_lifts_any_subset_of_pawns_on_a_tile():
    """R-SPECIAL-HELI: one or more pawns on one tile to any other existing tile; by any holder."""
    rest = "diver@FL:\npilot@FL:\nengineer@FL:\nmessenger@TM: heli\n"
    g = position("~WT", rest)
    heli = options(g, "heli")
    assert len(heli) == (7 + 1) * 22              # 7 groups on FL, 1 on TM; 22 other tiles each
    assert "heli messenger diver+engineer TS" in heli
    assert "heli messenger messenger FL" in heli and "heli messenger diver FL" not in heli
    assert not any(w.endswith(" WT") for w in heli)
    all_ = position("~WT", rest + "rules: heli-all\n")
    heli = options(all_, "heli")
    assert len(heli) == 2 * 22
    assert "heli messenger diver+pilot+engineer TS" in heli and "heli messenger diver TS" not in heli


def test_specials_in_each_decision():
    """R-SPECIAL-1: anyone's specials at actions and windows; only the discarder's at a discard."""
    rest = "diver@FL: earth earth wind wind fire ocean\npilot@TM: sand\n"
    act = position("ca", rest)
    assert options(act, "sand") == {"sand pilot CA"}
    win = position("ca", rest + "decision: window\n")
    assert options(win) == {"pass", "sand pilot CA"}
    drop = position("ca", rest + "decision: discard diver\n")
    assert options(drop) == {"discard earth", "discard wind", "discard fire", "discard ocean"}


# --- swimming ------------------------------------------------------------------------------------


def test_swim_per_role():
    """R-SWIM-1/2: orthogonal; Explorer diagonal; Pilot anywhere; switch swim-seed000."""
    sunk = "~BB"
    orth = {f"swim {t}" for t in tiles("FL SG CA MM")}
    diag = orth | {f"swim {t}" for t in tiles("TP BG LL OB")}
    anywhere = {f"swim {t}" for t in ALL_TILES - {"BB"}}
    for role, official, seed000 in (("engineer", orth, orth), ("explorer", diag, orth),
                                    ("pilot", anywhere, orth), ("messenger", orth, orth)):
        text = f"{role}@BB:\ndecision: swim {role}\n"
        assert options(position(sunk, text)) == official, role
        assert options(position(sunk, text + "rules: swim-seed000\n")) == seed000, role


def test_diver_swims_to_the_nearest_tiles():
    """R-SWIM-2: fewest orthogonal steps through island cells (sunk or not); ties are choices."""
    g = position("~SG ~TP ~IG ~BB ~LL", "diver@SG:\ndecision: swim diver\n")
    assert options(g) == {f"swim {t}" for t in tiles("WG CP FL CA MM")}
    # the same under swim-seed000 (the Diver's exception is the one that stays)
    g = position("~SG ~TP ~IG ~BB ~LL", "diver@SG:\ndecision: swim diver\nrules: swim-seed000\n")
    assert options(g) == {f"swim {t}" for t in tiles("WG CP FL CA MM")}
    # with a neighbour left, only that one
    g = position("~SG ~TP ~IG ~BB", "diver@SG:\ndecision: swim diver\n")
    assert options(g) == {"swim LL"}


def test_diver_nearest_counts_steps_through_island_not_sea():
    """R-SWIM-2: the sea does not count; from TH the way to LL goes through MM's cell."""
    g = position("~TH ~MM ~WT ~OB", "diver@TH:\ndecision: swim diver\n")
    # TH(r5c2) -> MM(r4c2, sunk) -> LL, BB; -> WT(sunk) -> OB(sunk): distance 2 reaches LL and BB
    assert options(g) == {"swim LL", "swim BB"}


def test_heli_rescue_of_swimmers():
    """R-SPECIAL-WINDOWS: a Helicopter Lift may rescue the swimmer (and others on the tile)."""
    text = "engineer@BB:\ndiver@BB:\npilot@TM: heli\ndecision: swim engineer\n"
    g = position("~BB", text)
    rescues = options(g, "heli")
    assert len(rescues) == 2 * 23                   # {engineer}, {engineer, diver}; any tile
    assert "heli pilot engineer+diver FL" in rescues and "heli pilot diver FL" not in rescues
    assert options(g, "swim") == {f"swim {t}" for t in tiles("FL SG CA MM")}
    all_ = options(position("~BB", text + "rules: heli-all\n"), "heli")
    assert len(all_) == 23 and "heli pilot engineer+diver TM" in all_
    assert options(position("~BB", text + "rules: no-heli-rescue\n"), "heli") == set()


def test_pawn_that_cannot_swim_drowns_unless_lifted():
    """R-SWIM-3: no destination: PASS (drown), or a Helicopter Lift if anyone holds one."""
    g = position("~TM ~TS ~HG", "engineer@TM:\ndecision: swim engineer\n")
    assert options(g) == {"pass"}
    g = position("~TM ~TS ~HG", "engineer@TM: heli\ndecision: swim engineer\n")
    assert options(g) == {"pass"} | {f"heli engineer engineer {t}" for t in ALL_TILES - tiles("TM TS HG")}
    g = position("~TM ~TS ~HG", "engineer@TM: heli\ndecision: swim engineer\nrules: no-heli-rescue\n")
    assert options(g) == {"pass"}
    # a pawn that can swim has no PASS
    assert "pass" not in options(position("~BB", "diver@BB: heli\ndecision: swim diver\n"))


# --- resuming from a position -------------------------------------------------------------------


def test_win_is_claimed_before_the_next_decision():
    """R-WIN: all treasures, everyone on Fools' Landing, a Lift held: won at once."""
    text = ("diver@FL:\npilot@FL: heli\ncaptured: earth wind fire ocean\n")
    g = position("", text)
    g.resume(random_chooser)
    assert g.result["won"] and g.events[-1][0] == EV_WIN and g.events[-1][1] == 1


def test_give_over_the_limit_makes_the_receiver_discard():
    """R-HAND: the receiver of a sixth card discards at once, on the giver's turn."""
    text = "messenger@TM: fire\ndiver@WT: earth earth wind wind ocean\nactions 1\n"
    g = position("", text)
    seen = []

    def chooser(game, kind, seat, found):
        seen.append((kind, seat))
        words = [describe(game, c) for c in found]
        if len(seen) == 1:
            return words.index("give fire diver")
        if len(seen) == 2:
            return words.index("discard earth")
        return 0

    g.resume(chooser)
    assert seen[:2] == [(ACTION, 0), (DISCARD, 1)]
    choices = [e for e in g.events if e[0] == EV_CHOICE]
    assert [describe(g, e[3]) for e in choices[:2]] == ["give fire diver", "discard earth"]
    assert choices[1][1:3] == (DISCARD, 1)


def test_resume_plays_to_the_end():
    g = position("sg ca", "diver@IG: earth\npilot@FL: heli\nengineer@TM: sand\nwater 5\n")
    g.resume(random_chooser)
    assert g.result is not None
    check_end(g)


SINKING = "treasure draw: fire fire wind wind\nactions 0\n"


def test_stranded_pawn_drowns_when_its_tile_sinks():
    """R-SWIM-3, R-LOSE drowned: DROWN then LOSE; PASS applied without asking."""
    g = position("th ~MM ~WT", "engineer@TH:\n" + SINKING + "flood draw: TH\n")
    g.resume(lambda *args: pytest.fail("nobody should be asked"))
    assert [e[0] for e in g.events[-3:]] == [EV_SINK, EV_DROWN, EV_LOSE]
    assert g.events[-2][1] == 0 and g.events[-1][1:3] == (4, 4)
    assert g.result["cause"] == "drowned" and g.result["conditions"] == {"drowned"}


def test_team_may_lift_a_stranded_pawn_or_let_it_drown():
    """R-SPECIAL-WINDOWS: a rescue Lift is a choice; PASS lets the pawn drown."""
    text = "engineer@TH:\npilot@FL: heli\n" + SINKING + "flood draw: CA TH\n"
    asked = []

    def let_drown(game, kind, seat, found):
        asked.append((kind, seat, len(found)))
        return found.index(option_code(PASS)) if kind == SWIM else 0

    g = position("th ~MM ~WT", text)
    g.resume(let_drown)
    assert (SWIM, 0, 2) in asked and g.result["cause"] == "drowned"     # PASS, or the pilot's lift
    assert not [a for a in asked if a[0] == LIFT_DEST]
    class Stop(Exception):
        pass

    swam = []

    def lift_then_stop(game, kind, seat, found):
        if kind == SWIM:
            swam.append(seat)
            return len(found) - 1                                   # the Lift ...
        if kind == LIFT_DEST:
            return len(found) - 1                                   # ... to the last tile
        if swam:
            raise Stop
        return 0                                                    # PASS at windows

    g = position("th ~MM ~WT", text)
    with pytest.raises(Stop):
        g.resume(lift_then_stop)
    rescue = next(e for e in g.events if e[0] == EV_CHOICE and e[1] == SWIM)
    assert rescue[2] == 1 and decode(rescue[3])[0] == "heli"        # logged by the holder
    assert g.players[0].cell == decode(rescue[3])[3]
    assert g.players[1].hand[4] == 0 and g.treasure_discard[-1] == 4


def test_immediate_loss_records_every_condition():
    """R-LOSE-CAUSE: the second Earth temple sinks under a stranded pawn: treasure-lost + drowned."""
    g = position("tm ~TS ~HG", "engineer@TM:\n" + SINKING + "flood draw: TM\n")
    g.resume(random_chooser)
    assert [e[0] for e in g.events[-2:]] == [EV_SINK, EV_LOSE]     # no DROWN event: lost at once
    assert g.events[-1][1:3] == (2, 2 | 4)
    assert g.result["cause"] == "treasure-lost"
    assert g.result["conditions"] == {"treasure-lost", "drowned"}
