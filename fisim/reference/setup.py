"""Setting up a game (R-SETUP-1..6), in the order of docs/model.md "Setup"."""
from fisim.position import FLOODED
from fisim.reference.board import Board
from fisim.reference.game import Player
from fisim.rules.constants import N_TILES, ROLE_NAMES, START_TILE, WATERS_RISE
from fisim.rules.events import EV_DEAL, EV_DEAL_RESHUFFLE, EV_DEAL_WR, EV_FIRST, EV_PLACE, EV_SETUP_FLOOD, EV_TEAM
from fisim.rules.rng import FIRST, FLOOD, PLACEMENT, TEAM, TREASURE

N_ROLES = len(ROLE_NAMES)
DEALT = 2


def set_up(game):
    """All of setup; the active seat is the first player afterwards."""
    place_tiles(game)
    deal_team(game)
    first_floods(game)
    deal_treasures(game)
    choose_first(game)


def place_tiles(game):
    """R-SETUP-1, R-LAYOUT-2: a random tile on each cell, all dry."""
    tile_at = game.shuffled(list(range(N_TILES)), PLACEMENT)
    game.board = Board(game.layout, tile_at)
    for cell, tile in enumerate(tile_at):
        game.log(EV_PLACE, cell, tile)


def deal_team(game):
    """R-SETUP-3: one adventurer per seat (a fixed team, or dealt at random); pawns on their gates."""
    team = game.config.team
    if team is not None:
        roles = [ROLE_NAMES.index(r) for r in team]
    else:
        roles = game.shuffled(list(range(N_ROLES)), TEAM)[:game.config.players]
    for seat, role in enumerate(roles):
        cell = game.board.cell_of_tile[START_TILE[role]]
        game.players.append(Player(seat, role, cell))
        game.log(EV_TEAM, seat, role, cell)


def first_floods(game):
    """R-SETUP-2: shuffle the flood deck; the top 6 tiles (or the variant's number) flood, their
    cards to the flood discard."""
    game.flood_draw = game.shuffled(list(range(N_TILES)), FLOOD)
    for _ in range(game.config.initial_floods):
        tile = game.flood_draw.pop()
        cell = game.board.cell_of_tile[tile]
        game.board.status[cell] = FLOODED
        game.flood_discard.append(tile)
        game.log(EV_SETUP_FLOOD, cell)


def deal_treasures(game):
    """R-SETUP-4: 2 cards to each seat from the deck (R-TDECK, or the variant's); a Waters Rise! is
    set aside, replaced, shuffled back after."""
    deck = [kind for kind, n in enumerate(game.config.deck) for _ in range(n)]
    pile = game.shuffled(deck, TREASURE)
    set_aside = []
    for player in game.players:
        dealt = 0
        while dealt < DEALT:
            kind = pile.pop()
            if kind == WATERS_RISE:
                set_aside.append(kind)
                game.log(EV_DEAL_WR, player.seat)
            else:
                player.hand[kind] += 1
                game.log(EV_DEAL, player.seat, kind)
                dealt += 1
    if set_aside:
        pile = game.shuffled(pile + set_aside, TREASURE)
        game.log(EV_DEAL_RESHUFFLE, len(pile))
    game.treasure_draw = pile


def choose_first(game):
    """R-SETUP-5, R-SETUP-6: the water meter at the level's start; a fixed or random first player."""
    game.level = game.config.start_level
    first = game.config.first
    if first is None:
        first = game.randbelow(FIRST, game.config.players)
    game.first = game.active = first
    game.log(EV_FIRST, first, game.level)
