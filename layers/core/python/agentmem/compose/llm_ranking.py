"""The LLM port's part in composing, both optional: a relevance filter for pools of hundreds, and
an LLM ranker. Documents go to the model in chunks of at most CHUNK_TOKENS; the ranker reads the
pool in two independent views (the fused order, and the same chunks reversed, so no document is
judged only from one position in the prompt) and the two rankings are fused with RRF at k=60.
Calls run at temperature 0 with a fixed seed where the model accepts one."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from agentmem.packing.fusion import RRF_K, reciprocal_rank_fusion
from agentmem.ports.ranking import Document, RelevanceModel

CHUNK_TOKENS = 15_000


def chunks(
    documents: Sequence[Document], count: Callable[[str], int], limit: int = CHUNK_TOKENS
) -> list[list[Document]]:
    """Consecutive runs of documents whose texts total at most `limit` tokens (one oversized
    document makes a chunk of its own)."""
    out: list[list[Document]] = []
    current: list[Document] = []
    used = 0
    for doc in documents:
        cost = count(doc[1])
        if current and used + cost > limit:
            out.append(current)
            current, used = [], 0
        current.append(doc)
        used += cost
    return [*out, current] if current else out


def llm_filter(
    model: RelevanceModel, question: str, documents: Sequence[Document], count: Callable[[str], int]
) -> list[str]:
    given = {i for i, _ in documents}
    kept: list[str] = []
    for chunk in chunks(documents, count):
        kept += [i for i in model.relevant(question, chunk) if i in given]
    return list(dict.fromkeys(kept))


def llm_rank(
    model: RelevanceModel, question: str, documents: Sequence[Document], count: Callable[[str], int]
) -> list[str]:
    given = {i for i, _ in documents}
    views: dict[str, list[str]] = {}
    for name, ordered in (("forward", list(documents)), ("reversed", list(reversed(documents)))):
        ranked: list[str] = []
        for chunk in chunks(ordered, count):
            ranked += [i for i in model.rank(question, chunk) if i in given]
        views[name] = list(dict.fromkeys(ranked))
    return [key for key, _, _ in reciprocal_rank_fusion(views, k=RRF_K)]
