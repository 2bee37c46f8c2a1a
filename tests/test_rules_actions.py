"""Rule tests: a turn's actions, the adventurers' powers and the special cards (docs/rules.md §4).

Positions are written in the notation of fisim.position; `options` asks both the engine and the
reference and checks they agree; `play` runs part of a turn on both (see tests/test_rules.py).
The board used most is ISLAND, the standard island with its tiles scrambled:

    .  .  CS OB .  .
    .  TP GG FL TH .
    IG WG BB CA DD TM
    CP PR SG HG LL CE
    .  TS WT MM CG .
    .  .  BG CF .  .
"""
from support.board import ALL_TILES, ISLAND, island, options, play, position, tiles

from fisim.engine.entries import PHASE_ACTIONS, PHASE_TURN
from fisim.rules import state as st


def words(kind, names):
    return {f"{kind} {t}" for t in tiles(names)}


# === R-TURN =====================================================================================


def test_turn_is_three_actions_then_two_treasure_cards_then_the_meters_floods():
    """R-TURN: up to 3 actions (repeats allowed), then 2 treasure cards, then as many flood cards
    as the meter says (water 3: 3 cards); no fourth action is offered."""
    p = position(ISLAND + "diver@IG:\nengineer@BG:\nwater 3\nturn 7\n"
                 "treasure draw: ocean wind fire earth\nflood draw: CE LL MM HG\n")
    run = play(p, PHASE_TURN, ["move WG", "move IG", "move WG"])
    assert run.story == ["turn 8 diver", "action diver: move WG", "action diver: move IG",
                         "action diver: move WG", "draw diver earth", "draw diver fire",
                         "flood HG", "flood MM", "flood LL"]
    assert [d[0] for d in run.decisions] == ["action"] * 3
    assert run.where("diver") == "WG" and run.hand("diver") == {"earth": 1, "fire": 1}
    assert run.pub[st.P_ACTIVE] == 1                                  # the engineer's turn next


def test_turn_may_have_no_action():
    """R-TURN: 0 actions is allowed: END at once, then the draws and the floods."""
    p = position(ISLAND + "diver@IG:\nengineer@BG:\ntreasure draw: ocean wind fire\nflood draw: CE LL MM\n")
    run = play(p, PHASE_TURN, ["end"])
    assert run.story == ["turn 2 diver", "action diver: end", "draw diver fire", "draw diver wind",
                         "flood MM", "flood LL"]


def test_actions_left_count_down():
    """R-TURN: each action costs one; with 1 action left only one is taken."""
    p = position(ISLAND + "diver@IG:\nactions 1\n")
    run = play(p, PHASE_ACTIONS, ["move CP"])
    assert run.story == ["action diver: move CP"] and run.pub[st.P_ACTIONS_LEFT] == 0


# === R-ACT-MOVE, R-ACT-SHORE ====================================================================


def test_move_and_shore_up_orthogonally():
    """R-ACT-MOVE: to an orthogonally adjacent existing tile, dry or flooded, never a sunk one;
    R-ACT-SHORE: the flooded tile he stands on or an orthogonal neighbour, not a diagonal one."""
    p = position("""
.  .  CS OB .  .
.  TP GG FL TH .
IG wg bb ~CA DD TM
CP PR SG hg LL CE
.  TS WT MM CG .
.  .  BG CF .  .
messenger@BB:
diver@CE:
""")
    assert options(p) == {"end", "move GG", "move WG", "move SG", "shore BB", "shore WG"}


def test_move_never_crosses_the_sea():
    """R-ACT-MOVE: at the island's edge only the existing orthogonal neighbours; a diagonal tile
    across the corner of the sea is no move. R-ACT-SHORE: only orthogonal flooded tiles."""
    p = position("""
.  .  CS ob .  .
.  TP GG fl TH .
IG WG BB CA DD tm
CP PR SG HG LL CE
.  TS WT MM CG .
.  .  BG CF .  .
engineer@TH:
""")
    assert options(p) == {"end", "move FL", "move DD", "shore FL"}


