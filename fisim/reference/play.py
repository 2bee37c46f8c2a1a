"""Playing whole games: `play` from setup to the end, and the `random` policy."""
from fisim.reference import turn
from fisim.reference.game import Game
from fisim.reference.setup import set_up
from fisim.rules.rng import POLICY, game_seed


def play(layout, config, master_seed, game_index, chooser):
    """Play game `game_index` of `master_seed` to its end and return the Game.

    `chooser(game, decision_kind, seat, options) -> index` is asked at every decision with two or
    more options; `seat` is the decider (the active seat for action and window decisions).
    """
    game = Game(layout, config, seed=game_seed(master_seed, game_index))
    game.chooser = chooser
    try:
        set_up(game)
        turn.play_turns(game)
    except turn.GameOver:
        pass
    return game


def random_chooser(game, kind, seat, options):
    """The `random` policy: a uniform option, drawn from the game's POLICY stream."""
    return game.randbelow(POLICY, len(options))
