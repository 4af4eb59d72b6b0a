"""The review duty of the LLM port on Bedrock: Converse with a JSON schema for the answer, at
temperature 0, through the same client and call path as fact extraction (`BedrockLLM.answer`).
The rules, prompt and grounding checks are shared (`agentmem.adapters.llm_prompts.review`): an
implementation that is not text of a reviewed event is refused."""

from __future__ import annotations

from collections.abc import Sequence

from agentmem.adapters.aws.bedrock_llm import BedrockLLM
from agentmem.adapters.llm_prompts import review
from agentmem.model.events import Event
from agentmem.procedural.model import Proposals


class BedrockSkillReviewer:
    def __init__(self, llm: BedrockLLM) -> None:
        self._llm = llm

    def prompt(self, events: Sequence[Event]) -> str | None:
        """The user message: the reviewed events, oldest first, within the prompt's limit."""
        return review.review_prompt(events)

    def propose_skills(self, events: Sequence[Event]) -> Proposals:
        return review.propose_skills(self._llm.answer, events)
