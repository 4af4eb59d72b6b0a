"""The LLM port with the requests in flight let go before each extraction (foreground.py): what
a background worker's projector extracts with. Its own module so that the server's request
counter (foreground.py) stays free of the semantic model's imports on a Lambda's cold start."""

from __future__ import annotations

from collections.abc import Sequence

from agentmem.model.beliefs import (
    Belief,
    FactInput,
    FactType,
    KeyCandidate,
    KeyChoice,
    KeyProposal,
    Observation,
    Verdict,
)
from agentmem.model.events import Event
from agentmem.ports.semantic import LLM
from agentmem.semantic.foreground import Foreground


class YieldingLLM:
    """An LLM whose extraction first lets the requests in flight go (`pause`): the projector
    calls it once an event, so a batch of hundreds never holds the interpreter through a read.
    Key resolution and verdicts are passed straight through: they come once per fact, after the
    extraction that found it."""

    def __init__(self, llm: LLM, foreground: Foreground) -> None:
        self._llm = llm
        self._foreground = foreground

    def extract_facts(
        self, event: Event, fact_types: Sequence[FactType], *, allow_undeclared: bool = False
    ) -> list[FactInput]:
        self._foreground.pause()
        return self._llm.extract_facts(event, fact_types, allow_undeclared=allow_undeclared)

    def resolve_key(self, proposal: KeyProposal, candidates: Sequence[KeyCandidate]) -> KeyChoice:
        return self._llm.resolve_key(proposal, candidates)

    def decide(self, current: Belief, candidate: Observation, fact_type: FactType) -> Verdict:
        return self._llm.decide(current, candidate, fact_type)
