"""BedrockReranker against botocore's Stubber, which validates every request's names, types,
required members and minimums against the bedrock-agent-runtime service model (not its maximums:
botocore leaves those to the service, so the limits are checked against the model directly).
Covered: request shape, batching at the API's 1,000 sources, nextToken pages, mapping results
back by index, and error translation."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from agentmem.adapters.aws.bedrock_reranker import MAX_SOURCES, MAX_TEXT_CHARS, BedrockReranker
from agentmem.errors import AgentMemError, BackendUnavailableError

ARN = "arn:aws:bedrock:us-west-2::foundation-model/amazon.rerank-v1:0"


@pytest.fixture
def client() -> Any:
    return boto3.client("bedrock-agent-runtime", region_name="us-west-2")


@pytest.fixture
def stubber(client: Any) -> Iterator[Stubber]:
    with Stubber(client) as stub:
        yield stub
        stub.assert_no_pending_responses()


@pytest.fixture
def reranker(client: Any) -> BedrockReranker:
    return BedrockReranker(ARN, client=client)


def expected(query: str, texts: list[str], token: str | None = None) -> dict[str, Any]:
    params: dict[str, Any] = {
        "queries": [{"type": "TEXT", "textQuery": {"text": query}}],
        "sources": [
            {"type": "INLINE", "inlineDocumentSource": {"type": "TEXT", "textDocument": {"text": t}}}
            for t in texts
        ],
        "rerankingConfiguration": {
            "type": "BEDROCK_RERANKING_MODEL",
            "bedrockRerankingConfiguration": {
                "numberOfResults": len(texts),
                "modelConfiguration": {"modelArn": ARN},
            },
        },
    }
    return params | ({"nextToken": token} if token else {})


def results(*scored: tuple[int, float], token: str | None = None) -> dict[str, Any]:
    response: dict[str, Any] = {"results": [{"index": i, "relevanceScore": s} for i, s in scored]}
    return response | ({"nextToken": token} if token else {})


def test_the_limits_are_the_service_models(client: Any) -> None:
    rerank = client.meta.service_model.operation_model("Rerank").input_shape.members
    text = rerank["sources"].member.members["inlineDocumentSource"].members["textDocument"].members["text"]
    assert rerank["sources"].metadata["max"] == MAX_SOURCES
    assert text.metadata["max"] == MAX_TEXT_CHARS
    assert rerank["queries"].member.members["textQuery"].members["text"].metadata["max"] == MAX_TEXT_CHARS
    configuration = rerank["rerankingConfiguration"].members["bedrockRerankingConfiguration"]
    assert configuration.members["numberOfResults"].metadata["max"] == MAX_SOURCES


def test_one_call_maps_results_back_by_index(reranker: BedrockReranker, stubber: Stubber) -> None:
    texts = ["kitten food", "car prices in 2024", "used automobiles"]
    # The model answers best first; the order of `sources` is how results find their ids.
    stubber.add_response("rerank", results((1, 0.91), (2, 0.64), (0, 0.02)), expected("car prices", texts))

    found = reranker.rerank("car prices", [("pets", texts[0]), ("prices", texts[1]), ("used", texts[2])])

    assert found == [("prices", 0.91), ("used", 0.64), ("pets", 0.02)]


def test_more_than_the_api_maximum_goes_in_batches_merged_by_score(
    reranker: BedrockReranker, stubber: Stubber
) -> None:
    documents = [(f"d{i:04}", f"text {i}") for i in range(MAX_SOURCES + 2)]
    first = [text for _, text in documents[:MAX_SOURCES]]
    stubber.add_response("rerank", results((3, 0.5), (0, 0.1)), expected("q", first))
    stubber.add_response("rerank", results((1, 0.9), (0, 0.5)), expected("q", ["text 1000", "text 1001"]))

    found = reranker.rerank("q", documents)

    assert len(found) == MAX_SOURCES + 2
    assert found[:4] == [("d1001", 0.9), ("d0003", 0.5), ("d1000", 0.5), ("d0000", 0.1)]
    assert found[4] == ("d0001", 0.0)  # not in any page of results: scored 0, then by id


def test_next_token_pages_are_followed_with_the_same_request(
    reranker: BedrockReranker, stubber: Stubber
) -> None:
    texts = ["a text", "b text", "c text"]
    stubber.add_response("rerank", results((2, 0.8), token="page-2"), expected("q", texts))
    stubber.add_response("rerank", results((0, 0.3), (1, 0.7)), expected("q", texts, token="page-2"))

    assert reranker.rerank("q", [("a", texts[0]), ("b", texts[1]), ("c", texts[2])]) == [
        ("c", 0.8),
        ("b", 0.7),
        ("a", 0.3),
    ]


def test_ties_break_by_id_and_a_repeated_id_keeps_its_first_text(
    reranker: BedrockReranker, stubber: Stubber
) -> None:
    stubber.add_response("rerank", results((0, 0.5), (1, 0.5)), expected("q", ["zeta text", "alpha text"]))
    found = reranker.rerank("q", [("z", "zeta text"), ("a", "alpha text"), ("z", "another text")])
    assert found == [("a", 0.5), ("z", 0.5)]


def test_blank_texts_are_not_sent_and_score_zero(reranker: BedrockReranker, stubber: Stubber) -> None:
    stubber.add_response("rerank", results((0, 0.4)), expected("q", ["real text"]))
    assert reranker.rerank("q", [("blank", "  "), ("real", "real text")]) == [("real", 0.4), ("blank", 0.0)]


def test_nothing_is_sent_for_no_documents_or_a_blank_query(
    reranker: BedrockReranker, stubber: Stubber
) -> None:
    assert reranker.rerank("q", []) == []
    assert reranker.rerank(" ", [("b", "text"), ("a", "text")]) == [("a", 0.0), ("b", 0.0)]


def test_texts_are_cut_at_the_api_maximum(reranker: BedrockReranker) -> None:
    request = reranker.request("q" * 40_000, ["d" * 40_000])
    assert len(request["queries"][0]["textQuery"]["text"]) == MAX_TEXT_CHARS
    assert len(request["sources"][0]["inlineDocumentSource"]["textDocument"]["text"]) == MAX_TEXT_CHARS


def test_an_index_outside_the_batch_is_refused(reranker: BedrockReranker, stubber: Stubber) -> None:
    stubber.add_response("rerank", results((5, 0.4)), expected("q", ["only one"]))
    with pytest.raises(AgentMemError, match="index 5 of 1"):
        reranker.rerank("q", [("a", "only one")])


@pytest.mark.parametrize(
    ("code", "status", "error"),
    [
        ("ThrottlingException", 429, BackendUnavailableError),
        ("BadGatewayException", 502, BackendUnavailableError),
        ("ValidationException", 400, AgentMemError),
        ("AccessDeniedException", 403, AgentMemError),
        ("ResourceNotFoundException", 404, AgentMemError),  # a wrong model ARN: a deployment fault
    ],
)
def test_service_errors_are_translated(
    reranker: BedrockReranker, stubber: Stubber, code: str, status: int, error: type[Exception]
) -> None:
    stubber.add_client_error("rerank", service_error_code=code, http_status_code=status)
    with pytest.raises(AgentMemError, match="rerank documents") as raised:
        reranker.rerank("q", [("a", "text")])
    assert type(raised.value) is error
    assert raised.value.__cause__ is not None


def test_the_default_client_is_in_the_given_region() -> None:
    reranker = BedrockReranker(ARN, region="eu-central-1")
    assert reranker._client.meta.region_name == "eu-central-1"
    assert reranker._client.meta.service_model.service_name == "bedrock-agent-runtime"
