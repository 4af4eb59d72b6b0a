"""OpenAICompatEmbedder through the real `openai` client on a scripted `/v1/embeddings` server
(tests/openai_fixtures.py checks every request body against the SDK's EmbeddingCreateParams):
the request's shape, batching, and the vector size checked against the setting the indexes are
built from."""

from __future__ import annotations

import math

import pytest

from agentmem.adapters.llm_prompts.answers import ModelOutputError
from agentmem.adapters.openai_compat.embedder import EmbeddingSizeError, OpenAICompatEmbedder
from agentmem.errors import InvalidInputError
from tests.openai_fixtures import FakeOpenAIServer

MODEL = "nomic-embed-text"


def constant(size: int, value: float = 2.0) -> FakeOpenAIServer:
    """A server answering each text with a vector of `size` components, the text's length first."""
    return FakeOpenAIServer(embed=lambda texts: [[float(len(t))] + [value] * (size - 1) for t in texts])


def test_the_request_names_the_model_sends_the_texts_and_asks_for_floats() -> None:
    server = constant(4)
    OpenAICompatEmbedder(MODEL, 4, client=server.client()).embed(["a fact", "another fact"])
    assert server.requests == [
        {"model": MODEL, "input": ["a fact", "another fact"], "encoding_format": "float"}
    ]


def test_texts_go_in_batches_and_come_back_in_input_order() -> None:
    server = constant(3)
    texts = [f"text {i:03d}" + "." * i for i in range(130)]
    vectors = OpenAICompatEmbedder(MODEL, 3, client=server.client(), batch_size=64).embed(texts)
    assert [len(r["input"]) for r in server.requests] == [64, 64, 2]
    # The first component is the text's length: order survives the server's last-first listing.
    firsts = [v[0] for v in vectors]
    assert firsts == sorted(firsts) and len(set(firsts)) == len(texts)
    for vector in vectors:
        assert math.fsum(x * x for x in vector) == pytest.approx(1.0)


def test_a_vector_of_another_size_fails_naming_the_setting_and_both_sizes() -> None:
    embedder = OpenAICompatEmbedder(MODEL, 384, client=constant(768).client())
    with pytest.raises(EmbeddingSizeError) as raised:
        embedder.embed(["Priya lives in Pune"])
    message = raised.value.message
    assert "AGENTMEM_EMBEDDER_DIMENSIONS is 384" in message
    assert "768-dimension" in message
    assert "AGENTMEM_EMBEDDER_DIMENSIONS=768" in message


def test_the_declared_size_is_what_the_indexes_are_built_with_before_any_call() -> None:
    server = constant(768)
    embedder = OpenAICompatEmbedder(MODEL, 768, client=server.client())
    assert (embedder.dimensions, embedder.model_id) == (768, f"openai:{MODEL}")
    assert server.requests == []  # no probe: the size is a setting, not learnt


def test_a_blank_text_is_refused_before_any_request() -> None:
    server = constant(4)
    with pytest.raises(InvalidInputError):
        OpenAICompatEmbedder(MODEL, 4, client=server.client()).embed(["fine", "  "])
    assert server.requests == []


def test_an_answer_missing_vectors_is_a_model_output_error() -> None:
    server = FakeOpenAIServer(embed=lambda texts: [[1.0, 0.0]] * (len(texts) - 1))
    with pytest.raises(ModelOutputError, match="1 vectors for 2 texts"):
        OpenAICompatEmbedder(MODEL, 2, client=server.client()).embed(["one", "two"])


def test_a_zero_vector_is_a_model_output_error_not_a_division() -> None:
    server = FakeOpenAIServer(embed=lambda texts: [[0.0, 0.0] for _ in texts])
    with pytest.raises(ModelOutputError, match="zero"):
        OpenAICompatEmbedder(MODEL, 2, client=server.client()).embed(["one"])