def test_move_and_shore_change_the_board():
    """R-ACT-MOVE, R-ACT-SHORE: a move puts the pawn on the tile; shoring up turns it dry."""
    p = position(island("wg") + "messenger@BB:\n")
    run = play(p, PHASE_ACTIONS, ["move WG", "shore WG", "move IG"])
    assert run.where("messenger") == "IG" and run.status("WG") == "dry"
    assert run.story == ["action messenger: move WG", "action messenger: shore WG", "action messenger: move IG"]


# === R-ACT-GIVE, R-ROLE-MESSENGER =================================================================


def test_give_treasure_cards_to_players_on_the_same_tile():
    """R-ACT-GIVE: one treasure card (never a Helicopter Lift or Sandbags) to a player on the same
    tile, whatever that tile's state; nobody elsewhere."""
    p = position(island("bb") + "diver@BB: earth earth wind heli sand\npilot@BB:\nengineer@BB: fire\n"
                 "explorer@SG:\n")
    assert options(p, "give") == {"give earth pilot", "give earth engineer", "give wind pilot", "give wind engineer"}


def test_give_moves_one_card_for_one_action():
    """R-ACT-GIVE: the card changes hands and costs one action."""
    p = position(ISLAND + "diver@BB: earth earth wind\npilot@BB: earth\n")
    run = play(p, PHASE_ACTIONS, ["give earth pilot", "end"])
    assert run.hand("diver") == {"earth": 1, "wind": 1} and run.hand("pilot") == {"earth": 2}
    assert run.pub[st.P_ACTIONS_LEFT] == 2


def test_messenger_gives_anywhere():
    """R-ROLE-MESSENGER: treasure cards to a player anywhere, 1 action per card; specials never."""
    p = position(ISLAND + "messenger@CS: earth fire heli sand\ndiver@CF:\npilot@CS:\n")
    assert options(p, "give") == {"give earth diver", "give earth pilot", "give fire diver", "give fire pilot"}
    run = play(p, PHASE_ACTIONS, ["give fire diver", "give earth diver", "end"])
    assert run.hand("diver") == {"earth": 1, "fire": 1} and run.hand("messenger") == {"heli": 1, "sand": 1}
    assert run.pub[st.P_ACTIONS_LEFT] == 1


def test_non_messenger_cannot_give_at_range():
    """R-ACT-GIVE: a Diver holding cards, the receiver one tile away: no give."""
    p = position(ISLAND + "diver@BB: earth earth\nmessenger@SG:\n")
    assert options(p, "give") == set()


# === R-ACT-CAPTURE ==============================================================================


def test_capture_with_four_matching_cards_on_a_treasure_tile():
    """R-ACT-CAPTURE: 4 matching cards on either of that treasure's tiles, flooded is fine; the
    4 cards go to the treasure discard and the team holds the treasure."""
    p = position(island("ts") + "diver@TS: earth earth earth earth earth\n")
    assert options(p, "capture") == {"capture earth"}
    run = play(p, PHASE_ACTIONS, ["capture earth", "end"])
    assert run.pub[st.P_CAPTURED] == 0b0001                              # Earth Stone
    assert run.hand("diver") == {"earth": 1}
    assert run.treasure_discard() == {"earth": 4} and run.pub[st.P_ACTIONS_LEFT] == 2
    assert options(position(island() + "diver@TM: earth earth earth earth\n"), "capture") == {"capture earth"}


def test_capture_needs_four_cards_the_right_tile_and_an_uncaptured_treasure():
    """R-ACT-CAPTURE: 3 cards are not enough; the wrong treasure's tile; each treasure once; the
    cards must be in one hand."""
    assert options(position(island() + "diver@TM: earth earth earth wind\n"), "capture") == set()
    assert options(position(island() + "diver@WG: earth earth earth earth\n"), "capture") == set()
    assert options(position(island() + "diver@WG: wind wind wind wind\n"), "capture") == {"capture wind"}
    assert options(position(island() + "diver@HG: wind wind wind wind\ncaptured: wind\n"), "capture") == set()
    assert options(position(island() + "diver@CE: fire fire\npilot@CE: fire fire\n"), "capture") == set()
    assert options(position(island() + "diver@FL: fire fire fire fire\n"), "capture") == set()


# === R-ROLE-EXPLORER ============================================================================


