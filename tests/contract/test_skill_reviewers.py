"""Skill reviewers against the port contract: the local rules, and Bedrock Converse and an
OpenAI-compatible server offline on the same recorded answer, which also pass their fault
contracts."""

from __future__ import annotations

from typing import Any

import pytest

from agentmem.adapters.aws.bedrock_llm import BedrockLLM
from agentmem.adapters.aws.bedrock_reviewer import BedrockSkillReviewer
from agentmem.adapters.local.rules_reviewer import RulesSkillReviewer
from agentmem.adapters.openai_compat.chat import OpenAICompatLLM
from agentmem.adapters.openai_compat.duties import OpenAICompatSkillReviewer
from agentmem.ports.procedural import SkillReviewer
from tests.bedrock_fixtures import RecordedBedrock, RecordedConverse
from tests.contract.backend_faults_contract import Calls, ConverseFaultsContract
from tests.contract.openai_faults_contract import ChatFaultsContract
from tests.contract.skill_reviewer_contract import (
    ADD_VAT,
    CHAT_CODE,
    GROSS,
    PROCEDURE,
    SESSION,
    SkillReviewerContract,
)
from tests.openai_fixtures import FakeOpenAIServer, RecordedChat


def function(name: str, implementation: str, seq: int, calls: list[str] | None = None) -> dict[str, Any]:
    return {
        "name": name, "signature": "", "docstring": "", "implementation": implementation,
        "language": "python", "calls": calls or [], "tags": [], "source_seq": seq,
    }  # fmt: skip


# What a model answered for SESSION, including what a model gets wrong.
ANSWER = {
    "functions": [
        function("add_vat", ADD_VAT, 2),
        function("gross_total", GROSS.replace("\n    ", "\n        "), 3, ["add_vat"]),  # re-indented
        function("add_vat_rounded", ADD_VAT.replace("net * 1.2", "round(net * 1.2, 2)"), 2),  # "improved"
        function("leaked", CHAT_CODE, 1),  # code from a chat message, not a write-up
    ],
    "guidance": [
        {"title": " Invoice VAT ", "content": PROCEDURE.split("\n", 1)[1], "uses": ["gross_total"],
         "tags": [], "source_seq": 4},
    ],
}  # fmt: skip


class TestRulesSkillReviewer(SkillReviewerContract):
    @pytest.fixture
    def reviewer(self) -> SkillReviewer:
        return RulesSkillReviewer()


class TestBedrockSkillReviewer(SkillReviewerContract, ConverseFaultsContract):
    @pytest.fixture
    def bedrock(self) -> RecordedBedrock:
        return RecordedBedrock("bedrock-runtime", RecordedConverse({"<event seq=2 kind=code": ANSWER}))

    @pytest.fixture
    def reviewer(self, bedrock: RecordedBedrock) -> BedrockSkillReviewer:
        return BedrockSkillReviewer(BedrockLLM(client=bedrock.client))

    @pytest.fixture
    def calls(self, reviewer: BedrockSkillReviewer) -> Calls:
        return [lambda: reviewer.propose_skills(SESSION)]


class TestOpenAICompatSkillReviewer(SkillReviewerContract, ChatFaultsContract):
    takes_json_schema = True

    @pytest.fixture
    def server(self) -> FakeOpenAIServer:
        recorded = RecordedChat({"<event seq=2 kind=code": ANSWER})
        return FakeOpenAIServer(chat=recorded, takes_json_schema=self.takes_json_schema)

    @pytest.fixture
    def reviewer(self, server: FakeOpenAIServer) -> OpenAICompatSkillReviewer:
        return OpenAICompatSkillReviewer(OpenAICompatLLM("qwen2.5-coder:7b", client=server.client()))

    @pytest.fixture
    def calls(self, reviewer: OpenAICompatSkillReviewer) -> Calls:
        return [lambda: reviewer.propose_skills(SESSION)]


class TestOpenAICompatSkillReviewerWithToolFallback(TestOpenAICompatSkillReviewer):
    takes_json_schema = False
