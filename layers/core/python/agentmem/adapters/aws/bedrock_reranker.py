"""The Reranker port on Amazon Bedrock: the Rerank API of bedrock-agent-runtime, with a reranking
model (Amazon Rerank, Cohere Rerank) named by its ARN."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from agentmem.adapters.aws.errors import translate_client_error
from agentmem.errors import AgentMemError

# The service model's limits: `sources` holds 1 to 1,000 documents (and numberOfResults is at
# most 1,000); a query or document text is 1 to 32,000 characters.
MAX_SOURCES = 1_000
MAX_TEXT_CHARS = 32_000


class BedrockReranker:
    """Candidates past MAX_SOURCES go in several calls whose results are merged by score: a
    reranking model scores each (query, document) pair on its own, so scores from different calls
    compare. Every document is asked for (numberOfResults = the batch), so each gets a score."""

    def __init__(self, model_arn: str, *, client: Any = None, region: str | None = None) -> None:
        self._model_arn = model_arn
        # Any: boto3-stubs for bedrock-agent-runtime are not among the dev dependencies.
        self._client: Any = client or boto3.client(
            "bedrock-agent-runtime", region_name=region, config=Config(retries={"mode": "standard"})
        )

    def rerank(self, query: str, documents: Sequence[tuple[str, str]]) -> list[tuple[str, float]]:
        """(id, relevance score) for each document, best first, ties by id. A repeated id keeps its
        first text; a blank document (or every document, for a blank query) is not sent, since
        the API refuses empty text, and scores 0."""
        unique: dict[str, str] = {}
        for doc_id, text in documents:
            unique.setdefault(doc_id, text)
        sendable = [(doc_id, text) for doc_id, text in unique.items() if text.strip()]
        scores: dict[str, float] = {}
        if query.strip():
            for start in range(0, len(sendable), MAX_SOURCES):
                batch = sendable[start : start + MAX_SOURCES]
                for index, score in self._rerank(query, [text for _, text in batch]):
                    scores[batch[index][0]] = score
        return sorted(((i, scores.get(i, 0.0)) for i in unique), key=lambda pair: (-pair[1], pair[0]))

    def request(self, query: str, texts: Sequence[str]) -> dict[str, Any]:
        """The Rerank parameters for one batch (public so tests can compare them)."""
        return {
            "queries": [{"type": "TEXT", "textQuery": {"text": query[:MAX_TEXT_CHARS]}}],
            "sources": [
                {
                    "type": "INLINE",
                    "inlineDocumentSource": {"type": "TEXT", "textDocument": {"text": text[:MAX_TEXT_CHARS]}},
                }
                for text in texts
            ],
            "rerankingConfiguration": {
                "type": "BEDROCK_RERANKING_MODEL",
                "bedrockRerankingConfiguration": {
                    "numberOfResults": len(texts),
                    "modelConfiguration": {"modelArn": self._model_arn},
                },
            },
        }

    def _rerank(self, query: str, texts: Sequence[str]) -> list[tuple[int, float]]:
        """(index into `texts`, score) of one batch, following nextToken until the last page."""
        request = self.request(query, texts)
        found: list[tuple[int, float]] = []
        token: str | None = None
        while True:
            try:
                response = self._client.rerank(**request, **({"nextToken": token} if token else {}))
            except (ClientError, BotoCoreError) as exc:
                raise translate_client_error(exc, "rerank documents") from exc
            for result in response.get("results", []):
                index = int(result["index"])
                if not 0 <= index < len(texts):
                    raise AgentMemError(f"rerank documents: Bedrock returned index {index} of {len(texts)}")
                found.append((index, float(result["relevanceScore"])))
            token = response.get("nextToken")
            if not token:
                return found