def test_explorer_moves_and_shores_diagonally():
    """R-ROLE-EXPLORER: 8 neighbours for moving (never onto a sunk cell) and for shoring up."""
    p = position("""
.  .  CS OB .  .
.  tp GG ~FL TH .
IG WG BB CA DD TM
CP pr SG hg LL CE
.  TS WT MM CG .
.  .  BG CF .  .
explorer@BB:
""")
    assert options(p) == ({"end"} | words("move", "GG WG CA SG TP PR HG") | words("shore", "TP PR HG"))


def test_explorer_at_the_edge():
    """R-ROLE-EXPLORER: from TH the diagonals OB, CA and TM are moves too."""
    p = position(ISLAND + "explorer@TH:\n")
    assert options(p, "move") == words("move", "FL DD OB CA TM")


# === R-ROLE-PILOT ===============================================================================


def test_pilot_flies_anywhere_once_per_turn():
    """R-ROLE-PILOT: for 1 action, fly to any existing tile, once per turn."""
    p = position(island("~TM cf") + "pilot@FL:\ndiver@IG:\n")
    assert options(p, "fly") == words("fly", " ".join(ALL_TILES - {"FL", "TM"}))
    run = play(p, PHASE_ACTIONS, ["fly CF", "shore CF", "move MM"])
    assert run.where("pilot") == "MM" and run.pub[st.P_FLIGHT_USED] == 1
    assert "fly TS" not in run.decisions[1][2] and not any(w.startswith("fly") for w in run.decisions[1][2])
    assert options(position(island() + "pilot@FL:\nflight used\n"), "fly") == set()


def test_pilot_flies_only_on_his_own_turn():
    """R-ROLE-PILOT: on another player's turn the Pilot cannot fly (nor act)."""
    p = position(island() + "pilot@FL:\ndiver@IG:\nactive 1\n")
    assert options(p, "fly") == set() and options(p, "move") == words("move", "WG CP")


def test_pilot_flight_comes_back_next_turn():
    """R-ROLE-PILOT: a new turn gives the flight back, even if it was used in the last one."""
    p = position(island() + "pilot@FL:\nflight used\ntreasure draw: fire ocean wind\n")
    run = play(p, PHASE_TURN, ["fly CF", "end"])
    assert run.story[:3] == ["turn 2 pilot", "action pilot: fly CF", "action pilot: end"]
    assert not any(w.startswith("fly") for w in run.decisions[1][2])


# === R-ROLE-NAVIGATOR ===========================================================================

TWO_STEPS_FROM_SG = "BB PR HG WT GG WG CA CP TS LL MM BG"          # orthogonal, over dry tiles


def test_navigator_moves_another_pawn_up_to_two_steps():
    """R-ROLE-NAVIGATOR: another player's pawn, 1 or 2 orthogonal steps over existing tiles; the
    Pilot is moved like anyone else; never the Navigator himself."""
    for role in ("messenger", "pilot", "engineer"):
        p = position(ISLAND + f"navigator@CS:\n{role}@SG:\n")
        assert options(p, "nav") == {f"nav {role} {t}" for t in tiles(TWO_STEPS_FROM_SG)}, role
        assert options(p, "move") == words("move", "OB GG")


def test_navigator_cannot_step_a_pawn_over_a_sunk_cell():
    """R-ROLE-NAVIGATOR: with BB sunk, a plain pawn cannot reach GG (only reachable through BB)."""
    p = position(island("~BB") + "navigator@CS:\nmessenger@SG:\n")
    assert options(p, "nav") == {f"nav messenger {t}" for t in tiles("PR HG WT WG CP TS CA LL MM BG")}


def test_navigator_moves_diver_over_a_sunk_cell():
    """R-ROLE-NAVIGATOR default: a moved Diver's intermediate step may be a sunk cell (BB), so GG
    is reachable; switch navigator-plain: not."""
    p = position(island("~BB") + "navigator@CS:\ndiver@SG:\n")
    assert options(p, "nav") == {f"nav diver {t}" for t in tiles("PR HG WT WG CP TS CA LL MM BG GG")}
    plain = position(island("~BB") + "navigator@CS:\ndiver@SG:\nrules: navigator-plain\n")
    assert options(plain, "nav") == {f"nav diver {t}" for t in tiles("PR HG WT WG CP TS CA LL MM BG")}
    run = play(p, PHASE_ACTIONS, ["nav diver GG", "end"])
    assert run.where("diver") == "GG" and run.where("navigator") == "CS" and run.pub[st.P_ACTIONS_LEFT] == 2


