"""fisim.jit.constants: numbers handed to compiled code as constants of it (expert's and tuned's
weights): each set of values is a type of its own, read right at constant and variable places,
and the code handed them is cached like any other."""
import json
import os
import subprocess
import sys

import numba
import pytest

from fisim.jit.constants import Constants

HANDED = '''
from numba import njit
from fisim.jit.constants import Constants

LOW = Constants([1.5, 2.5, 3.5])
HIGH = Constants([10.0, 20.0, 30.0])


@njit(cache=True)
def weighted(w, x, k):
    return x * w[0] + w[k]


@njit(cache=True)
def both(x, k):
    return weighted(LOW, x, k), weighted(HIGH, x, k)
'''
RUN = '''
import json, sys, warnings
sys.path.insert(0, sys.argv[1])
warnings.simplefilter("error")          # Numba's "Cannot cache" warning fails the run
import handed
values = handed.both(2.0, 2)
print(json.dumps({"values": values, "hits": sum(handed.both.stats.cache_hits.values()),
                  "compiled": len(handed.weighted.overloads)}))
'''


def test_each_set_of_values_is_a_type_of_its_own():
    low, high = Constants([1.0, 2.0]), Constants([1.0, 2.5])
    assert numba.typeof(low) == numba.typeof(Constants([1, 2])) != numba.typeof(high)
    assert (low[1], len(low), high[-1]) == (2.0, 2, 2.5)


@pytest.mark.compiles
def test_code_handed_constants_reads_each_set_and_is_cached(tmp_path):
    (tmp_path / "handed.py").write_text(HANDED)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    runs = []
    for _ in range(2):
        done = subprocess.run([sys.executable, "-c", RUN, str(tmp_path)], env=env, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        runs.append(json.loads(done.stdout))
    assert [run["values"] for run in runs] == [[2 * 1.5 + 3.5, 2 * 10.0 + 30.0]] * 2
    assert runs[0]["hits"] == 0 and runs[1]["hits"] == 1        # compiled once, then read from the cache
    assert runs[0]["compiled"] == 2                              # one version of `weighted` per set
