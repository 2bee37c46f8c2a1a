"""Transcript events: what happened in a game, as rows of four int32 (code, a, b, c).

The engine writes them when asked to record a game; the reference produces the same rows; the
transcript formatter turns them into text. Two implementations that agree on every event of a
game have played the same game.
"""
from fisim.jit.modes import compiled
from fisim.rules.state import LOG, X_LOG_CAP

EV_PLACE = 0           # a=cell, b=tile                       (setup: the tile placed on a cell)
EV_SETUP_FLOOD = 1     # a=cell                               (one of the 6 initial floods)
EV_TEAM = 2            # a=seat, b=role, c=start cell
EV_DEAL = 3            # a=seat, b=kind                       (a card dealt)
EV_DEAL_WR = 4         # a=seat                               (a Waters Rise! dealt and set aside)
EV_DEAL_RESHUFFLE = 5  # a=cards in the new draw pile         (set-aside Waters Rise! shuffled back)
EV_FIRST = 6           # a=seat of the first player, b=starting water level
EV_TURN = 7            # a=turn number (1-based), b=seat
EV_CHOICE = 8          # a=decision kind, b=seat deciding/acting, c=option code
EV_DRAW = 9            # a=seat, b=kind                       (a treasure card drawn)
EV_WATERS_RISE = 10    # a=new water level
EV_FLOOD_ON_TOP = 11   # a=cards of the flood discard shuffled onto the flood draw pile
EV_TREASURE_RESHUFFLE = 12  # a=cards in the new treasure draw pile (R-DRAW-EMPTY)
EV_FLOOD_RESHUFFLE = 13     # a=cards in the new flood draw pile (R-FLOOD-EMPTY)
EV_FLOOD = 14          # a=cell                               (a dry tile floods)
EV_SINK = 15           # a=cell                               (a flooded tile sinks)
EV_DROWN = 16          # a=seat
EV_WIN = 17            # a=seat that played the Helicopter Lift
EV_LOSE = 18           # a=primary cause bit, b=conditions mask
EV_FLOOD_SUNK = 19     # a=cell                               (switch sunk-card-stays: the card of a
                       #                                       sunk tile, drawn: nothing happens)
EV_WIDTH = 4


@compiled(counted=False)
def log_event(g, code, a, b, c):
    """Append an event to game array g's transcript, if it has room for one."""
    i = g[LOG]
    if i + 4 <= g[X_LOG_CAP]:
        g[LOG + 1 + i] = code
        g[LOG + 2 + i] = a
        g[LOG + 3 + i] = b
        g[LOG + 4 + i] = c
        g[LOG] = i + 4
