"""The engine interpreted (NUMBA_DISABLE_JIT=1: every intrinsic its plain-Python meaning) plays the
same games as compiled, row for row: the lane that compiles nothing tests the rules the compiled
engine plays."""
import os
import subprocess
import sys

import numpy as np
import pytest

from fisim import engine
from fisim.rules.config import GameConfig
from fisim.rules.layouts import builtin_layout
from policies import load_policy

PLAY = """
import sys
import numpy as np
from fisim import engine
from fisim.rules.config import GameConfig
from fisim.rules.layouts import builtin_layout
from policies import load_policy
config = GameConfig(players=int(sys.argv[2]), level=sys.argv[3])
rows = engine.play_batch(builtin_layout("skull-island"), config, load_policy(sys.argv[1]), 11, 0, int(sys.argv[4]))
np.save(sys.argv[5], rows)
"""


@pytest.mark.compiles
@pytest.mark.parametrize("policy, players, level, games", [
    ("random", 4, "novice", 30), ("expert", 2, "elite", 4),
    pytest.param("search:1", 3, "normal", 1, marks=pytest.mark.slow)])       # (its rollouts: play_out, a symbol)
def test_the_interpreted_engine_plays_the_compiled_engines_games(tmp_path, policy, players, level, games):
    saved = tmp_path / "rows.npy"
    done = subprocess.run([sys.executable, "-c", PLAY, policy, str(players), level, str(games), str(saved)],
                          env={**os.environ, "NUMBA_DISABLE_JIT": "1", "FISIM_CACHE_DIR": str(tmp_path / "cache")},
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    compiled = engine.play_batch(builtin_layout("skull-island"), GameConfig(players=players, level=level),
                                 load_policy(policy), 11, 0, games)
    assert np.array_equal(np.load(saved), compiled)
    assert not list((tmp_path / "cache").rglob("*.nbi"))        # nothing was compiled
