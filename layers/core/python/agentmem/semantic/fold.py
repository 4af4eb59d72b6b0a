"""Beliefs as a fold over observations. `step` applies one statement to a key's version chain;
`fold` replays them all in log order. Both are pure, so a replay equals incremental projection."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from agentmem.model.beliefs import (
    Belief,
    Observation,
    PriorValue,
    Provenance,
    Verdict,
    archived_id,
    belief_id,
    normalise_value,
)

Decide = Callable[[Belief, Observation], Verdict]


def provenance_of(obs: Observation) -> Provenance:
    return Provenance(
        session_id=obs.session_id, event_id=obs.event_id, seq=obs.seq, value=obs.value, replaces=obs.replaces
    )


def sessions_of_last_run(belief: Belief) -> list[str]:
    """Sessions that stated `belief`'s value since it last became current, in statement order;
    provenance spans every version, and a value held twice must not merge its two periods."""
    run: list[str] = []
    for p in reversed(belief.provenance):
        if normalise_value(p.value) != normalise_value(belief.value):
            break
        run.append(p.session_id)
    return list(dict.fromkeys(reversed(run)))


def last_stated(belief: Belief) -> str:
    """When the belief was last stated: the created_at of the last event applied to it (a SAME
    restatement counts), from its `source_order`."""
    return belief.source_order.split("|", 1)[0]


def applied(chain: list[Belief], obs: Observation) -> bool:
    """True when `obs` already shaped this chain: a redelivered event changes nothing."""
    return bool(chain) and any(p.event_id == obs.event_id for p in chain[-1].provenance)


def step(chain: list[Belief], obs: Observation, decide: Decide) -> tuple[list[Belief], Verdict]:
    """Apply one observation, newer than everything in `chain`, to the chain of one key (or member)."""
    base_id = belief_id(obs.key, obs.member)
    if not chain:
        first = Belief(
            subject_id=obs.subject_id,
            key=obs.key,
            member=obs.member,
            doc_id=base_id,
            text=obs.text,
            value=obs.value,
            version=1,
            current=True,
            flag=False,
            verdict=Verdict.NEW,
            provenance=[provenance_of(obs)],
            valid_from=obs.stated_at,
            source_seq=obs.seq,
            source_order=obs.order,
        )
        return [first], Verdict.NEW
    if applied(chain, obs):
        return chain, Verdict.SAME
    current = chain[-1]
    verdict = decide(current, obs)
    provenance = [*current.provenance, provenance_of(obs)]
    if verdict is Verdict.SAME:
        restated = current.model_copy(
            update={"provenance": provenance, "source_seq": obs.seq, "source_order": obs.order}
        )
        return [*chain[:-1], restated], verdict
    # The current version carries the key's whole provenance; an archived one keeps only the
    # statements of its own value, or every version would copy every earlier one.
    own = [p for p in current.provenance if normalise_value(p.value) == normalise_value(current.value)]
    archived = current.model_copy(
        update={
            "current": False,
            "doc_id": archived_id(obs.key, obs.member, current.version),
            "valid_to": obs.stated_at,
            "provenance": own or current.provenance,
        }
    )
    replaced = PriorValue(
        value=current.value,
        text=current.text,
        session_ids=sessions_of_last_run(current),
        until=obs.stated_at,
    )
    successor = Belief(
        subject_id=obs.subject_id,
        key=obs.key,
        member=obs.member,
        doc_id=base_id,
        text=obs.text,
        value=obs.value,
        version=current.version + 1,
        current=True,
        flag=verdict is Verdict.CONFLICT,
        verdict=verdict,
        previous=replaced,
        provenance=provenance,
        valid_from=obs.stated_at,
        source_seq=obs.seq,
        source_order=obs.order,
    )
    return [*chain[:-1], archived, successor], verdict


def fold(observations: Iterable[Observation], decide: Decide) -> list[Belief]:
    """The whole chain from every observation of one key, applied in log order."""
    chain: list[Belief] = []
    for obs in sorted(observations, key=lambda o: (o.order, o.event_id)):
        chain, _ = step(chain, obs, decide)
    return chain


def is_newest(chain: list[Belief], obs: Observation) -> bool:
    """Whether `obs` comes after everything the chain has applied (the incremental fast path)."""
    return not chain or (obs.order, obs.event_id) > (
        chain[-1].source_order,
        chain[-1].provenance[-1].event_id,
    )
