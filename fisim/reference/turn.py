"""A turn (R-TURN): action phase, treasure draw, flooding; sinking, swimming, winning, losing.

The order of decisions, events and random draws is that of docs/model.md "A turn". The end of
the game (won or lost) raises GameOver, which stops everything at once.
"""
from fisim.position import DRY, FLOODED, SUNK
from fisim.reference import legal
from fisim.reference.effects import apply_option
from fisim.reference.legal import Decision
from fisim.rules.constants import (
    CLOSE_LANDING,
    CLOSE_SKULL,
    CLOSE_TEMPLE,
    DROWNED,
    FOOLS_LANDING,
    HELI,
    LANDING_SUNK,
    LOSS_NAMES,
    N_TILES,
    N_TREASURES,
    ROLE_NAMES,
    SKULL_REACHED,
    TREASURE_LOST,
    WATERS_RISE,
)
from fisim.rules.events import (
    EV_CHOICE,
    EV_DRAW,
    EV_DROWN,
    EV_FLOOD,
    EV_FLOOD_ON_TOP,
    EV_FLOOD_RESHUFFLE,
    EV_FLOOD_SUNK,
    EV_LOSE,
    EV_SINK,
    EV_TREASURE_RESHUFFLE,
    EV_TURN,
    EV_WATERS_RISE,
    EV_WIN,
)
from fisim.rules.options import ACTION, DISCARD, END, GIVE, LIFT, LIFT_DEST, PASS, SANDBAG, SWIM, WINDOW, code, unpack
from fisim.rules.rng import FLOOD, TREASURE

MAX_TURNS = 10_000    # docs/model.md "Game record": a safety stop no legal game reaches


class GameOver(Exception):
    """The game has ended; `game.result` holds the outcome."""


# --- the game loop ----------------------------------------------------------------------------

def play_turns(game):
    """Play turn after turn until the game ends (R-SETUP-6: play passes to seat + 1)."""
    while True:
        if game.turn >= MAX_TURNS:
            raise RuntimeError(f"game still running after {MAX_TURNS} turns")
        begin_turn(game)
        finish_turn(game)


def begin_turn(game):
    """R-TURN: a new turn of the active seat, with 3 actions (or the variant's) and the Pilot's
    flight unused."""
    game.turn += 1
    game.log(EV_TURN, game.turn, game.active)
    game.actions_left = game.config.actions
    game.flight_used = False


def finish_turn(game):
    """The rest of a turn from its action phase: actions, treasure cards, flood cards."""
    action_phase(game)
    draw_phase(game)
    flood_phase(game)
    game.active = (game.active + 1) % len(game.players)


# --- decisions --------------------------------------------------------------------------------

def decide(game, kind, seat, sunk=-1):
    """The option chosen at a decision. A Helicopter Lift is chosen in two steps (docs/model.md):
    after a LIFT (holder, seats), a LIFT_DEST decision of the holder picks where it lands, and the
    lift played, LIFT holder seats dest, is returned."""
    chosen = choose(game, Decision(kind, seat, sunk))
    t, holder, seats, _ = unpack(chosen)
    if t == LIFT:
        dest = choose(game, Decision(LIFT_DEST, holder, sunk, chosen, kind))
        chosen = code(LIFT, holder, seats, unpack(dest)[1])
    return chosen


def choose(game, decision):
    """List the options of a decision; ask the chooser only when there are two or more.

    Every decision has at least one option (END, PASS, a card to drop, PASS for a swimmer, a
    destination of a lift).
    """
    game.decision = decision
    found = legal.options(game, decision)
    if len(found) == 1:
        chosen = found[0]
    else:
        chosen = found[game.chooser(game, decision.kind, decision.seat, found)]
    game.decision = None
    return chosen


def carry_out(game, kind, seat, c):
    """Log the choice (never PASS) and apply it. A special card's CHOICE names its holder."""
    t, holder = unpack(c)[:2]
    if t == PASS:
        return
    actor = holder if t in (LIFT, SANDBAG) else seat
    game.log(EV_CHOICE, kind, actor, c)
    apply_option(game, seat, c)


# --- action phase -----------------------------------------------------------------------------

