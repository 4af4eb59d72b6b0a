"""OpenAICompatLLM through the real `openai` client on a scripted server (tests/openai_fixtures.py,
which checks every request body against the SDK's own parameter types): the request's shape,
the JSON-schema output and its tool-call fallback (decided on the error the SDK raises, and
remembered by the adapter), and how answers are read."""

from __future__ import annotations

from typing import Any

import pytest

from agentmem.adapters.llm_prompts.answers import ModelOutputError
from agentmem.adapters.llm_prompts.facts import EXTRACT_TOOL, VERDICT_TOOL
from agentmem.adapters.openai_compat.chat import OpenAICompatLLM
from agentmem.errors import AgentMemError, BackendUnavailableError
from agentmem.model.beliefs import FactInput, Verdict
from tests.contract.llm_contract import FACT_TYPES, REVERSAL, STATED, event
from tests.openai_fixtures import REFUSED, FakeOpenAIServer, Fault, chat_reply

FACTS = {
    "facts": [
        {"key": "risk_tolerance", "text": "Priya's risk tolerance is aggressive.", "value": "aggressive"},
        {"key": "city", "text": "Priya lives in Pune.", "value": "Pune"},
    ]
}
EXPECTED = [
    FactInput(key="risk_tolerance", text="Priya's risk tolerance is aggressive.", value="aggressive"),
    FactInput(key="city", text="Priya lives in Pune.", value="Pune"),
]
MODEL = "qwen2.5:7b-instruct"
# vLLM and text-generation servers answer 422 for a field they do not take, naming it in `param`.
SCHEMA_UNPROCESSABLE = Fault(422, "Input validation error", param="response_format")


def answering(payload: Any) -> FakeOpenAIServer:
    return FakeOpenAIServer(chat=lambda body: payload)


def test_a_request_is_system_rules_then_the_prompt_at_temperature_0_with_a_seed_and_a_ceiling() -> None:
    server = answering(FACTS)
    OpenAICompatLLM(MODEL, client=server.client()).extract_facts(event(STATED), FACT_TYPES)
    (body,) = server.requests
    assert body["model"] == MODEL
    assert body["messages"][0] == {"role": "system", "content": EXTRACT_TOOL.system}
    assert body["messages"][1]["role"] == "user"
    assert f"<event>\n{STATED}\n</event>" in body["messages"][1]["content"]
    assert (body["temperature"], body["seed"], body["max_tokens"]) == (0, 7, EXTRACT_TOOL.max_tokens)


def test_the_answer_is_bound_to_the_schema_by_strict_json_schema_output() -> None:
    server = answering(FACTS)
    OpenAICompatLLM(MODEL, client=server.client()).extract_facts(event(STATED), FACT_TYPES)
    (body,) = server.requests
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {
            "name": "record_facts",
            "description": EXTRACT_TOOL.description,
            "schema": EXTRACT_TOOL.schema,
            "strict": True,
        },
    }
    assert "tools" not in body and "tool_choice" not in body


def test_tool_mode_forces_the_named_tool_with_the_schema_as_its_parameters() -> None:
    server = answering({"reason": "Reversed.", "verdict": "CONFLICT"})
    llm = OpenAICompatLLM(MODEL, client=server.client(), structured_output="tool")
    assert llm.decide(*REVERSAL) is Verdict.CONFLICT
    (body,) = server.requests
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "record_verdict",
                "description": VERDICT_TOOL.description,
                "parameters": VERDICT_TOOL.schema,
            },
        }
    ]
    assert body["tool_choice"] == {"type": "function", "function": {"name": "record_verdict"}}
    assert "response_format" not in body


def test_no_seed_is_sent_when_none_is_set() -> None:
    server = answering(FACTS)
    OpenAICompatLLM(MODEL, client=server.client(), seed=None).extract_facts(event(STATED), FACT_TYPES)
    assert "seed" not in server.requests[0]


def test_a_server_refusing_json_schema_is_asked_again_with_a_tool_call_and_the_choice_is_kept() -> None:
    server = FakeOpenAIServer(chat=lambda body: FACTS, takes_json_schema=False)
    llm = OpenAICompatLLM(MODEL, client=server.client())
    assert llm.extract_facts(event(STATED), FACT_TYPES) == EXPECTED
    first, retried = server.requests
    assert "response_format" in first and "tools" not in first
    assert "tools" in retried and "response_format" not in retried
    assert llm.structured_output == "tool"
    # The next call goes straight to the tool call: the probe is paid once per adapter.
    assert llm.extract_facts(event(STATED), FACT_TYPES) == EXPECTED
    assert len(server.requests) == 3
    assert "tools" in server.requests[2]


