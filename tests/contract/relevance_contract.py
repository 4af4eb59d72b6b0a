"""The RelevanceModel contract (the composer's optional LLM steps). Every adapter's test class
subclasses RelevanceContract and provides `model`; a model-backed one answers from recorded
answers that name ids it was never shown, repeat ids and leave ids out (see test_relevance.py).

What any relevance model guarantees: `relevant` names only ids it was shown, each once, in the
order shown; `rank` orders every id shown exactly once; an empty pool asks nothing; the same input
gives the same answer."""

from __future__ import annotations

import pytest

from agentmem.compose.llm_ranking import RelevanceModel

QUESTION = "How is net revenue defined, and which table holds refunds?"
DOCUMENTS = [
    ("payroll", "monthly payroll export"),
    ("revenue", "net revenue: gross sales minus refunds and discounts"),
    ("holidays", "public holidays calendar"),
    ("refunds", "refund table: order id, amount, reason"),
]
IDS = [doc_id for doc_id, _ in DOCUMENTS]


class RelevanceContract:
    @pytest.fixture
    def model(self) -> RelevanceModel:
        raise NotImplementedError

    def test_relevant_names_the_helpful_documents_in_the_order_shown(self, model: RelevanceModel) -> None:
        assert model.relevant(QUESTION, DOCUMENTS) == ["revenue", "refunds"]

    def test_relevant_only_narrows_what_it_was_shown(self, model: RelevanceModel) -> None:
        kept = model.relevant(QUESTION, DOCUMENTS)
        assert len(kept) == len(set(kept))
        assert kept == [doc_id for doc_id in IDS if doc_id in kept]

    def test_rank_orders_every_document_exactly_once(self, model: RelevanceModel) -> None:
        ranked = model.rank(QUESTION, DOCUMENTS)
        assert sorted(ranked) == sorted(IDS)
        assert ranked[:2] == ["revenue", "refunds"]

    def test_an_empty_pool_gives_nothing(self, model: RelevanceModel) -> None:
        # A model-backed adapter must not even ask: its recorder fails on any prompt it did not expect.
        assert model.relevant(QUESTION, []) == []
        assert model.rank(QUESTION, []) == []

    def test_the_same_input_gives_the_same_answer(self, model: RelevanceModel) -> None:
        assert model.relevant(QUESTION, DOCUMENTS) == model.relevant(QUESTION, DOCUMENTS)
        assert model.rank(QUESTION, DOCUMENTS) == model.rank(QUESTION, DOCUMENTS)
