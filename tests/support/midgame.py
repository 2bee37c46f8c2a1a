"""A midgame position the policy tests play from, its draw piles in other orders (the same cards:
what R-INFO hides from every policy), and what a test reads of a game played from it."""
from support.board import ISLAND, engine_game

from fisim.position import parse_position
from fisim.rules import events as ev
from fisim.rules import state as st

MIDGAME = ISLAND.replace("CA", "ca").replace("TM", "tm").replace("FL", "fl") + """
engineer@BB: earth earth wind heli
diver@IG: fire fire ocean sand
navigator@TS: earth wind wind
water 3; active 0; actions 3; turn 7
flood discard: CA TM FL
"""
TREASURE_DRAWS = (
    "treasure draw: earth earth wind wind fire fire fire ocean ocean ocean ocean heli heli sand wr wr wr",
    "treasure draw: wr heli wind earth ocean fire wr ocean sand fire wind heli wr ocean earth ocean fire")
FLOOD_DRAWS = ("flood draw: OB GG TH IG WG DD CP PR SG HG LL CE TS WT MM CG BG CF CS TP BB",
               "flood draw: CF BG CG MM WT TS CE LL HG SG PR CP DD WG IG TH GG OB TP CS BB")
# the position's two draw piles in three orders of the same cards
PILE_ORDERS = ((TREASURE_DRAWS[0], FLOOD_DRAWS[0]), (TREASURE_DRAWS[1], FLOOD_DRAWS[1]),
               (TREASURE_DRAWS[0], FLOOD_DRAWS[1]))


def game(text, seed=0):
    """(the position, an engine game from it with room to record every policy decision)."""
    p = parse_position(text)
    return p, engine_game(p, seed)


def choices(events, kind=None):
    """The option codes chosen (EV_CHOICE events), optionally of one decision kind."""
    return [int(c) for e, k, s, c in events if e == ev.EV_CHOICE and (kind is None or k == kind)]


def piles(g):
    """(treasure pile, flood pile) of game array `g` in order, top last."""
    return (list(g[st.H_TPILE:st.H_TPILE + g[st.P_TDRAW_N]]), list(g[st.H_FPILE:st.H_FPILE + g[st.P_FDRAW_N]]))
