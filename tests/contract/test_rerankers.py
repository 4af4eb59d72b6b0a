"""Rerankers against the port contract: Bedrock Rerank offline, answered by a scripted reranking
model on a real bedrock-agent-runtime client, which also passes the fault contract. Locally the
port has no adapter: the composer fuses BM25 and vector ranks without one."""

from __future__ import annotations

import re
from typing import Any

import pytest

from agentmem.adapters.aws.bedrock_reranker import BedrockReranker
from agentmem.ports.ranking import Reranker
from tests.bedrock_fixtures import RecordedBedrock
from tests.contract.backend_faults_contract import BackendFaultsContract, Calls
from tests.contract.reranker_contract import DOCUMENTS, QUERY, RerankerContract

ARN = "arn:aws:bedrock:us-east-1::foundation-model/amazon.rerank-v1:0"
PAGE = 400  # results per answer page, so pools past it are read through nextToken
WORD = re.compile(r"[a-z]+")


def scripted_rerank(request: dict[str, Any]) -> dict[str, Any]:
    """Scores like a reranking model would rank them: by the query's words a document shares, best
    first, in pages. Each pair is scored on its own, so batches compare."""
    query = set(WORD.findall(request["queries"][0]["textQuery"]["text"].lower()))
    texts = [s["inlineDocumentSource"]["textDocument"]["text"] for s in request["sources"]]
    assert all(t.strip() for t in texts), "the API refuses blank documents"
    scores = [len(query & set(WORD.findall(t.lower()))) / (1 + len(query)) for t in texts]
    ranked = sorted(range(len(texts)), key=lambda i: -scores[i])
    start = int(request.get("nextToken") or 0)
    page = ranked[start : start + PAGE]
    answer: dict[str, Any] = {"results": [{"index": i, "relevanceScore": scores[i]} for i in page]}
    if start + PAGE < len(ranked):
        answer["nextToken"] = str(start + PAGE)
    return answer


class TestBedrockReranker(RerankerContract, BackendFaultsContract):
    @pytest.fixture
    def bedrock(self) -> RecordedBedrock:
        return RecordedBedrock("bedrock-agent-runtime", scripted_rerank)

    @pytest.fixture
    def reranker(self, bedrock: RecordedBedrock) -> Reranker:
        return BedrockReranker(ARN, client=bedrock.client)

    @pytest.fixture
    def calls(self, reranker: Reranker) -> Calls:
        return [lambda: reranker.rerank(QUERY, DOCUMENTS)]
