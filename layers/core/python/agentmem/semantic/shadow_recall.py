"""Recall at fixed budgets of one belief generation on a labelled set: for each question, the
subject's current beliefs are ranked as `/v1/context` ranks them (vector and keyword, fused) and
packed alone under the budget; a question is answered when the belief under its key, holding its
labelled current value, is in the document at more than its identity line."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, TypeAdapter

from agentmem.context.semantic_candidates import semantic_candidates
from agentmem.packing.engine import Counter, pack
from agentmem.packing.model import Section
from agentmem.ports.embedding import Embedder
from agentmem.ports.semantic import BeliefIndex

RECALL_BUDGETS = (60, 120, 250)
"""Small on purpose: the beliefs of one subject fit in a few hundred tokens, so only budgets that
force a choice tell two generations' rankings apart."""
SECTIONS = [Section("semantic", "## Beliefs")]


class BeliefQuestion(BaseModel):
    """A question about a subject, labelled with the key and current value that answer it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    question_id: str
    subject_id: str
    question: str
    key: str
    value: str


QUESTIONS: TypeAdapter[BeliefQuestion] = TypeAdapter(BeliefQuestion)


def load_questions(lines: Sequence[str]) -> list[BeliefQuestion]:
    return [QUESTIONS.validate_json(line) for line in lines if line.strip()]


@dataclass(frozen=True)
class Recall:
    generation: int
    questions: int
    answered: dict[int, int]  # budget -> questions answered
    missed: dict[int, list[str]]  # budget -> question ids not answered

    def share(self, budget: int) -> float:
        return self.answered[budget] / self.questions if self.questions else 0.0


def answered(index: BeliefIndex, embedder: Embedder, question: BeliefQuestion, budget: int,
             count: Counter, encoding: str) -> bool:  # fmt: skip
    candidates, beliefs, *_ = semantic_candidates(index, embedder, question.subject_id, question.question)
    by_doc = {b.doc_id: b for b in beliefs}
    packed = pack(
        candidates, budget=budget, shares={"semantic": 1.0}, sections=SECTIONS,
        title="# Beliefs", count=count, encoding=encoding, policy="ranked_prefix",
    )  # fmt: skip
    wanted = question.value.casefold()
    for placed in packed.placed:
        belief = by_doc.get(str(placed.candidate.meta.get("doc_id")))
        if belief is None or placed.level_name == "identity" or belief.key != question.key:
            continue
        if wanted in belief.value.casefold():
            return True
    return False


def recall(index: BeliefIndex, embedder: Embedder, questions: Sequence[BeliefQuestion], *,
           count: Counter, encoding: str, budgets: Sequence[int] = RECALL_BUDGETS) -> Recall:  # fmt: skip
    """`embedder` must be the one `index` was built with: the query is searched in its vectors."""
    hits: dict[int, int] = {}
    missed: dict[int, list[str]] = {}
    for budget in budgets:
        misses = [
            q.question_id for q in questions if not answered(index, embedder, q, budget, count, encoding)
        ]
        hits[budget] = len(questions) - len(misses)
        missed[budget] = misses
    return Recall(index.generation, len(questions), hits, missed)
