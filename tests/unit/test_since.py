"""The domain of reads since a watermark: the token, which version counts as moved, which events
are new, and how the changes lead the packed document."""

from __future__ import annotations

import pytest

from agentmem.adapters.tokens import count_tokens
from agentmem.context.episodic_candidates import event_candidate, standalone_event
from agentmem.context.semantic_candidates import belief_candidate
from agentmem.context.since import News, made_after, new_events, watermark_of
from agentmem.context.since_lead import HEADING, LEAD_CHARS, SOURCE, gone_candidate, lead_with, with_change
from agentmem.errors import InvalidInputError
from agentmem.model.beliefs import Belief, Observation, Verdict
from agentmem.model.events import BlobRef, Event
from agentmem.model.watermark import Watermark
from agentmem.packing.engine import pack
from agentmem.packing.model import Candidate, Dropped, Section
from agentmem.semantic.event_observations import order_key
from agentmem.semantic.fold import fold


def stated(n: int, value: str, *, session: str = "s1", key: str = "risk") -> Observation:
    return Observation(
        subject_id="priya", key=key, text=f"Priya's {key} is {value}.", value=value,
        order=f"2026-01-01T00:00:{n:02d}.000Z|{session}|{n:012d}", event_id=f"ev{n}",
        session_id=session, seq=n, stated_at=f"2026-01-01T00:00:{n:02d}.000Z",
    )  # fmt: skip


def chain(*observations: Observation, conflict: bool = False) -> list[Belief]:
    changed = Verdict.CONFLICT if conflict else Verdict.UPDATE
    return fold(observations, lambda cur, obs: Verdict.SAME if cur.value == obs.value else changed)


def event(seq: int, session: str = "s1", second: int | None = None) -> Event:
    return Event(
        event_id=f"e{session}{seq}", session_id=session, seq=seq, subject_id="priya", round=0,
        agent="a", kind="note", media_type="text/plain", content=f"note {seq}",
        created_at=f"2026-01-01T00:00:{second if second is not None else seq:02d}.000Z",
    )  # fmt: skip


def mark(**fields: object) -> Watermark:
    raw = {"s": "priya", "n": "s1", "q": 0, "e": "", "b": "", "k": []} | fields
    return Watermark.model_validate(raw)


# -- the token --------------------------------------------------------------------------------


def test_a_watermark_survives_its_token() -> None:
    watermark = mark(q=3, e=stated(3, "x").order, b=stated(2, "x").order, k=["risk", "goal#house"])
    assert watermark.token().startswith("w1.")
    assert Watermark.parse(watermark.token()) == watermark
    assert watermark.read_at == stated(3, "x").order


@pytest.mark.parametrize("token", ["v2.abc", "w1.", "w1.!!", "w1.eyJ9", mark().token()[:-4]])
def test_anything_but_an_issued_token_names_since(token: str) -> None:
    with pytest.raises(InvalidInputError) as raised:
        Watermark.parse(token)
    assert raised.value.field == "since"


def test_this_reads_watermark_is_its_last_event_and_the_frontier_before_it_searched() -> None:
    last = event(4)
    frontier = stated(2, "x").order
    watermark = watermark_of("priya", "s1", last, 4, frontier, ["risk", "goal#a", "risk"])
    assert (watermark.seq, watermark.events_at, watermark.beliefs_at) == (4, order_key(last), frontier)
    assert watermark.shown == ("goal#a", "risk")
    empty = watermark_of("priya", "s1", None, 7, "", [])
    assert (empty.seq, empty.events_at) == (7, "")  # a read without episodic: the log's last seq


# -- what counts as changed -------------------------------------------------------------------


def test_a_version_moved_when_the_statement_that_made_it_came_after_the_frontier() -> None:
    cautious, aggressive = stated(1, "cautious"), stated(5, "aggressive")
    current = chain(cautious, aggressive)[-1]
    assert made_after(current, stated(3, "x").order)
    assert not made_after(current, stated(6, "x").order)
    assert made_after(current, "")  # no frontier: nothing was seen


