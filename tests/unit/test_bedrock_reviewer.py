"""The Bedrock review duty against botocore's Stubber: the Converse request validates against the
service model, carries the review schema at temperature 0, and an implementation the model
invented (not text of a reviewed event) is refused before anything reaches the library."""

from __future__ import annotations

import json
from typing import Any

import boto3
import pytest
from botocore.stub import ANY, Stubber

from agentmem.adapters.aws.bedrock_llm import BedrockLLM
from agentmem.adapters.aws.bedrock_reviewer import BedrockSkillReviewer
from agentmem.adapters.llm_prompts.answers import ModelOutputError
from agentmem.adapters.llm_prompts.review import REVIEW_TOOL
from agentmem.model.events import Event

CODE = "def add_vat(net: float) -> float:\n    return net * 1.2\n"


def event(seq: int, kind: str, content: Any) -> Event:
    return Event(
        event_id=f"ev{seq}", session_id="s1", seq=seq, subject_id="acme", round=0, agent="closer",
        kind=kind, media_type="text/plain", content=content, created_at="2026-11-30T00:00:00Z",
    )  # fmt: skip


EVENTS = [
    event(1, "message", "chit-chat that is not reviewed"),
    event(2, "code", {"name": "add_vat", "implementation": CODE}),
    event(3, "procedure", "# Invoice VAT\nUse `add_vat` on every net line."),
]


def answer(payload: Any) -> dict[str, Any]:
    return {
        "output": {"message": {"role": "assistant", "content": [{"text": json.dumps(payload)}]}},
        "stopReason": "end_turn",
        "usage": {"inputTokens": 300, "outputTokens": 90, "totalTokens": 390},
        "metrics": {"latencyMs": 400},
    }


def proposed(implementation: str) -> dict[str, Any]:
    function = {
        "name": "add_vat", "signature": "def add_vat(net: float) -> float", "docstring": "",
        "implementation": implementation, "language": "python", "calls": [], "tags": [], "source_seq": 2,
    }  # fmt: skip
    guidance = {
        "title": " Invoice VAT ",
        "content": "Use `add_vat`.",
        "uses": ["add_vat"],
        "tags": [],
        "source_seq": 3,
    }
    return {"functions": [function], "guidance": [guidance]}


@pytest.fixture
def client() -> Any:
    return boto3.client("bedrock-runtime", region_name="us-east-1")


def test_the_request_is_valid_and_only_reviewed_kinds_are_sent(client: Any) -> None:
    reviewer = BedrockSkillReviewer(BedrockLLM(client=client))
    with Stubber(client) as stub:
        expected = {k: ANY for k in ("modelId", "system", "messages", "outputConfig")}
        expected["inferenceConfig"] = {"temperature": 0, "maxTokens": 8192}
        stub.add_response("converse", answer(proposed(CODE)), expected)
        proposals = reviewer.propose_skills(EVENTS)
        stub.assert_no_pending_responses()
    prompt = reviewer.prompt(EVENTS)
    assert prompt is not None and "chit-chat" not in prompt and "<event seq=2 kind=code" in prompt
    structure = BedrockLLM(client=client).request("p", REVIEW_TOOL)["outputConfig"]["textFormat"]["structure"]
    schema = json.loads(structure["jsonSchema"]["schema"])
    assert schema == REVIEW_TOOL.schema
    assert [f.name for f in proposals.functions] == ["add_vat"]
    assert proposals.guidance[0].title == "Invoice VAT" and proposals.guidance[0].uses == ["add_vat"]


def test_an_invented_implementation_is_refused(client: Any) -> None:
    reviewer = BedrockSkillReviewer(BedrockLLM(client=client))
    improved = "def add_vat(net: float) -> float:\n    return round(net * 1.2, 2)\n"
    with Stubber(client) as stub:
        stub.add_response("converse", answer(proposed(improved)))
        proposals = reviewer.propose_skills(EVENTS)
    assert proposals.functions == []
    assert len(proposals.guidance) == 1  # guidance is prose; its links are resolved by name later


def test_a_session_with_nothing_to_review_makes_no_call(client: Any) -> None:
    reviewer = BedrockSkillReviewer(BedrockLLM(client=client))
    with Stubber(client):  # any call would fail: no response is queued
        assert reviewer.propose_skills(EVENTS[:1]).functions == []


def test_an_answer_outside_the_schema_is_a_model_error(client: Any) -> None:
    reviewer = BedrockSkillReviewer(BedrockLLM(client=client))
    with Stubber(client) as stub, pytest.raises(ModelOutputError):
        stub.add_response("converse", answer({"functions": [{"name": "x"}], "guidance": []}))
        reviewer.propose_skills(EVENTS)
