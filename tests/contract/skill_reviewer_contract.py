"""The SkillReviewer contract (the LLM port's review duty). Every adapter's test class subclasses
SkillReviewerContract and provides `reviewer`; a model-backed one answers the sessions below from
recorded answers, whose mistakes (code it "improved", code from a chat message) it must refuse.

What any reviewer guarantees: proposals come only from events written up on purpose (kinds `code`
and `procedure`); every implementation is text of one of those events, never written or fixed;
a session with nothing written up proposes nothing (without asking a model); the same session
gives the same proposals."""

from __future__ import annotations

import pytest

from agentmem.model.events import Event
from agentmem.ports.procedural import SkillReviewer
from agentmem.procedural.model import Proposals
from agentmem.procedural.review import REVIEWED_KINDS

ADD_VAT = "def add_vat(net: float) -> float:\n    return net * 1.2\n"
GROSS = (
    'def gross_total(lines: list[float]) -> float:\n    """Sum with VAT."""\n'
    "    return sum(add_vat(x) for x in lines)\n"
)
CHAT_CODE = "def leaked(x):\n    return x\n"
PROCEDURE = "# Invoice VAT\nRun `gross_total` over the net lines, then round once at the end."


def event(seq: int, kind: str, content: object) -> Event:
    return Event(
        event_id=f"ev{seq}", session_id="s1", seq=seq, subject_id="acme", round=0, agent="closer",
        kind=kind, media_type="text/plain", content=content, created_at="2026-11-30T00:00:00Z",
    )  # fmt: skip


SESSION = [
    event(1, "message", CHAT_CODE),  # code in chat is not a write-up
    event(2, "code", {"name": "add_vat", "implementation": ADD_VAT, "tags": ["tax"]}),
    event(3, "code", GROSS),
    event(4, "procedure", PROCEDURE),
]
CHAT_ONLY = [event(1, "message", CHAT_CODE), event(2, "note", "We should write add_vat up later.")]


def reviewed_text(events: list[Event]) -> str:
    """Every string the reviewed events carry, whitespace squashed (how grounding compares code)."""
    out: list[str] = []
    for e in events:
        if e.kind in REVIEWED_KINDS:
            content = e.content
            leaves = [content] if isinstance(content, str) else list(_strings(content))
            out += [" ".join(s.split()) for s in leaves]
    return "\n".join(out)


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


class SkillReviewerContract:
    @pytest.fixture
    def reviewer(self) -> SkillReviewer:
        raise NotImplementedError

    def test_the_written_up_functions_and_procedure_are_proposed(self, reviewer: SkillReviewer) -> None:
        proposals = reviewer.propose_skills(SESSION)
        assert sorted(f.name for f in proposals.functions) == ["add_vat", "gross_total"]
        (guidance,) = proposals.guidance
        assert guidance.title == "Invoice VAT"
        assert "gross_total" in guidance.uses

    def test_every_implementation_is_text_of_a_reviewed_event(self, reviewer: SkillReviewer) -> None:
        grounded = reviewed_text(SESSION)
        proposals = reviewer.propose_skills(SESSION)
        assert proposals.functions
        for function in proposals.functions:
            assert " ".join(function.implementation.split()) in grounded, function.name

    def test_nothing_comes_from_events_that_are_not_write_ups(self, reviewer: SkillReviewer) -> None:
        proposals = reviewer.propose_skills(SESSION)
        assert "leaked" not in {f.name for f in proposals.functions}
        assert all(CHAT_CODE.strip() not in f.implementation for f in proposals.functions)

    def test_a_session_with_nothing_written_up_proposes_nothing(self, reviewer: SkillReviewer) -> None:
        # A model-backed reviewer must not even ask: its recorder fails on any prompt.
        assert reviewer.propose_skills(CHAT_ONLY) == Proposals()
        assert reviewer.propose_skills([]) == Proposals()

    def test_every_proposal_is_named_and_points_at_an_event(self, reviewer: SkillReviewer) -> None:
        proposals = reviewer.propose_skills(SESSION)
        seqs = {e.seq for e in SESSION}
        for function in proposals.functions:
            assert function.name.strip() and function.source_seq in seqs
        for guidance in proposals.guidance:
            assert guidance.title == guidance.title.strip() and guidance.title
            assert guidance.source_seq in seqs

    def test_the_same_session_gives_the_same_proposals(self, reviewer: SkillReviewer) -> None:
        first = reviewer.propose_skills(SESSION)
        assert reviewer.propose_skills(SESSION) == first
