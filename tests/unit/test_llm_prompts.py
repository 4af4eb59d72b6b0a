"""The prompts and schemas the model-backed LLM adapters share (agentmem.adapters.llm_prompts).

Two things are pinned here. The schemas are generated from the pydantic models the answers are
parsed with, in the shape constrained decoders take. And the Bedrock and OpenAI-compatible
adapters send the same thing for the same call: system rules, user prompt, schema name,
description and body, and token ceiling, in both output modes. An adapter that grew its own
prompt or schema fails the drift tests below."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import BaseModel, Field

from agentmem.adapters.aws.bedrock_llm import BedrockLLM
from agentmem.adapters.aws.bedrock_relevance import BedrockRelevance
from agentmem.adapters.aws.bedrock_reviewer import BedrockSkillReviewer
from agentmem.adapters.llm_prompts.answers import ModelOutputError, OutputTool, answer_schema, parse
from agentmem.adapters.llm_prompts.facts import EXTRACT_TOOL, VERDICT_TOOL
from agentmem.adapters.llm_prompts.keys import KEY_TOOL
from agentmem.adapters.llm_prompts.open_keys import OPEN_EXTRACT_TOOL, OpenModelFact
from agentmem.adapters.llm_prompts.relevance import FILTER_TOOL, RANK_TOOL
from agentmem.adapters.llm_prompts.review import REVIEW_TOOL
from agentmem.adapters.openai_compat.chat import OpenAICompatLLM
from agentmem.adapters.openai_compat.duties import OpenAICompatRelevance, OpenAICompatSkillReviewer
from agentmem.procedural.model import Proposals, ProposedFunction
from tests.bedrock_fixtures import RecordedBedrock, converse_reply, tool_name, user_prompt
from tests.contract.llm_contract import CANDIDATES, FACT_TYPES, REVERSAL, STATED, SYNONYM, event
from tests.contract.relevance_contract import DOCUMENTS, QUESTION
from tests.contract.skill_reviewer_contract import SESSION
from tests.openai_fixtures import FakeOpenAIServer, schema_name

TOOLS = [EXTRACT_TOOL, OPEN_EXTRACT_TOOL, VERDICT_TOOL, KEY_TOOL, REVIEW_TOOL, FILTER_TOOL, RANK_TOOL]
DROPPED = {"title", "default", "minLength", "maxLength", "minimum", "maximum", "$ref", "$defs"}
# A valid (empty) answer per schema, so every duty completes on both adapters.
VALID: dict[str, Any] = {
    EXTRACT_TOOL.name: {"facts": []},
    OPEN_EXTRACT_TOOL.name: {"facts": []},
    VERDICT_TOOL.name: {"reason": "Restated.", "verdict": "SAME"},
    KEY_TOOL.name: {"reason": "None fits.", "key": ""},
    REVIEW_TOOL.name: {"functions": [], "guidance": []},
    FILTER_TOOL.name: {"relevant_ids": []},
    RANK_TOOL.name: {"ranked_ids": []},
}


def keywords(node: Any) -> set[str]:
    if isinstance(node, list):
        return set().union(*(keywords(n) for n in node))
    if not isinstance(node, dict):
        return set()
    own = set(node) - ({"properties"} if "properties" in node else set())
    nested = [keywords(v) for k, v in node.items() if k not in ("properties", "enum", "required")]
    nested += [keywords(v) for v in node.get("properties", {}).values()]
    return own.union(*nested)


def objects(node: Any) -> list[dict[str, Any]]:
    if isinstance(node, list):
        return [o for n in node for o in objects(n)]
    if not isinstance(node, dict):
        return []
    own = [node] if node.get("type") == "object" else []
    return own + [o for k, v in node.items() if k != "enum" for o in objects(v)]


# --- the generated schemas -------------------------------------------------------------------------


def test_the_extraction_schema_is_pinned() -> None:
    # Bedrock compiles a grammar per schema and caches it: a change here must be deliberate. The
    # last one added `replaces` (issue 12), required and nullable as OpenAI's strict mode takes it.
    fact = {
        "type": "object",
        "properties": {
            "key": {"type": "string", "description": "One of the declared fact keys."},
            "text": {"type": "string", "description": "A self-contained sentence."},
            "value": {"type": "string", "description": "The bare value, as the event words it."},
            "replaces": {
                "anyOf": [{"type": "string"}, {"type": "null"}],
                "description": "The earlier value the event says this one replaced, in its words, or null.",
            },
        },
        "required": ["key", "text", "value", "replaces"],
        "additionalProperties": False,
    }
    assert EXTRACT_TOOL.schema == {
        "type": "object",
        "properties": {"facts": {"type": "array", "items": fact}},
        "required": ["facts"],
        "additionalProperties": False,
    }
    assert VERDICT_TOOL.schema["properties"]["verdict"] == {
        "type": "string",
        "enum": ["SAME", "UPDATE", "CONFLICT"],
    }
    assert list(VERDICT_TOOL.schema["properties"]) == ["reason", "verdict"]  # the reason is written first


def test_open_keys_add_a_cardinality_and_a_description_to_each_fact_and_their_own_rules() -> None:
    fact = OPEN_EXTRACT_TOOL.schema["properties"]["facts"]["items"]
    assert list(fact["properties"]) == list(OpenModelFact.model_fields)
    assert list(fact["properties"]) == ["key", "text", "value", "replaces", "cardinality", "description"]
    closed = EXTRACT_TOOL.schema["properties"]["facts"]["items"]["properties"]["replaces"]
    assert fact["properties"]["replaces"] == closed  # the same old value, asked the same way
    assert fact["properties"]["cardinality"] == {
        "type": "string",
        "enum": ["single", "set"],
        "description": OpenModelFact.model_fields["cardinality"].description,
    }
    assert "Use only the declared fact keys" in EXTRACT_TOOL.system
    assert "Use only the declared fact keys" not in OPEN_EXTRACT_TOOL.system
    assert "never infer" in OPEN_EXTRACT_TOOL.system.casefold()
    assert OPEN_EXTRACT_TOOL.name != EXTRACT_TOOL.name  # each schema has its own cached grammar


def test_the_extraction_prompt_says_new_keys_are_allowed_only_in_open_mode() -> None:
    def prompt(allow: bool) -> str:
        return str(openai_sent("extract_open_keys" if allow else "extract", "json_schema")["prompt"])

    closed, open_ = prompt(False), prompt(True)
    assert "New keys are allowed" in open_ and "New keys are allowed" not in closed
    assert open_.replace(open_.split("<event>")[0], "") == closed.replace(closed.split("<event>")[0], "")


@pytest.mark.parametrize("tool", TOOLS, ids=lambda t: t.name)
def test_every_schema_is_generated_from_its_answer_model(tool: OutputTool) -> None:
    assert tool.schema == answer_schema(tool.answer)


@pytest.mark.parametrize("tool", TOOLS, ids=lambda t: t.name)
def test_every_schema_is_closed_inlined_and_free_of_keywords_decoders_refuse(tool: OutputTool) -> None:
    assert not keywords(tool.schema) & DROPPED
    assert objects(tool.schema)
    for obj in objects(tool.schema):
        assert obj["additionalProperties"] is False
        assert obj["required"] == list(obj["properties"])
    json.dumps(tool.schema)  # serialisable as sent


def test_the_review_schema_comes_from_the_procedural_tiers_own_model() -> None:
    assert REVIEW_TOOL.answer is Proposals
    function = REVIEW_TOOL.schema["properties"]["functions"]["items"]
    assert list(function["properties"]) == list(ProposedFunction.model_fields)


def test_a_constraint_left_out_of_the_schema_is_still_checked_when_parsing() -> None:
    class Answer(BaseModel):
        items: list[str] = Field(default_factory=list, min_length=1)
        seq: int = Field(ge=1)

    schema = answer_schema(Answer)
    assert "minItems" not in json.dumps(schema) and "minimum" not in json.dumps(schema)
    with pytest.raises(ModelOutputError, match="seq"):
        parse(Answer, {"items": ["a"], "seq": 0})
    with pytest.raises(ModelOutputError, match="items"):
        parse(Answer, {"seq": 1})  # defaulted in the model, but the schema requires it
    assert parse(Answer, {"items": ["a"], "seq": 1}).seq == 1


# --- the two adapters send the same thing ----------------------------------------------------------

Duty = Callable[[Any], object]
DUTIES: dict[str, tuple[str, Duty]] = {
    "extract": ("llm", lambda llm: llm.extract_facts(event(STATED), FACT_TYPES)),
    "extract_open_keys": (
        "llm",
        lambda llm: llm.extract_facts(event(STATED), FACT_TYPES, allow_undeclared=True),
    ),
    "decide": ("llm", lambda llm: llm.decide(*REVERSAL)),
    "resolve_key": ("llm", lambda llm: llm.resolve_key(SYNONYM, CANDIDATES)),
    "review": ("reviewer", lambda reviewer: reviewer.propose_skills(SESSION)),
    "filter": ("relevance", lambda model: model.relevant(QUESTION, DOCUMENTS)),
    "rank": ("relevance", lambda model: model.rank(QUESTION, DOCUMENTS)),
}


def bedrock_sent(duty: str, mode: str) -> dict[str, Any]:
    bedrock = RecordedBedrock("bedrock-runtime", lambda r: converse_reply(VALID[tool_name(r)], r))
    llm = BedrockLLM(client=bedrock.client, structured_output=mode)  # type: ignore[arg-type]
    role, call = DUTIES[duty]
    call({"llm": llm, "reviewer": BedrockSkillReviewer(llm), "relevance": BedrockRelevance(llm)}[role])
    (body,) = bedrock.requests
    if mode == "json_schema":
        spec = body["outputConfig"]["textFormat"]["structure"]["jsonSchema"]
        name, description, schema = spec["name"], spec["description"], json.loads(spec["schema"])
    else:
        spec = body["toolConfig"]["tools"][0]["toolSpec"]
        name, description, schema = spec["name"], spec["description"], spec["inputSchema"]["json"]
    return {
        "system": body["system"][0]["text"],
        "prompt": user_prompt(body),
        "name": name,
        "description": description,
        "schema": schema,
        "max_tokens": body["inferenceConfig"]["maxTokens"],
        "temperature": body["inferenceConfig"]["temperature"],
    }


def openai_sent(duty: str, mode: str) -> dict[str, Any]:
    server = FakeOpenAIServer(chat=lambda body: VALID[schema_name(body)])
    llm = OpenAICompatLLM("qwen2.5:7b-instruct", client=server.client(), structured_output=mode)  # type: ignore[arg-type]
    role, call = DUTIES[duty]
    call(
        {"llm": llm, "reviewer": OpenAICompatSkillReviewer(llm), "relevance": OpenAICompatRelevance(llm)}[
            role
        ]
    )
    (body,) = server.requests
    system, user = body["messages"]
    assert (system["role"], user["role"]) == ("system", "user")
    if mode == "json_schema":
        spec = body["response_format"]["json_schema"]
        name, description, schema = spec["name"], spec["description"], spec["schema"]
    else:
        spec = body["tools"][0]["function"]
        name, description, schema = spec["name"], spec["description"], spec["parameters"]
    return {
        "system": system["content"],
        "prompt": user["content"],
        "name": name,
        "description": description,
        "schema": schema,
        "max_tokens": body["max_tokens"],
        "temperature": body["temperature"],
    }


@pytest.mark.parametrize("mode", ["json_schema", "tool"])
@pytest.mark.parametrize("duty", sorted(DUTIES))
def test_bedrock_and_openai_compatible_servers_are_asked_the_same_thing(duty: str, mode: str) -> None:
    bedrock, openai_compatible = bedrock_sent(duty, mode), openai_sent(duty, mode)
    assert bedrock == openai_compatible
    tool = next(t for t in TOOLS if t.name == bedrock["name"])
    assert bedrock["schema"] == answer_schema(tool.answer)
    assert (bedrock["system"], bedrock["max_tokens"], bedrock["temperature"]) == (
        tool.system,
        tool.max_tokens,
        0,
    )
