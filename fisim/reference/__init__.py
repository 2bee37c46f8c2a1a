"""The plain-Python reference implementation of the rules (docs/rules.md, docs/model.md).

Written to be read: the differential tests play the same seeds and decisions here and in the
Numba engine and compare transcripts and option lists.

    game = play(layout, config, master_seed, game_index, random_chooser)
    game.events, game.result

    game = Game.from_position(parse_position(text))
    game.legal_options()
"""
from fisim.reference.game import Game, Player
from fisim.reference.legal import Decision
from fisim.reference.play import play, random_chooser
from fisim.reference.turn import GameOver

__all__ = ["Game", "Player", "Decision", "play", "random_chooser", "GameOver"]
