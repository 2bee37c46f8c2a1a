"""The verification of a design: its best candidates played again on fresh deals, games 0.. of the
seed after the search's, which the search never used. A race keeps the candidates whose games went
their way, so its estimate of the winner leans toward the targets (the winner's curse); the fresh
deals give each level's win rate with a 95% interval that owes nothing to the choice. The first
games of each cell are traced (the team's chance of winning over the game: drama and
decisiveness), as a sweep traces them.

Its games per cell are sized to the tolerance: the fewest, in whole chunks, whose 95% interval at
the target rate farthest from 0 and 1 is at most half the tolerance on either side. An answer
within half the tolerance of every target then verifies within the tolerance at 95% per level, and
a miss of the whole tolerance is told from one of half of it.
"""
import math

from fisim import defaults
from fisim.designing.request import VERIFY_CHUNK
from fisim.stats import Z95


def fresh_games(goal, verify_games=None):
    """The verification's games per cell: `verify_games` if given, else sized to the goal's
    tolerance (defaults.DESIGN_VERIFY_GAMES for a tolerance of 0)."""
    if verify_games is not None:
        return verify_games
    if goal.tolerance == 0:
        return defaults.DESIGN_VERIFY_GAMES
    n = max(Z95 ** 2 * t * (1 - t) / (goal.tolerance / 2) ** 2 for _, t in goal.targets)
    return VERIFY_CHUNK * math.ceil(n / VERIFY_CHUNK)


def verify(best, goal, games, n, worlds):
    """{candidate: Reading} of the candidates `best` on the first n fresh games of each cell, from
    the verification's StoredGames `games`, at 95% per interval; `worlds` the traced estimates'."""
    from fisim.designing.race import Reading
    from fisim.designing.stores import evidence
    return {c: Reading(n, evidence(games, c, n, goal, worlds), goal, Z95) for c in best}
