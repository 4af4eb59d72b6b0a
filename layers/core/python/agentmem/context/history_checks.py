"""What the current beliefs say of a history passage: a value since replaced (the label), or
everything the passage says (then a shown belief stands for it)."""

from __future__ import annotations

from collections.abc import Sequence

from agentmem.context.text import words
from agentmem.model.beliefs import Belief, normalise_value
from agentmem.model.passages import Passage, StatedFact
from agentmem.ports.semantic import BeliefIndex
from agentmem.semantic.fold import sessions_of_last_run


class CurrentBeliefs:
    """The subject's current beliefs of the keys the passages stated, read once per key per read."""

    def __init__(self, index: BeliefIndex | None, subject_id: str) -> None:
        self._index = index
        self._subject = subject_id
        self._by_key: dict[str, list[Belief]] = {}

    def of(self, fact: StatedFact) -> Belief | None:
        if self._index is None:
            return None
        if fact.key not in self._by_key:
            self._by_key[fact.key] = self._index.current(self._subject, fact.key)
        return next((b for b in self._by_key[fact.key] if b.member == fact.member), None)


def superseded_label(belief: Belief) -> str:
    since = sessions_of_last_run(belief)
    return f"superseded: {belief.key} is {belief.value}" + (f" since {since[0]}" if since else "")


def check(passage: Passage, current: CurrentBeliefs, shown: set[str]) -> tuple[list[str], list[Belief]]:
    """(labels for values since replaced, shown beliefs that cite this passage's event for the
    value it states)."""
    labels: list[str] = []
    covering: list[Belief] = []
    for fact in passage.stated:
        belief = current.of(fact)
        if belief is None:
            continue
        if normalise_value(belief.value) != normalise_value(fact.value):
            labels.append(superseded_label(belief))
        elif belief.doc_id in shown and any(p.event_id == passage.event_id for p in belief.provenance):
            covering.append(belief)
    return list(dict.fromkeys(labels)), covering


def says_no_more(passage: Passage, covering: Sequence[Belief]) -> bool:
    """The beliefs say all the passage says: every fact it stated is covered, and it is not much
    longer than their sentences (a long passage says more than the fact it carries)."""
    if not covering or len({(b.key, b.member) for b in covering}) < len(passage.stated):
        return False
    return len(words(passage.text)) <= 2 * sum(len(words(b.text)) for b in covering)
