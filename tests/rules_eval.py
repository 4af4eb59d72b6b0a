"""Scoring the local rules on the labelled sets in tests/data/rules/: shared by the floor tests
(tests/unit/test_rules_figures.py, tests/functional/test_prose_beliefs.py) and bench/verdicts.py.

Every set has a `dev` split (the rules were tuned against it) and a `heldout` split (written
before any rule, and not tuned against)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from agentmem.adapters.local.rules.entity_facts import is_entity_key
from agentmem.model.beliefs import (
    Belief,
    Cardinality,
    FactInput,
    FactType,
    KeyCandidate,
    KeyChoice,
    KeyProposal,
    Observation,
    Verdict,
    normalise_value,
)
from agentmem.model.events import Event
from agentmem.semantic.fact_types import DEFAULT_FACT_TYPES

DATA = Path(__file__).parent / "data" / "rules"
SPLITS = ("dev", "heldout")
Decide = Callable[[Belief, Observation, FactType], Verdict]
Extract = Callable[[Event, Sequence[FactType]], list[FactInput]]
Resolve = Callable[[KeyProposal, Sequence[KeyCandidate]], KeyChoice]


def load(name: str, split: str | None = None) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in (DATA / f"{name}.jsonl").read_text().splitlines() if line.strip()]
    return [r for r in rows if split is None or r["split"] == split]


def event_of(row: dict[str, Any], *, n: int = 1, session: str = "s1", created_at: str | None = None) -> Event:
    content = row["content"]
    media_type = "text/plain" if isinstance(content, str) else "application/json"
    return Event(
        event_id=f"{row.get('id', 'ev')}-{n}", session_id=session, seq=n, subject_id=row["subject"], round=0,
        agent=row["agent"], kind=row["kind"], media_type=media_type, content=content,
        created_at=created_at or f"2026-01-01T00:00:{n:02d}.000Z",
    )  # fmt: skip


def belief_of(row: dict[str, Any]) -> Belief:
    key, value = row["key"], row["old"]
    text = row.get("old_text") or f"Priya's {key.replace('_', ' ')} is {value}."
    return Belief(
        subject_id="priya", key=key, doc_id=key, text=text, value=value, version=1, current=True, flag=False,
        verdict=Verdict.NEW, provenance=[], valid_from="2026-01-01T00:00:00Z", source_seq=1, source_order="a",
    )  # fmt: skip


def observation_of(row: dict[str, Any]) -> Observation:
    key, value = row["key"], row["new"]
    text = row.get("new_text") or f"Priya's {key.replace('_', ' ')} is {value}."
    return Observation(
        subject_id="priya", key=key, text=text, value=value, order="b", event_id="ev2", session_id="s2",
        seq=2, stated_at="2026-01-02T00:00:00Z",
    )  # fmt: skip


def any_difference_is_conflict(current: Belief, candidate: Observation, fact_type: FactType) -> Verdict:
    """The old local verdict's behaviour in practice: every different value is a contradiction."""
    same = normalise_value(current.value) == normalise_value(candidate.value)
    return Verdict.SAME if same else Verdict.CONFLICT


@dataclass(frozen=True)
class VerdictScore:
    pairs: int
    accuracy: float
    majority_accuracy: float  # always answering the most frequent label
    conflict_precision: float
    conflict_recall: float
    flagged_consistent: float  # share of SAME/UPDATE pairs flagged CONFLICT
    confusion: dict[str, int]


def score_verdicts(rows: Iterable[dict[str, Any]], decide: Decide) -> VerdictScore:
    rows = list(rows)
    confusion: Counter[str] = Counter()
    for row in rows:
        got = decide(belief_of(row), observation_of(row), FactType(key=row["key"]))
        confusion[f"{row['label']}->{got.value}"] += 1
    labels = Counter(r["label"] for r in rows)
    correct = sum(n for pair, n in confusion.items() if pair.split("->")[0] == pair.split("->")[1])
    flagged = sum(n for pair, n in confusion.items() if pair.endswith("->CONFLICT"))
    true_flags = confusion["CONFLICT->CONFLICT"]
    consistent = len(rows) - labels["CONFLICT"]
    return VerdictScore(
        pairs=len(rows),
        accuracy=_ratio(correct, len(rows)),
        majority_accuracy=_ratio(max(labels.values(), default=0), len(rows)),
        conflict_precision=_ratio(true_flags, flagged),
        conflict_recall=_ratio(true_flags, labels["CONFLICT"]),
        flagged_consistent=_ratio(flagged - true_flags, consistent),
        confusion=dict(sorted(confusion.items())),
    )


@dataclass(frozen=True)
class ExtractionScore:
    sentences: int
    expected: int
    extracted: int
    correct: int
    precision: float
    recall: float
    misses: list[str]


def _pairs(facts: Iterable[FactInput]) -> set[tuple[str, str]]:
    return {(f.key, normalise_value(f.value or f.text)) for f in facts}


def score_extraction(rows: Iterable[dict[str, Any]], extract: Extract) -> ExtractionScore:
    expected = extracted = correct = 0
    misses: list[str] = []
    rows = list(rows)
    for row in rows:
        got = _pairs(extract(event_of(row), DEFAULT_FACT_TYPES))
        want = {(e["key"], normalise_value(e["value"])) for e in row["expect"]}
        expected, extracted, correct = expected + len(want), extracted + len(got), correct + len(got & want)
        if got != want:
            misses.append(f"{row['id']}: got {sorted(got - want)}, missed {sorted(want - got)}")
    return ExtractionScore(
        len(rows), expected, extracted, correct, _ratio(correct, extracted), _ratio(correct, expected), misses
    )


