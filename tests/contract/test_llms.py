"""LLM adapters against the port contract: the local rules, and Bedrock Converse and an
OpenAI-compatible server offline on the same recorded answers (both ways of binding the output to
the schema for each), which also pass their fault contracts."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agentmem.adapters.aws.bedrock_llm import BedrockLLM
from agentmem.adapters.local.rules_llm import RulesLLM
from agentmem.adapters.openai_compat.chat import OpenAICompatLLM
from agentmem.ports.semantic import LLM
from tests.bedrock_fixtures import RecordedBedrock, RecordedConverse
from tests.contract.backend_faults_contract import Calls, ConverseFaultsContract
from tests.contract.llm_contract import (
    CANDIDATES,
    FACT_TYPES,
    LONG,
    MOVED,
    OBJECT,
    OPEN,
    QUESTION,
    REVERSAL,
    STATED,
    SYNONYM,
    UNDECLARED,
    LLMContract,
    OpenKeysContract,
    event,
)
from tests.contract.openai_faults_contract import ChatFaultsContract
from tests.openai_fixtures import FakeOpenAIServer, RecordedChat


def fact(key: str, value: str, text: str) -> dict[str, str]:
    return {"key": key, "text": text, "value": value}


def proposed(key: str, value: str, text: str, cardinality: str, description: str = "") -> dict[str, str]:
    return {**fact(key, value, text), "cardinality": cardinality, "description": description}


def prompted(text: str) -> str:
    """The event as the extraction prompt carries it (so a key prompt quoting it never matches)."""
    return f"<event>\n{text}\n</event>"


# What a model answered, including what a model gets wrong; the contract says what survives.
RECORDED: dict[str, Any] = {
    prompted(STATED): {
        "facts": [
            fact("risk_tolerance", "aggressive", "Priya's risk tolerance is aggressive."),
            fact("income", "$135,000", "Priya's income is $135,000."),
            fact("income", "$135,000", "Priya earns about $150,000 a year."),  # an estimate in the sentence
            fact("city", "Pune", "Priya lives in Pune."),
            fact("net_worth", "$2,000,000", "Priya is worth $2,000,000."),  # undeclared, and invented
            fact("Risk Tolerance", "aggressive", "Priya is aggressive."),  # not a key at all
        ]
    },
    prompted(QUESTION): {"facts": [fact("income", "$150,000", "Priya's income is $150,000.")]},  # a guess
    prompted(json.dumps(OBJECT)): {
        "facts": [
            fact("risk_tolerance", "cautious", "Priya's risk tolerance is cautious."),
            fact("income", "$90,000", "Priya's income is $90,000."),
            fact("goal", "retire at 50", "Priya wants to retire at 50."),  # nothing in the event says so
        ]
    },
    prompted(UNDECLARED): {"facts": [fact("favorite_color", "green", "Priya's favourite colour is green.")]},
    prompted(OPEN): {
        "facts": [
            proposed(
                "programming_language",
                "Rust",
                "Priya codes mostly in Rust.",
                "set",
                "A programming language the subject uses.\nMore than one line.",
            ),
            proposed("Risk Tolerance", "aggressive", "Priya's risk tolerance is aggressive.", "single"),
            proposed(
                "seniority",
                "senior engineer",
                "Priya is a senior engineer.",
                "single",
                "How senior the subject is.",
            ),  # inferred: the event never says so
            proposed("Favourite Sport", "cricket", "Priya's favourite sport is cricket.", "single"),
        ]
    },
    prompted(MOVED): {"facts": [{**fact("city", "Lisbon", "Priya lives in Lisbon."), "replaces": "Pune"}]},
    prompted(LONG): {"facts": [fact("goal", "a quiet house " * 300, "Priya's goal is a quiet house.")]},
    'New statement: value="aggressive"': {"reason": "Cautious became aggressive.", "verdict": "CONFLICT"},
    'New statement: value="Mumbai"': {"reason": "She moved.", "verdict": "UPDATE"},
    "Proposed key: home_city": {"reason": "A home city is the city she lives in.", "key": "city"},
    "Proposed key: monthly_income": {"reason": "A monthly figure is another quantity.", "key": ""},
    "Proposed key: favorite_color": {"reason": "Colours.", "key": "colour"},  # no such candidate
}


class TestRulesLLM(LLMContract):
    @pytest.fixture
    def llm(self) -> LLM:
        return RulesLLM()


class TestBedrockLLM(LLMContract, OpenKeysContract, ConverseFaultsContract):
    structured_output = "json_schema"

    @pytest.fixture
    def bedrock(self) -> RecordedBedrock:
        return RecordedBedrock("bedrock-runtime", RecordedConverse(RECORDED))

    @pytest.fixture
    def llm(self, bedrock: RecordedBedrock) -> BedrockLLM:
        return BedrockLLM(client=bedrock.client, structured_output=self.structured_output)  # type: ignore[arg-type]

    @pytest.fixture
    def calls(self, llm: BedrockLLM) -> Calls:
        return [
            lambda: llm.extract_facts(event(STATED), FACT_TYPES),
            lambda: llm.decide(*REVERSAL),
            lambda: llm.resolve_key(SYNONYM, CANDIDATES),
        ]

    def test_the_same_input_sends_the_same_request_at_temperature_0(
        self, llm: BedrockLLM, bedrock: RecordedBedrock
    ) -> None:
        llm.extract_facts(event(STATED), FACT_TYPES)
        llm.extract_facts(event(STATED), FACT_TYPES)
        first, second = bedrock.requests
        assert first == second
        assert first["inferenceConfig"]["temperature"] == 0


class TestBedrockLLMWithToolOutput(TestBedrockLLM):
    structured_output = "tool"


class TestOpenAICompatLLM(LLMContract, OpenKeysContract, ChatFaultsContract):
    takes_json_schema = True

    @pytest.fixture
    def server(self) -> FakeOpenAIServer:
        return FakeOpenAIServer(chat=RecordedChat(RECORDED), takes_json_schema=self.takes_json_schema)

    @pytest.fixture
    def llm(self, server: FakeOpenAIServer) -> OpenAICompatLLM:
        return OpenAICompatLLM("qwen2.5:7b-instruct", client=server.client())

    @pytest.fixture
    def calls(self, llm: OpenAICompatLLM) -> Calls:
        return [
            lambda: llm.extract_facts(event(STATED), FACT_TYPES),
            lambda: llm.decide(*REVERSAL),
            lambda: llm.resolve_key(SYNONYM, CANDIDATES),
        ]

    def test_the_same_input_sends_the_same_request_at_temperature_0(
        self, llm: OpenAICompatLLM, server: FakeOpenAIServer
    ) -> None:
        llm.extract_facts(event(STATED), FACT_TYPES)
        llm.extract_facts(event(STATED), FACT_TYPES)
        first, second = server.requests[-2:]
        assert first == second
        assert first["temperature"] == 0
        assert first["seed"] == 7


class TestOpenAICompatLLMWithToolFallback(TestOpenAICompatLLM):
    """A server that refuses JSON-schema output: the same contract through forced tool calls."""

    takes_json_schema = False