def action_phase(game):
    """R-TURN (1): up to 3 actions; special cards by anyone in between cost none (R-SPECIAL-1)."""
    while game.actions_left > 0:
        check_win(game)
        c = decide(game, ACTION, game.active)
        carry_out(game, ACTION, game.active, c)
        t, _, receiver, _ = unpack(c)
        if t == END:
            return
        if t in (LIFT, SANDBAG):
            continue
        game.actions_left -= 1
        if t == GIVE:                                   # R-HAND: the receiver discards at once
            hand_limit(game, receiver)
    check_win(game)                                     # R-WIN: the last action may complete it


# --- special-card windows and the hand limit ---------------------------------------------------

def window(game):
    """R-SPECIAL-WINDOWS: the team may play Helicopter Lifts and Sandbags until it passes."""
    while True:
        check_win(game)
        c = decide(game, WINDOW, game.active)
        if unpack(c)[0] == PASS:
            return
        carry_out(game, WINDOW, game.active, c)


def hand_limit(game, seat):
    """R-HAND: while over the limit, the player discards a card or plays a special card."""
    player = game.players[seat]
    while sum(player.hand) > game.config.hand_limit:
        check_win(game)
        c = decide(game, DISCARD, seat)
        carry_out(game, DISCARD, seat, c)


# --- treasure cards ---------------------------------------------------------------------------

def draw_phase(game):
    """R-DRAW-1: draw the treasure cards one at a time."""
    seat = game.active
    draws = game.config.draws
    for i in range(draws):
        kind = game.treasure_draw.pop()
        game.log(EV_DRAW, seat, kind)
        if kind == WATERS_RISE:
            waters_rise(game)
        else:
            game.players[seat].hand[kind] += 1
        if not game.treasure_draw:                      # R-DRAW-EMPTY
            reshuffle_treasure(game)
        if not game.hand_after_draw or i == draws - 1:  # switch hand-after-draw: after the last card
            hand_limit(game, seat)
        window(game)                                    # after each treasure card drawn


def waters_rise(game):
    """R-DRAW-WR: the meter rises; the flood discard goes back on top of the flood draw pile."""
    game.treasure_discard.append(WATERS_RISE)
    game.level += 1
    game.log(EV_WATERS_RISE, game.level)
    if game.level >= game.config.skull:
        lose(game, SKULL_REACHED)                       # R-LOSE skull
    if game.flood_discard:
        on_top = game.shuffled(sorted(game.flood_discard), FLOOD)
        game.flood_discard = []
        game.flood_draw += on_top
        game.log(EV_FLOOD_ON_TOP, len(on_top))


def reshuffle_treasure(game):
    """R-DRAW-EMPTY: the treasure discard, shuffled, is the new draw pile."""
    game.treasure_draw = game.shuffled(sorted(game.treasure_discard), TREASURE)
    game.treasure_discard = []
    game.log(EV_TREASURE_RESHUFFLE, len(game.treasure_draw))


# --- flooding ---------------------------------------------------------------------------------

def flood_phase(game):
    """R-FLOOD-1: draw the meter's count of flood cards, a window before each."""
    for _ in range(game.config.flood_counts[game.level]):
        window(game)
        tile = game.flood_draw.pop()
        cell = game.board.cell_of_tile[tile]
        if game.board.status[cell] == SUNK:             # switch sunk-card-stays: it does nothing
            game.flood_discard.append(tile)
            game.log(EV_FLOOD_SUNK, cell)
        elif game.board.status[cell] == DRY:
            game.board.status[cell] = FLOODED
            game.flood_discard.append(tile)
            game.log(EV_FLOOD, cell)
            note_temple_close(game, tile)
        else:
            game.board.status[cell] = SUNK              # the card leaves the game (or stays: switch)
            if game.sunk_card_stays:
                game.flood_discard.append(tile)
            game.log(EV_SINK, cell)
            sink(game, cell)
        if not game.flood_draw:                         # R-FLOOD-EMPTY
            game.flood_draw = game.shuffled(sorted(game.flood_discard), FLOOD)
            game.flood_discard = []
            game.log(EV_FLOOD_RESHUFFLE, len(game.flood_draw))


def note_temple_close(game, tile):
    """After `tile` floods or sinks: if it is a temple of a treasure not captured, and of the
    treasure's two temples one has sunk and the other is flooded, the treasure is one flood card
    from treasure-lost (R-FLOOD-1, R-LOSE); the game's result says it happened."""
    treasure = tile // 2
    if treasure < N_TREASURES and treasure not in game.captured:
        board = game.board
        temples = {board.status[board.cell_of_tile[t]] for t in (2 * treasure, 2 * treasure + 1)}
        if temples == {FLOODED, SUNK}:
            game.temple_close = True