def test_a_422_naming_response_format_also_switches_to_tool_calls() -> None:
    server = answering(FACTS)
    llm = OpenAICompatLLM(MODEL, client=server.client())
    server.fault = SCHEMA_UNPROCESSABLE
    with pytest.raises(AgentMemError):  # the retry is refused too: the fault answers everything
        llm.extract_facts(event(STATED), FACT_TYPES)
    assert ["response_format" in r for r in server.requests] == [True, False]
    server.fault = None
    assert llm.extract_facts(event(STATED), FACT_TYPES) == EXPECTED
    assert "tools" in server.requests[-1]


@pytest.mark.parametrize("fault", [REFUSED, Fault(400, "messages: field required", param="messages")])
def test_a_refusal_about_anything_else_is_an_error_not_a_switch(fault: Fault) -> None:
    server = answering(FACTS)
    server.fault = fault
    llm = OpenAICompatLLM(MODEL, client=server.client())
    with pytest.raises(AgentMemError) as raised:
        llm.extract_facts(event(STATED), FACT_TYPES)
    assert not isinstance(raised.value, BackendUnavailableError)
    assert len(server.requests) == 1
    assert llm.structured_output == "json_schema"


def test_a_server_taking_neither_output_mode_is_a_plain_error_after_two_requests() -> None:
    server = FakeOpenAIServer(chat=lambda body: FACTS, takes_json_schema=False)
    server.tools_fault = Fault(400, "tool_choice: this model does not support tools")
    with pytest.raises(AgentMemError, match="HTTP 400") as raised:
        OpenAICompatLLM(MODEL, client=server.client()).extract_facts(event(STATED), FACT_TYPES)
    assert not isinstance(raised.value, BackendUnavailableError)
    assert len(server.requests) == 2


def test_a_json_answer_in_a_code_fence_is_read() -> None:
    server = answering('```json\n{"reason": "Reversed.", "verdict": "CONFLICT"}\n```')
    assert OpenAICompatLLM(MODEL, client=server.client()).decide(*REVERSAL) is Verdict.CONFLICT


def test_a_forced_tool_call_finishing_with_stop_is_read() -> None:
    # OpenAI answers finish_reason "stop" (not "tool_calls") when tool_choice names the function.
    server = answering({"reason": "Reversed.", "verdict": "CONFLICT"})
    server.finish = "stop"
    llm = OpenAICompatLLM(MODEL, client=server.client(), structured_output="tool")
    assert llm.decide(*REVERSAL) is Verdict.CONFLICT


def test_tool_mode_without_the_tool_call_is_a_model_output_error() -> None:
    server = answering({})
    server.reply = chat_reply("risk tolerance: aggressive", {"model": MODEL})  # prose, no tool call
    llm = OpenAICompatLLM(MODEL, client=server.client(), structured_output="tool")
    with pytest.raises(ModelOutputError, match="did not call record_facts"):
        llm.extract_facts(event(STATED), FACT_TYPES)


def test_an_answer_with_no_choices_is_a_model_output_error() -> None:
    server = answering({})
    server.reply = chat_reply({}, {"model": MODEL}) | {"choices": []}
    with pytest.raises(ModelOutputError, match="no choices"):
        OpenAICompatLLM(MODEL, client=server.client()).decide(*REVERSAL)


def test_grounding_applies_as_on_bedrock_undeclared_keys_and_invented_figures_are_dropped() -> None:
    answer = {
        "facts": [
            {"key": "net_worth", "text": "Priya is worth $2,000,000.", "value": "$2,000,000"},
            {"key": "income", "text": "Priya earns about $150,000.", "value": "$150,000"},
            {"key": "income", "text": "Priya's income is $135,000.", "value": "$135,000"},
        ]
    }
    facts = OpenAICompatLLM(MODEL, client=answering(answer).client()).extract_facts(event(STATED), FACT_TYPES)
    assert facts == [FactInput(key="income", text="Priya's income is $135,000.", value="$135,000")]
