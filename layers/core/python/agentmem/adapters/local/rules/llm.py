"""The LLM port without a model: deterministic rules that extract only what an event states, a
verdict that flags only contradictions, and a lexical decision for the key resolver.

docs/extraction-rules.md lists every shape read, every refusal, and the figures on the labelled
sets. In short: JSON objects give their declared keys; prose gives `key: value` lines of
declared keys and the generic declarative shapes of English about the subject ("my X is Z",
"Priya's X is Z", "I live in Z", "I like Z", "I have 2 Z", ...), under declared or new keys.
Nothing is inferred or estimated: every value is the event's own words."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Sequence

from pydantic import ValidationError

from agentmem.adapters.local.rules import changes, entity_facts, idioms, keys, possessive, shapes, verdict
from agentmem.adapters.local.rules.found import Context, Found
from agentmem.adapters.local.rules.sentences import is_question, mask_quotes, split, states
from agentmem.adapters.local.rules.standing import admitted
from agentmem.adapters.local.rules.verdict_lexicon import stem
from agentmem.adapters.local.rules.voice import names, passages
from agentmem.model.beliefs import (
    Belief,
    ExtractedFact,
    FactInput,
    FactType,
    KeyCandidate,
    KeyChoice,
    KeyProposal,
    Observation,
    Verdict,
)
from agentmem.model.beliefs import normalise_value as normalise
from agentmem.model.events import Event

logger = logging.getLogger(__name__)
MAX_VALUE_CHARS = 200


class RulesLLM:
    """Deterministic extraction, verdicts and key decisions; the local default."""

    def extract_facts(
        self, event: Event, fact_types: Sequence[FactType], *, allow_undeclared: bool = False
    ) -> list[FactInput]:
        # The rules propose undeclared keys either way: the key resolver maps a proposal onto a
        # declared key ("my home city" onto `city`) even when the tenant refuses new keys.
        del allow_undeclared
        declared = {t.key: t for t in fact_types}
        found: list[Found] = []
        if isinstance(event.content, dict):
            ctx = Context(event.subject_id, False, declared)
            for fact_type, raw in possessive.from_object(event.content, ctx):
                value = _clean(raw)
                if value:
                    noun = fact_type.key.replace("_", " ")
                    text = possessive.sentence_for(ctx.name, noun, value, fact_type.cardinality)
                    found.append(Found(0, fact_type.key, value, text, fact_type.cardinality))
        for passage in passages(event):
            ctx = Context(event.subject_id, passage.first_person, declared)
            before = ""  # the sentence before, when it stated nothing: a correction's first half
            for sentence in split(mask_quotes(passage.text)):
                if not is_question(sentence):
                    # An entity fact keeps the sentence it is rewritten to ("The CEO of Acme is
                    # now V."): its verdict reads the change marker there, not in the prose.
                    told = changes.told(
                        sentence, idioms.supersede(list(_statements(ctx, sentence, before))), before
                    )
                    about_entities = _declared(ctx, entity_facts.find(ctx, sentence, states))
                    ordered = sorted((*told, *about_entities), key=lambda f: f.start)
                    stated = [f for f in (admitted(f, sentence) for f in ordered) if f is not None]
                    found, before = found + stated, "" if stated else sentence
        return _facts(found, declared)

    def decide(self, current: Belief, candidate: Observation, fact_type: FactType) -> Verdict:
        ignore = frozenset(stem(w) for w in fact_type.key.split("_")) | {
            stem(n) for name in names(current.subject_id) for n in name.split()
        }
        if entity_facts.is_entity_key(fact_type.key, current.text, candidate.text):
            changed = entity_facts.changed(candidate.text)
            return verdict.decide_entity(current.value, candidate.value, changed=changed, ignore=ignore)
        return verdict.decide(
            current.value, candidate.value, new_text=candidate.text, old_text=current.text, ignore=ignore
        )

    def resolve_key(self, proposal: KeyProposal, candidates: Sequence[KeyCandidate]) -> KeyChoice:
        return keys.decide(proposal, candidates)


def _statements(ctx: Context, sentence: str, before: str) -> Iterator[Found]:
    for start, fact_type, raw in possessive.lines(ctx, sentence):
        value = _clean(raw)
        if value:
            noun = fact_type.key.replace("_", " ")
            text = possessive.sentence_for(ctx.name, noun, value, fact_type.cardinality)
            yield Found(start, fact_type.key, value, text, fact_type.cardinality)
    yield from possessive.find(ctx, sentence, states)
    yield from _declared(ctx, shapes.find(ctx, sentence, states))
    yield from _declared(ctx, idioms.find(ctx, sentence, states, before))


def _declared(ctx: Context, found: Iterable[Found]) -> Iterator[Found]:
    """Facts with the cardinality their key was declared with, where it was."""
    for fact in found:
        declared = ctx.declared.get(fact.key)
        yield Found(**{**fact.__dict__, "cardinality": declared.cardinality}) if declared else fact


def _facts(found: list[Found], declared: dict[str, FactType]) -> list[FactInput]:
    """Each statement once (the same key and value stated twice is one fact), in order; a fact
    under a key nobody declared carries its proposed cardinality and description."""
    facts: list[FactInput] = []
    seen: set[tuple[str, str]] = set()
    for f in found:
        value = _clean(f.value)
        identity = (f.key, normalise(value))
        if not value or not identity[1] or identity in seen:
            continue
        seen.add(identity)
        fields = {"key": f.key, "text": f.text, "value": value, "member": f.member}
        try:
            if f.key in declared and f.replaces is None:
                facts.append(FactInput(**fields))
            else:
                facts.append(
                    ExtractedFact(
                        **fields, cardinality=f.cardinality, description=f.description, replaces=f.replaces
                    )
                )
        except ValidationError:
            logger.warning("extracted fact out of bounds", extra={"key": f.key})
    return facts


def _clean(value: str) -> str:
    value = " ".join(value.split()).strip(" ,")
    return value[:MAX_VALUE_CHARS].rstrip()
