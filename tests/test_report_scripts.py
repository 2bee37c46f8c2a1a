"""The report scripts' bookkeeping, with a stand-in for `fisim` (nothing is played or compiled)."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.commands import as_from_a_terminal

from policies import PUBLISHED

ROOT = Path(__file__).resolve().parent.parent
SKILL_SCRIPT = ROOT / "scripts" / "make_skill_report.sh"


def start_skill_report(tmp_path, status, seconds):
    """make_skill_report.sh --quick in its own process group, its `fisim` a stand-in that marks its
    start, waits `seconds` and exits with `status`."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "fisim"
    fake.write_text(f'#!/bin/sh\ntouch "{tmp_path}/started"\nsleep {seconds}\nexit {status}\n')
    fake.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "STORES": str(tmp_path / "stores"),
           "OUT": str(tmp_path / "out")}
    return subprocess.Popen(as_from_a_terminal("bash", SKILL_SCRIPT, "--quick"), env=env, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def recorded_seconds(tmp_path):
    return int((tmp_path / "stores" / "skill-quick-seed2010.seconds").read_text())


def test_a_failed_run_keeps_its_seconds(tmp_path):
    run = start_skill_report(tmp_path, status=3, seconds=2)
    assert run.wait(timeout=60) == 3
    assert recorded_seconds(tmp_path) >= 1


@pytest.mark.parametrize("sig,status", [(signal.SIGTERM, 143), (signal.SIGINT, 130)], ids=["SIGTERM", "SIGINT"])
def test_an_interrupted_run_keeps_its_seconds(tmp_path, sig, status):
    """The page's time sums every run that played into a store, a run stopped half-way included."""
    run = start_skill_report(tmp_path, status=0, seconds=60)     # stopped in its first command however slow
    deadline = time.monotonic() + 30
    while not (tmp_path / "started").exists():
        assert time.monotonic() < deadline, "the stand-in fisim never started"
        time.sleep(0.05)
    time.sleep(1.2)
    os.killpg(run.pid, sig)
    assert run.wait(timeout=60) == status
    assert recorded_seconds(tmp_path) >= 1


def test_the_skill_page_is_fisims_own_report_of_the_three_runs(tmp_path):
    """make_skill_report.sh plays the ladder and the two rankings, then has `fisim report` write the
    page of all three (the ladder's sections and each policy's rank agreement), README.md in OUT."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "fisim"
    fake.write_text(f'''#!/bin/sh
echo "$@" >> "{tmp_path}/calls"
if [ "$1" = report ]; then
    while [ "$1" != --out ]; do shift; done
    mkdir -p "$2" && echo "the report" > "$2/report.md"
fi
''')
    fake.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "STORES": str(tmp_path / "stores"),
           "OUT": str(tmp_path / "out")}
    r = subprocess.run(["bash", SKILL_SCRIPT, "--quick"], env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    calls = (tmp_path / "calls").read_text().splitlines()
    assert [c.split()[0] for c in calls] == ["ladder", "sweep", "sweep", "report"]
    store = tmp_path / "stores" / "skill-quick-seed2010"
    report = calls[-1].split()
    assert report[1:4] == [str(store), f"{store}-teams", f"{store}-islands"]
    assert [report[i + 1] for i, a in enumerate(report) if a == "--agreement"] == \
        ["expert,search:8", "tuned,search:8", "planner,search:8"]
    assert "--baseline" in report and "--disjoint" in report
    assert (tmp_path / "out" / "README.md").read_text() == "the report\n"


REPORTS_SCRIPT = SKILL_SCRIPT.parent / "make_reports.sh"


def _fake_fisim(tmp_path):
    """The environment of make_reports.sh with a `fisim` that writes its arguments to
    tmp_path/calls, and this test's python as the script's."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    python = bin_dir / "python"
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    fake = bin_dir / "fisim"
    fake.write_text(f'#!/bin/sh\necho "$@" >> "{tmp_path}/calls"\n')
    fake.chmod(0o755)
    return {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "STORES": str(tmp_path / "stores"),
            "OUT": str(tmp_path / "out")}


def test_the_published_reports_are_played_by_the_published_player_with_expert_beside_it(tmp_path):
    """Without POLICY, make_reports.sh plays what reports/ says played it: the published player,
    expert's games beside its own on the same deals; the index quotes the skill page's summary,
    a line per level, as that page writes it."""
    env = {k: v for k, v in _fake_fisim(tmp_path).items() if k != "POLICY"}
    skill = tmp_path / "out" / "skill"
    skill.mkdir(parents=True)
    summary = [line for line in (ROOT / "reports" / "skill" / "README.md").read_text().splitlines()
               if line.startswith("- At ")]
    (skill / "README.md").write_text((ROOT / "reports" / "skill" / "README.md").read_text())
    r = subprocess.run(["bash", REPORTS_SCRIPT], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    sweeps = [c.split() for c in (tmp_path / "calls").read_text().splitlines() if c.startswith("sweep")]
    assert len(sweeps) == 3 and all(c[c.index("--policies") + 1] == f"{PUBLISHED},expert" for c in sweeps)
    index = (tmp_path / "out" / "README.md").read_text()
    assert len(summary) == 4 and all(f"  {line}" in index.splitlines() for line in summary)


@pytest.mark.parametrize("checks", [None, "search:8/expert=150", ""], ids=["default", "one", "none"])
def test_each_published_report_checks_its_conclusions_under_stronger_players(tmp_path, checks):
    """make_reports.sh sweeps each report, checks its conclusions with `--stronger` under each
    player CHECKS lists, on its games per win rate (default: search:8 over the published policy on
    200, deep on 4,000; "": no check), then writes the Markdown and the HTML from the stores."""
    env = {**_fake_fisim(tmp_path), "POLICY": "expert", "STRONGER_ARGS": "--threads 1"}
    if checks is not None:
        env["CHECKS"] = checks
    r = subprocess.run(["bash", REPORTS_SCRIPT], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    asked = {None: [("search:8/expert", "200"), ("deep", "4000")], "": []}.get(checks, [("search:8/expert", "150")])
    calls = [c.split() for c in (tmp_path / "calls").read_text().splitlines()]
    per_report = 3 + len(asked)
    assert [c[0] for c in calls] == (["sweep"] + ["report"] * (per_report - 1)) * 3
    for at in range(0, len(calls), per_report):
        sweep, *checked, markdown, html = calls[at:at + per_report]
        assert sweep[sweep.index("--policies") + 1] == "expert"
        assert [c[c.index("--stronger"):] for c in checked] == \
            [["--stronger", p, "--stronger-games", g, "--threads", "1"] for p, g in asked]
        assert "--stronger" not in markdown and "--stronger" not in html and "md,png" in markdown
    readme = (tmp_path / "out" / "README.md").read_text()
    assert ("Would a stronger team agree?" in readme) == bool(asked)
    assert all(f"{p} ({int(g):,} games per win rate)" in readme.replace("\n", " ") for p, g in asked)
