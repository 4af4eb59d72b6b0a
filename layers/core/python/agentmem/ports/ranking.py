"""Ports of the composer's optional model steps: a reranker, and an LLM that judges relevance and
ranks. Both are off unless configured; the composer then ranks by fused BM25 + vector alone."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

Document = tuple[str, str]
"""(asset id, short text)."""


class Reranker(Protocol):
    """Order candidate documents by relevance to a query. Bedrock Rerank on AWS; locally the
    reciprocal rank fusion of BM25 and vector ranks."""

    def rerank(self, query: str, documents: Sequence[tuple[str, str]]) -> list[tuple[str, float]]:
        """(id, score) for each (id, text), best first, ties by id."""
        ...


class RelevanceModel(Protocol):
    """Adapters: Bedrock Converse with a JSON schema. Ids a model returns that were not given are
    ignored, so an answer can only narrow or order what it was shown."""

    def relevant(self, question: str, documents: Sequence[Document]) -> list[str]:
        """Ids of the documents that help answer the question, in the order given."""
        ...

    def rank(self, question: str, documents: Sequence[Document]) -> list[str]:
        """Ids of the documents, most useful first."""
        ...
