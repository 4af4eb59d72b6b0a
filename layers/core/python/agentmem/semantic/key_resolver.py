"""Key resolution: map a key extraction proposes onto a key the subject already has, when the two
mean the same thing (`home_city` onto `city`).

Declared keys win: a proposal under a declared key keeps it, with the declared cardinality. For
any other proposal the candidates are the declared keys and the keys the subject already had
before this event in log order; they are shortlisted by embedding (the key's words and
description, alone and with its first sentence, against the proposal's) and the LLM port
decides. Without a match the proposal keeps its own key and the cardinality the extractor
proposed, unless the tenant refuses undeclared keys.

Replay: a resolution reads only the log prefix. "Before this event" is the observations' own
order (`created_at|session|seq`), never the index's arrival order, and a batch sees its own
earlier observations exactly as one-by-one projection would. The embedder and the LLM port's
decision are deterministic (the rules are; Bedrock runs at temperature 0)."""

from __future__ import annotations

import logging
import math
import operator
from collections.abc import Sequence
from dataclasses import dataclass

from agentmem.model.beliefs import (
    Cardinality,
    ExtractedFact,
    FactInput,
    KeyCandidate,
    KeyChoice,
    KeyProposal,
    Observation,
)
from agentmem.ports.embedding import Embedder
from agentmem.ports.semantic import LLM, BeliefIndex
from agentmem.semantic.fact_types import FactTypeCatalog

logger = logging.getLogger(__name__)

SHORTLIST = 5  # candidates the LLM port is asked about, best by cosine first
MIN_SCORE = 0.1  # low on purpose: MiniLM scores key synonyms low (company ~ employer: 0.16)


@dataclass(frozen=True)
class Resolution:
    key: str
    cardinality: Cardinality
    proposed_key: str | None = None  # set when the resolver chose the key
    reason: str | None = None


@dataclass(frozen=True)
class KnownKey:
    key: str
    cardinality: Cardinality
    first_order: str  # log order of the first statement under the key
    example: str  # that statement's sentence


class KeyBook:
    """The keys each subject has and where in the log each first appeared. Read from the index
    once per subject, then kept current with the batch's own observations, which the index does
    not hold yet."""

    def __init__(self, index: BeliefIndex) -> None:
        self._index = index
        self._loaded: dict[str, dict[str, KnownKey]] = {}
        self._keys: dict[tuple[str, str], KnownKey | None] = {}
        self._pending: dict[str, list[Observation]] = {}

    def note(self, obs: Observation) -> None:
        self._pending.setdefault(obs.subject_id, []).append(obs)

    def before(self, subject_id: str, order: str) -> dict[str, KnownKey]:
        """The subject's keys first stated before `order`."""
        if subject_id not in self._loaded:
            members = {(b.key, b.member) for b in self._index.current(subject_id)}
            self._loaded[subject_id] = self._first(subject_id, members)
        return self._with_pending(subject_id, self._loaded[subject_id], order)

    def key_before(self, subject_id: str, key: str, order: str) -> KnownKey | None:
        """One key of the subject, if first stated before `order`: reads that key alone."""
        if subject_id in self._loaded:
            return self.before(subject_id, order).get(key)
        if (subject_id, key) not in self._keys:
            members = {(b.key, b.member) for b in self._index.current(subject_id, key)}
            self._keys[subject_id, key] = self._first(subject_id, members).get(key)
        held = self._keys[subject_id, key]
        return self._with_pending(subject_id, {key: held} if held else {}, order).get(key)

    def _first(self, subject_id: str, members: set[tuple[str, str]]) -> dict[str, KnownKey]:
        known: dict[str, KnownKey] = {}
        for key, member in sorted(members):
            observations = self._index.observations(subject_id, key, member)
            if observations:
                _keep_first(known, _known(min(observations, key=lambda o: (o.order, o.event_id))))
        return known

    def _with_pending(self, subject_id: str, loaded: dict[str, KnownKey], order: str) -> dict[str, KnownKey]:
        known = dict(loaded)
        for obs in self._pending.get(subject_id, []):
            _keep_first(known, _known(obs))
        return {key: k for key, k in known.items() if k.first_order < order}


def _known(obs: Observation) -> KnownKey:
    cardinality = Cardinality.SET if obs.member else Cardinality.SINGLE
    return KnownKey(obs.key, cardinality, obs.order, obs.text)


def _keep_first(known: dict[str, KnownKey], candidate: KnownKey) -> None:
    held = known.get(candidate.key)
    if held is None or candidate.first_order < held.first_order:
        known[candidate.key] = candidate


