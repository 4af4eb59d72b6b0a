"""An event's fact as the observation the projector folds: its place in the log's total order
(`order_key`) and its key, member and value (`observation_of`).

It stands apart from the projector because more than the projector must key and order facts
exactly as projection does: verification re-keys stated facts, replay and the `since` read order
events by the same key, and none of them needs the projector's folding machinery."""

from __future__ import annotations

from agentmem.model.beliefs import Cardinality, ExtractedFact, FactInput, Observation, member_id
from agentmem.model.events import Event
from agentmem.semantic.fact_types import FactTypeCatalog
from agentmem.semantic.key_resolver import Resolution


def order_key(event: Event) -> str:
    """A total order over the whole log: time first, then session and seq to break ties."""
    return f"{event.created_at}|{event.session_id}|{event.seq:012d}"


def observation_of(
    event: Event, fact: FactInput, fact_types: FactTypeCatalog, resolution: Resolution | None = None
) -> Observation | None:
    """The statement `fact` makes as `event` states it, keyed as the projector folds it: under
    `resolution` (the key resolver's choice) when given, else under its own key; None for a key
    the tenant refuses. Shared with verification, which must key facts the same way."""
    if resolution is None:
        fact_type = fact_types.get(fact.key)
        if fact_type is None:
            return None
        resolution = Resolution(fact.key, fact_type.cardinality)
    value = fact.value or fact.text
    member = ""
    if resolution.cardinality is Cardinality.SET:
        member = fact.member or member_id(value)
    return Observation(
        subject_id=event.subject_id,
        key=resolution.key,
        member=member,
        text=fact.text,
        value=value,
        order=order_key(event),
        event_id=event.event_id,
        session_id=event.session_id,
        seq=event.seq,
        stated_at=event.created_at,
        proposed_key=resolution.proposed_key,
        key_reason=resolution.reason,
        replaces=fact.replaces if isinstance(fact, ExtractedFact) else None,
    )
