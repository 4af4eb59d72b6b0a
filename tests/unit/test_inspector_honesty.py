"""What the inspector says about time and extraction: what was written after a saved read (kept
apart from it), whether a kept answer may still be shown, what each event gave the beliefs, and
the "written after this read" mark on a read run again now."""

from __future__ import annotations

from agentmem.inspector.after_read import still_logged, written_after
from agentmem.inspector.explain import explain_context
from agentmem.inspector.memory_views import extracted_by_event, session_timeline
from agentmem.model.beliefs import Belief, PriorValue, Provenance, Verdict
from agentmem.model.context import ContextItem, ContextRequest, ContextResponse, ContextTrace
from agentmem.model.events import Event

READ_AT = "2026-04-13T09:00:00.999Z"


def _event(seq: int, session: str = "s2", content: str = "a note") -> Event:
    return Event.model_validate(
        {
            "event_id": f"ev{session}{seq}",
            "session_id": session,
            "subject_id": "priya",
            "seq": seq,
            "round": 0,
            "agent": "intake",
            "kind": "note",
            "media_type": "text/plain",
            "content": content,
            "created_at": f"2026-04-13T09:00:{seq:02d}.000Z",
        }
    )


def _said(session: str, seq: int, value: str) -> Provenance:
    return Provenance(session_id=session, event_id=f"ev{session}{seq}", seq=seq, value=value)


def _belief(
    key: str, value: str, version: int, valid_from: str, provenance: list[Provenance], **extra: object
) -> Belief:
    fields: dict[str, object] = {
        "subject_id": "priya",
        "key": key,
        "doc_id": key if extra.get("current", True) else f"{key}@v{version}",
        "text": f"Priya: {value}.",
        "value": value,
        "version": version,
        "current": True,
        "flag": False,
        "verdict": Verdict.NEW,
        "provenance": provenance,
        "valid_from": valid_from,
        "source_seq": provenance[-1].seq,
        "source_order": valid_from,
        **extra,
    }
    return Belief.model_validate(fields)


def test_after_a_read_come_the_later_events_and_the_beliefs_made_or_changed_since() -> None:
    beliefs = [
        _belief("risk_tolerance", "aggressive", 2, "2026-04-13T09:00:05.000Z", [_said("s2", 5, "x")]),
        _belief("city", "Austin", 1, "2026-01-13T09:00:00.000Z", [_said("s1", 1, "Austin")]),
        _belief("goal", "house", 1, "2026-04-13T09:00:06.000Z", [_said("s2", 6, "house")]),
        _belief("income", "$128,000", 1, "2026-01-13T09:00:01.000Z", [_said("s1", 2, "$128,000")]),
    ]
    after = written_after(
        "s2",
        [_event(4), _event(5), _event(6)],
        beliefs,
        watermark=4,
        read_at=READ_AT,
        seen_versions={"risk_tolerance": 1, "city": 1},
    )
    assert [e.seq for e in after.events] == [5, 6]  # #4 is the last one the read saw
    found = {b.belief.key: b.seen_version for b in after.beliefs}
    assert found == {"goal": None, "risk_tolerance": 1}  # new since, and changed from the v1 it used
    assert not after.empty


def test_without_the_reads_time_only_the_versions_it_used_tell_what_changed() -> None:
    beliefs = [
        _belief("goal", "house", 1, "2026-04-13T09:00:06.000Z", [_said("s2", 6, "house")]),
        _belief("city", "Austin", 1, "2026-01-13T09:00:00.000Z", [_said("s1", 1, "Austin")]),
    ]
    after = written_after("s2", [_event(4)], beliefs, watermark=4, read_at=None, seen_versions={"city": 1})
    assert after.empty


def test_a_kept_answer_needs_the_last_event_it_saw_still_in_the_log() -> None:
    assert still_logged([_event(4), _event(5)], 4)
    assert not still_logged([_event(5)], 4)  # erased, or another data dir under the same name
    assert not still_logged([], 4)
    assert still_logged([], 0)  # the read saw an empty session: nothing of it to lose


def test_each_event_gets_the_versions_it_made_or_restated_and_prose_gets_none() -> None:
    cautious = _belief(
        "risk_tolerance",
        "cautious",
        1,
        "2026-01-13T09:00:00.000Z",
        [_said("s1", 1, "cautious"), _said("s1", 4, "cautious")],
        current=False,
        valid_to="2026-04-13T09:00:01.000Z",
    )
    aggressive = _belief(
        "risk_tolerance",
        "aggressive",
        2,
        "2026-04-13T09:00:01.000Z",
        [_said("s1", 1, "cautious"), _said("s1", 4, "cautious"), _said("s2", 1, "aggressive")],
        verdict=Verdict.CONFLICT,
        flag=True,
        previous=PriorValue(value="cautious", text="…", session_ids=["s1"], until="2026-04-13"),
    )
    gave = extracted_by_event([aggressive, cautious])
    assert [(x.version, x.verdict, x.current) for x in gave[("s1", 1)]] == [(1, "NEW", False)]
    assert [(x.version, x.verdict) for x in gave[("s1", 4)]] == [(1, "SAME")]
    assert [(x.value, x.verdict, x.current) for x in gave[("s2", 1)]] == [("aggressive", "CONFLICT", True)]
    assert ("s1", 3) not in gave

    prose = _event(3, "s1", "Suitability PASS.")
    timeline = session_timeline([prose], agent=None, round=None, kind=None, extracted=gave)
    assert timeline.extraction_known and timeline.rounds[0].rows[0].extracted == ()
    unknown = session_timeline([prose], agent=None, round=None, kind=None)
    assert not unknown.extraction_known  # beliefs not read: the page then claims nothing


def _item(item_id: str, source: str, ref: dict[str, object]) -> ContextItem:
    return ContextItem(item_id=item_id, source=source, level="full", tokens=5, score=0.5, ref=ref)


def test_a_read_run_again_now_marks_what_was_written_after_the_saved_one() -> None:
    items = [
        _item("event:s2:4", "episodic", {"seq": 4}),
        _item("event:s2:5", "episodic", {"seq": 5}),
        _item("passage:s1:2:0-10", "history", {"seq": 2, "stated_at": "2026-01-13T09:00:01.000Z"}),
        _item("passage:s3:1:0-10", "history", {"seq": 1, "stated_at": "2026-07-13T09:00:00.000Z"}),
    ]
    trace = ContextTrace(
        budget_tokens=100,
        used_tokens=20,
        encoding="o200k_base",
        log_watermark_seq=5,
        belief_generation=1,
        belief_versions={},
        tokens_by_source={},
        candidates_by_source={"episodic": 2, "history": 2},
        dropped=[],
        notes=[],
    )
    request = ContextRequest(subject_id="priya", session_id="s2", agent="a", query="q")
    shown = explain_context(request, ContextResponse(markdown="", items=items, trace=trace), 4, READ_AT)
    later = {i.item_id for s in shown.sources for i in s.placed if i.later}
    assert later == {"event:s2:5", "passage:s3:1:0-10"}