class KeyResolver:
    def __init__(self, llm: LLM, embedder: Embedder, fact_types: FactTypeCatalog) -> None:
        self._llm = llm
        self._embedder = embedder
        self._fact_types = fact_types
        self._vectors: dict[str, tuple[float, ...]] = {}

    def resolve(
        self, fact: FactInput, subject_id: str, order: str, book: KeyBook, *, explicit: bool
    ) -> Resolution | None:
        """The key and cardinality `fact` is stored under, or None when the tenant refuses it.
        An explicit fact keeps its key: the agent chose it."""
        declared = self._fact_types.declared_type(fact.key)
        if declared is not None:
            return Resolution(declared.key, declared.cardinality)
        if explicit:
            return self._explicit(fact, book.key_before(subject_id, fact.key, order))
        known = book.before(subject_id, order)
        proposed = fact if isinstance(fact, ExtractedFact) else ExtractedFact(**fact.model_dump())
        if fact.key in known:
            return Resolution(
                fact.key, known[fact.key].cardinality, fact.key, "the subject already has this key"
            )
        proposal = KeyProposal(
            key=fact.key,
            description=proposed.description,
            text=fact.text,
            value=fact.value or fact.text,
            cardinality=proposed.cardinality,
        )
        shortlist = self.shortlist(proposal, self._candidates(known))
        choice = (
            self._llm.resolve_key(proposal, shortlist)
            if shortlist
            else KeyChoice(key=None, reason="no key to compare with")
        )
        chosen = next((c for c in shortlist if c.key == choice.key), None)
        if chosen is not None:
            return Resolution(chosen.key, chosen.cardinality, fact.key, choice.reason)
        if not self._fact_types.allow_undeclared:
            return None
        return Resolution(fact.key, proposed.cardinality, fact.key, choice.reason)

    def _explicit(self, fact: FactInput, known: KnownKey | None) -> Resolution | None:
        """An agent's own undeclared key, single-valued unless the subject has it as a set."""
        if known is not None:
            return Resolution(fact.key, known.cardinality)
        return Resolution(fact.key, Cardinality.SINGLE) if self._fact_types.allow_undeclared else None

    def _candidates(self, known: dict[str, KnownKey]) -> list[KeyCandidate]:
        candidates = [
            KeyCandidate(key=t.key, description=t.description, example="", cardinality=t.cardinality,
                         declared=True, score=0.0)
            for t in self._fact_types.declared()
        ]  # fmt: skip
        candidates += [
            KeyCandidate(key=k.key, description="", example=k.example, cardinality=k.cardinality,
                         declared=False, score=0.0)
            for k in sorted(known.values(), key=lambda k: k.key)
            if self._fact_types.declared_type(k.key) is None
        ]  # fmt: skip
        return candidates

    def shortlist(self, proposal: KeyProposal, candidates: Sequence[KeyCandidate]) -> list[KeyCandidate]:
        """The candidates at least MIN_SCORE alike by embedding, best first, at most SHORTLIST.
        A candidate scores the better of two readings against the proposal's: the key with its
        description, and that with its sentence. The sentence alone would rank every key the
        subject already has above every declared one, by the subject's name they all share
        (`home_city` found `children` five times before it found the declared `city`)."""
        if not candidates:
            return []
        mine = readings(proposal.key, proposal.description, proposal.text)
        theirs = [readings(c.key, c.description, c.example) for c in candidates]
        vectors = self._embed([*mine, *(text for pair in theirs for text in pair)])
        scored = [
            c.model_copy(update={"score": round(_alike(vectors[:2], vectors[2 + 2 * i : 4 + 2 * i]), 6)})
            for i, c in enumerate(candidates)
        ]
        scored.sort(key=lambda c: (-c.score, c.key))
        return [c for c in scored if c.score >= MIN_SCORE][:SHORTLIST]

    def _embed(self, texts: list[str]) -> list[tuple[float, ...]]:
        missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if missing:
            self._vectors.update(zip(missing, map(_unit, self._embedder.embed(missing)), strict=True))
        return [self._vectors[t] for t in texts]


def readings(key: str, description: str, sentence: str) -> tuple[str, str]:
    """What a key is embedded as: its words and description, then the same with its sentence."""
    named = " ".join(part for part in (f"{key.replace('_', ' ')}:", description) if part)
    return named, " ".join(part for part in (named, sentence) if part)


def _alike(mine: Sequence[tuple[float, ...]], theirs: Sequence[tuple[float, ...]]) -> float:
    """The better cosine of the two readings, each against its own kind."""
    return max(_cosine(mine[0], theirs[0]), _cosine(mine[1], theirs[1]))


def _unit(vector: Sequence[float]) -> tuple[float, ...]:
    """The vector scaled to length 1 once, when cached: a cosine is then one dot product (a
    subject with a thousand keys compares each new proposal with all of them)."""
    norm = math.sqrt(sum(map(operator.mul, vector, vector)))
    return tuple(x / norm for x in vector) if norm else tuple(0.0 for _ in vector)


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    return float(sum(map(operator.mul, a, b)))
