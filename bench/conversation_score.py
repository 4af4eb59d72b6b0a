"""Scoring one reading (what one retrieval put in front of a reader) against one question.

Evidence is counted by structured ids wherever the reading has them:
- an item whose `ref` names an `event_id` (or a `session_id` and `seq`) reached that event: an
  episodic item, and what a history source returns for an event or a passage of it;
- a belief item (`ref.doc_id`) reached the events in its provenance that stated the question's
  current value, when the belief itself holds that value and was rendered with it (not at the
  bare `identity` level);
- an item of any other source without ids falls back to text: an evidence turn counts when the
  exact sentence that states the fact appears in the document. Each hit says how it was found.

Values are matched whole-word (figures never inside bigger figures) on the document's lines. The
current value "ranks above" the superseded one when it is on an earlier line; a line that says
both ("moved from Porto to Lisbon", "Lisbon ... changed from Porto") labels the change itself, and
a line that says only the old value is labelled when it carries one of LABELS."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from conversation_gen import Question
from conversation_text import Value, says

LABELS = ("superseded", "changed from", "previously", "no longer", "outdated", "⚠")


@dataclass(frozen=True)
class EventRef:
    session_id: str
    seq: int
    event_id: str


@dataclass(frozen=True)
class Reading:
    markdown: str
    tokens: int
    reached: Mapping[str, str]  # event_id -> how it was found: event_id | belief | substring


@dataclass(frozen=True)
class Score:
    evidence_recall: float
    answered: bool  # at least one evidence event reached
    value_shown: bool  # the current value is in the document
    current_first: bool | None  # changed and corrected facts only
    superseded_unlabelled: bool | None  # the old value shown on a line of its own, without a label
    matched_by: Mapping[str, int]


def labelled(line: str) -> bool:
    low = line.casefold()
    return any(label in low for label in LABELS)


def current_ranks_first(markdown: str, current: Value, superseded: Value) -> bool:
    lines = markdown.splitlines()
    first = next((i for i, line in enumerate(lines) if says(current.forms, line)), None)
    if first is None:
        return False
    return not any(
        says(superseded.forms, line) and not says(current.forms, line) and not labelled(line)
        for line in lines[:first]
    )


def superseded_unlabelled(markdown: str, current: Value, superseded: Value) -> bool:
    return any(
        says(superseded.forms, line) and not says(current.forms, line) and not labelled(line)
        for line in markdown.splitlines()
    )


def score(question: Question, reading: Reading, evidence: Sequence[EventRef]) -> Score:
    wanted = [e.event_id for e in evidence]
    hits = [reading.reached[e] for e in wanted if e in reading.reached]
    return Score(
        evidence_recall=len(hits) / len(wanted),
        answered=bool(hits),
        value_shown=says(question.current.forms, reading.markdown),
        current_first=(
            current_ranks_first(reading.markdown, question.current, question.superseded)
            if question.superseded is not None
            else None
        ),
        superseded_unlabelled=(
            superseded_unlabelled(reading.markdown, question.current, question.superseded)
            if question.superseded is not None
            else None
        ),
        matched_by={how: hits.count(how) for how in dict.fromkeys(hits)},
    )


def agentmem_reading(
    response: Mapping[str, Any],
    question: Question,
    beliefs: Mapping[str, Mapping[str, Any]],
    by_seq: Mapping[tuple[str, int], str],
    clauses: Mapping[str, str],
) -> Reading:
    """What a `/v1/context` answer reached. `beliefs`: the subject's current beliefs by doc id;
    `by_seq`: (session_id, seq) -> event_id; `clauses`: evidence event_id -> the sentence of it
    that states the fact, for items that carry no ids."""
    markdown = str(response["markdown"])
    reached: dict[str, str] = {}
    flat = " ".join(markdown.split())
    for item in response["items"]:
        ref = item.get("ref") or {}
        if "event_id" in ref:
            reached.setdefault(str(ref["event_id"]), "event_id")
        elif "session_id" in ref and "seq" in ref:
            event_id = by_seq.get((str(ref["session_id"]), int(ref["seq"])))
            if event_id:
                reached.setdefault(event_id, "event_id")
        elif item["source"] == "semantic" and "doc_id" in ref:
            belief = beliefs.get(str(ref["doc_id"]))
            if (
                belief is None
                or item["level"] == "identity"
                or not says(question.current.forms, belief["value"])
            ):
                continue
            for p in belief["provenance"]:
                if says(question.current.forms, p["value"]):
                    reached.setdefault(str(p["event_id"]), "belief")
        else:
            for event_id, clause in clauses.items():
                if " ".join(clause.split()) in flat:
                    reached.setdefault(event_id, "substring")
    return Reading(markdown, int(response["trace"]["used_tokens"]), reached)


def result_cell(s: Score, tokens: int) -> dict[str, Any]:
    """One question's result for one system at one budget, as the benches' JSON keeps it."""
    return {
        "evidence_recall": round(s.evidence_recall, 4),
        "answered": s.answered,
        "value_shown": s.value_shown,
        "current_first": s.current_first,
        "tokens": tokens,
    }
