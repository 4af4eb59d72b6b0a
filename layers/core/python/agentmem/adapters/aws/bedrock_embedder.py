"""The Embedder port on Amazon Bedrock: Titan Text Embeddings V2 through InvokeModel."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from agentmem.adapters.aws.errors import translate_client_error
from agentmem.errors import AgentMemError, InvalidInputError

if TYPE_CHECKING:
    from mypy_boto3_bedrock_runtime.client import BedrockRuntimeClient

DEFAULT_MODEL_ID = "amazon.titan-embed-text-v2:0"
# The only output sizes Titan V2 accepts. 512 keeps about 99% of the 1024-dimension retrieval
# accuracy (per the model card) at half the k-NN index memory.
TITAN_V2_DIMENSIONS = frozenset({256, 512, 1024})
DEFAULT_DIMENSIONS = 512
# Titan V2 refuses inputText over 50,000 characters; refusing here names the field instead of
# surfacing a ValidationException as a 500.
MAX_INPUT_CHARS = 50_000


class BedrockEmbedder:
    """One InvokeModel call per text: Titan V2 has no batch form outside batch inference jobs.

    Calls for a multi-text request run on a few threads (boto3 clients are thread-safe), so
    embedding a page of facts costs roughly one round trip per `max_workers` texts.
    """

    def __init__(
        self,
        model_id: str = DEFAULT_MODEL_ID,
        dimensions: int = DEFAULT_DIMENSIONS,
        client: BedrockRuntimeClient | None = None,
        *,
        max_workers: int = 4,
    ) -> None:
        if dimensions not in TITAN_V2_DIMENSIONS:
            raise ValueError(
                f"Titan Text Embeddings V2 supports dimensions {sorted(TITAN_V2_DIMENSIONS)}, "
                f"not {dimensions}"
            )
        if max_workers < 1:
            raise ValueError("max_workers must be at least 1")
        self._model = model_id
        self._dimensions = dimensions
        self._max_workers = max_workers
        self._client: BedrockRuntimeClient = client or boto3.client(
            "bedrock-runtime", config=Config(retries={"mode": "standard"})
        )

    @property
    def model_id(self) -> str:
        # Vectors of different sizes from the same model are not comparable, so the size is part
        # of the identity an index records.
        return f"{self._model}@{self._dimensions}"

    @property
    def dimensions(self) -> int:
        return self._dimensions

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if isinstance(texts, str):
            raise TypeError("embed takes a sequence of texts, not a single str")
        for index, text in enumerate(texts):
            if not text.strip():
                raise InvalidInputError(f"text {index} is empty; Titan cannot embed it", field="texts")
            if len(text) > MAX_INPUT_CHARS:
                raise InvalidInputError(f"text {index} is over {MAX_INPUT_CHARS} characters", field="texts")
        if len(texts) <= 1:
            return [self._embed_one(text) for text in texts]
        with ThreadPoolExecutor(max_workers=min(self._max_workers, len(texts))) as pool:
            # map keeps input order and re-raises the first failure.
            return list(pool.map(self._embed_one, texts))

    def request_body(self, text: str) -> dict[str, Any]:
        """The JSON InvokeModel sends for `text` (public so tests can compare it)."""
        return {"inputText": text, "dimensions": self._dimensions, "normalize": True}

    def _embed_one(self, text: str) -> list[float]:
        try:
            response = self._client.invoke_model(
                modelId=self._model,
                body=json.dumps(self.request_body(text)).encode("utf-8"),
                contentType="application/json",
                accept="application/json",
            )
            payload = json.loads(response["body"].read())
        except (ClientError, BotoCoreError) as exc:
            raise translate_client_error(exc, "embed text") from exc
        return self._unit_vector(payload)

    def _unit_vector(self, payload: Any) -> list[float]:
        vector = payload.get("embedding") if isinstance(payload, dict) else None
        if not isinstance(vector, list) or len(vector) != self._dimensions:
            got = len(vector) if isinstance(vector, list) else type(vector).__name__
            raise AgentMemError(f"embed text: Bedrock returned {got} values, expected {self._dimensions}")
        # normalize=true already asks for unit length; dividing again guards the port's contract
        # against a model that ignores the flag, at the cost of 512 multiplications.
        floats = [float(x) for x in vector]
        norm = math.sqrt(math.fsum(x * x for x in floats))
        if norm == 0.0 or not math.isfinite(norm):
            raise AgentMemError("embed text: Bedrock returned a zero or non-finite vector")
        return [x / norm for x in floats]
