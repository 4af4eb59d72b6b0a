"""The Reranker contract. Every adapter's test class subclasses RerankerContract and provides
`reranker`. A model-backed one is asked its backend's questions by a scripted reranking model that
scores each (query, document) pair by the words they share (see test_rerankers.py).

What any reranker guarantees: each id given comes back exactly once (a repeated id keeps its first
text), with a float score, best first and ties by id; a document about the query ranks above one
that is not, however large the pool; blank texts are ranked, not refused; an empty pool asks
nothing; the same input gives the same order."""

from __future__ import annotations

import math

import pytest

from agentmem.ports.ranking import Reranker

QUERY = "net revenue by region"
DOCUMENTS = [
    ("payroll", "monthly payroll export for the finance team"),
    ("revenue", "net revenue per region and quarter"),
    ("refunds", "refund table: order id, amount, region"),
    ("holidays", "public holidays calendar"),
]


def assert_well_formed(ranked: list[tuple[str, float]], documents: list[tuple[str, str]]) -> None:
    assert sorted(doc_id for doc_id, _ in ranked) == sorted({doc_id for doc_id, _ in documents})
    assert all(isinstance(score, float) and math.isfinite(score) for _, score in ranked)
    assert ranked == sorted(ranked, key=lambda pair: (-pair[1], pair[0]))


class RerankerContract:
    @pytest.fixture
    def reranker(self) -> Reranker:
        raise NotImplementedError

    def test_each_id_comes_back_once_best_first_ties_by_id(self, reranker: Reranker) -> None:
        ranked = reranker.rerank(QUERY, DOCUMENTS)
        assert_well_formed(ranked, DOCUMENTS)

    def test_the_document_about_the_query_ranks_first(self, reranker: Reranker) -> None:
        ranked = reranker.rerank(QUERY, DOCUMENTS)
        assert ranked[0][0] == "revenue"
        assert ranked[0][1] > dict(ranked)["holidays"]

    def test_the_order_given_does_not_decide_the_ranking(self, reranker: Reranker) -> None:
        assert reranker.rerank(QUERY, DOCUMENTS[::-1]) == reranker.rerank(QUERY, DOCUMENTS)

    def test_a_repeated_id_comes_back_once_with_its_first_text(self, reranker: Reranker) -> None:
        documents = [*DOCUMENTS, ("holidays", "net revenue by region, restated")]
        ranked = reranker.rerank(QUERY, documents)
        assert_well_formed(ranked, documents)
        assert ranked[0][0] == "revenue"

    def test_blank_texts_are_ranked_not_refused(self, reranker: Reranker) -> None:
        documents = [*DOCUMENTS, ("blank", "   "), ("empty", "")]
        ranked = reranker.rerank(QUERY, documents)
        assert_well_formed(ranked, documents)
        assert ranked[0][0] == "revenue"
        assert_well_formed(reranker.rerank("  ", DOCUMENTS), DOCUMENTS)

    def test_an_empty_pool_gives_nothing(self, reranker: Reranker) -> None:
        assert reranker.rerank(QUERY, []) == []

    @pytest.mark.parametrize("size", [1, 1_500])
    def test_a_pool_of_any_size_is_ranked_as_one(self, reranker: Reranker, size: int) -> None:
        # Larger than one Bedrock Rerank call holds: the best document sits in the last batch.
        filler = [(f"d{i:04d}", f"calendar entry {i}") for i in range(size - 1)]
        documents = [*filler, ("revenue", "net revenue per region and quarter")]
        ranked = reranker.rerank(QUERY, documents)
        assert_well_formed(ranked, documents)
        assert ranked[0][0] == "revenue"

    def test_the_same_input_gives_the_same_ranking(self, reranker: Reranker) -> None:
        assert reranker.rerank(QUERY, DOCUMENTS) == reranker.rerank(QUERY, DOCUMENTS)
