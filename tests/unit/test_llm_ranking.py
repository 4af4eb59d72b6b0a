"""The composer's optional LLM steps: chunking at 15,000 tokens, a filter that can only narrow, a
ranker read in two views fused by RRF, and the Bedrock adapter's requests (Stubber)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import boto3
import pytest
from botocore.stub import ANY, Stubber

from agentmem.adapters.aws.bedrock_llm import BedrockLLM
from agentmem.adapters.aws.bedrock_relevance import BedrockRelevance
from agentmem.adapters.llm_prompts.answers import ModelOutputError
from agentmem.adapters.llm_prompts.relevance import FILTER_TOOL
from agentmem.compose.llm_ranking import CHUNK_TOKENS, chunks, llm_filter, llm_rank

DOCS = [("a", "net revenue definition"), ("b", "refund table"), ("c", "payroll"), ("d", "orders table")]


class Scripted:
    """Answers from fixed opinions, and records every chunk it was shown."""

    def __init__(self) -> None:
        self.shown: list[list[str]] = []

    def relevant(self, question: str, documents: Sequence[tuple[str, str]]) -> list[str]:
        self.shown.append([i for i, _ in documents])
        return [i for i, _ in documents if i != "c"] + ["invented"]

    def rank(self, question: str, documents: Sequence[tuple[str, str]]) -> list[str]:
        self.shown.append([i for i, _ in documents])
        return [*[i for i, _ in documents][::-1], "invented"]  # prefers whatever was shown last


def test_chunks_hold_at_most_the_limit_and_keep_order() -> None:
    docs = [(f"d{i}", "x" * 6000) for i in range(7)]
    split = chunks(docs, len)
    assert [len(c) for c in split] == [2, 2, 2, 1]
    assert [d for chunk in split for d in chunk] == docs
    assert chunks([("big", "y" * (CHUNK_TOKENS + 1))], len) == [[("big", "y" * (CHUNK_TOKENS + 1))]]


def test_the_filter_can_only_narrow_what_it_was_shown() -> None:
    assert llm_filter(Scripted(), "q", DOCS, len) == ["a", "b", "d"]


def test_the_ranker_reads_two_views_and_fuses_them() -> None:
    model = Scripted()
    ranked = llm_rank(model, "q", DOCS, len)
    assert model.shown == [["a", "b", "c", "d"], ["d", "c", "b", "a"]]
    # A model that only favours the last position gives each document ranks that sum to 5 across
    # the views: (4, 1), (3, 2)... Its bias cancels to within RRF's curvature, which slightly
    # prefers one extreme rank over two middle ones: a and d, then b and c, ties by id.
    assert ranked == ["a", "d", "b", "c"]


def answer(payload: Any) -> dict[str, Any]:
    return {
        "output": {"message": {"role": "assistant", "content": [{"text": json.dumps(payload)}]}},
        "stopReason": "end_turn",
        "usage": {"inputTokens": 50, "outputTokens": 10, "totalTokens": 60},
        "metrics": {"latencyMs": 100},
    }


@pytest.fixture
def client() -> Any:
    return boto3.client("bedrock-runtime", region_name="us-east-1")


def test_bedrock_relevance_requests_validate_and_answers_are_grounded(client: Any) -> None:
    model = BedrockRelevance(BedrockLLM(client=client))
    with Stubber(client) as stub:
        expected = {k: ANY for k in ("modelId", "system", "messages", "outputConfig")}
        expected["inferenceConfig"] = {"temperature": 0, "maxTokens": FILTER_TOOL.max_tokens}
        stub.add_response("converse", answer({"relevant_ids": ["d", "a", "zz"]}), expected)
        stub.add_response("converse", answer({"ranked_ids": ["b", "zz", "b"]}))
        assert model.relevant("q", DOCS) == ["a", "d"]  # in the order shown; unknown ids ignored
        assert model.rank("q", DOCS) == ["b", "a", "c", "d"]  # what it left out keeps its order
        stub.assert_no_pending_responses()
    with Stubber(client) as stub, pytest.raises(ModelOutputError):
        stub.add_response("converse", answer({"ids": []}))
        model.relevant("q", DOCS)
