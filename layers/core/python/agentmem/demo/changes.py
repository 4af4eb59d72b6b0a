"""The demo's change propagation: what moved under the team between two of its reads.

Before session 2 an adviser writes a suitability note as guidance that cites Priya's risk
tolerance (cautious then, v1), and the compliance agent's session-1 read is kept by its
watermark. Priya then turns aggressive in session 2. At the end the guidance answers why it is
stale, and compliance re-reads with `since` that watermark: the slice leads with what changed.
Neither step writes to the log, so the story's sessions run exactly as without them."""

from __future__ import annotations

from typing import Any

from agentmem.client import MemoryClient
from agentmem.demo.agents import TEAM
from agentmem.demo.script import SUBJECT, SessionPlan, session_plan
from agentmem.model.dependents import BeliefRef
from agentmem.procedural.model import GuidanceSpec

GUIDANCE_ID = "priya-suitability"
NOTE = GuidanceSpec(
    guidance_id=GUIDANCE_ID,
    title="Priya's suitability",
    content="Priya is a cautious investor: keep equity at or under 40% and hold no single stocks.",
    author="adviser",
    cites=[BeliefRef(subject_id=SUBJECT, key="risk_tolerance")],
)
READER = next(agent for agent in TEAM if agent.name == "compliance")
SINCE_BUDGET = 600  # enough for the changes to lead; the rest of the slice is as any read's
LEAD = "## Changed since your last read"


class ChangeWatch:
    """Called at the start of each session (`run_sessions(on_session=...)`)."""

    def __init__(self, client: MemoryClient, adviser: MemoryClient) -> None:
        self._client, self._adviser = client, adviser  # the adviser holds `writer`: guidance is authored
        self.watermark: str | None = None

    def __call__(self, plan: SessionPlan) -> None:
        if plan.number != 2:
            return
        self._adviser.put_guidance(NOTE)
        first = session_plan(1)
        read = self._client.context(
            subject_id=SUBJECT, session_id=first.session_id, agent=READER.name, query=READER.query,
            budget_tokens=SINCE_BUDGET,
        )  # fmt: skip
        self.watermark = read.trace.watermark

    def report(self, last: SessionPlan) -> list[str]:
        """The demo's section: the stale guidance, then compliance's read since the watermark."""
        return [
            *self.guidance_lines(),
            "",
            f"compliance re-reads in {last.session_id} with since = the watermark of its"
            f" {session_plan(1).session_id} read:",
            *self.since_lines(last),
        ]

    def guidance_lines(self) -> list[str]:
        """The guidance as GET answers it: each cited belief that moved, and why."""
        guidance: dict[str, Any] = self._client.request("GET", f"/v1/guidance/{GUIDANCE_ID}")
        written = f"written before {session_plan(2).session_id}"
        lines = [f'guidance {GUIDANCE_ID} ({written}): "{guidance["content"]}"']
        lines += [
            f"  stale: {s['belief']} v{s['from_version']} -> v{s['to_version']}, {s['reason']}"
            for s in guidance["stale"]
        ] or ["  not stale"]
        return lines

    def since_lines(self, last: SessionPlan) -> list[str]:
        """Compliance's read in the last session with `since` its session-1 watermark: the lead."""
        assert self.watermark is not None, "the watch ran before session 2"
        read = self._client.context(
            subject_id=SUBJECT, session_id=last.session_id, agent=READER.name, query=READER.query,
            budget_tokens=SINCE_BUDGET, since=self.watermark,
        )  # fmt: skip
        assert read.trace.new_since is not None, "a read with since lists what is new"
        lines = read.markdown.splitlines()
        start = lines.index(LEAD)
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
        return [
            f"{len(read.trace.new_since)} item(s) new since the watermark, "
            f"{read.trace.used_tokens:,} of {SINCE_BUDGET:,} tokens used:",
            *lines[start:end],
        ]
