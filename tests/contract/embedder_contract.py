"""The Embedder contract. Each adapter's test module subclasses EmbedderContract and provides
`embedder`; load real models once per session, since the fixture is asked for by every test."""

from __future__ import annotations

import math

import pytest

from agentmem.ports.embedding import Embedder

QUERY = "what is her appetite for investment risk?"
MATCH = "Priya's risk tolerance is cautious"
DISTRACTORS = [
    "Priya's goal is to retire at 55",
    "Priya lives in Pune",
    "Priya's annual income is 40 lakh rupees",
    "Priya wants to buy a house in 2028",
    "The team meets every Tuesday",
]
SENTENCES = ["the first sentence", "a second, rather different one", "3rd: numbers 42 & symbols ✓"]
TOLERANCE = 1e-5


def dot(a: list[float], b: list[float]) -> float:
    return math.fsum(x * y for x, y in zip(a, b, strict=True))


def assert_close(a: list[float], b: list[float]) -> None:
    assert max(abs(x - y) for x, y in zip(a, b, strict=True)) < TOLERANCE


class EmbedderContract:
    @pytest.fixture
    def embedder(self) -> Embedder:
        raise NotImplementedError

    def test_identity_is_named(self, embedder: Embedder) -> None:
        assert isinstance(embedder.model_id, str)
        assert embedder.model_id
        assert embedder.dimensions > 0

    def test_each_vector_has_the_declared_dimensions(self, embedder: Embedder) -> None:
        vectors = embedder.embed(SENTENCES)
        assert len(vectors) == len(SENTENCES)
        for vector in vectors:
            assert len(vector) == embedder.dimensions
            assert all(isinstance(x, float) and math.isfinite(x) for x in vector)

    def test_vectors_have_unit_length(self, embedder: Embedder) -> None:
        for vector in embedder.embed(SENTENCES):
            assert math.sqrt(dot(vector, vector)) == pytest.approx(1.0, abs=1e-4)

    def test_same_input_gives_the_same_vectors(self, embedder: Embedder) -> None:
        first = embedder.embed(SENTENCES)
        second = embedder.embed(SENTENCES)
        for a, b in zip(first, second, strict=True):
            assert_close(a, b)

    def test_a_vector_does_not_depend_on_its_batch(self, embedder: Embedder) -> None:
        # An index is built in batches and queried one text at a time: both must agree.
        batched = embedder.embed(SENTENCES)
        for text, vector in zip(SENTENCES, batched, strict=True):
            assert_close(embedder.embed([text])[0], vector)

    def test_order_is_preserved(self, embedder: Embedder) -> None:
        forward = embedder.embed(SENTENCES)
        backward = embedder.embed(list(reversed(SENTENCES)))
        for a, b in zip(forward, reversed(backward), strict=True):
            assert_close(a, b)
        assert dot(forward[0], forward[1]) < 0.999  # distinct texts, distinct vectors

    def test_order_is_preserved_across_internal_batches(self, embedder: Embedder) -> None:
        # More texts than any adapter's internal batch, in mixed lengths.
        texts = [f"fact number {i} " + "detail " * (i % 7) for i in range(150)]
        vectors = embedder.embed(texts)
        assert len(vectors) == len(texts)
        for i in (0, 63, 64, 65, 128, 149):
            assert_close(embedder.embed([texts[i]])[0], vectors[i])

    def test_empty_input_gives_no_vectors(self, embedder: Embedder) -> None:
        assert embedder.embed([]) == []

    def test_a_paraphrase_ranks_above_unrelated_facts(self, embedder: Embedder) -> None:
        query, *facts = embedder.embed([QUERY, MATCH, *DISTRACTORS])
        scores = [dot(query, fact) for fact in facts]
        assert scores[0] == max(scores)
        assert scores[0] - sorted(scores)[-2] > 0.05  # a clear margin, not a tie broken by noise
