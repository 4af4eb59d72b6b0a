"""The LLM port's other duties on an OpenAI-compatible server: reviewing a session into skill
proposals, and the composer's relevance filter and ranker. Both go through the chat adapter's
call path (`OpenAICompatLLM.answer`: temperature 0, seed, JSON schema or the tool fallback) with
the rules, prompts and checks the Bedrock adapters share (`agentmem.adapters.llm_prompts`)."""

from __future__ import annotations

from collections.abc import Sequence

from agentmem.adapters.llm_prompts import relevance, review
from agentmem.adapters.openai_compat.chat import OpenAICompatLLM
from agentmem.model.events import Event
from agentmem.procedural.model import Proposals


class OpenAICompatSkillReviewer:
    def __init__(self, llm: OpenAICompatLLM) -> None:
        self._llm = llm

    def propose_skills(self, events: Sequence[Event]) -> Proposals:
        return review.propose_skills(self._llm.answer, events)


class OpenAICompatRelevance:
    def __init__(self, llm: OpenAICompatLLM) -> None:
        self._llm = llm

    def relevant(self, question: str, documents: Sequence[tuple[str, str]]) -> list[str]:
        return relevance.relevant(self._llm.answer, question, documents)

    def rank(self, question: str, documents: Sequence[tuple[str, str]]) -> list[str]:
        return relevance.rank(self._llm.answer, question, documents)
