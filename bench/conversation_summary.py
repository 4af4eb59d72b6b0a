"""The conversation bench's figures: one cell of readings summarised, cells by kind of fact, and
what the semantic tier made of the facts."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from statistics import mean
from typing import Any

from conversation_gen import Question, Subject
from conversation_score import Score
from conversation_text import says


def summarise(scores: Sequence[Score], tokens: Sequence[int]) -> dict[str, Any]:
    changed = [s for s in scores if s.current_first is not None]
    matched: Counter[str] = Counter()
    for s in scores:
        matched.update(s.matched_by)
    return {
        "questions": len(scores),
        "evidence_recall": round(mean(s.evidence_recall for s in scores), 4),
        "answered": round(mean(s.answered for s in scores), 4),
        "value_shown": round(mean(s.value_shown for s in scores), 4),
        "changed_questions": len(changed),
        "current_value_accuracy": round(mean(bool(s.current_first) for s in changed), 4) if changed else None,
        "superseded_unlabelled": (
            round(mean(bool(s.superseded_unlabelled) for s in changed), 4) if changed else None
        ),
        "mean_tokens": round(mean(tokens), 1),
        "max_tokens": max(tokens),
        "matched_by": dict(matched),
    }


def by_group(cell: list[tuple[Question, Score, int]]) -> dict[str, dict[str, Any]]:
    """The cell's figures by kind of fact, and for the facts first said in session 1."""
    groups: dict[str, list[tuple[Question, Score, int]]] = {}
    for entry in cell:
        groups.setdefault(entry[0].category, []).append(entry)
        if entry[0].first_session == 1:
            groups.setdefault("stated_in_session_1", []).append(entry)
    return {
        name: summarise([s for _, s, _ in entries], [t for _, _, t in entries])
        for name, entries in sorted(groups.items(), key=lambda g: (g[0] == "stated_in_session_1", g[0]))
    }


def belief_aims(subjects: Sequence[Subject], beliefs: dict[str, dict[str, dict[str, Any]]]) -> dict[str, Any]:
    """What the semantic tier made of the facts: a restated fact should be one current belief; a
    changed one should hold the new value, flagged when it contradicted the old."""
    restated: Counter[str] = Counter()
    changed = {"questions": 0, "belief_with_current_value": 0, "flagged": 0, "belief_with_old_value": 0}
    for subject in subjects:
        current = list(beliefs[subject.subject_id].values())
        for q in subject.questions:
            holding = [b for b in current if says(q.current.forms, b["value"])]
            if q.category == "restated":
                restated[("0", "1", "2+")[min(len(holding), 2)]] += 1
            if q.superseded is not None:
                changed["questions"] += 1
                changed["belief_with_current_value"] += bool(holding)
                changed["flagged"] += any(b["flag"] for b in holding)
                changed["belief_with_old_value"] += any(says(q.superseded.forms, b["value"]) for b in current)
    unlabelled = [
        {"subject_id": subject.subject_id, "key": b["key"], "value": b["value"], "flag": b["flag"]}
        for subject in subjects
        for b in beliefs[subject.subject_id].values()
        if not any(
            says(v.forms, b["value"]) for q in subject.questions for v in (q.current, q.superseded) if v
        )
    ]
    return {
        "current_beliefs": sum(len(b) for b in beliefs.values()),
        # A belief that holds none of the subject's values was read from a near miss or a filler.
        "beliefs_holding_no_fact_of_the_subject": unlabelled,
        "beliefs_by_key": dict(Counter(b["key"] for s in beliefs.values() for b in s.values())),
        "restated_facts_by_number_of_beliefs_holding_the_value": dict(restated),
        "changed_facts": changed,
    }
