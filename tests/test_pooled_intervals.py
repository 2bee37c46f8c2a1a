"""A pooled number's interval counts deals, not games (fisim.stats.pooled_wins_interval,
pooled_difference; fisim.reporting.data.pool): game i of every cell of a sweep is the same deal,
so a deal's games at several teams, levels or player counts are one observation."""
import numpy as np
import pandas as pd
import pytest

from fisim.comparison import paired_difference
from fisim.reporting.data import pool
from fisim.stats import pooled_difference, pooled_wins_interval, wilson


def _won(seed, n, p):
    return np.random.default_rng(seed).random(n) < p


def test_one_cell_pooled_is_its_own_interval():
    a, b = _won(1, 500, 0.6), _won(2, 500, 0.45)
    assert pooled_wins_interval([a]) == pytest.approx(wilson(int(a.sum()), 500))
    assert pooled_difference([a], [b]) == pytest.approx(paired_difference(a, b))


def test_cells_that_play_each_deal_alike_are_as_wide_as_one_cell():
    """Twenty teams winning exactly the same deals: twenty times the games, the same deals, the
    same interval as one of them (the Wilson interval of all the games would be far narrower)."""
    a, b = _won(3, 300, 0.55), _won(4, 300, 0.4)
    low, high = pooled_wins_interval([a] * 20)
    one = wilson(int(a.sum()), 300)
    assert (low, high) == pytest.approx(one)
    naive = wilson(20 * int(a.sum()), 20 * 300)
    assert naive[1] - naive[0] < (high - low) / 4
    assert pooled_difference([a] * 20, [b] * 20) == pytest.approx(paired_difference(a, b))


def test_independent_cells_pool_like_their_games():
    """Cells whose games of one deal are unrelated: about the Wilson interval of all their games;
    cells of different lengths count each deal's games it has."""
    columns = [_won(10 + k, 2000, 0.5) for k in range(10)]
    low, high = pooled_wins_interval(columns)
    wins = sum(int(c.sum()) for c in columns)
    naive = wilson(wins, 20_000)
    assert (high - low) == pytest.approx(naive[1] - naive[0], rel=0.1)
    assert low < wins / 20_000 < high
    short = [columns[0], columns[1][:500]]
    diff = pooled_difference(short, [np.zeros(2000, bool), np.zeros(500, bool)])
    assert diff[0] == pytest.approx((columns[0].sum() + columns[1][:500].sum()) / 2500)


def test_a_reports_pooled_rate_counts_deals():
    """data.pool, as by_level pools a player count's teams: three team cells that won the same
    deals have one cell's interval, their games and wins summed."""
    won = _won(7, 400, 0.5)
    cells = pd.DataFrame({"cell": ["a", "b", "c"], "players": [3] * 3, "level": ["normal"] * 3,
                          "games": [400] * 3, "wins": [int(won.sum())] * 3,
                          **{k: [np.zeros(30, np.int64)] * 3 for k in ("turns_hist", "treasures_hist", "role_games",
                                                                       "role_wins", "won_close_hist")},
                          "traces": [[]] * 3,
                          **{f"cause_{c}": [0] * 3 for c in ("landing_sunk", "treasure_lost", "drowned", "skull")}})
    row = pool(cells, ["players", "level"], {k: won for k in "abc"}).iloc[0]
    assert row["games"] == 1200 and row["wins"] == 3 * won.sum()
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(wilson(int(won.sum()), 400))
