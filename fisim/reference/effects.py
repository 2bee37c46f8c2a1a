"""What an option does to the game state. No events, no follow-ups: those belong to `turn.py`."""
from fisim.position import DRY
from fisim.rules.constants import HELI, SAND
from fisim.rules.options import (
    CAPTURE,
    DIVE,
    DROP,
    END,
    FLY,
    GIVE,
    LIFT,
    MOVE,
    NAV,
    PASS,
    SANDBAG,
    SHORE,
    SHORE2,
    SWIM_TO,
    unpack,
)


def apply_option(game, seat, c):
    """Carry out option `c` chosen at a decision of `seat` (the active player, discarder or swimmer)."""
    t, f1, f2, f3 = unpack(c)
    me = game.players[seat]
    if t in (END, PASS):
        return
    if t in (MOVE, DIVE, SWIM_TO):           # R-ACT-MOVE, R-ROLE-DIVER, R-SWIM-1
        me.cell = f1
    elif t == FLY:                           # R-ROLE-PILOT: once per turn
        me.cell = f1
        game.flight_used = True
    elif t == NAV:                           # R-ROLE-NAVIGATOR
        game.players[f1].cell = f2
    elif t == SHORE:                         # R-ACT-SHORE
        game.board.status[f1] = DRY
    elif t == SHORE2:                        # R-ROLE-ENGINEER
        game.board.status[f1] = DRY
        game.board.status[f2] = DRY
    elif t == GIVE:                          # R-ACT-GIVE
        me.hand[f1] -= 1
        game.players[f2].hand[f1] += 1
    elif t == CAPTURE:                       # R-ACT-CAPTURE: the 4 cards (or the variant's) are discarded
        me.hand[f1] -= game.config.capture
        game.treasure_discard += [f1] * game.config.capture
        game.captured.add(f1)
    elif t == LIFT:                          # R-SPECIAL-HELI
        play_card(game, f1, HELI)
        for p in game.players:
            if f2 >> p.seat & 1:
                p.cell = f3
    elif t == SANDBAG:                       # R-SPECIAL-SAND
        play_card(game, f1, SAND)
        game.board.status[f2] = DRY
    elif t == DROP:                          # R-HAND
        play_card(game, seat, f1)
    else:
        raise ValueError(f"unknown option code {c:#x}")


def play_card(game, seat, kind):
    """A card leaves a hand for the treasure discard (R-SPECIAL-1, R-HAND)."""
    game.players[seat].hand[kind] -= 1
    game.treasure_discard.append(kind)
