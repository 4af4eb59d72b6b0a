"""What the Explain page computes from a trace or a report: links to where items live, and what
moved across the cut between two budgets."""

from __future__ import annotations

from agentmem.inspector.explain import (
    ABSENT,
    explain_compose,
    explain_context,
    history_lines,
    item_href,
    moves,
)
from agentmem.model.context import ContextItem, ContextRequest, ContextResponse, ContextTrace, DroppedItem


def test_items_link_to_their_event_or_belief_chain_even_with_colons_in_ids() -> None:
    assert item_href("event:s:1:7", "p") == "/ui/sessions/s%3A1#event-7"
    assert item_href("passage:s1:4:0-120", "p") == "/ui/sessions/s1#event-4"
    assert item_href("belief:goal#baby", "priya") == "/ui/subjects/priya/beliefs/goal"
    assert item_href("belief:risk_tolerance@v1", "priya") == "/ui/subjects/priya/beliefs/risk_tolerance"
    assert item_href("function:f", "p") is None


def test_moves_name_what_crossed_the_cut_and_what_changed_level() -> None:
    before = {"a": "full", "b": "short", "c": "dropped", "d": "full"}
    after = {"a": "full", "b": "dropped", "c": "identity", "d": "short", "e": "full"}
    found = {m.item_id: (m.before, m.after, m.kind) for m in moves(before, after, {})}
    assert found == {
        "b": ("short", "dropped", "out"),
        "c": ("dropped", "identity", "in"),
        "d": ("full", "short", "level"),
        "e": (ABSENT, "full", "in"),
    }


def _response(items: list[ContextItem], dropped: list[DroppedItem]) -> ContextResponse:
    trace = ContextTrace(
        budget_tokens=100,
        used_tokens=90,
        encoding="o200k_base",
        log_watermark_seq=3,
        belief_generation=1,
        belief_versions={"risk_tolerance": 2},
        tokens_by_source={"semantic": 50, "history": 40},
        candidates_by_source={"episodic": 0, "semantic": 2, "history": 3},
        dropped=dropped,
        notes=[],
    )
    return ContextResponse(markdown="# Context", items=items, trace=trace)


def test_a_context_read_is_laid_out_by_source_ranked_with_its_dropped_items() -> None:
    request = ContextRequest(subject_id="p", session_id="s2", agent="a", query="q")
    items = [
        ContextItem(item_id="belief:city", source="semantic", level="full", tokens=10, score=0.2, ref={}),
        ContextItem(
            item_id="belief:risk_tolerance",
            source="semantic",
            level="full",
            tokens=12,
            score=0.9,
            ref={"flag": True},
        ),
        ContextItem(
            item_id="passage:s1:2:0-9",
            source="history",
            level="short",
            tokens=8,
            score=0.5,
            ref={"superseded": True, "session_id": "s1", "seq": 2},
        ),
    ]
    dropped = [DroppedItem(item_id="passage:s1:1:0-9", source="history", reason="budget")]
    view = explain_context(request, _response(items, dropped))
    by_name = {s.name: s for s in view.sources}
    assert [i.item_id for i in by_name["semantic"].placed] == ["belief:risk_tolerance", "belief:city"]
    assert by_name["semantic"].placed[0].flagged and by_name["semantic"].candidates == 2
    assert [i.reason for i in by_name["history"].dropped] == ["budget"]
    assert [i.superseded for i in view.passages] == [True]
    assert view.watermark_href == "/ui/sessions/s2#event-3"
    assert view.statuses()["passage:s1:1:0-9"] == "dropped"


def test_a_composition_splits_its_sections_at_the_cut_line() -> None:
    from agentmem.compose.report import ComposeReport, DroppedAsset, ScopeReport, SectionReport

    def section(rank: int, levels: dict[str, int]) -> SectionReport:
        return SectionReport(
            rank=rank,
            path=f"p{rank}",
            heading="h",
            score=1.0 / rank,
            items=list(levels),
            estimated_tokens=10,
            rendered_tokens=10,
            levels=levels,
            above_cut=rank == 1,
        )

    scope = ScopeReport(
        revision=1, assets=3, rules={}, empty_rules=[], excluded=0, deprecated=0, cached=False
    )
    report = ComposeReport(
        skill_id="k",
        skill_version=1,
        budget_tokens=300,
        used_tokens=290,
        encoding="o200k_base",
        principals=["analyst"],
        scope=scope,
        strategies=[],
        route="rerank",
        candidates=3,
        rankers={},
        sections=[section(2, {"b": 5}), section(1, {"a": 0})],
        cut_line=1,
        dropped=[DroppedAsset(asset_id="c", reason="no room", stage="budget")],
        truncated=True,
    )
    view = explain_compose("k", "q", report, "# doc")
    assert [v.report.rank for v in view.above] == [1] and [v.report.rank for v in view.below] == [2]
    assert view.statuses() == {"a": "full", "b": "title+path", "c": "dropped"}


def test_events_written_after_a_saved_read_stand_out() -> None:
    request = ContextRequest(subject_id="p", session_id="s3", agent="compliance", query="q")
    items = [
        ContextItem(item_id=f"event:s3:{seq}", source="episodic", level="full", tokens=5, score=1.0 / seq,
                    ref={"seq": seq})
        for seq in (5, 6, 7)
    ]  # fmt: skip
    view = explain_context(request, _response(items, []), saved_watermark=6)
    episodic = next(s for s in view.sources if s.name == "episodic")
    assert [(i.item_id, i.later) for i in episodic.placed] == [
        ("event:s3:5", False),
        ("event:s3:6", False),
        ("event:s3:7", True),
    ]
    assert not any(i.later for i in explain_context(request, _response(items, [])).sources[0].placed)


def test_the_history_lines_are_the_markdown_section_of_earlier_sessions() -> None:
    markdown = (
        "# Context\n\n## What is known\n- a\n\n## Earlier sessions with p\n- one\n- two\n\n"
        "## This session\n- x\n"
    )
    assert history_lines(markdown) == ["- one", "- two"]
