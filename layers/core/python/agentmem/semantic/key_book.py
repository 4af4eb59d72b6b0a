"""The keys each subject had at each point of the log: what the key resolver compares a proposal
with. Read from the index once per subject (or once per key, for an agent's explicit facts), then
kept current with the batch's own observations, which the index does not hold yet."""

from __future__ import annotations

from dataclasses import dataclass

from agentmem.model.beliefs import Cardinality, Observation
from agentmem.ports.semantic import BeliefIndex


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
        return self._with_pending(subject_id, self.held(subject_id), order)

    def held(self, subject_id: str) -> dict[str, KnownKey]:
        """The subject's keys in the index, whenever first stated (the batch's own not included)."""
        if subject_id not in self._loaded:
            members = {(b.key, b.member) for b in self._index.current(subject_id)}
            self._loaded[subject_id] = self._first(subject_id, members)
        return self._loaded[subject_id]

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
