"""BedrockEmbedder against botocore's Stubber: request shape, response handling, error mapping.

Stubber validates every request against the bedrock-runtime service model, but InvokeModel's body
is an opaque blob, so the JSON inside it is captured and checked separately.
"""

from __future__ import annotations

import io
import json
import math
import threading
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.response import StreamingBody
from botocore.stub import ANY, Stubber

from agentmem.adapters.aws.bedrock_embedder import BedrockEmbedder
from agentmem.errors import AgentMemError, BackendUnavailableError, InvalidInputError

MODEL = "amazon.titan-embed-text-v2:0"


def titan_response(vector: list[float]) -> dict[str, Any]:
    data = json.dumps({"embedding": vector, "inputTextTokenCount": 3}).encode()
    return {"body": StreamingBody(io.BytesIO(data), len(data)), "contentType": "application/json"}


def unit(dimensions: int, hot: int) -> list[float]:
    vector = [0.0] * dimensions
    vector[hot] = 1.0
    return vector


@pytest.fixture
def client() -> Any:
    return boto3.client("bedrock-runtime", region_name="us-east-1")


@pytest.fixture
def sent_bodies(client: Any) -> list[dict[str, Any]]:
    """The decoded JSON body of every InvokeModel call, in call order."""
    bodies: list[dict[str, Any]] = []

    def capture(params: dict[str, Any], **_: Any) -> None:
        bodies.append(json.loads(params["body"]))

    client.meta.events.register("before-parameter-build.bedrock-runtime.InvokeModel", capture)
    return bodies


@pytest.fixture
def stubber(client: Any) -> Iterator[Stubber]:
    with Stubber(client) as stub:
        yield stub
        stub.assert_no_pending_responses()


def expect_call(stubber: Stubber, vector: list[float], model: str = MODEL) -> None:
    stubber.add_response(
        "invoke_model",
        titan_response(vector),
        expected_params={
            "modelId": model,
            "body": ANY,
            "contentType": "application/json",
            "accept": "application/json",
        },
    )


def test_one_call_per_text_with_the_titan_v2_body(
    client: Any, stubber: Stubber, sent_bodies: list[dict[str, Any]]
) -> None:
    # Stubber hands out responses in call order, so one worker keeps texts and answers aligned.
    embedder = BedrockEmbedder(client=client, max_workers=1)
    for hot in (0, 1, 2):
        expect_call(stubber, unit(512, hot))
    vectors = embedder.embed(["alpha", "beta", "gamma"])
    assert [v.index(1.0) for v in vectors] == [0, 1, 2]
    assert sent_bodies == [
        {"inputText": text, "dimensions": 512, "normalize": True} for text in ("alpha", "beta", "gamma")
    ]


def test_identity_names_model_and_size(client: Any) -> None:
    embedder = BedrockEmbedder(dimensions=1024, client=client)
    assert embedder.dimensions == 1024
    assert embedder.model_id == f"{MODEL}@1024"
    assert BedrockEmbedder(client=client).dimensions == 512


@pytest.mark.parametrize("dimensions", [0, 128, 384, 768, 1536])
def test_sizes_titan_v2_cannot_produce_are_refused(client: Any, dimensions: int) -> None:
    with pytest.raises(ValueError, match="256, 512, 1024"):
        BedrockEmbedder(dimensions=dimensions, client=client)


def test_custom_model_and_dimensions_reach_the_request(
    client: Any, stubber: Stubber, sent_bodies: list[dict[str, Any]]
) -> None:
    model = "arn:aws:bedrock:us-east-1::foundation-model/amazon.titan-embed-text-v2:0"
    expect_call(stubber, unit(256, 3), model=model)
    (vector,) = BedrockEmbedder(model, 256, client).embed(["x"])
    assert len(vector) == 256
    assert sent_bodies[0]["dimensions"] == 256


def test_empty_input_makes_no_call(client: Any, stubber: Stubber) -> None:
    assert BedrockEmbedder(client=client).embed([]) == []


def test_vectors_come_back_unit_length(client: Any, stubber: Stubber) -> None:
    expect_call(stubber, [3.0, 4.0] + [0.0] * 254)
    (vector,) = BedrockEmbedder(dimensions=256, client=client).embed(["x"])
    assert vector[:2] == pytest.approx([0.6, 0.8])
    assert math.fsum(x * x for x in vector) == pytest.approx(1.0)


def test_a_vector_of_the_wrong_size_is_an_error(client: Any, stubber: Stubber) -> None:
    expect_call(stubber, unit(1024, 0))
    with pytest.raises(AgentMemError, match="1024 values, expected 512"):
        BedrockEmbedder(client=client).embed(["x"])


@pytest.mark.parametrize("text", ["", "   ", "x" * 50_001])
def test_texts_titan_refuses_are_invalid_input(client: Any, stubber: Stubber, text: str) -> None:
    with pytest.raises(InvalidInputError) as caught:
        BedrockEmbedder(client=client).embed(["fine", text])
    assert caught.value.field == "texts"


@pytest.mark.parametrize(
    ("code", "status"),
    [
        ("ThrottlingException", 429),
        ("ServiceUnavailableException", 503),
        ("ModelNotReadyException", 429),
        ("ModelTimeoutException", 408),
        ("InternalServerException", 500),
    ],
)
def test_throttling_and_busy_model_are_retryable(
    client: Any, stubber: Stubber, code: str, status: int
) -> None:
    stubber.add_client_error("invoke_model", service_error_code=code, http_status_code=status)
    with pytest.raises(BackendUnavailableError):
        BedrockEmbedder(client=client).embed(["x"])


@pytest.mark.parametrize(
    ("code", "status"),
    [("AccessDeniedException", 403), ("ValidationException", 400), ("ResourceNotFoundException", 404)],
)
def test_deployment_faults_are_not_retryable(client: Any, stubber: Stubber, code: str, status: int) -> None:
    stubber.add_client_error("invoke_model", service_error_code=code, http_status_code=status)
    with pytest.raises(AgentMemError) as caught:
        BedrockEmbedder(client=client).embed(["x"])
    assert not isinstance(caught.value, BackendUnavailableError)


class EchoClient:
    """A thread-safe fake whose vector encodes the text it was sent, to check order under threads."""

    def __init__(self) -> None:
        self.threads: set[int] = set()
        self._lock = threading.Lock()

    def invoke_model(self, **kwargs: Any) -> dict[str, Any]:
        with self._lock:
            self.threads.add(threading.get_ident())
        number = int(json.loads(kwargs["body"])["inputText"].split()[-1])
        return titan_response(unit(256, number))


def test_parallel_calls_keep_input_order() -> None:
    fake = EchoClient()
    embedder = BedrockEmbedder(dimensions=256, client=fake, max_workers=4)  # type: ignore[arg-type]
    texts = [f"text {i}" for i in range(40)]
    vectors = embedder.embed(texts)
    assert [v.index(1.0) for v in vectors] == list(range(40))
