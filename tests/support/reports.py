"""What the report tests share: a store of made-up games written by the store's own code, the
Markdown report's tables read back, rates as the report prints them, and headless Chromium."""
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from fisim.results.chunks import CLOSE_MASKS, chunk_record, traced_in
from fisim.rules.constants import LEVELS, ROLE_NAMES
from fisim.rules.state import (
    LOST,
    R_CAPTURED,
    R_CAUSE,
    R_CLOSE,
    R_CONDITIONS,
    R_ROLE,
    R_SIZE,
    R_STATUS,
    R_TURNS,
    WON,
)
from fisim.stats import wilson, wins_interval
from fisim.store import Store, manifest_for, trace_setting
from policies import load_policy

TABLES_DOC = Path(__file__).resolve().parent.parent.parent / "docs" / "report-tables.md"
RANDOM = f"random@{load_policy('random').VERSION}"      # the label of a cell the random policy played


TRACED = trace_setting(6, 8)     # a fake store's games traced per cell, and worlds per estimate


def fake_store(path, cells, games, chunk, seed=0):
    """A store of made-up games with real win rates (the built-in policies seldom win), written by
    the store's own code. Game i of every cell shares one random `luck`, as common random numbers
    make real cells alike, so paired differences are tight. Its first games have made-up win-chance
    traces (TRACED) that end as the game did."""
    store = Store(path)
    store.open(manifest_for(cells, seed, {"games": games}, False, chunk, TRACED))
    luck = np.random.default_rng(seed).random(games)
    for cell in cells:
        p = 0.6 - 0.12 * list(LEVELS).index(cell.level) - 0.05 * (cell.players - 2)
        p *= {"standard": 1.0, "skull-island": 0.7}.get(cell.layout, 1.1)
        p *= 1.1 if cell.rules else 1.0
        p *= 0.8 if cell.policy.given == "passive" else 1.0
        if cell.team:
            p *= 0.85 + 0.04 * sum(ROLE_NAMES.index(r) for r in cell.team) / cell.players
        rng = np.random.default_rng(int(cell.key, 16) % 2**32)
        for k in range(0, games, chunk):
            n = min(chunk, games - k)
            rows = np.zeros((n, R_SIZE), np.int32)
            won = luck[k:k + n] < p
            rows[:, R_STATUS] = np.where(won, WON, LOST)
            rows[:, R_CAUSE] = np.where(won, 0, 1 << rng.choice(4, size=n, p=[0.3, 0.4, 0.2, 0.1]))
            rows[:, R_CONDITIONS] = rows[:, R_CAUSE]
            rows[:, R_TURNS] = 1 + rng.poisson(np.where(won, 14, 9))
            rows[:, R_CAPTURED] = np.where(won, 4, rng.integers(0, 4, n))
            rows[:, R_CLOSE] = np.where(won, rng.integers(0, CLOSE_MASKS, n), 0)
            rows[:, R_ROLE:R_ROLE + 4] = -1
            for g in range(n):
                team = cell.team or tuple(rng.choice(ROLE_NAMES, cell.players, replace=False))
                rows[g, R_ROLE:R_ROLE + cell.players] = [ROLE_NAMES.index(r) for r in team]
            worlds = TRACED["worlds"]
            traces = [[*rng.integers(0, worlds + 1, rng.integers(2, 9)), worlds * bool(w)]
                      for w in won[:traced_in(k, n, TRACED["games"])]]
            store.write_chunk(chunk_record(cell.key, k // chunk, k, rows, traces))


def md_tables(md):
    """{caption: [row dicts]} of the Markdown report's tables (a bold caption, a blank line, a table)."""
    lines = md.splitlines()
    tables = {}
    for i, line in enumerate(lines[:-2]):
        if line.startswith("**") and line.endswith("**") and lines[i + 2].startswith("| "):
            head = [c.strip() for c in lines[i + 2].strip("|").split("|")]
            rows = []
            for row in lines[i + 4:]:
                if not row.startswith("|"):
                    break
                rows.append([c.strip().strip("*") for c in row.strip().strip("|").split("|")])
            tables[line.strip("*")] = [dict(zip(head, r)) for r in rows]
    return tables


def documented_tables():
    """{file name pattern: columns} of docs/report-tables.md's tables of files."""
    rows = re.findall(r"^\| `([^`|]*)\.csv` \| [^|]* \| `([^`]*)` \|$", TABLES_DOC.read_text(), re.M)
    return {name: columns.split(", ") for name, columns in rows}


def pct(x):
    return f"{100 * x:.2f}%"


def interval(low, high):
    return f"{100 * low:.2f}–{100 * high:.2f}%"


def rate_ci(k, n):
    low, high = wilson(int(k), int(n))
    return f"{pct(k / n)} ({100 * low:.2f}–{100 * high:.2f})"


def per_deal(cells):
    """The per-deal mean of cells' per-game wins (game i of every cell of a sweep is deal i): what a
    number pooled over cells counts as one observation."""
    return np.mean(np.vstack(cells), axis=0)


def pooled_rate_ci(cells):
    """rate_ci of games pooled over cells that share their deals: the interval counts deals."""
    won = per_deal(cells)
    low, high = wins_interval(won)
    return f"{pct(won.mean())} ({100 * low:.2f}–{100 * high:.2f})"


CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--hide-scrollbars", "--host-resolver-rules=MAP * ~NOTFOUND"]


def chromium():
    path = shutil.which("chromium")
    if path is None:
        message = "Debian's chromium package is not installed (apt-get install -y chromium)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return path


def run_chromium(tmp_path, *args):
    profile = tmp_path / "chromium-profile"
    profile.mkdir(exist_ok=True)
    return subprocess.run([chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args],
                          capture_output=True, text=True, timeout=180)


IMAGE_CHECK = """<script>
window.addEventListener("load", function () {
  var result = Array.prototype.map.call(document.images, function (img) {
    return {alt: img.alt.slice(0, 60), complete: img.complete, width: img.naturalWidth, height: img.naturalHeight};
  });
  var out = document.createElement("pre");
  out.id = "image-check";
  out.textContent = JSON.stringify(result);
  document.body.appendChild(out);
});
</script>"""


def images_in_chromium(html, tmp_path):
    """Every image of the HTML report at `html` as headless Chromium loaded it: its alt text,
    whether it loaded, its width and height."""
    harness = tmp_path / "harness.html"                  # the report plus a script that lists its images
    harness.write_text(Path(html).read_text().replace("</body>", IMAGE_CHECK + "\n</body>"))
    r = run_chromium(tmp_path, "--virtual-time-budget=15000", "--dump-dom", harness.as_uri())
    assert r.returncode == 0, r.stderr[-2000:]
    found = re.search(r'<pre id="image-check">(.*?)</pre>', r.stdout, flags=re.S)
    assert found, "the check script did not run:\n" + r.stdout[-1000:]
    return json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&"))
