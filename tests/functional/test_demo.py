"""`make demo` as a newcomer runs it: a real process, the local server, three sessions."""

from __future__ import annotations

import subprocess
import sys


def test_demo_runs_the_six_agents_and_shows_the_contradiction_and_the_savings() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "agentmem.demo"], capture_output=True, text=True, timeout=180, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    for agent in (
        "intake",
        "transaction-analysis",
        "goal-planning",
        "market-context",
        "recommendation",
        "compliance",
    ):
        assert agent in out
    assert "changed from cautious (priya-s1) to aggressive (priya-s2)" in out
    assert "No by-reference prompt exceeded its budget." in out
    # The composer's part: the sample catalogue over HTTP, one skill, one budgeted question.
    assert "210 assets and 5 skills loaded" in out
    assert "3 of the 3 assets the golden set needs are in it, with bodies." in out
    assert "composer_final_summary_truncated" in out