@dataclass(frozen=True)
class NearMissScore:
    sentences: int
    false_facts: int
    sentences_with_a_fact: int
    offenders: list[str]
    about_other_entities: int = 0  # facts under a key scoped by another named entity: not false


def score_near_misses(rows: Iterable[dict[str, Any]], extract: Extract) -> NearMissScore:
    """A near miss must state nothing about the subject. "The capital of Texas is Austin" may give
    `capital_of_texas` (a fact about Texas, kept under its own key), never `city`."""
    rows = list(rows)
    offenders = []
    facts = others = 0
    for row in rows:
        found = extract(event_of(row), DEFAULT_FACT_TYPES)
        about_others = [f for f in found if is_entity_key(f.key, f.text)]
        others += len(about_others)
        got = _pairs(f for f in found if f not in about_others)
        facts += len(got)
        if got:
            offenders.append(f"{row['id']}: {sorted(got)}")
    return NearMissScore(len(rows), facts, len(offenders), offenders, others)


def key_candidates(row: dict[str, Any]) -> list[KeyCandidate]:
    """The row's existing keys as the resolver would see them (a default key keeps its description)."""
    defaults = {t.key: t for t in DEFAULT_FACT_TYPES}
    return [
        KeyCandidate(
            key=key,
            description=defaults[key].description if key in defaults else "",
            example="",
            cardinality=Cardinality.SINGLE,
            declared=key in defaults,
            score=0.0,
        )
        for key in row["existing"]
    ]


def key_proposal(row: dict[str, Any]) -> KeyProposal:
    return KeyProposal(
        key=row["proposed"], description=row["description"], text=row["text"], value=row["text"],
        cardinality=Cardinality.SINGLE,
    )  # fmt: skip


@dataclass(frozen=True)
class KeyScore:
    proposals: int
    accuracy: float
    merged_wrongly: int  # mapped onto a key that means something else, or onto one when none fits
    missed: int  # kept apart although a key meant the same
    errors: list[str]


def score_keys(
    rows: Iterable[dict[str, Any]],
    resolve: Resolve,
    shortlist: Callable[[KeyProposal, list[KeyCandidate]], list[KeyCandidate]],
) -> KeyScore:
    rows = list(rows)
    wrong = missed = 0
    errors = []
    for row in rows:
        proposal = key_proposal(row)
        candidates = shortlist(proposal, key_candidates(row))
        got = resolve(proposal, candidates).key if candidates else None
        if got != row["expect"]:
            errors.append(f"{row['id']}: {row['proposed']} -> {got}, expected {row['expect']}")
            if got is None:
                missed += 1
            else:
                wrong += 1
    return KeyScore(len(rows), _ratio(len(rows) - wrong - missed, len(rows)), wrong, missed, errors)


@dataclass(frozen=True)
class KeyPairScore:
    """ "Same" as the positive class on labelled key pairs: does the proposal join the existing key?"""

    pairs: int
    precision: float  # of the pairs joined, how many mean one fact
    recall: float  # of the pairs that mean one fact, how many were joined
    joined_wrongly: list[str]
    kept_apart_wrongly: list[str]


def key_pair(row: dict[str, Any]) -> tuple[KeyProposal, KeyCandidate]:
    """The row's proposal and its one existing key, as the resolver would hand them over."""
    defaults = {t.key: t for t in DEFAULT_FACT_TYPES}
    existing = row["existing"]
    proposal = KeyProposal(
        key=row["proposed"], description="", text=row["text"], value=row["value"],
        cardinality=Cardinality.SINGLE,
    )  # fmt: skip
    candidate = KeyCandidate(
        key=existing, description=defaults[existing].description if existing in defaults else "",
        example=row["example"], cardinality=Cardinality.SINGLE, declared=existing in defaults, score=0.0,
    )  # fmt: skip
    return proposal, candidate


def score_key_pairs(
    rows: Iterable[dict[str, Any]],
    resolve: Resolve,
    shortlist: Callable[[KeyProposal, list[KeyCandidate]], list[KeyCandidate]] | None = None,
) -> KeyPairScore:
    """Each pair decided on its own; with `shortlist`, a candidate it drops is kept apart (the
    embedding floor the resolver applies before asking the port)."""
    rows = list(rows)
    joined_wrongly, apart_wrongly = [], []
    joined = same = 0
    for row in rows:
        proposal, candidate = key_pair(row)
        candidates = shortlist(proposal, [candidate]) if shortlist is not None else [candidate]
        got = bool(candidates) and resolve(proposal, candidates).key == candidate.key
        expected = row["expect"] == "same"
        joined += got
        same += expected
        if got and not expected:
            joined_wrongly.append(f"{row['id']}: {row['proposed']} ~ {row['existing']}")
        if expected and not got:
            apart_wrongly.append(f"{row['id']}: {row['proposed']} ~ {row['existing']}")
    right = joined - len(joined_wrongly)
    return KeyPairScore(
        len(rows),
        _ratio(right, joined) if joined else 1.0,
        _ratio(right, same),
        joined_wrongly,
        apart_wrongly,
    )


def as_dict(score: Any) -> dict[str, Any]:
    return asdict(score)


def _ratio(a: int, b: int) -> float:
    return round(a / b, 3) if b else 0.0