def test_navigator_moves_explorer_diagonally():
    """R-ROLE-NAVIGATOR default: the moved Explorer keeps its diagonal steps (2 king steps);
    switch navigator-plain: orthogonal steps only."""
    p = position(ISLAND + "navigator@CS:\nexplorer@SG:\n")
    king = "TP GG FL TH IG WG BB CA DD CP PR HG LL TS WT MM CG BG CF"
    assert options(p, "nav") == {f"nav explorer {t}" for t in tiles(king)}
    plain = position(ISLAND + "navigator@CS:\nexplorer@SG:\nrules: navigator-plain\n")
    assert options(plain, "nav") == {f"nav explorer {t}" for t in tiles(TWO_STEPS_FROM_SG)}


def test_navigator_moves_explorer_not_through_a_sunk_diagonal():
    """R-ROLE-NAVIGATOR: an Explorer's intermediate step must exist: with CA, HG, LL, DD sunk
    and the Explorer on TM, only TM's existing neighbours and theirs are reached."""
    p = position(island("~CA ~HG ~LL ~DD") + "navigator@CS:\nexplorer@TM:\n")
    # first step from TM: CE, TH (DD and LL sunk); then from TH: FL, OB; from CE: CG
    assert options(p, "nav") == {f"nav explorer {t}" for t in tiles("CE TH CG FL OB")}


def test_navigator_moves_several_pawns():
    """R-ROLE-NAVIGATOR: each other pawn has its own moves; NAV costs one action."""
    p = position(ISLAND + "navigator@CE:\nmessenger@TH:\npilot@TH:\n")
    from_th = "FL DD OB GG CA TM LL"
    assert options(p, "nav") == ({f"nav messenger {t}" for t in tiles(from_th)}
                                 | {f"nav pilot {t}" for t in tiles(from_th)})


# === R-ROLE-DIVER ===============================================================================


def test_diver_swims_through_flooded_and_sunk_cells():
    """R-ROLE-DIVER: through one or more adjacent flooded and/or sunk cells, turning freely, to
    any existing tile reached that way; a dry tile blocks; the plain moves stay moves."""
    p = position("""
.  .  CS OB .  .
.  TP GG FL TH .
IG wg ~BB CA DD TM
CP PR sg hg LL CE
.  TS WT MM CG .
.  .  BG CF .  .
diver@IG:
""")
    assert options(p, "move") == words("move", "WG CP")
    # WG -> TP, PR; BB (sunk) -> GG, CA, SG; SG -> PR, HG, WT; HG -> CA, LL, MM. Not past dry CA, PR.
    assert options(p, "dive") == words("dive", "TP PR GG CA SG HG WT LL MM")
    run = play(p, PHASE_ACTIONS, ["dive MM", "end"])
    assert run.where("diver") == "MM" and run.pub[st.P_ACTIONS_LEFT] == 2


def test_diver_without_a_flooded_or_sunk_neighbour_only_moves():
    """R-ROLE-DIVER: a dry ring round the Diver: no dive."""
    p = position(island("hg ~DD") + "diver@BB:\n")
    assert options(p, "dive") == set()


def test_diver_never_swims_through_the_sea():
    """R-ROLE-DIVER: never through the sea outside the layout. On the Bridge of Horrors the Diver
    on TM reaches only what lies past the flooded WG; IG, across three cells of sea, is out."""
    p = position("""
HG wg TM .  .  .  IG BB CA CF
FL CS CP TP DD LL MM OB PR CE
BG CG GG SG .  .  .  TH WT TS
diver@TM:
""")
    assert options(p, "move") == words("move", "WG CP")
    assert options(p, "dive") == words("dive", "HG CS")


DIVER_ON_WG = """
.  .  CS OB .  .
.  TP GG FL TH .
IG WG ~BB CA DD TM
CP pr sg hg LL CE
.  TS WT MM CG .
.  .  BG CF .  .
diver@WG:
"""


