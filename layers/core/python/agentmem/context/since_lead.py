"""What changed since a watermark, led into the read: the changed items move to the "Changed since
your last read" section, ahead of everything in the ranking, and the read's other items fill the
rest of the budget as they would without `since`.

Each changed item keeps its item id and its rendering, so a reader parses it as it parses the
same line elsewhere in the document; only a change no rendering says (an update that raised no
contradiction flag) gains a "(was X)", a passage newly labelled superseded leads as its label, and
a new event leads at no more than LEAD_CHARS (a longer one says where its whole text is, instead
of taking the budget every change needs). An item is moved, never copied: the document says a thing
once. Every changed item outranks every unchanged one (`LEAD`), so the packer, which walks the
ranking and drops from its bottom, places changes first and drops them last."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from agentmem.context.episodic_candidates import SHORT_CHARS, event_candidate, standalone_event
from agentmem.context.episodic_candidates import item_id as event_item_id
from agentmem.context.history_candidates import standalone_passage
from agentmem.context.retirements import Retired
from agentmem.context.semantic_candidates import belief_candidate
from agentmem.context.since import News
from agentmem.context.text import event_text
from agentmem.model.beliefs import MEMBER_MARK, Belief
from agentmem.model.events import Event
from agentmem.model.watermark import SinceReport
from agentmem.packing.model import Candidate, Dropped

SOURCE = "since"
HEADING = "Changed since your last read"
# Kinds of change, most decisive first: the budget walks them in this order.
LEAD = {
    "changed": 6000.0,
    "gone": 5000.0,
    "retired": 4000.0,
    "new": 3000.0,
    "superseded": 2000.0,
    "event": 1000.0,
}
LEAD_CHARS = 2_000
"""The longest rendering a new event leads with. An agent's statement fits (the demo's outputs
run to 900 characters); a document or a data attachment (a month of bank statement as CSV is
3,400 characters and 1,700 tokens) leads at a shorter rendering that says where its whole text
is (`within_lead`), as a blob does in every read."""
SHARE = 1e6  # with `split`: the changes' demand is met before any source's share is cut


@dataclass(frozen=True)
class Led:
    candidates: list[Candidate]
    report: SinceReport
    kinds: dict[str, str]  # item id -> kind of change, for the items that lead


def origin(candidate: Candidate) -> str:
    """The source an item came from, whether or not it leads as a change."""
    return str(candidate.meta.get("from", candidate.source))


def standalone(candidate: Candidate) -> tuple[str, ...]:
    if candidate.source == "history":
        return standalone_passage(candidate)
    if candidate.source == "episodic":
        return standalone_event(candidate)
    return candidate.renders


def leading(candidate: Candidate, kind: str) -> Candidate:
    return replace(
        candidate,
        source=SOURCE,
        # Among the lead's other lines no session heading stands above a passage or an event:
        # its line says where it is itself.
        group="",
        renders=standalone(candidate),
        score=LEAD[kind] + candidate.score,
        meta={**candidate.meta, "since": kind, "from": candidate.source},
    )


def with_change(candidate: Candidate, belief: Belief) -> Candidate:
    """A changed belief's renderings, each saying what it was: a contradiction's flag note says
    it already (its identity line, only "contradicted", gives way to the short one); a plain
    update gains "(was: X)". A change read only as a key is no change read."""
    if belief.previous is None or len(candidate.renders) < 2:
        return candidate
    if belief.flag:
        renders = list(candidate.renders[:-1])
    else:
        was = f" (was: {belief.previous.value})"
        renders = [*(r + was for r in candidate.renders[:-1]), f"**{belief.key}**: {belief.value}{was}"]
    return replace(candidate, renders=tuple(dict.fromkeys(renders)))


LABELS = re.compile(r"(?:⚠ .+?\. )+")


def label_only(candidate: Candidate) -> Candidate:
    """A passage newly labelled superseded, as its place in the log and its labels: the reader
    met its text before, and what changed is the label (the passage's text costs tens of tokens
    where the label costs ten). The full passage still ranks below, unchanged, if it fits."""
    head = candidate.renders[-1]
    found = LABELS.match(candidate.renders[0], len(head) + 2)
    if not candidate.renders[0].startswith(f"{head}: ") or found is None:
        return candidate
    return replace(candidate, renders=(f"{head}: {found.group().strip()}", head))


def fetch(event: Event) -> str:
    """The events API's read of this one event (its content inlined when it is a blob)."""
    blob = "&resolve_blobs=true" if event.blob is not None else ""
    return f"GET /v1/sessions/{event.session_id}/events?after={event.seq - 1}&limit=1{blob}"


