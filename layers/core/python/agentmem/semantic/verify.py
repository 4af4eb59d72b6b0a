"""Reconciliation: does the semantic tier still say what the log says?

The belief tier is a projection of the log, so it can drift only through a defect (a lost
update, a collision, a corrupted store). These checks compare the two and report every
difference; they never repair anything (`agentmem replay` does that, from the log):
- every fact an event states, and the projector has passed, is in its key's chain (`missing`),
  with the value the event stated (`mismatch`);
- every event a belief cites exists in the log (`phantom`), for the same subject, session and
  seq the belief records (`miscited`).

The facts an event states are its explicit `facts`, or what extraction makes of it when the
extractor is deterministic (the local rules); with a model behind it, events without explicit
facts are counted as unchecked, since a second extraction might not give the first one's facts.

`verify` reads the whole log (`agentmem verify`); `sample` checks a bounded sample of chains
through the EventLog port, on either backend (the deep health check)."""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal

from agentmem.model.beliefs import Belief, FactInput, Provenance, normalise_value
from agentmem.model.events import Event
from agentmem.ports.log import EventLog, LogTail
from agentmem.ports.semantic import BeliefIndex
from agentmem.semantic.event_observations import observation_of
from agentmem.semantic.fact_types import FactTypeCatalog

Extract = Callable[[Event], Sequence[FactInput]]
Identity = tuple[str, str, str]  # (subject, key, member): one chain
Kind = Literal["missing", "mismatch", "phantom", "miscited"]
PAGE = 500


@dataclass(frozen=True)
class Divergence:
    kind: Kind
    subject_id: str
    key: str
    member: str
    event_id: str
    detail: str


@dataclass
class Report:
    generation: int
    chains_checked: int = 0
    citations_checked: int = 0
    events_checked: int = 0
    facts_checked: int = 0
    unchecked_events: int = 0  # no explicit facts, and extraction is not deterministic
    unprojected_events: int = 0  # past the projector's checkpoint: not compared
    divergences: list[Divergence] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.divergences


class _Chains:
    """Belief chains by identity, with every statement each one records, keyed by event id."""

    def __init__(self) -> None:
        self.statements: dict[Identity, dict[str, Provenance]] = {}

    def add(self, chain: Sequence[Belief]) -> None:
        if chain:
            head = chain[-1]
            found = self.statements.setdefault((head.subject_id, head.key, head.member), {})
            for belief in chain:
                found.update((p.event_id, p) for p in belief.provenance)

    def recorded_under_another_key(self, subject_id: str, event_id: str, value: str) -> bool:
        """Whether a loaded chain of the subject records `event_id` stating `value`: where the key
        resolver mapped an extracted key onto one the subject already had (`home_city` onto
        `city`), the statement lives under the resolved key, not the proposed one."""
        wanted = normalise_value(value)
        return any(
            where[0] == subject_id
            and event_id in recorded
            and normalise_value(recorded[event_id].value) == wanted
            for where, recorded in self.statements.items()
        )


def stated_facts(event: Event, extract: Extract | None) -> Sequence[FactInput] | None:
    """What the projector folds from `event`, as it chooses: explicit facts win, else extraction.
    None when that cannot be reproduced here."""
    if event.facts:
        return event.facts
    return extract(event) if extract is not None else None


def _check_event(
    event: Event,
    chains: Callable[[Identity], dict[str, Provenance] | None],
    loaded: _Chains,
    fact_types: FactTypeCatalog,
    extract: Extract | None,
    report: Report,
) -> None:
    facts = stated_facts(event, extract)
    if facts is None:
        report.unchecked_events += 1
        return
    report.events_checked += 1
    for fact in facts:
        obs = observation_of(event, fact, fact_types)
        if obs is None:
            continue  # a key the tenant refuses is never projected
        report.facts_checked += 1
        where = (obs.subject_id, obs.key, obs.member)
        recorded = chains(where)
        said = f"event {event.session_id} #{event.seq} stated {obs.value!r}"
        if recorded is not None and obs.event_id in recorded:
            if normalise_value(recorded[obs.event_id].value) != normalise_value(obs.value):
                detail = f"{said}; the chain records {recorded[obs.event_id].value!r}"
                report.divergences.append(Divergence("mismatch", *where, obs.event_id, detail))
            continue
        resolvable = not event.facts and fact_types.declared_type(fact.key) is None
        if resolvable and loaded.recorded_under_another_key(obs.subject_id, obs.event_id, obs.value):
            continue
        detail = f"{said}; {'no chain holds the key' if recorded is None else 'its chain never recorded it'}"
        report.divergences.append(Divergence("missing", *where, obs.event_id, detail))