def test_diver_switches_choose_which_cells_he_passes_through():
    """R-ROLE-DIVER: from WG, with BB sunk and PR, SG, HG flooded, the Diver's move passes through
    all four (official); switch diver-flooded-only: through PR, SG, HG only (GG, past the sunk BB,
    is lost); switch diver-sunk-only: through BB only (its neighbours GG, CA, SG). Plain moves are
    the same under every reading."""
    readings = {"": "GG CA SG CP TS HG WT LL MM", "diver-flooded-only": "CP TS SG WT HG CA MM LL",
                "diver-sunk-only": "GG CA SG"}
    for rules, dives in readings.items():
        p = position(DIVER_ON_WG + f"rules: {rules}\n")
        assert options(p, "move") == words("move", "TP IG PR"), rules
        assert options(p, "dive") == words("dive", dives), rules
    run = play(position(DIVER_ON_WG + "rules: diver-sunk-only\n"), PHASE_ACTIONS, ["dive GG", "end"])
    assert run.where("diver") == "GG" and run.pub[st.P_ACTIONS_LEFT] == 2


def test_diver_switches_leave_swimming_and_a_navigated_diver_alone():
    """R-ROLE-DIVER switches diver-flooded-only and diver-sunk-only change the Diver's own move
    only: he still swims to the nearest tiles (R-SWIM-2), and a Navigator still moves him over a
    sunk cell (R-ROLE-NAVIGATOR)."""
    for rules in ("diver-flooded-only", "diver-sunk-only"):
        swim = position(island("~BB ~GG ~WG ~CA ~SG ~TP ~DD") + f"diver@BB:\ndecision: swim diver\nrules: {rules}\n")
        assert options(swim) == words("swim", "CS FL IG PR HG WT")
        nav = position(island("~BB") + f"navigator@CS:\ndiver@SG:\nrules: {rules}\n")
        assert options(nav, "nav") == {f"nav diver {t}" for t in tiles("PR HG WT WG CP TS CA LL MM BG GG")}


# === R-ROLE-ENGINEER ============================================================================


def test_engineer_shores_one_or_two_tiles():
    """R-ROLE-ENGINEER: for 1 action shore up 2 tiles within his range (or just one): his own
    and the orthogonal ones; GG (diagonal) is out of range."""
    p = position("""
.  .  CS OB .  .
.  TP gg fl TH .
IG WG bb ca DD TM
CP PR SG hg LL CE
.  TS WT MM CG .
.  .  BG CF .  .
engineer@CA:
""")
    assert options(p, "shore") == words("shore", "CA FL BB HG")
    assert options(p, "shore2") == {"shore2 FL BB", "shore2 FL CA", "shore2 FL HG", "shore2 BB CA",
                                    "shore2 BB HG", "shore2 CA HG"}
    run = play(p, PHASE_ACTIONS, ["shore2 FL HG", "end"])
    assert run.status("FL") == "dry" and run.status("HG") == "dry" and run.status("CA") == "flooded"
    assert run.pub[st.P_ACTIONS_LEFT] == 2


def test_others_shore_one_tile_per_action():
    """R-ACT-SHORE, R-ROLE-ENGINEER: only the Engineer has SHORE2."""
    p = position(island("gg fl bb ca hg") + "messenger@CA:\n")
    assert options(p, "shore2") == set() and options(p, "shore") == words("shore", "CA FL BB HG")


# === R-SPECIAL-1, R-SPECIAL-HELI, R-SPECIAL-SAND ==================================================


def test_specials_are_played_by_their_holder_on_anyones_turn_at_no_action():
    """R-SPECIAL-1: the Pilot's Sandbags on the Diver's turn: no action spent, the card goes to
    the treasure discard; R-SPECIAL-SAND: the tile turns dry."""
    p = position(island("ca") + "diver@IG: earth\npilot@TM: sand\n")
    run = play(p, PHASE_ACTIONS, ["sand pilot CA", "end"])
    assert run.story == ["action pilot: sand pilot CA", "action diver: end"]
    assert run.status("CA") == "dry" and run.pub[st.P_ACTIONS_LEFT] == 3
    assert run.hand("pilot") == {} and run.treasure_discard() == {"sand": 1}