def within_lead(candidate: Candidate, event: Event) -> Candidate:
    """A new event at no more than LEAD_CHARS. Its renderings longer than that give way to its
    shorter ones, each saying where the whole text is (a blob's pointer says it already); when
    only its head is left, the head says what the event holds (media type, size, first line) and
    where it is. A reader that needs the whole text fetches it: one call, no prompt tokens."""
    head = candidate.renders[-1]
    kept = [r for r in candidate.renders[:-1] if len(r) <= LEAD_CHARS]
    if len(kept) == len(candidate.renders) - 1:
        return candidate
    text = event.content if isinstance(event.content, str) else event_text(event)
    size = f"{event.blob.bytes:,} bytes" if event.blob is not None else f"{len(text):,} characters"
    whole = f"its full text ({size}): {fetch(event)}"
    if kept:
        renders = [r if event.blob is not None else f"{r} … {whole}" for r in kept]
    else:
        raw = (text if event.blob is None else event.blob.preview).strip()
        first = raw.split("\n", 1)[0].strip()
        begins = f", begins: {first}" if first != raw and 0 < len(first) <= SHORT_CHARS else ""
        renders = [f"{head} {event.media_type}{begins}; {whole}"]
    return replace(candidate, renders=(*renders, head))


def gone_candidate(doc_id: str) -> Candidate:
    key, _, member = doc_id.partition(MEMBER_MARK)
    what = f"**{key}**" + (f" ({member})" if member else "")
    return Candidate(
        item_id=f"belief:{doc_id}",
        source="semantic",
        score=0.0,
        # Two renderings, so it is placed as detail: an identity-only item waits for the identity
        # share, which lower-ranked unchanged items could then outlast.
        renders=(f"{what}: no longer held (erased, or memory rebuilt without it)", f"{what}: no longer held"),
        meta={"doc_id": doc_id, "key": key},
    )


def new_labels(retired: Retired | None, after: str) -> list[str]:
    """The labels of retirements said after the watermark, as the candidates render them."""
    if retired is None:
        return []
    return [f"⚠ {r.label}." for r in retired.found if r.stated_at > after]


def kind_of(
    candidate: Candidate, changed_keys: set[str], labels: Sequence[str], new_events: set[str]
) -> str | None:
    """Which change an item already in the ranking shows, if any (the moved beliefs are matched
    by id before this)."""
    full = candidate.renders[0]
    if candidate.source == "semantic":
        return "retired" if any(label in full for label in labels) else None
    if candidate.source == "episodic":
        return "event" if candidate.meta.get("event_id") in new_events else None
    if candidate.source == "history" and candidate.meta.get("superseded"):
        if any(label in full for label in labels):
            return "superseded"
        if any(f"superseded: {key} is " in full for key in changed_keys):
            return "superseded"
    return None


def compact(candidate: Candidate, kind: str, events: Mapping[str, Event]) -> Candidate:
    """A change at the detail that says it: a passage newly superseded as its label, a new event
    at no more than LEAD_CHARS, anything else as it is."""
    if kind == "superseded":
        return label_only(candidate)
    if kind == "event" and (event := events.get(str(candidate.meta.get("event_id")))) is not None:
        return within_lead(candidate, event)
    return candidate


def lead_with(
    news: News,
    candidates: Sequence[Candidate],
    dropped: Sequence[Dropped],
    retired: Retired | None,
    include: Sequence[str],
    scores: Mapping[str, float] | None = None,
) -> tuple[Led, list[Dropped]]:
    """The candidates with every change leading, and the dropped list without what came back.
    `scores` (item id -> score) ranks a change the query did not find among its own kind."""
    moved = {f"belief:{b.doc_id}": (b, "changed") for b in news.changed}
    moved |= {f"belief:{b.doc_id}": (b, "new") for b in news.new}
    labels = new_labels(retired, news.after)
    changed_keys = {b.key for b in news.changed}
    by_id = {e.event_id: e for e in news.events}
    event_ids = set(by_id)
    original = {c.item_id for c in candidates}
    out: list[Candidate] = []
    for c in candidates:
        if c.item_id in moved:
            belief, kind = moved.pop(c.item_id)
            out.append(leading(with_change(c, belief), kind))
        elif (kind_found := kind_of(c, changed_keys, labels, event_ids)) is not None:
            out.append(leading(compact(c, kind_found, by_id), kind_found))
        else:
            out.append(c)
    # Changes the query did not find: a belief that moved leads whatever the query asked.
    for item, (belief, kind) in sorted(moved.items()):
        base = belief_candidate(belief, (scores or {}).get(item, 0.0))
        out.append(leading(with_change(base, belief), kind))
    present = {c.item_id for c in out}
    out += [leading(gone_candidate(doc), "gone") for doc in news.gone if f"belief:{doc}" not in present]
    # New events the session's ranking left below its cut (not those a belief stands for, nor
    # near-duplicates: what they say is in the document).
    below = {d.item_id for d in dropped if d.reason.startswith("ranked below")}
    for event in news.events:
        item = event_item_id(event)
        if item in below and item not in present:
            base = event_candidate(event, 0.0, inline=None)
            out.append(leading(compact(base, "event", by_id), "event"))
    back = {c.item_id for c in out} - original
    kinds = {c.item_id: str(c.meta["since"]) for c in out if c.source == SOURCE}
    report = SinceReport(
        session_id=news.watermark.session_id,
        seq=news.watermark.seq,
        new_events=len(news.events) if "episodic" in include else 0,
        changed_beliefs=len(news.changed),
        new_beliefs=len(news.new),
        retired_beliefs=sum(k == "retired" for k in kinds.values()),
        gone_beliefs=len(news.gone),
        superseded_passages=sum(k == "superseded" for k in kinds.values()),
        left_out=[],
    )
    return Led(out, report, kinds), [d for d in dropped if d.item_id not in back]
