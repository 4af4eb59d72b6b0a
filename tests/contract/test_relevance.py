"""Relevance models against the port contract: Bedrock Converse and an OpenAI-compatible server
offline on the same recorded answers, in both output modes, which also pass their fault
contracts. With the local rules the port has no adapter: the composer runs without the LLM steps."""

from __future__ import annotations

from typing import Any

import pytest

from agentmem.adapters.aws.bedrock_llm import BedrockLLM
from agentmem.adapters.aws.bedrock_relevance import BedrockRelevance
from agentmem.adapters.llm_prompts.relevance import FILTER_TOOL
from agentmem.adapters.openai_compat.chat import OpenAICompatLLM
from agentmem.adapters.openai_compat.duties import OpenAICompatRelevance
from agentmem.compose.llm_ranking import RelevanceModel
from tests.bedrock_fixtures import RecordedBedrock, RecordedConverse, tool_name
from tests.contract.backend_faults_contract import Calls, ConverseFaultsContract
from tests.contract.openai_faults_contract import ChatFaultsContract
from tests.contract.relevance_contract import DOCUMENTS, QUESTION, RelevanceContract
from tests.openai_fixtures import FakeOpenAIServer, RecordedChat, schema_name


def answer(request: dict[str, Any]) -> dict[str, list[str]]:
    """What a model answered, with what a model gets wrong: an id never shown, a repeat, the
    order it thought of them in, and (ranking) a document left out. A chat completion names its
    `model` in the body; a Converse request names it in the URL."""
    name = schema_name(request) if "model" in request else tool_name(request)
    if name == FILTER_TOOL.name:
        return {"relevant_ids": ["refunds", "net_revenue_v2", "revenue", "refunds"]}
    return {"ranked_ids": ["revenue", "refunds", "revenue", "invented", "payroll"]}


class TestBedrockRelevance(RelevanceContract, ConverseFaultsContract):
    structured_output = "json_schema"

    @pytest.fixture
    def bedrock(self) -> RecordedBedrock:
        return RecordedBedrock("bedrock-runtime", RecordedConverse({f"Question: {QUESTION}": answer}))

    @pytest.fixture
    def model(self, bedrock: RecordedBedrock) -> RelevanceModel:
        llm = BedrockLLM(client=bedrock.client, structured_output=self.structured_output)  # type: ignore[arg-type]
        return BedrockRelevance(llm)

    @pytest.fixture
    def calls(self, model: RelevanceModel) -> Calls:
        return [lambda: model.relevant(QUESTION, DOCUMENTS), lambda: model.rank(QUESTION, DOCUMENTS)]


class TestBedrockRelevanceWithToolOutput(TestBedrockRelevance):
    structured_output = "tool"


class TestOpenAICompatRelevance(RelevanceContract, ChatFaultsContract):
    takes_json_schema = True

    @pytest.fixture
    def server(self) -> FakeOpenAIServer:
        recorded = RecordedChat({f"Question: {QUESTION}": answer})
        return FakeOpenAIServer(chat=recorded, takes_json_schema=self.takes_json_schema)

    @pytest.fixture
    def model(self, server: FakeOpenAIServer) -> RelevanceModel:
        return OpenAICompatRelevance(OpenAICompatLLM("qwen2.5:7b-instruct", client=server.client()))

    @pytest.fixture
    def calls(self, model: RelevanceModel) -> Calls:
        return [lambda: model.relevant(QUESTION, DOCUMENTS), lambda: model.rank(QUESTION, DOCUMENTS)]


class TestOpenAICompatRelevanceWithToolFallback(TestOpenAICompatRelevance):
    takes_json_schema = False