def _check_citation(where: Identity, cited: Provenance, event: Event | None, report: Report) -> None:
    """`event`: what the log holds under the cited event id (full scan) or at the cited session
    and seq (a sample), None when nothing."""
    report.citations_checked += 1
    at = f"{cited.session_id} #{cited.seq}"
    if event is None or event.event_id != cited.event_id:
        held = f"; the log holds {event.event_id} there" if event is not None else ""
        detail = f"cites event {cited.event_id} ({at}), which is not in the log{held}"
        report.divergences.append(Divergence("phantom", *where, cited.event_id, detail))
    elif (event.subject_id, event.session_id, event.seq) != (where[0], cited.session_id, cited.seq):
        found = f"subject {event.subject_id}, {event.session_id} #{event.seq}"
        detail = f"cites {at}; the log has that event as {found}"
        report.divergences.append(Divergence("miscited", *where, cited.event_id, detail))


def chains_of(index: BeliefIndex, subjects: Collection[str]) -> Iterator[list[Belief]]:
    """Every chain of `subjects`, one list (all versions) per (key, member)."""
    for subject in subjects:
        for key in dict.fromkeys(b.key for b in index.current(subject)):
            by_member: dict[str, list[Belief]] = {}
            for belief in index.history(subject, key):
                by_member.setdefault(belief.member, []).append(belief)
            yield from by_member.values()


def verify(
    index: BeliefIndex,
    tail: LogTail,
    *,
    watermark: int,
    fact_types: FactTypeCatalog,
    extract: Extract | None,
    skip_subjects: Collection[str] = (),
) -> Report:
    """Compare the whole log with generation `index`. `watermark` is the log position the
    projector had reached (its checkpoint) when the caller read it, before this call: facts of
    later events are not compared. The chains are read before the log, so every event they cite
    was already in the log when it is read."""
    report = Report(index.generation)
    chains = _Chains()
    for chain in chains_of(index, [s for s in index.subjects() if s not in skip_subjects]):
        chains.add(chain)
        report.chains_checked += 1
    citations: dict[str, list[tuple[Identity, Provenance]]] = {}
    for where, recorded in chains.statements.items():
        for cited in recorded.values():
            citations.setdefault(cited.event_id, []).append((where, cited))
    found: dict[str, Event] = {}
    position = 0
    while batch := tail.read_since(position, PAGE):
        for at, event in batch:
            if event.event_id in citations:
                found[event.event_id] = event
            if event.subject_id in skip_subjects:
                continue
            if at <= watermark:
                _check_event(event, chains.statements.get, chains, fact_types, extract, report)
            else:
                report.unprojected_events += 1
        position = batch[-1][0]
    for event_id, uses in citations.items():
        for where, cited in uses:
            _check_citation(where, cited, found.get(event_id), report)
    return report


MAX_SAMPLE_SUBJECTS = 20
MAX_SAMPLE_CITATIONS = 50


def sample(
    index: BeliefIndex,
    log: EventLog,
    *,
    fact_types: FactTypeCatalog,
    extract: Extract | None,
    skip_subjects: Collection[str] = (),
    rng: random.Random | None = None,
    max_subjects: int = MAX_SAMPLE_SUBJECTS,
    max_citations: int = MAX_SAMPLE_CITATIONS,
) -> Report:
    """A bounded check for health probes: up to `max_citations` statements cited by the chains
    of up to `max_subjects` subjects (a random sample), each looked up in the log; every fact
    each cited event states must then be in its chain. An event the projector applied at all
    has had all its facts applied, so projection lag cannot raise a false alarm here."""
    pick = rng or random.Random()  # noqa: S311 - a sample, not a secret
    report = Report(index.generation)
    subjects = [s for s in index.subjects() if s not in skip_subjects]
    chosen = pick.sample(subjects, min(len(subjects), max_subjects))
    chains = _Chains()
    checked: set[str] = set()
    for chain in chains_of(index, sorted(chosen)):
        if report.citations_checked >= max_citations:
            break
        chains.add(chain)
        report.chains_checked += 1
        head = chain[-1]
        where = (head.subject_id, head.key, head.member)
        for cited in list(chains.statements[where].values())[: max_citations - report.citations_checked]:
            found = log.list_events(cited.session_id, after=cited.seq - 1, limit=1)
            event = found[0] if found and found[0].seq == cited.seq else None
            _check_citation(where, cited, event, report)
            if event is not None and event.event_id == cited.event_id and event.event_id not in checked:
                checked.add(event.event_id)
                _check_event(
                    event, lambda w: _chain_statements(index, chains, w), chains, fact_types, extract, report
                )
    return report


def _chain_statements(index: BeliefIndex, chains: _Chains, where: Identity) -> dict[str, Provenance] | None:
    if where not in chains.statements:
        _, chain = index.chain(*where)
        if not chain:
            return None
        chains.add(chain)
    return chains.statements[where]
