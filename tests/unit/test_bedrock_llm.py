"""BedrockLLM against botocore's Stubber on a real bedrock-runtime client.

Stubber checks every Converse request against the service model shipped with botocore, so a
misspelt `outputConfig`, `toolChoice` or `inferenceConfig` field fails here. The parameters are
also captured as sent, to pin temperature, seed, schema and the grounding prompt.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from agentmem.adapters.aws.bedrock_llm import DEFAULT_MODEL_ID, BedrockLLM
from agentmem.adapters.llm_prompts.answers import ModelOutputError
from agentmem.adapters.llm_prompts.facts import EXTRACT_TOOL, VERDICT_TOOL
from agentmem.adapters.llm_prompts.keys import KEY_TOOL
from agentmem.errors import AgentMemError, BackendUnavailableError
from agentmem.model.beliefs import (
    Belief,
    Cardinality,
    FactInput,
    FactType,
    KeyCandidate,
    KeyProposal,
    Observation,
    Verdict,
)
from agentmem.model.events import BlobRef, Event

FACT_TYPES = [
    FactType(key="risk_tolerance", description="How much investment risk the subject accepts."),
    FactType(key="goal", cardinality=Cardinality.SET),
    FactType(key="income"),
]
TEXT = "Priya told me her risk tolerance is aggressive now. She earns $135,000 and wants a house."


def event(content: Any = TEXT, *, blob: BlobRef | None = None) -> Event:
    return Event(
        event_id="ev1", session_id="s1", seq=1, subject_id="priya", round=0, agent="advisor",
        kind="note", media_type="text/plain", content=content, blob=blob, created_at="2026-11-30T00:00:00Z",
    )  # fmt: skip


def converse_response(content: list[dict[str, Any]], stop: str = "end_turn") -> dict[str, Any]:
    return {
        "output": {"message": {"role": "assistant", "content": content}},
        "stopReason": stop,
        "usage": {"inputTokens": 120, "outputTokens": 40, "totalTokens": 160},
        "metrics": {"latencyMs": 250},
    }


def json_answer(payload: Any) -> dict[str, Any]:
    return converse_response([{"text": json.dumps(payload)}])


def tool_answer(name: str, payload: Any) -> dict[str, Any]:
    return converse_response([{"toolUse": {"toolUseId": "t1", "name": name, "input": payload}}], "tool_use")


FACTS = {
    "facts": [
        {"key": "risk_tolerance", "text": "Priya's risk tolerance is aggressive.", "value": "aggressive"},
        {"key": "income", "text": "Priya earns $135,000.", "value": "$135,000"},
        {"key": "goal", "text": "Priya wants a house.", "value": "a house"},
    ]
}
EXPECTED = [
    FactInput(key="risk_tolerance", text="Priya's risk tolerance is aggressive.", value="aggressive"),
    FactInput(key="income", text="Priya earns $135,000.", value="$135,000"),
    FactInput(key="goal", text="Priya wants a house.", value="a house"),
]


@pytest.fixture
def client() -> Any:
    return boto3.client("bedrock-runtime", region_name="us-east-1")


@pytest.fixture
def sent(client: Any) -> list[dict[str, Any]]:
    """The parameters of every Converse call, as the adapter passed them."""
    calls: list[dict[str, Any]] = []
    client.meta.events.register(
        "before-parameter-build.bedrock-runtime.Converse", lambda params, **_: calls.append(params)
    )
    return calls


@pytest.fixture
def stubber(client: Any) -> Iterator[Stubber]:
    with Stubber(client) as stub:
        yield stub
        stub.assert_no_pending_responses()


def test_default_request_is_temperature_0_with_native_json_schema_output(
    client: Any, stubber: Stubber, sent: list[dict[str, Any]]
) -> None:
    stubber.add_response("converse", json_answer({"facts": []}))
    BedrockLLM(client=client).extract_facts(event(), FACT_TYPES)
    (params,) = sent
    assert params["modelId"] == DEFAULT_MODEL_ID
    assert params["inferenceConfig"]["temperature"] == 0
    assert params["inferenceConfig"]["maxTokens"] > 0
    text_format = params["outputConfig"]["textFormat"]
    assert text_format["type"] == "json_schema"
    assert text_format["structure"]["jsonSchema"]["name"] == "record_facts"
    assert json.loads(text_format["structure"]["jsonSchema"]["schema"]) == EXTRACT_TOOL.schema
    assert "toolConfig" not in params
    # Claude refuses unknown native fields, so no seed goes to an Anthropic model.
    assert "additionalModelRequestFields" not in params


def test_system_prompt_states_the_grounding_rule_and_the_user_turn_carries_the_event(
    client: Any, stubber: Stubber, sent: list[dict[str, Any]]
) -> None:
    stubber.add_response("converse", json_answer({"facts": []}))
    BedrockLLM(client=client).extract_facts(event(), FACT_TYPES)
    system = sent[0]["system"][0]["text"]
    for rule in (
        "only what the event states",
        "Never estimate",
        "only the declared fact keys",
        "self-contained",
    ):
        assert rule.lower() in system.lower()
    prompt = sent[0]["messages"][0]["content"][0]["text"]
    assert f"<event>\n{TEXT}\n</event>" in prompt
    assert "- goal (set-valued)" in prompt
    assert "- risk_tolerance (single-valued): How much investment risk" in prompt


def test_tool_mode_forces_record_facts_with_the_schema_and_sends_the_seed(
    client: Any, stubber: Stubber, sent: list[dict[str, Any]]
) -> None:
    stubber.add_response("converse", tool_answer("record_facts", {"facts": []}))
    llm = BedrockLLM("amazon.nova-lite-v1:0", client=client, structured_output="tool", seed_field="seed")
    llm.extract_facts(event(), FACT_TYPES)
    (params,) = sent
    (tool,) = params["toolConfig"]["tools"]
    assert tool["toolSpec"]["name"] == "record_facts"
    assert tool["toolSpec"]["inputSchema"]["json"] == EXTRACT_TOOL.schema
    assert params["toolConfig"]["toolChoice"] == {"tool": {"name": "record_facts"}}
    assert params["additionalModelRequestFields"] == {"seed": 7}
    assert params["inferenceConfig"]["temperature"] == 0
    assert "outputConfig" not in params


@pytest.mark.parametrize(
    ("model_id", "seed", "expected"),
    [
        ("cohere.command-r-plus-v1:0", 7, {"seed": 7}),
        ("us.cohere.command-r-v1:0", 11, {"seed": 11}),
        ("cohere.command-r-v1:0", None, None),
        ("eu.anthropic.claude-haiku-4-5-20251001-v1:0", 7, None),
        ("arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc", 7, None),
    ],
)
def test_the_seed_goes_only_to_models_known_to_take_one(
    client: Any, stubber: Stubber, sent: list[dict[str, Any]], model_id: str, seed: int | None, expected: Any
) -> None:
    stubber.add_response("converse", json_answer({"facts": []}))
    BedrockLLM(model_id, client=client, seed=seed).extract_facts(event(), FACT_TYPES)
    assert sent[0].get("additionalModelRequestFields") == expected


def test_a_tool_use_answer_becomes_fact_inputs(client: Any, stubber: Stubber) -> None:
    stubber.add_response("converse", tool_answer("record_facts", FACTS))
    llm = BedrockLLM(client=client, structured_output="tool")
    assert llm.extract_facts(event(), FACT_TYPES) == EXPECTED


def test_a_json_schema_answer_becomes_fact_inputs(client: Any, stubber: Stubber) -> None:
    stubber.add_response("converse", json_answer(FACTS))
    assert BedrockLLM(client=client).extract_facts(event(), FACT_TYPES) == EXPECTED


def test_undeclared_keys_and_invented_figures_are_dropped(client: Any, stubber: Stubber) -> None:
    answer = {
        "facts": [
            {"key": "employer", "text": "Priya works at Acme.", "value": "Acme"},  # undeclared
            {"key": "income", "text": "Priya earns about $150k.", "value": "$150k"},  # not in the event
            {"key": "income", "text": "Priya earns $135k.", "value": "$135k"},  # 135 is in $135,000
            {"key": "goal", "text": " ", "value": "a house"},  # no sentence: out of FactInput's bounds
        ]
    }
    stubber.add_response("converse", json_answer(answer))
    facts = BedrockLLM(client=client).extract_facts(event(), FACT_TYPES)
    assert facts == [FactInput(key="income", text="Priya earns $135k.", value="$135k")]


@pytest.mark.parametrize(
    "response",
    [
        converse_response([{"text": "Sure! Here are the facts: risk tolerance aggressive"}]),  # not JSON
        json_answer({"facts": [{"key": "income"}]}),  # fields missing
        json_answer(["risk_tolerance", "aggressive"]),  # wrong shape
        converse_response([{"text": '{"facts": [{"key": "inc'}], "max_tokens"),  # truncated
        converse_response([{"text": "I can't help with that."}], "content_filtered"),
    ],
)
def test_a_malformed_answer_is_a_non_retryable_model_output_error(
    client: Any, stubber: Stubber, response: dict[str, Any]
) -> None:
    stubber.add_response("converse", response)
    with pytest.raises(ModelOutputError) as raised:
        BedrockLLM(client=client).extract_facts(event(), FACT_TYPES)
    assert not isinstance(raised.value, BackendUnavailableError)
    assert raised.value.code == "model_output_invalid"


def test_tool_mode_without_the_tool_call_is_a_model_output_error(client: Any, stubber: Stubber) -> None:
    stubber.add_response("converse", converse_response([{"text": "risk tolerance: aggressive"}]))
    with pytest.raises(ModelOutputError, match="did not call record_facts"):
        BedrockLLM(client=client, structured_output="tool").extract_facts(event(), FACT_TYPES)


@pytest.mark.parametrize(
    ("code", "status"),
    [("ThrottlingException", 429), ("ModelTimeoutException", 408), ("ServiceUnavailableException", 503),
     ("ModelNotReadyException", 429), ("InternalServerException", 500)],
)  # fmt: skip
def test_throttling_and_model_faults_are_retryable(
    client: Any, stubber: Stubber, code: str, status: int
) -> None:
    stubber.add_client_error("converse", service_error_code=code, http_status_code=status)
    with pytest.raises(BackendUnavailableError, match=code):
        BedrockLLM(client=client).extract_facts(event(), FACT_TYPES)


def test_access_denied_is_a_plain_error_not_a_retry(client: Any, stubber: Stubber) -> None:
    stubber.add_client_error("converse", service_error_code="AccessDeniedException", http_status_code=403)
    with pytest.raises(AgentMemError) as raised:
        BedrockLLM(client=client).extract_facts(event(), FACT_TYPES)
    assert not isinstance(raised.value, BackendUnavailableError)


def test_a_blob_event_sends_only_the_preview_and_says_so(
    client: Any, stubber: Stubber, sent: list[dict[str, Any]]
) -> None:
    blob = BlobRef(
        uri="s3://b/k",
        bytes=900_000,
        sha256="0" * 64,
        media_type="text/plain",
        preview="Risk tolerance: high",
    )
    stubber.add_response("converse", json_answer({"facts": []}))
    BedrockLLM(client=client).extract_facts(event(None, blob=blob), FACT_TYPES)
    prompt = sent[0]["messages"][0]["content"][0]["text"]
    assert "<event>\nRisk tolerance: high\n</event>" in prompt
    assert "Only a preview" in prompt


def test_nothing_to_read_means_no_call(client: Any, stubber: Stubber) -> None:
    blob = BlobRef(uri="s3://b/k", bytes=900_000, sha256="0" * 64, media_type="image/png", preview="")
    assert BedrockLLM(client=client).extract_facts(event(None, blob=blob), FACT_TYPES) == []
    assert BedrockLLM(client=client).extract_facts(event(), []) == []


def belief(value: str) -> Belief:
    return Belief(
        subject_id="priya", key="risk_tolerance", doc_id="risk_tolerance", value=value, version=1,
        text=f"Priya's risk tolerance is {value}.", current=True, flag=False, verdict=Verdict.NEW,
        provenance=[], valid_from="2026-11-30T00:00:00Z", source_seq=1, source_order="a",
    )  # fmt: skip


def observation(value: str) -> Observation:
    return Observation(
        subject_id="priya", key="risk_tolerance", text=f"Priya's risk tolerance is {value}.", value=value,
        order="b", event_id="ev2", session_id="s2", seq=2, stated_at="2026-11-30T00:00:01Z",
    )  # fmt: skip


@pytest.mark.parametrize("structured_output", ["json_schema", "tool"])
def test_decide_asks_for_record_verdict_and_returns_it(
    client: Any, stubber: Stubber, sent: list[dict[str, Any]], structured_output: Any
) -> None:
    answer = {"reason": "Cautious and aggressive are incompatible.", "verdict": "CONFLICT"}
    response = (
        json_answer(answer) if structured_output == "json_schema" else tool_answer("record_verdict", answer)
    )
    stubber.add_response("converse", response)
    llm = BedrockLLM(client=client, structured_output=structured_output)
    assert llm.decide(belief("cautious"), observation("aggressive"), FACT_TYPES[0]) is Verdict.CONFLICT
    (params,) = sent
    if structured_output == "tool":
        assert params["toolConfig"]["tools"][0]["toolSpec"]["inputSchema"]["json"] == VERDICT_TOOL.schema
        assert params["toolConfig"]["toolChoice"] == {"tool": {"name": "record_verdict"}}
    else:
        assert (
            json.loads(params["outputConfig"]["textFormat"]["structure"]["jsonSchema"]["schema"])
            == VERDICT_TOOL.schema
        )
    assert params["inferenceConfig"]["temperature"] == 0
    assert "CONFLICT" in params["system"][0]["text"]
    assert '"cautious"' in params["messages"][0]["content"][0]["text"]
    assert VERDICT_TOOL.schema["properties"]["verdict"]["enum"] == ["SAME", "UPDATE", "CONFLICT"]


def test_a_verdict_outside_the_enum_is_a_model_output_error(client: Any, stubber: Stubber) -> None:
    stubber.add_response("converse", json_answer({"reason": "first time", "verdict": "NEW"}))
    with pytest.raises(ModelOutputError):
        BedrockLLM(client=client).decide(belief("cautious"), observation("aggressive"), FACT_TYPES[0])


# --- key resolution ------------------------------------------------------------------------------

PROPOSAL = KeyProposal(
    key="home_city", description="", text="Priya's home city is Chicago.", value="Chicago",
    cardinality=Cardinality.SINGLE,
)  # fmt: skip
SINGLE = Cardinality.SINGLE
CANDIDATES = [
    KeyCandidate(key="city", description="Where the subject lives.", example="", cardinality=SINGLE,
                 declared=True, score=0.71),
    KeyCandidate(key="hometown", description="", example="Priya is from Leeds.", cardinality=SINGLE,
                 declared=False, score=0.52),
]  # fmt: skip


@pytest.mark.parametrize("structured_output", ["json_schema", "tool"])
def test_resolve_key_asks_for_record_key_with_the_candidates_in_the_prompt(
    client: Any, stubber: Stubber, sent: list[dict[str, Any]], structured_output: Any
) -> None:
    answer = {"reason": "A home city is where she lives.", "key": "city"}
    response = (
        json_answer(answer) if structured_output == "json_schema" else tool_answer("record_key", answer)
    )
    stubber.add_response("converse", response)
    choice = BedrockLLM(client=client, structured_output=structured_output).resolve_key(PROPOSAL, CANDIDATES)
    assert (choice.key, choice.reason) == ("city", "A home city is where she lives.")
    (params,) = sent
    prompt = params["messages"][0]["content"][0]["text"]
    assert "home_city" in prompt and "- city (single-valued, declared): Where the subject lives." in prompt
    assert '"Priya is from Leeds."' in prompt
    assert params["inferenceConfig"]["temperature"] == 0
    if structured_output == "tool":
        assert params["toolConfig"]["tools"][0]["toolSpec"]["inputSchema"]["json"] == KEY_TOOL.schema


@pytest.mark.parametrize("key", ["", "employer", "  "])
def test_a_key_outside_the_candidates_means_none_of_them(client: Any, stubber: Stubber, key: str) -> None:
    stubber.add_response("converse", json_answer({"reason": "No candidate fits.", "key": key}))
    assert BedrockLLM(client=client).resolve_key(PROPOSAL, CANDIDATES).key is None


def test_a_malformed_key_answer_is_a_model_output_error(client: Any, stubber: Stubber) -> None:
    stubber.add_response("converse", json_answer({"verdict": "city"}))
    with pytest.raises(ModelOutputError):
        BedrockLLM(client=client).resolve_key(PROPOSAL, CANDIDATES)