def treasure_lost(game):
    """R-LOSE treasure-lost: both tiles of a treasure not yet captured have sunk."""
    board = game.board
    return any(t not in game.captured
               and not board.exists(board.cell_of_tile[2 * t])
               and not board.exists(board.cell_of_tile[2 * t + 1])
               for t in range(N_TREASURES))


def sink(game, cell):
    """A tile has sunk: lose at once (R-LOSE), or the pawns on it swim (R-SWIM-1..3)."""
    game.last_sunk = cell
    if game.board.sunk_count() == 1:
        game.first_sunk = cell
    conditions = 0
    if game.board.tile_at[cell] == FOOLS_LANDING:
        conditions |= LANDING_SUNK
    if treasure_lost(game):
        conditions |= TREASURE_LOST
    if conditions:
        if any(p.cell == cell and cannot_escape(game, p.seat, cell) for p in game.players):
            conditions |= DROWNED                       # R-LOSE-CAUSE: every condition that holds
        lose(game, conditions)
    note_temple_close(game, game.board.tile_at[cell])
    for seat in seats_from(game, game.active):
        if game.players[seat].cell != cell:             # already lifted away
            continue
        c = decide(game, SWIM, seat, cell)
        if unpack(c)[0] == PASS:                        # R-SWIM-3: nobody lifts it
            game.log(EV_DROWN, seat)
            lose(game, DROWNED)
        carry_out(game, SWIM, seat, c)


def cannot_escape(game, seat, cell):
    """No swim destination and no Helicopter Lift that could carry the pawn (R-SWIM-3)."""
    return all(unpack(c)[0] == PASS for c in legal.swim_options(game, seat, cell))


def seats_from(game, seat):
    """All seats in play order starting at `seat`."""
    n = len(game.players)
    return [(seat + i) % n for i in range(n)]


# --- the end ----------------------------------------------------------------------------------

def check_win(game):
    """R-WIN: claimed as soon as available (all treasures, everyone on Fools' Landing, a Lift held).

    The first seat from the active one onward that holds a Helicopter Lift plays it.
    """
    if len(game.captured) < N_TREASURES:
        return
    landing = game.board.cell_of_tile[FOOLS_LANDING]
    if any(p.cell != landing for p in game.players):
        return
    for seat in seats_from(game, game.active):
        if game.players[seat].hand[HELI] > 0:
            game.players[seat].hand[HELI] -= 1
            game.treasure_discard.append(HELI)
            game.log(EV_WIN, seat)
            end_game(game, True, 0)


def lose(game, conditions):
    """R-LOSE, R-LOSE-CAUSE: the primary cause is the first condition in LOSS_NAMES order."""
    primary = conditions & -conditions
    game.log(EV_LOSE, primary, conditions)
    end_game(game, False, conditions)


def end_game(game, won, conditions):
    """Record the result and stop the game."""
    names = {name for i, name in enumerate(LOSS_NAMES) if conditions >> i & 1}
    primary = (conditions & -conditions).bit_length() - 1
    game.result = {
        "won": won,
        "cause": LOSS_NAMES[primary] if conditions else None,
        "conditions": names,
        "turns": game.turn,
        "level": game.level,
        "captured": len(game.captured),
        "sunk": game.board.sunk_count(),
        "sunk_mask": sum(1 << c for c in range(len(game.board.status)) if not game.board.exists(c)),
        "first_sunk": game.first_sunk,
        "last_sunk": game.last_sunk,
        "sunk_tiles": sum(1 << t for t in range(N_TILES) if not game.board.exists(game.board.cell_of_tile[t])),
        "first_sunk_tile": game.board.tile_at[game.first_sunk] if game.first_sunk >= 0 else -1,
        "last_sunk_tile": game.board.tile_at[game.last_sunk] if game.last_sunk >= 0 else -1,
        "first": game.first,
        "team": tuple(ROLE_NAMES[p.role] for p in game.players),
        "close": ((CLOSE_SKULL if game.level == game.config.skull - 1 else 0)
                  | (CLOSE_LANDING if game.board.status[game.board.cell_of_tile[FOOLS_LANDING]] == FLOODED else 0)
                  | (CLOSE_TEMPLE if game.temple_close else 0)),
    }
    game.decision = None
    raise GameOver()

