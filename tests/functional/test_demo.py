"""`make demo` as a newcomer runs it: a real process, the local server, three sessions. The one
run also checks that the story keeps its dates and that the docs quote what it prints."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agentmem.demo import PROMPT_BUDGET
from agentmem.demo.docs import problems, run_demo
from agentmem.demo.script import session_plan

ROOT = Path(__file__).resolve().parents[2]

TEAM_NAMES = (
    "intake",
    "transaction-analysis",
    "goal-planning",
    "market-context",
    "recommendation",
    "compliance",
)


@pytest.fixture(scope="module")
def out() -> str:
    return run_demo(timeout=180)  # the suite runs the demo once: every test here reads this run


def test_demo_runs_the_six_agents_and_shows_the_contradiction_and_the_savings(out: str) -> None:
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


def test_every_dated_line_carries_its_sessions_date_in_the_story(out: str) -> None:
    """History lines stand under their session's heading, "### priya-s2 (2026-04-13)": the
    story's date of that session, never the day the demo ran."""
    dated = re.findall(r"^### (priya-s(\d+)) \((\d{4}-\d{2}-\d{2})\)$", out, re.MULTILINE)
    dated = [(date, session, number) for session, number, date in dated]
    assert dated, "the compliance agent's flagged lines hold no history line"
    for date, session, number in dated:
        assert date == session_plan(int(number)).date, (session, date)


def test_the_docs_quote_what_the_demo_prints(out: str) -> None:
    found = problems(ROOT, out)
    assert found == [], "\n".join([*found, "run `python -m agentmem.demo.docs` to rewrite the blocks"])


def test_the_demo_shows_a_stale_guidance_entry_and_a_read_since_a_watermark(out: str) -> None:
    changes = out[out.index("── What changed under the team") : out.index("── The composer")]
    # Written while Priya was cautious (v1), the note is stale once she turns aggressive in s2.
    assert "stale: priya/risk_tolerance v1 -> v2, contradicted" in changes
    lead = changes[changes.index("## Changed since your last read") :]
    # Both changes of mind lead compliance's read since its s1 watermark, with what they replaced.
    assert "**risk_tolerance**" in lead and "changed from cautious (priya-s1) to aggressive" in lead
    assert "**investment_preference**" in lead and "wants individual tech stocks" in lead
