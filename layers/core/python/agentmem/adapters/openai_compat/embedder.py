"""The Embedder port on an OpenAI-compatible `/v1/embeddings` endpoint, through the official SDK.

The vector size is a setting (`AGENTMEM_EMBEDDER_DIMENSIONS`), not something learnt from the
server: every index (the belief, history, skill and asset indexes) is built at the size the
embedder declares, before any text is embedded. Every answer is checked against it, and a vector
of another size fails with an error naming the setting and the size the model gave, so a wrong
setting (or a server now serving another model) never writes a vector its index cannot hold.
The adapter does not send the `dimensions` request parameter: not every server takes it, and a
model that ignored it would answer another size anyway.

Vectors are L2-normalised here, whatever the server did, because the indexes score by dot
product. Texts go in batches of `batch_size`, floats on the wire (`encoding_format="float"`:
not every server encodes base64), and each answer is put back in input order by its `index`."""

from __future__ import annotations

import math
from collections.abc import Sequence

import openai

from agentmem.adapters.llm_prompts.answers import ModelOutputError
from agentmem.adapters.openai_compat.errors import Target, translate_openai_error
from agentmem.errors import AgentMemError, InvalidInputError

BATCH_SIZE = 64


class EmbeddingSizeError(AgentMemError):
    """The server's vectors are not the size the setting declares (and the indexes hold)."""

    code = "embedder_misconfigured"


class OpenAICompatEmbedder:
    def __init__(
        self,
        model: str,
        dimensions: int,
        *,
        client: openai.OpenAI,
        batch_size: int = BATCH_SIZE,
        settings: str = "AGENTMEM_EMBEDDER",
    ) -> None:
        if dimensions < 1 or batch_size < 1:
            raise ValueError("dimensions and batch_size must be positive")
        self._model = model
        self._dimensions = dimensions
        self._client = client
        self._batch_size = batch_size
        self._target = Target(str(client.base_url), model, settings)

    @property
    def model_id(self) -> str:
        return f"openai:{self._model}"

    @property
    def dimensions(self) -> int:
        return self._dimensions

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if isinstance(texts, str):
            raise TypeError("embed takes a sequence of texts, not one str")
        if any(not text.strip() for text in texts):
            raise InvalidInputError("a text to embed is blank", field="text")
        vectors: list[list[float]] = []
        for start in range(0, len(texts), self._batch_size):
            vectors += self._batch(list(texts[start : start + self._batch_size]))
        return vectors

    def _batch(self, texts: list[str]) -> list[list[float]]:
        try:
            answer = self._client.embeddings.create(model=self._model, input=texts, encoding_format="float")
        except openai.OpenAIError as exc:
            raise translate_openai_error(exc, "embed", self._target) from exc
        ordered = sorted(answer.data, key=lambda item: item.index)
        if [item.index for item in ordered] != list(range(len(texts))):
            raise ModelOutputError(
                f"embed: the server answered {len(ordered)} vectors for {len(texts)} texts"
            )
        return [self._unit(item.embedding) for item in ordered]

    def _unit(self, vector: list[float]) -> list[float]:
        if len(vector) != self._dimensions:
            prefix = self._target.settings
            raise EmbeddingSizeError(
                f"{prefix}_DIMENSIONS is {self._dimensions} but {prefix}_MODEL {self._model} returns "
                f"{len(vector)}-dimension vectors: set {prefix}_DIMENSIONS={len(vector)}, or serve a "
                f"model of that size (indexes built at another size are rebuilt by `agentmem replay`)"
            )
        norm = math.sqrt(math.fsum(x * x for x in vector))
        if not math.isfinite(norm) or norm == 0.0:
            raise ModelOutputError("embed: the server answered a zero or non-finite vector")
        return [float(x) / norm for x in vector]