def test_a_restatement_after_the_frontier_moves_no_version() -> None:
    current = chain(stated(1, "cautious"), stated(5, "cautious"))[-1]
    assert current.source_order > stated(3, "x").order  # stated after it: the index returns it
    assert not made_after(current, stated(3, "x").order)


def test_on_a_tie_of_times_the_frontiers_own_event_says_the_version_was_seen() -> None:
    current = chain(stated(1, "cautious"), stated(5, "aggressive"))[-1]
    assert not made_after(current, stated(5, "x").order)  # the frontier is the event that made it
    other = f"{stated(5, 'x').stated_at}|s9|{9:012d}"  # another event at the same instant
    assert made_after(current, other)  # read twice rather than never


def test_new_events_by_seq_in_the_same_session_and_by_time_from_another() -> None:
    events = [event(1), event(2), event(3)]
    assert [e.seq for e in new_events(mark(q=1), "s1", events)] == [2, 3]
    elsewhere = mark(n="s0", e=f"2026-01-01T00:00:02.500Z|s0|{9:012d}")
    assert [e.seq for e in new_events(elsewhere, "s1", events)] == [3]


# -- leading the document ---------------------------------------------------------------------


def test_a_plain_update_says_what_it_was_at_every_level_and_a_flag_keeps_its_note() -> None:
    updated = chain(stated(1, "cautious"), stated(5, "balanced"))[-1]
    renders = with_change(belief_candidate(updated, 0.1), updated).renders
    assert all("(was: cautious)" in r and "balanced" in r for r in renders)
    flagged = chain(stated(1, "cautious"), stated(5, "aggressive"), conflict=True)[-1]
    renders = with_change(belief_candidate(flagged, 0.1), flagged).renders
    assert all("changed from cautious (s1) to aggressive (s1)" in r for r in renders)


def unchanged(n: int) -> Candidate:
    body = f"an unchanged line number {n} that says a fair amount about the subject and more"
    return Candidate(f"passage:s0:{n}:0-1", "history", 0.9 - n / 100, (body, f"line {n}"), {})


def test_changes_lead_and_are_the_last_the_budget_drops() -> None:
    moved = chain(stated(1, "cautious"), stated(5, "aggressive"), conflict=True)[-1]
    fresh = event(3)
    news = News(mark(q=2), events=[fresh], changed=[moved], gone=["pet#rex"])
    dropped = [Dropped(f"event:s1:{fresh.seq}", "episodic", "ranked below the session's top 150")]
    led, still_dropped = lead_with(news, [unchanged(n) for n in range(8)], dropped, None, ["episodic"])
    assert still_dropped == []  # the new event came back from below the session's cut
    kinds = [c.meta["since"] for c in sorted(led.candidates, key=lambda c: -c.score) if c.source == SOURCE]
    assert kinds == ["changed", "gone", "event"]
    assert led.report.changed_beliefs == 1 and led.report.gone_beliefs == 1 and led.report.new_events == 1

    sections = [Section(SOURCE, HEADING), Section("history", "Earlier")]
    for budget in range(20, 200, 10):
        packed = pack(led.candidates, budget=budget, shares={SOURCE: 1.0, "history": 1.0},
                      sections=sections, title="t", count=count_tokens, encoding="o200k_base",
                      policy="pooled")  # fmt: skip
        lost = [d for d in packed.dropped if d.source == SOURCE]
        assert not (lost and any(p.candidate.source != SOURCE for p in packed.placed)), budget
        if any(p.candidate.source == SOURCE for p in packed.placed):
            assert packed.markdown.startswith(f"# t\n\n## {HEADING}\n")


def test_a_gone_belief_names_its_key_and_member() -> None:
    assert gone_candidate("goal#house").renders[-1] == "**goal** (house): no longer held"


