"""The key resolver's question: which candidate key, if any, means the proposed key.

The schema stays constant (the candidates travel in the prompt, not in an enum), so a server
that compiles a grammar per schema keeps one. The answer is checked here: a key that is not among
the candidates is read as "none of them"."""

from __future__ import annotations

import json
from collections.abc import Sequence

from pydantic import BaseModel, Field

from agentmem.adapters.llm_prompts.answers import Ask, OutputTool, parse
from agentmem.model.beliefs import KeyCandidate, KeyChoice, KeyProposal

KEY_RULES = (
    "You decide whether a fact key proposed by extraction means the same thing as one of a "
    "subject's existing fact keys, so that both are stored as one fact.\n"
    "Answer with the existing key only when a value stated under the proposed key is a value of "
    "the existing key (home_city and city: yes; hometown and city: no; monthly_income and income: "
    "no, a different quantity). Otherwise answer an empty key. Give a one-sentence reason first."
)


class KeyAnswer(BaseModel):
    reason: str = Field(description="One short sentence.")
    key: str = Field(description="One of the candidate keys, or empty for none.")


KEY_TOOL = OutputTool(
    "record_key", "Record which existing key the proposed key means.", KeyAnswer, 300, KEY_RULES
)


def resolve_key(ask: Ask, proposal: KeyProposal, candidates: Sequence[KeyCandidate]) -> KeyChoice:
    answer = parse(KeyAnswer, ask("resolve key", key_prompt(proposal, candidates), KEY_TOOL))
    return key_choice(answer, candidates)


def key_prompt(proposal: KeyProposal, candidates: Sequence[KeyCandidate]) -> str:
    lines = "\n".join(
        f"- {c.key} ({c.cardinality.value}-valued{', declared' if c.declared else ''})"
        + (f": {c.description}" if c.description else "")
        + (f" e.g. {json.dumps(c.example, ensure_ascii=False)}" if c.example else "")
        for c in candidates
    )
    return (
        f"Proposed key: {proposal.key} ({proposal.cardinality.value}-valued)"
        + (f": {proposal.description}" if proposal.description else "")
        + f"\nStated as: {json.dumps(proposal.text, ensure_ascii=False)}\nExisting keys:\n{lines}"
    )


def key_choice(answer: KeyAnswer, candidates: Sequence[KeyCandidate]) -> KeyChoice:
    key = answer.key.strip()
    if key and key in {c.key for c in candidates}:
        return KeyChoice(key=key, reason=answer.reason)
    return KeyChoice(key=None, reason=answer.reason)