def test_sandbags_shore_any_flooded_tile():
    """R-SPECIAL-SAND: any one flooded tile anywhere, never a dry or a sunk one."""
    p = position(island("ca tm cf ~BG") + "diver@IG:\nengineer@SG: sand sand\n")
    assert options(p, "sand") == words("sand engineer", "CA TM CF")


def test_helicopter_lift_moves_one_or_more_pawns_of_a_tile():
    """R-SPECIAL-HELI: any non-empty group of pawns standing on one tile, to any other existing
    tile, by any holder: 7 groups on FL and 1 on TM, 22 destinations each (WT sunk)."""
    p = position(island("~WT") + "diver@FL:\npilot@FL:\nengineer@FL:\nmessenger@TM: heli\n")
    heli = options(p, "heli")
    assert len(heli) == (7 + 1) * 22
    assert "heli messenger diver+engineer TS" in heli and "heli messenger messenger FL" in heli
    assert "heli messenger diver FL" not in heli and not any(w.endswith(" WT") for w in heli)
    assert "heli messenger diver+messenger TS" not in heli              # not on one tile
    run = play(p, PHASE_ACTIONS, ["heli messenger diver+engineer TS", "end"])
    assert run.where("diver") == "TS" and run.where("engineer") == "TS" and run.where("pilot") == "FL"
    assert run.pub[st.P_ACTIONS_LEFT] == 3 and run.treasure_discard() == {"heli": 1} and run.hand("messenger") == {}


def test_helicopter_lift_heli_all_moves_everyone_on_the_tile():
    """R-SPECIAL-HELI switch heli-all: the lift moves all pawns on the tile."""
    p = position(island("~WT") + "diver@FL:\npilot@FL:\nengineer@FL:\nmessenger@TM: heli\nrules: heli-all\n")
    heli = options(p, "heli")
    assert heli == ({f"heli messenger diver+pilot+engineer {t}" for t in ALL_TILES - {"FL", "WT"}}
                    | {f"heli messenger messenger {t}" for t in ALL_TILES - {"TM", "WT"}})


def test_two_holders_each_offer_their_cards():
    """R-SPECIAL-1: every holder's cards are offered; a holder of two cards is offered once."""
    p = position(island("ca") + "diver@IG: heli heli\npilot@IG: sand\n")
    assert options(p, "sand") == {"sand pilot CA"}
    assert options(p, "heli") == ({f"heli diver {g} {t}" for g in ("diver", "pilot", "diver+pilot")
                                   for t in ALL_TILES - {"IG"}})


# === the options buffer =========================================================================


def test_the_longest_decision_at_the_largest_variant_deck_fits_the_options_buffer():
    """MAX_OPTIONS (the game array's room for the options) is derived from the variant limits,
    term by term of actions.list_options. A dense action decision at the largest deck a variant
    may have (R-TDECK): four players on one flooded temple, every tile flooded, everyone holding a
    Helicopter Lift and Sandbags, the Navigator active with a card of each treasure, capture=1.
    Its special cards reach their terms in full (every holder, every group, every flooded tile)."""
    from fisim.engine import EngineGame
    from fisim.rules.options import LIFT, MAX_OPTIONS, SANDBAG, otype
    from fisim.rules.variant import PARAMETERS
    seats = "".join(f"{role}@HG: {hand}heli sand\n" for role, hand in (
        ("navigator", "earth wind fire ocean "), ("explorer", ""), ("diver", ""), ("pilot", "")))
    deck = " ".join(f"{key}={PARAMETERS[key].high}" for key in ("helicopter_lifts", "sandbags"))
    p = position(island(" ".join(ALL_TILES).lower()) + seats + f"rules: {deck} capture=1\n")
    listed = EngineGame.from_position(p).legal_options()
    assert sum(otype(c) == LIFT for c in listed) == 4 * 15 and sum(otype(c) == SANDBAG for c in listed) == 4 * 24
    assert {"capture wind", "give ocean pilot", "nav explorer MM"} <= options(p)
    assert len(listed) <= MAX_OPTIONS == 248