# -- how much of a new event leads ------------------------------------------------------------

CSV = "date,description,amount_usd\n" + "\n".join(
    f"2026-03-{n % 28 + 1:02d},COFFEE #{n},-{n}.50" for n in range(120)
)
PROSE = " ".join(f"Sentence {n} of a long review says one more thing about the plan." for n in range(40))


def output(seq: int, content: str, media_type: str, blob: BlobRef | None = None) -> Event:
    return Event(
        event_id=f"es1{seq}", session_id="s1", seq=seq, subject_id="priya", round=1, agent="intake",
        kind="doc", media_type=media_type, content=content, blob=blob,
        created_at=f"2026-01-01T00:00:{seq:02d}.000Z",
    )  # fmt: skip


def led_renders(*events: Event, inline: str | None = None) -> dict[str, tuple[str, ...]]:
    candidates = [event_candidate(e, 0.1, inline=inline) for e in events]
    led, _ = lead_with(News(mark(q=0), events=list(events)), candidates, [], None, ["episodic"])
    assert all(c.source == SOURCE and c.meta["since"] == "event" for c in led.candidates)
    return {c.item_id: c.renders for c in led.candidates}


def test_a_new_statement_leads_whole_and_a_document_as_what_it_holds_and_where_it_is() -> None:
    note, statement = event(1), output(2, CSV, "text/csv")
    assert len(CSV) > LEAD_CHARS
    renders = led_renders(note, statement)
    # as in any read, naming its session: no section heading stands above it in the lead
    assert renders["event:s1:1"] == standalone_event(event_candidate(note, 0.1, inline=None))
    assert renders["event:s1:2"] == (
        "[s1 #2 r1 intake/doc] text/csv, begins: date,description,amount_usd;"
        f" its full text ({len(CSV):,} characters): GET /v1/sessions/s1/events?after=1&limit=1",
        "[s1 #2 r1 intake/doc]",
    )


def test_a_long_text_leads_at_its_leading_sentences_and_says_where_the_rest_is() -> None:
    review = output(3, PROSE, "text/plain")
    full, short, head = standalone_event(event_candidate(review, 0.1, inline=None))
    assert len(full) > LEAD_CHARS
    assert led_renders(review)["event:s1:3"] == (
        f"{short} … its full text ({len(PROSE):,} characters): GET /v1/sessions/s1/events?after=2&limit=1",
        head,
    )


def test_a_blob_inlined_for_the_query_leads_at_its_pointer_when_it_is_too_long() -> None:
    ref = BlobRef(uri="blob://x", bytes=90_000, sha256="ab" * 32, media_type="text/csv", preview=CSV[:200])
    stored = output(4, CSV, "text/csv", blob=ref)
    inlined, pointer, head = standalone_event(event_candidate(stored, 0.1, inline=CSV))
    assert len(inlined) > LEAD_CHARS and "resolve_blobs=true" in pointer
    assert led_renders(stored, inline=CSV)["event:s1:4"] == (pointer, head)


def test_the_budget_every_change_needs_is_that_of_what_leads() -> None:
    """A document in the lead no longer sets the budget a since read needs: it is its reference."""
    news = News(mark(q=0), events=[event(1), output(2, CSV, "text/csv")])
    candidates = [event_candidate(e, 0.1, inline=None) for e in news.events]
    led, _ = lead_with(news, candidates, [], None, ["episodic"])
    sections = [Section(SOURCE, HEADING)]
    packed = pack(led.candidates, budget=120, shares={SOURCE: 1.0}, sections=sections, title="t",
                  count=count_tokens, encoding="o200k_base", policy="pooled")  # fmt: skip
    assert [p.candidate.item_id for p in packed.placed] == ["event:s1:1", "event:s1:2"]
    assert all(p.level == 0 for p in packed.placed) and count_tokens(CSV) > 120
