"""`make demo` as a newcomer runs it: a real process, the local server, three sessions."""

from __future__ import annotations

import re
import subprocess
import sys

from agentmem.demo import PROMPT_BUDGET

TEAM_NAMES = (
    "intake",
    "transaction-analysis",
    "goal-planning",
    "market-context",
    "recommendation",
    "compliance",
)


def test_demo_runs_the_six_agents_and_shows_the_contradiction_and_the_savings() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "agentmem.demo"], capture_output=True, text=True, timeout=180, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    for agent in TEAM_NAMES:
        assert agent in out
    assert "changed from cautious (priya-s1) to aggressive (priya-s2)" in out
    # Every agent's prompt row of the token table: by reference within the prompt budget, and
    # never dearer than by value. Read from the figures, not from the sentence that follows them.
    prompts = [
        (int(ref.replace(",", "")), int(value.replace(",", "")))
        for line in out.splitlines()
        if any(line.split()[1:2] == [agent] or line.split()[:1] == [agent] for agent in TEAM_NAMES)
        for ref, value in re.findall(r"\s(\d[\d,]*)\s+(\d[\d,]*)\s+-?\d+%\s*$", line)
    ]
    assert len(prompts) == 18  # six agents, three sessions
    assert all(ref <= PROMPT_BUDGET for ref, _ in prompts), prompts
    assert all(ref <= value for ref, value in prompts), prompts
    # The composer's part: the sample catalogue over HTTP, one skill, one budgeted question.
    assert "210 assets and 5 skills loaded" in out
    assert "3 of the 3 assets the golden set needs are in it, with bodies." in out
    assert "composer_final_summary_truncated" in out
