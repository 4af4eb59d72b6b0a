"""The composer's optional LLM steps on Bedrock: a relevance filter and a ranker, through the same
Converse call path as fact extraction (`BedrockLLM.answer`: JSON schema, temperature 0, seed where
the model takes one). The rules, prompt and checks are shared
(`agentmem.adapters.llm_prompts.relevance`): the answer can only narrow or order the ids it was
shown."""

from __future__ import annotations

from collections.abc import Sequence

from agentmem.adapters.aws.bedrock_llm import BedrockLLM
from agentmem.adapters.llm_prompts import relevance


class BedrockRelevance:
    def __init__(self, llm: BedrockLLM) -> None:
        self._llm = llm

    def relevant(self, question: str, documents: Sequence[tuple[str, str]]) -> list[str]:
        return relevance.relevant(self._llm.answer, question, documents)

    def rank(self, question: str, documents: Sequence[tuple[str, str]]) -> list[str]:
        return relevance.rank(self._llm.answer, question, documents)
