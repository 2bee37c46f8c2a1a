"""Rule tests: treasure draws, the hand limit, special-card windows, flooding, swimming, the win,
the losses and the solo variant (docs/rules.md §4 "Drawing treasure cards" to §7).

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
from collections import Counter

import pytest
from support.board import ALL_TILES, ISLAND, island, options, play, position, tiles

from fisim.engine.entries import PHASE_ACTIONS, PHASE_DRAW, PHASE_FLOOD, PHASE_SINK, PHASE_TURN
from fisim.position import TILE_CODES
from fisim.rules import state as st
from fisim.rules.constants import LOSS_NAMES

ALL_CAPTURED = "captured: earth wind fire ocean\n"


def words(kind, names):
    return {f"{kind} {t}" for t in tiles(names)}


# === R-DRAW-1 ===================================================================================


def test_treasure_cards_are_drawn_one_at_a_time_into_the_hand():
    """R-DRAW-1: 2 cards from the top of the pile (the notation lists the top last), to the hand."""
    p = position(ISLAND + "diver@IG: earth\ntreasure draw: ocean wind fire\n")
    run = play(p, PHASE_DRAW)
    assert run.story == ["draw diver fire", "draw diver wind"]
    assert run.hand("diver") == {"earth": 1, "fire": 1, "wind": 1} and run.treasure_pile() == ["ocean"]


# === R-DRAW-WR ==================================================================================


def test_waters_rise_puts_the_flood_discard_on_top():
    """R-DRAW-WR: the meter rises one position, the flood discard is shuffled and put on top of
    the flood draw pile, the card goes to the treasure discard and no replacement is drawn; the
    next flood cards drawn (4 at the new level 6) are exactly the former discard."""
    p = position(island("dd ll mm") + "diver@IG:\nwater 5\ntreasure draw: fire earth wr\n"
                 "flood discard: DD LL MM GG\n")
    below = list(p.flood_draw)
    run = play(p, PHASE_DRAW)
    assert run.story == ["draw diver wr", "water 6", "flood discard on top 4", "draw diver earth"]
    assert run.level == 6 and run.hand("diver") == {"earth": 1} and run.treasure_discard() == {"wr": 1}
    assert run.flood_discard() == set()
    assert sorted(run.flood_pile()[-4:]) == sorted(tiles("DD LL MM GG"))
    floods = play(p, PHASE_FLOOD, after=run)
    assert sorted(floods.story) == ["flood GG", "sink DD", "sink LL", "sink MM"]
    assert floods.flood_discard() == {"GG"}
    assert all(floods.pub[st.P_FLAYER + TILE_CODES.index(t)] == 0 for t in tiles("DD LL MM GG"))
    assert floods.flood_pile() == [TILE_CODES[t] for t in below]          # the rest, untouched


def test_waters_rise_with_an_empty_flood_discard():
    """R-DRAW-WR: if the flood discard is empty nothing is put on top."""
    p = position(ISLAND + "diver@IG:\ntreasure draw: fire earth wr\nflood discard:\n")
    run = play(p, PHASE_DRAW)
    assert run.story == ["draw diver wr", "water 3", "draw diver earth"]


def test_two_waters_rise_in_one_draw_raise_twice_and_shuffle_once():
    """R-DRAW-WR: two Waters Rise! in the same draw raise the meter twice but shuffle once."""
    p = position(island("dd ll mm") + "diver@IG:\ntreasure draw: earth wr wr\nflood discard: DD LL MM\n")
    run = play(p, PHASE_DRAW)
    assert run.story == ["draw diver wr", "water 3", "flood discard on top 3", "draw diver wr", "water 4"]
    assert run.level == 4 and run.hand("diver") == {} and run.treasure_discard() == {"wr": 2}


def test_waters_rise_to_the_skull_loses_at_once():
    """R-DRAW-WR, R-LOSE skull: reaching the skull loses at once; the second card is not drawn."""
    p = position(island("dd") + "diver@IG:\nwater 9\ntreasure draw: earth wr\nflood discard: DD\n")
    run = play(p, PHASE_DRAW)
    assert run.story == ["draw diver wr", "water 10", "lose skull: skull"]
    assert run.over == "lost" and run.pub[st.P_CAUSE] == 8 and run.pub[st.P_CONDITIONS] == 8


# === R-DRAW-EMPTY ===============================================================================


def test_treasure_pile_reshuffles_as_soon_as_the_last_card_is_drawn():
    """R-DRAW-EMPTY: the last card drawn goes to the hand, then at once the treasure discard
    becomes the new pile, before the hand-limit discard; the card discarded then waits in the new
    discard pile; the second card comes from the new pile."""
    p = position(ISLAND + "diver@IG: fire fire fire fire ocean\ntreasure draw: earth\n"
                 "treasure discard: ocean ocean ocean wind wind wind\n")
    run = play(p, PHASE_DRAW, ["discard fire", "discard fire"])
    assert run.story[:3] == ["draw diver earth", "treasure reshuffle 6", "discard diver: discard fire"]
    assert run.story[3] in ("draw diver ocean", "draw diver wind")
    assert run.story[4:] == ["discard diver: discard fire"]
    assert run.decisions[0] == ("discard", "diver", ["discard earth", "discard fire", "discard ocean"])
    second = run.story[3].split()[-1]
    assert Counter(run.treasure_pile()) + Counter([second]) == Counter({"ocean": 3, "wind": 3})
    assert run.treasure_discard() == {"fire": 2}


def test_treasure_pile_reshuffles_when_the_last_card_is_a_waters_rise():
    """R-DRAW-EMPTY with R-DRAW-WR: the last card is a Waters Rise!: the meter rises, the flood
    discard goes on top, the card lies on the discard, and then the discard (now 3 Waters Rise!)
    is the new pile, from which the second card is drawn."""
    p = position(island("dd") + "diver@IG:\ntreasure draw: wr\ntreasure discard: wr wr\nflood discard: DD\n")
    run = play(p, PHASE_DRAW)
    assert run.story == ["draw diver wr", "water 3", "flood discard on top 1", "treasure reshuffle 3",
                         "draw diver wr", "water 4"]
    assert run.treasure_pile() == ["wr", "wr"] and run.treasure_discard() == {"wr": 1}


# === R-HAND =====================================================================================


def test_hand_limit_after_each_card_drawn():
    """R-HAND: a sixth card drawn: discard down to 5 at once (before the next card)."""
    p = position(ISLAND + "diver@IG: earth earth wind wind fire\ntreasure draw: earth fire ocean\n")
    run = play(p, PHASE_DRAW, ["discard wind", "discard ocean"])
    assert run.story == ["draw diver ocean", "discard diver: discard wind", "draw diver fire",
                         "discard diver: discard ocean"]
    assert run.decisions[0] == ("discard", "diver", ["discard earth", "discard wind", "discard fire",
                                                    "discard ocean"])
    assert run.hand("diver") == {"earth": 2, "wind": 1, "fire": 2} and run.treasure_discard() == {"wind": 1, "ocean": 1}


def test_hand_limit_after_both_cards_with_hand_after_draw():
    """R-HAND switch hand-after-draw: the hand limit is checked once, after the second card: the
    Diver holds 7 cards for a moment (the window after the first card is offered as usual) and
    then discards 2. A card received by a give is still checked at once."""
    p = position(island("ca") + "diver@IG: earth earth wind wind fire\npilot@FL: sand\n"
                 "treasure draw: earth fire ocean\nrules: hand-after-draw\n")
    run = play(p, PHASE_DRAW, ["pass", "discard wind", "discard ocean", "pass"])
    assert run.story == ["draw diver ocean", "draw diver fire", "discard diver: discard wind",
                         "discard diver: discard ocean"]
    assert [d[:2] for d in run.decisions] == [("window", "diver"), ("discard", "diver"), ("discard", "diver"),
                                              ("window", "diver")]
    assert run.hand("diver") == {"earth": 2, "wind": 1, "fire": 2} and run.treasure_discard() == {"wind": 1, "ocean": 1}
    give = position(ISLAND + "messenger@CS: fire\ndiver@CF: earth earth wind wind ocean\nrules: hand-after-draw\n")
    run = play(give, PHASE_ACTIONS, ["give fire diver", "discard earth", "end"])
    assert run.story == ["action messenger: give fire diver", "discard diver: discard earth", "action messenger: end"]


def test_hand_limit_played_away_with_a_special_card():
    """R-HAND: instead of discarding, the player may play his own special cards (not another
    player's); played Sandbags bring the hand back to 5, so nothing more is asked."""
    p = position(island("ca") + "diver@IG: earth earth wind wind sand\npilot@FL: heli\n"
                 "treasure draw: earth fire ocean\n")
    run = play(p, PHASE_DRAW, ["sand diver CA", "pass", "discard fire", "pass"])
    assert run.decisions[0] == ("discard", "diver", ["sand diver CA", "discard earth", "discard wind",
                                                    "discard ocean", "discard sand"])
    assert run.story == ["draw diver ocean", "discard diver: sand diver CA", "draw diver fire",
                         "discard diver: discard fire"]
    assert [d[0] for d in run.decisions] == ["discard", "window", "discard", "window"]
    assert run.status("CA") == "dry" and run.hand("diver") == {"earth": 2, "wind": 2, "ocean": 1}


def test_discard_decision_offers_own_specials_only():
    """R-HAND, R-SPECIAL-1: at a discard the player may drop any card kind he holds, or play his
    own Helicopter Lift or Sandbags; the Pilot's Lift is not offered."""
    p = position(island("ca") + "diver@IG: earth earth wind heli sand fire\npilot@FL: heli\n"
                 "decision: discard diver\n")
    assert options(p) == (words("discard", "earth wind fire heli sand") | {"sand diver CA"}
                          | {f"heli diver diver {t}" for t in ALL_TILES - {"IG"}}
                          | {f"heli diver pilot {t}" for t in ALL_TILES - {"FL"}})


def test_hand_limit_after_receiving_a_card():
    """R-HAND, R-ACT-GIVE: the receiver of a sixth card discards at once, on the giver's turn."""
    p = position(ISLAND + "messenger@CS: fire\ndiver@CF: earth earth wind wind ocean\n")
    run = play(p, PHASE_ACTIONS, ["give fire diver", "discard earth", "end"])
    assert run.story == ["action messenger: give fire diver", "discard diver: discard earth",
                         "action messenger: end"]
    assert [d[:2] for d in run.decisions] == [("action", "messenger"), ("discard", "diver"), ("action", "messenger")]
    assert run.hand("diver") == {"earth": 1, "wind": 2, "fire": 1, "ocean": 1}


def test_receiver_over_the_limit_may_play_a_special_instead():
    """R-HAND: the receiver plays his Sandbags instead of discarding."""
    p = position(island("ca") + "messenger@CS: fire\ndiver@CF: earth earth wind sand ocean\n")
    run = play(p, PHASE_ACTIONS, ["give fire diver", "sand diver CA", "end"])
    assert run.story == ["action messenger: give fire diver", "discard diver: sand diver CA",
                         "action messenger: end"]
    assert run.hand("diver") == {"earth": 2, "wind": 1, "fire": 1, "ocean": 1} and run.status("CA") == "dry"


# === R-SPECIAL-WINDOWS, R-SPECIAL-SAND ============================================================


def test_special_card_windows_in_a_turn():
    """R-SPECIAL-WINDOWS: the team may play special cards before each action, after each treasure
    card drawn (again after each play) and before each flood card drawn."""
    p = position(island("ca mm") + "diver@IG:\npilot@TM: sand sand\ntreasure draw: ocean wind fire\n")
    run = play(p, PHASE_TURN, ["end", "pass", "sand pilot CA", "pass", "pass", "pass"])
    assert [d[0] for d in run.decisions] == ["action"] + ["window"] * 5
    assert run.story == ["turn 2 diver", "action diver: end", "draw diver fire", "draw diver wind",
                         "window pilot: sand pilot CA", "flood WT", "flood TH"]
    assert run.decisions[1][2] == ["pass", "sand pilot CA", "sand pilot MM"]


def test_sandbags_cannot_save_a_tile_whose_card_was_just_revealed():
    """R-SPECIAL-SAND: the window comes before the flood card is drawn; once CA's card is revealed
    it sinks at once, with no decision in between (2 cards, 2 windows)."""
    p = position(island("ca mm") + "diver@IG:\npilot@TM: sand\nflood draw: CF WT CA\n")
    run = play(p, PHASE_FLOOD, ["pass", "pass"])
    assert run.story == ["sink CA", "flood WT"]
    assert run.decisions == [("window", "diver", ["pass", "sand pilot CA", "sand pilot MM"]),
                             ("window", "diver", ["pass", "sand pilot MM"])]


def test_sandbags_before_the_reveal_save_the_tile():
    """R-SPECIAL-SAND: played in the window before the card, the tile is dry when its card comes
    and only floods."""
    p = position(island("ca mm") + "diver@IG:\npilot@TM: sand\nflood draw: CF WT CA\n")
    run = play(p, PHASE_FLOOD, ["sand pilot CA"])
    assert run.story == ["window pilot: sand pilot CA", "flood CA", "flood WT"]


# === R-FLOOD-1, R-FLOOD-EMPTY =====================================================================


def test_flood_cards_flood_dry_tiles_and_sink_flooded_ones():
    """R-FLOOD-1: a dry tile floods and its card goes to the flood discard; a flooded tile sinks
    and its card leaves the game."""
    p = position(island("ca") + "diver@IG:\nflood draw: WT DD CA\nflood discard: LL\n")
    run = play(p, PHASE_FLOOD)
    assert run.story == ["sink CA", "flood DD"]
    assert run.status("CA") == "sunk" and run.status("DD") == "flooded"
    assert run.flood_discard() == {"LL", "DD"} and run.flood_pile() == ["WT"]
    assert run.pub[st.P_SUNK_COUNT] == 1


def test_sunk_card_stays_in_the_flood_deck():
    """R-FLOOD-1 switch sunk-card-stays: a sinking tile's card goes to the flood discard instead of
    leaving the game; drawn again, the card of a sunk tile does nothing (it counts as one of the
    cards drawn) and goes back to the discard. Official rules: the card leaves the game."""
    text = island("ca") + "diver@IG:\nflood draw: WT DD CA\nflood discard: LL\n"
    official = play(position(text), PHASE_FLOOD)
    assert official.story == ["sink CA", "flood DD"] and official.flood_discard() == {"LL", "DD"}
    run = play(position(text + "rules: sunk-card-stays\n"), PHASE_FLOOD)
    assert run.story == ["sink CA", "flood DD"] and run.status("CA") == "sunk"
    assert run.flood_discard() == {"LL", "DD", "CA"} and run.flood_pile() == ["WT"]
    again = play(position(island("~CA") + "diver@IG:\nflood draw: WT DD CA\nrules: sunk-card-stays\n"),
                 PHASE_FLOOD)
    assert again.story == ["flood sunk CA", "flood DD"] and again.status("CA") == "sunk"
    assert again.flood_discard() == {"CA", "DD"} and again.pub[st.P_SUNK_COUNT] == 1


def test_sunk_card_stays_goes_back_on_top_with_a_waters_rise():
    """R-DRAW-WR, R-FLOOD-EMPTY with switch sunk-card-stays: a sunk tile's card in the flood
    discard is shuffled back on top like any other (pub marks it), and into the new pile when the
    pile runs out: with Fools' Landing the last tile standing, all 24 cards go on being drawn."""
    p = position(island("~CA") + "diver@IG:\ntreasure draw: fire earth wr\nflood discard: CA LL\n"
                 "rules: sunk-card-stays\n")
    run = play(p, PHASE_DRAW)
    assert run.story == ["draw diver wr", "water 3", "flood discard on top 2", "draw diver earth"]
    assert sorted(run.flood_pile()[-2:]) == sorted(tiles("CA LL"))
    assert {TILE_CODES[t] for t in range(24) if run.pub[st.P_FLAYER + t] > 0} == tiles("CA LL")
    lone = position("""
.   .   ~CS ~OB .   .
.   ~TP ~GG FL  ~TH .
~IG ~WG ~BB ~CA ~DD ~TM
~CP ~PR ~SG ~HG ~LL ~CE
.   ~TS ~WT ~MM ~CG .
.   .   ~BG ~CF .   .
messenger@FL:
water 3
flood draw: DD
flood discard: CS OB TP GG FL TH IG WG BB CA TM CP PR SG HG LL CE TS WT MM CG BG CF
rules: sunk-card-stays
""" + ALL_CAPTURED)
    run = play(lone, PHASE_FLOOD)
    assert run.story[:2] == ["flood sunk DD", "flood reshuffle 24"]
    assert len(run.story) == 4 and all(e.startswith("flood sunk ") or e == "flood FL" for e in run.story[2:])
    assert len(run.flood_pile()) == 22 and len(run.flood_discard()) == 2


def test_flood_pile_reshuffles_when_empty_and_a_tile_floods_and_sinks_in_one_phase():
    """R-FLOOD-EMPTY: the moment the flood pile is empty the discard becomes the new pile and the
    drawing goes on: DD floods, then (3 cards at water 3) DD sinks and FL floods; the sunk DD's
    card is gone from the next pile."""
    p = position("""
.   .   ~CS ~OB .   .
.   ~TP ~GG FL  ~TH .
~IG ~WG ~BB ~CA DD  ~TM
~CP ~PR ~SG ~HG ~LL ~CE
.   ~TS ~WT ~MM ~CG .
.   .   ~BG ~CF .   .
messenger@FL:
water 3
flood draw: DD
flood discard: FL
""" + ALL_CAPTURED)
    run = play(p, PHASE_FLOOD)
    assert run.story[:2] == ["flood DD", "flood reshuffle 2"]
    assert sorted(run.story[2:4]) == ["flood FL", "sink DD"]
    assert run.story[4:] == ["flood reshuffle 1"]
    assert run.flood_pile() == ["FL"] and run.flood_discard() == set()


# === R-SWIM-1, R-SWIM-2, R-SWIM-3 =================================================================

ORTH_BB = "GG WG CA SG"
DIAG_BB = "TP FL PR HG"


@pytest.mark.parametrize("role", ["engineer", "messenger", "navigator", "explorer", "pilot", "diver"])
def test_swim_destinations_by_role(role):
    """R-SWIM-1: an orthogonally adjacent existing tile; R-SWIM-2: the Explorer diagonally too,
    the Pilot anywhere, the Diver to the nearest tiles (here the orthogonal ones); switch
    swim-seed000: only the Diver's exception; switch swim-seed001: the Diver's and the
    Explorer's, the Pilot swims orthogonally."""
    text = island("~BB") + f"{role}@BB:\ndecision: swim {role}\n"
    official = {"explorer": ORTH_BB + " " + DIAG_BB, "pilot": " ".join(ALL_TILES - {"BB"})}.get(role, ORTH_BB)
    assert options(position(text)) == words("swim", official)
    assert options(position(text + "rules: swim-seed000\n")) == words("swim", ORTH_BB)
    seed001 = ORTH_BB if role == "pilot" else official
    assert options(position(text + "rules: swim-seed001\n")) == words("swim", seed001)


def test_swim_from_a_corner_with_sunk_neighbours():
    """R-SWIM-1, R-SWIM-2: from TM with DD and CE sunk: nobody can swim orthogonally; the Explorer
    reaches the diagonals TH and LL; the Diver the tiles 2 steps away through sunk cells; switch
    swim-seed000 leaves only the Diver's; switch swim-seed001 the Diver's and the Explorer's (the
    Pilot, like the Messenger, has nowhere to go)."""
    base = island("~TM ~DD ~CE")
    expect = {"messenger": {"pass"}, "explorer": words("swim", "TH LL"),
              "pilot": words("swim", " ".join(ALL_TILES - tiles("TM DD CE"))), "diver": words("swim", "TH CA LL")}
    for role, official in expect.items():
        text = base + f"{role}@TM:\ndecision: swim {role}\n"
        assert options(position(text)) == official, role
        seed000 = words("swim", "TH CA LL") if role == "diver" else {"pass"}
        assert options(position(text + "rules: swim-seed000\n")) == seed000, role
        seed001 = {"pass"} if role == "pilot" else official
        assert options(position(text + "rules: swim-seed001\n")) == seed001, role


def test_diver_swims_to_the_nearest_tiles_and_the_team_chooses_among_ties():
    """R-SWIM-2: the Diver swims to the existing tiles at the fewest orthogonal steps through
    the island's cells, sunk or not: all 6 tiles at 2 steps from BB are offered."""
    p = position(island("~BB ~GG ~WG ~CA ~SG ~TP ~DD") + "diver@BB:\ndecision: swim diver\n")
    assert options(p) == words("swim", "CS FL IG PR HG WT")


def test_diver_nearest_does_not_count_the_sea():
    """R-SWIM-2: steps go through island cells only. On the Bridge of Horrors the Diver on IG is
    4 cells of sea from TM but 5 island steps from CP and SG: CP and SG are the nearest."""
    p = position("""
HG  WG  TM  .   .   .   ~IG ~BB ~CA ~CF
FL  CS  CP  ~TP ~DD ~LL ~MM ~OB ~PR ~CE
BG  CG  GG  SG  .   .   .   ~TH ~WT ~TS
diver@IG:
decision: swim diver
""")
    assert options(p) == words("swim", "CP SG")


def test_swimmer_chooses_where_to_swim():
    """R-SWIM-1: a pawn on the tile that sinks swims at once, to the tile chosen."""
    p = position(island("ca") + "engineer@CA:\nflood draw: CF WT CA\n")
    run = play(p, PHASE_FLOOD, ["swim DD"])
    assert run.decisions == [("swim", "engineer", ["swim FL", "swim BB", "swim DD", "swim HG"])]
    assert run.story == ["sink CA", "swim engineer: swim DD", "flood WT"]
    assert run.where("engineer") == "DD"


def test_swimmers_go_in_seat_order_from_the_active_player():
    """R-SWIM-1: all pawns on the sinking tile swim, one at a time, from the active seat on."""
    p = position(island("ca") + "messenger@CA:\nengineer@CA:\ndiver@CA:\nactive 1\nflood draw: CF WT CA\n")
    run = play(p, PHASE_FLOOD, ["swim FL", "swim BB", "swim DD"])
    assert run.story == ["sink CA", "swim engineer: swim FL", "swim diver: swim BB",
                         "swim messenger: swim DD", "flood WT"]


def test_pawn_that_cannot_swim_drowns():
    """R-SWIM-3, R-LOSE drowned: nowhere to swim and no Helicopter Lift: the pawn drowns and the
    game is lost at once (the second flood card is not drawn); nobody is asked."""
    p = position(island("tm ~DD ~CE") + "messenger@TM:\nflood draw: CF WT TM\n")
    run = play(p, PHASE_FLOOD)
    assert run.decisions == []
    assert run.story == ["sink TM", "drown messenger", "lose drowned: drowned"]
    assert run.over == "lost" and run.pub[st.P_CAUSE] == 4 and run.pub[st.P_CONDITIONS] == 4


def test_helicopter_lift_rescues_a_pawn_that_cannot_swim():
    """R-SPECIAL-WINDOWS, R-SWIM-3: when a pawn must swim, a Helicopter Lift may carry it to any
    existing tile even if it could not swim; the holder plays it."""
    p = position(island("tm ~DD ~CE") + "messenger@TM:\npilot@FL: heli\nflood draw: CF WT TM\n")
    run = play(p, PHASE_FLOOD, ["pass", "heli pilot messenger FL"])
    assert run.decisions[1] == ("swim", "messenger", ["pass", "heli pilot messenger"])
    assert run.decisions[2] == ("lift-dest", "pilot", sorted(     # the lift's destination (docs/model.md)
        (f"lift-to {t}" for t in ALL_TILES - tiles("TM DD CE")), key=lambda w: p.cell_of(w.split()[-1])))
    assert run.story == ["sink TM", "swim pilot: heli pilot messenger FL", "flood WT"]
    assert run.where("messenger") == "FL" and run.hand("pilot") == {} and run.treasure_discard() == {"heli": 1}


def test_team_may_let_a_stranded_pawn_drown():
    """R-SWIM-3: a pawn with nowhere to swim is not lifted off: it drowns."""
    p = position(island("tm ~DD ~CE") + "messenger@TM:\npilot@FL: heli\nflood draw: CF WT TM\n")
    run = play(p, PHASE_FLOOD, ["pass", "pass"])
    assert run.story == ["sink TM", "drown messenger", "lose drowned: drowned"]


def test_no_heli_rescue_switch():
    """R-SPECIAL-WINDOWS switch no-heli-rescue: no Helicopter Lift may rescue a pawn whose tile
    sinks: the stranded messenger drowns though the Pilot holds a Lift (which the window before
    the card still offers)."""
    p = position(island("tm ~DD ~CE") + "messenger@TM:\npilot@FL: heli\nflood draw: CF WT TM\n"
                 "rules: no-heli-rescue\n")
    run = play(p, PHASE_FLOOD, ["pass"])
    assert [d[0] for d in run.decisions] == ["window"]
    assert run.story == ["sink TM", "drown messenger", "lose drowned: drowned"]
    swim = island("~BB") + "engineer@BB:\npilot@FL: heli\ndecision: swim engineer\n"
    assert options(position(swim + "rules: no-heli-rescue\n")) == words("swim", ORTH_BB)
    # without the switch a Lift is offered to a swimmer who could swim too (and no PASS)
    assert options(position(swim)) == (words("swim", ORTH_BB)
                                       | {f"heli pilot engineer {t}" for t in ALL_TILES - {"BB"}})


def test_rescue_lift_may_carry_others_on_the_sinking_tile():
    """R-SPECIAL-HELI, R-SPECIAL-WINDOWS: the rescue lifts any group on the sunk tile that holds
    the swimmer; a pawn lifted away is not asked to swim. Switch heli-all: the whole group."""
    text = island("tm ~DD ~CE") + "messenger@TM:\nengineer@TM:\npilot@FL: heli\nflood draw: CF WT TM\n"
    run = play(position(text), PHASE_FLOOD, ["pass", "heli pilot messenger+engineer CG"])
    assert run.story == ["sink TM", "swim pilot: heli pilot messenger+engineer CG", "flood WT"]
    assert run.where("messenger") == "CG" and run.where("engineer") == "CG"
    swim = island("~TM ~DD ~CE") + "messenger@TM:\nengineer@TM:\npilot@FL: heli\ndecision: swim messenger\n"
    lifts = options(position(swim), "heli")
    rest = ALL_TILES - tiles("TM DD CE")
    assert lifts == {f"heli pilot {g} {t}" for g in ("messenger", "messenger+engineer") for t in rest}
    assert options(position(swim + "rules: heli-all\n"), "heli") == {f"heli pilot messenger+engineer {t}" for t in rest}


# === R-WIN ======================================================================================


@pytest.mark.parametrize("active,winner", [(1, "messenger"), (2, "diver"), (0, "diver")])
def test_win_is_claimed_at_once(active, winner):
    """R-WIN: all 4 treasures, every pawn on Fools' Landing (flooded is fine) and a Helicopter
    Lift held: won at once, the first holder from the active seat on lifting the team off."""
    p = position(island("fl") + "diver@FL: heli\nmessenger@FL: heli\npilot@FL:\n"
                 f"active {active}\n" + ALL_CAPTURED)
    run = play(p, PHASE_ACTIONS)
    assert run.story == [f"win {winner}"] and run.over == "won"
    assert run.treasure_discard() == {"heli": 1}


def test_win_the_moment_the_last_pawn_reaches_fools_landing():
    """R-WIN: the last pawn moves onto Fools' Landing: won before the next decision."""
    p = position(ISLAND + "messenger@CA:\ndiver@FL: heli\n" + ALL_CAPTURED)
    run = play(p, PHASE_ACTIONS, ["move FL"])
    assert run.story == ["action messenger: move FL", "win diver"]
    assert run.over == "won" and run.pub[st.P_ACTIONS_LEFT] == 2


def test_win_the_moment_a_helicopter_lift_is_drawn():
    """R-WIN: drawing the Lift that was missing wins at once, before any hand-limit discard."""
    p = position(ISLAND + "diver@FL: earth earth wind wind fire\npilot@FL:\ntreasure draw: ocean heli\n"
                 + ALL_CAPTURED)
    run = play(p, PHASE_DRAW)
    assert run.story == ["draw diver heli", "win diver"] and run.over == "won"


@pytest.mark.parametrize("missing", ["a treasure", "a pawn", "a lift"])
def test_no_win_without_every_condition(missing):
    """R-WIN: not won with 3 treasures, with a pawn off Fools' Landing, or with no Lift held."""
    captured = "captured: earth wind fire\n" if missing == "a treasure" else ALL_CAPTURED
    where = "CA" if missing == "a pawn" else "FL"
    lift = "" if missing == "a lift" else "heli"
    p = position(ISLAND + f"diver@FL: {lift}\nmessenger@{where}:\n" + captured)
    run = play(p, PHASE_ACTIONS, ["end"])
    assert run.story == ["action diver: end"] and run.over is None


def test_win_made_available_by_the_last_action_is_claimed_before_drawing():
    """R-WIN: the third action brings the last pawn onto Fools' Landing; the team wins then, before
    the treasure draw (whose top card would raise the water to the skull)."""
    p = position(ISLAND + "messenger@CA:\ndiver@FL: heli\nwater 9\ntreasure draw: earth wr\n" + ALL_CAPTURED)
    run = play(p, PHASE_TURN, ["move BB", "move CA", "move FL"])
    assert run.story == ["turn 2 messenger", "action messenger: move BB", "action messenger: move CA",
                         "action messenger: move FL", "win diver"]
    assert run.over == "won"


# === R-LOSE, R-LOSE-CAUSE =========================================================================


def test_loss_causes_and_their_order():
    """R-LOSE-CAUSE: the primary cause is the first that holds in the order landing-sunk,
    treasure-lost, drowned, skull (condition bits 1, 2, 4, 8)."""
    assert LOSS_NAMES == ("landing-sunk", "treasure-lost", "drowned", "skull")


def test_fools_landing_sinks():
    """R-LOSE landing-sunk: Fools' Landing sinks: lost at once, nothing more is drawn."""
    p = position(island("fl") + "diver@IG:\nflood draw: WT FL\n")
    run = play(p, PHASE_FLOOD)
    assert run.story == ["sink FL", "lose landing-sunk: landing-sunk"]
    assert run.over == "lost" and run.pub[st.P_CAUSE] == 1 and run.pub[st.P_CONDITIONS] == 1


def test_fools_landing_sinks_under_a_stranded_pawn():
    """R-LOSE-CAUSE: Fools' Landing sinks with a pawn that cannot swim and no Lift in hand: both
    landing-sunk and drowned hold; landing-sunk is the primary cause (no DROWN event: the game is
    over before anyone swims)."""
    p = position(island("fl ~OB ~GG ~TH ~CA") + "messenger@FL:\n")
    run = play(p, PHASE_SINK, sink="FL")
    assert run.story == ["sink FL", "lose landing-sunk: landing-sunk+drowned"]
    assert run.pub[st.P_CAUSE] == 1 and run.pub[st.P_CONDITIONS] == 1 | 4


def test_stranded_pawn_with_a_lift_in_hand_is_not_counted_drowned():
    """R-LOSE-CAUSE: a Lift in hand could carry the pawn, so only landing-sunk holds; under
    no-heli-rescue it could not, and drowned holds too. An Explorer (diagonal swimmer) on
    Fools' Landing could swim to CS, BB or DD: not drowned."""
    base = island("fl ~OB ~GG ~TH ~CA")
    run = play(position(base + "messenger@FL:\npilot@IG: heli\n"), PHASE_SINK, sink="FL")
    assert run.story == ["sink FL", "lose landing-sunk: landing-sunk"]
    run = play(position(base + "messenger@FL:\npilot@IG: heli\nrules: no-heli-rescue\n"), PHASE_SINK, sink="FL")
    assert run.story == ["sink FL", "lose landing-sunk: landing-sunk+drowned"]
    run = play(position(base + "explorer@FL:\n"), PHASE_SINK, sink="FL")
    assert run.story == ["sink FL", "lose landing-sunk: landing-sunk"]
    run = play(position(base + "explorer@FL:\nrules: swim-seed000\n"), PHASE_SINK, sink="FL")
    assert run.story == ["sink FL", "lose landing-sunk: landing-sunk+drowned"]


def test_both_tiles_of_an_uncaptured_treasure_sink():
    """R-LOSE treasure-lost: the Temple of the Moon is gone and the Temple of the Sun sinks."""
    p = position(island("~TM ts") + "diver@IG:\nflood draw: CF WT TS\n")
    run = play(p, PHASE_FLOOD)
    assert run.story == ["sink TS", "lose treasure-lost: treasure-lost"]
    assert run.pub[st.P_CAUSE] == 2 and run.pub[st.P_CONDITIONS] == 2


def test_captured_treasure_tiles_may_sink():
    """R-LOSE treasure-lost: not if the team has captured that treasure; nor while one tile stands."""
    p = position(island("~TM ts") + "diver@IG:\nflood draw: CF WT TS\ncaptured: earth\n")
    assert play(p, PHASE_FLOOD).story == ["sink TS", "flood WT"]
    p = position(island("tm ts") + "diver@IG:\nflood draw: CF WT TS\n")
    assert play(p, PHASE_FLOOD).story == ["sink TS", "flood WT"]


def test_treasure_lost_under_a_stranded_pawn():
    """R-LOSE-CAUSE: the last Earth temple sinks under a pawn that cannot swim: treasure-lost and
    drowned; treasure-lost is the primary cause."""
    p = position(island("~TM ts ~PR ~WT") + "messenger@TS:\nflood draw: MM TS\n")
    run = play(p, PHASE_FLOOD)
    assert run.story == ["sink TS", "lose treasure-lost: treasure-lost+drowned"]
    assert run.pub[st.P_CAUSE] == 2 and run.pub[st.P_CONDITIONS] == 2 | 4


def test_first_swimmer_drowning_ends_the_game():
    """R-LOSE drowned: the first of two stranded pawns drowns and the game is over: the second is
    not asked, no other card is drawn."""
    p = position(island("tm ~DD ~CE") + "messenger@TM:\nengineer@TM:\nflood draw: CF WT TM\nactive 1\n")
    run = play(p, PHASE_FLOOD)
    assert run.story == ["sink TM", "drown engineer", "lose drowned: drowned"]


# === How close a game came (docs/model.md "Game record": the result's R_CLOSE) ===================


def test_a_win_one_step_from_the_skull_on_a_flooded_landing_is_close():
    """R-WIN at water 9, one Waters Rise! below the skull (R-METER, R-DRAW-WR), with Fools' Landing
    flooded, one flood card from landing-sunk (R-FLOOD-1, R-LOSE): both are recorded; a win at
    water 8 on a dry Fools' Landing records neither."""
    run = play(position(island("fl") + "diver@FL: heli\nmessenger@FL:\nwater 9\n" + ALL_CAPTURED), PHASE_ACTIONS)
    assert run.over == "won" and run.close() == {"skull", "landing"}
    run = play(position(ISLAND + "diver@FL: heli\nmessenger@FL:\nwater 8\n" + ALL_CAPTURED), PHASE_ACTIONS)
    assert run.over == "won" and run.close() == set()


def test_a_loss_at_the_skull_is_not_one_step_from_it():
    """R-DRAW-WR, R-LOSE skull: the meter reaches the skull; it ended at the skull, not one below."""
    run = play(position(ISLAND + "diver@IG:\nwater 9\ntreasure draw: earth wr\n"), PHASE_DRAW)
    assert run.over == "lost" and run.level == 10 and "skull" not in run.close()


def test_a_treasure_is_one_flood_card_from_lost_when_its_last_temple_floods():
    """R-FLOOD-1, R-LOSE treasure-lost: the Temple of the Moon has sunk and the Temple of the Sun
    floods: the Earth Stone, not captured, is one flood card from lost, and the game records it.
    Not for a captured treasure, nor while the other temple stands."""
    run = play(position(island("~TM") + "diver@IG:\nflood draw: CF WT TS\n"), PHASE_FLOOD)
    assert run.story == ["flood TS", "flood WT"] and run.close() == {"temple"}
    run = play(position(island("~TM") + "diver@IG:\nflood draw: CF WT TS\ncaptured: earth\n"), PHASE_FLOOD)
    assert run.story == ["flood TS", "flood WT"] and run.close() == set()
    run = play(position(island("tm") + "diver@IG:\nflood draw: CF WT TS\n"), PHASE_FLOOD)
    assert run.story == ["flood TS", "flood WT"] and run.close() == set()


def test_a_treasure_is_one_flood_card_from_lost_when_its_other_temple_sinks():
    """R-FLOOD-1: the Temple of the Moon sinks while the Temple of the Sun is flooded: the same
    (the game goes on: one temple stands, R-LOSE)."""
    run = play(position(island("tm ts") + "diver@IG:\nflood draw: CF WT TM\n"), PHASE_FLOOD)
    assert run.story == ["sink TM", "flood WT"] and run.over is None and run.close() == {"temple"}


def test_only_what_happens_in_play_is_recorded_as_close():
    """A position that starts with the Earth Stone one card from lost records nothing until a flood
    card makes it so: what the result counts began during the game (docs/model.md)."""
    run = play(position(island("~TM ts") + "diver@IG:\nflood draw: MM CF WT\n"), PHASE_FLOOD)
    assert run.story == ["flood WT", "flood CF"] and run.close() == set()


# === R-VAR-SOLO =================================================================================


def test_solo_draws_three_cards_and_holds_seven():
    """R-VAR-SOLO: one player draws 3 treasure cards; the hand limit is 7, so only the eighth card
    is discarded."""
    p = position(ISLAND + "diver@IG: earth earth wind wind fire\nrules: solo\ntreasure draw: earth ocean fire ocean\n")
    run = play(p, PHASE_DRAW, ["discard wind"])
    assert run.story == ["draw diver ocean", "draw diver fire", "draw diver ocean", "discard diver: discard wind"]
    assert sum(run.hand("diver").values()) == 7


def test_solo_turn_comes_back_to_the_same_player():
    """R-VAR-SOLO, R-TURN: a solo turn: actions, 3 cards, the floods; the same seat plays next."""
    p = position(ISLAND + "pilot@FL:\nrules: solo\ntreasure draw: earth ocean fire wind\nflood draw: CE LL MM\n")
    run = play(p, PHASE_TURN, ["end"])
    assert run.story == ["turn 2 pilot", "action pilot: end", "draw pilot wind", "draw pilot fire",
                         "draw pilot ocean", "flood MM", "flood LL"]
    assert run.pub[st.P_ACTIVE] == 0


def test_two_players_hold_five():
    """R-HAND: without solo the same hand discards after the first card."""
    p = position(ISLAND + "diver@IG: earth earth wind wind fire\npilot@FL:\ntreasure draw: earth ocean fire ocean\n")
    run = play(p, PHASE_DRAW, ["discard wind", "discard wind"])
    assert run.story == ["draw diver ocean", "discard diver: discard wind", "draw diver fire",
                         "discard diver: discard wind"]
