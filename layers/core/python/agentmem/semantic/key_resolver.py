"""Key resolution: map a key extraction proposes onto a key the subject already has, when the two
mean the same thing (`home_city` onto `city`).

Declared keys win: a proposal under a declared key keeps it, with the declared cardinality. For
any other proposal the candidates are the declared keys and the keys the subject already had
before this event in log order; they are shortlisted by embedding (the key's words and
description, alone and with its first sentence, against the proposal's words, alone and with
its sentence) and the LLM port decides. Without a match the proposal keeps its own key and the
cardinality the extractor proposed, unless the tenant refuses undeclared keys.

Replay: a resolution reads only the log prefix. "Before this event" is the observations' own
order (`created_at|session|seq`), never the index's arrival order, and a batch sees its own
earlier observations exactly as one-by-one projection would. The embedder and the LLM port's
decision are deterministic (the rules are; Bedrock runs at temperature 0)."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from agentmem.model.beliefs import (
    Cardinality,
    ExtractedFact,
    FactInput,
    KeyCandidate,
    KeyChoice,
    KeyProposal,
)
from agentmem.ports.embedding import Embedder
from agentmem.ports.semantic import LLM
from agentmem.ports.vectors import VectorCache
from agentmem.semantic.fact_types import FactTypeCatalog
from agentmem.semantic.index_embeddings import TENANT, IndexEmbeddings, Said
from agentmem.semantic.key_book import KeyBook, KnownKey
from agentmem.semantic.key_vectors import KeyVectors, Vector, cosine

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
class Stated:
    """A fact of a batch before its key is resolved: what `KeyResolver.prepare` reads."""

    fact: FactInput
    subject_id: str
    order: str
    explicit: bool


class KeyResolver:
    def __init__(
        self, llm: LLM, embedder: Embedder, fact_types: FactTypeCatalog, cache: VectorCache | None = None
    ) -> None:
        self._llm = llm
        self._fact_types = fact_types
        self._vectors = KeyVectors(IndexEmbeddings(embedder, cache))

    def prepare(self, batch: Sequence[Stated], book: KeyBook) -> None:
        """Embed, in one call, every text that resolving `batch` in order may compare: each
        proposal's readings, the declared keys', the subject's keys' and those of the keys the
        batch's own earlier facts may add. A superset (a proposal may turn out to be a key the
        subject has), and it changes no decision: a text it missed is embedded when asked."""
        self._vectors.trim()
        undeclared = [s for s in batch if self._fact_types.declared_type(s.fact.key) is None]
        last_proposal = {s.subject_id: i for i, s in enumerate(undeclared) if not s.explicit}
        declared = self._fact_types.declared()
        said: list[Said] = []
        for subject_id in last_proposal:
            said += _owned(
                subject_id, _flat(readings(k.key, "", k.example) for k in book.held(subject_id).values())
            )
        seen: set[str] = set()  # subjects with an undeclared fact earlier in the batch
        for i, stated in enumerate(undeclared):
            subject_id, fact = stated.subject_id, stated.fact
            held = book.held(subject_id) if subject_id in last_proposal else {}
            if not stated.explicit and fact.key not in held and (declared or held or subject_id in seen):
                proposal = _proposal(fact)
                said += _owned(subject_id, readings(proposal.key, "", proposal.text))
            if i < last_proposal.get(subject_id, -1) and fact.key not in held:
                # A key a later proposal may be compared with.
                said += _owned(subject_id, readings(fact.key, "", fact.text))
            seen.add(subject_id)
        if said:
            tenant = _owned(TENANT, _flat(readings(t.key, t.description, "") for t in declared))
            self._vectors.embed([*tenant, *said])

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
        if fact.key in known:
            return Resolution(
                fact.key, known[fact.key].cardinality, fact.key, "the subject already has this key"
            )
        proposal = _proposal(fact)
        shortlist = self.shortlist(proposal, self._candidates(known), subject_id)
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
        return Resolution(fact.key, proposal.cardinality, fact.key, choice.reason)

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

    def shortlist(
        self, proposal: KeyProposal, candidates: Sequence[KeyCandidate], subject_id: str | None = None
    ) -> list[KeyCandidate]:
        """The candidates at least MIN_SCORE alike by embedding, best first, at most SHORTLIST.
        A candidate scores the better of two readings against the proposal's: the key with its
        description, and that with its sentence. The sentence alone would rank every key the
        subject already has above every declared one, by the subject's name they all share
        (`home_city` found `children` five times before it found the declared `city`). The
        proposal is read without its description (which still goes to the decision): so it is
        embedded exactly as the key it may become will be, once for both. A text not prepared is
        embedded as `subject_id`'s words (kept in the vector cache only when given)."""
        if not candidates:
            return []
        mine = readings(proposal.key, "", proposal.text)
        theirs = [readings(c.key, c.description, c.example) for c in candidates]
        vectors = self._vectors.of([*mine, *_flat(theirs)], subject_id)
        scores = [
            round(_alike(vectors[:2], vectors[2 + 2 * i : 4 + 2 * i]), 6) for i in range(len(candidates))
        ]
        best = sorted(
            (i for i, score in enumerate(scores) if score >= MIN_SCORE),
            key=lambda i: (-scores[i], candidates[i].key),
        )[:SHORTLIST]
        # Copied only once chosen: a subject with a thousand keys scores them all for each proposal.
        return [candidates[i].model_copy(update={"score": scores[i]}) for i in best]


def _proposal(fact: FactInput) -> KeyProposal:
    proposed = fact if isinstance(fact, ExtractedFact) else ExtractedFact(**fact.model_dump())
    return KeyProposal(
        key=fact.key,
        description=proposed.description,
        text=fact.text,
        value=fact.value or fact.text,
        cardinality=proposed.cardinality,
    )


def readings(key: str, description: str, sentence: str) -> tuple[str, str]:
    """What a key is embedded as: its words and description, then the same with its sentence."""
    named = " ".join(part for part in (f"{key.replace('_', ' ')}:", description) if part)
    return named, " ".join(part for part in (named, sentence) if part)


def _flat(pairs: Iterable[tuple[str, str]]) -> Iterator[str]:
    return (text for pair in pairs for text in pair)


def _owned(owner: str, texts: Iterable[str]) -> list[Said]:
    return [(owner, text) for text in texts]


def _alike(mine: Sequence[Vector], theirs: Sequence[Vector]) -> float:
    """The better cosine of the two readings, each against its own kind."""
    return max(cosine(mine[0], theirs[0]), cosine(mine[1], theirs[1]))
