"""The old value a change names, asked of a model (issue 12): both adapters ask for `replaces` in
every extraction request, in both output modes, in a request the SDK's types (OpenAI) and
botocore's service model (Bedrock) accept; an answer's old value becomes `ExtractedFact.replaces`
when the event says it, and a bad one is dropped without losing its fact. An answer without the
field (a server that did not enforce the schema, an older one) reads as naming no old value."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from agentmem.adapters.aws.bedrock_llm import BedrockLLM
from agentmem.adapters.llm_prompts.facts import EXTRACT_TOOL
from agentmem.adapters.llm_prompts.open_keys import OPEN_EXTRACT_TOOL
from agentmem.adapters.llm_prompts.replaced import MAX_REPLACES_CHARS, REPLACES_RULE
from agentmem.adapters.openai_compat.chat import OpenAICompatLLM
from agentmem.model.beliefs import Cardinality, ExtractedFact, FactInput
from agentmem.ports.semantic import LLM
from tests.bedrock_fixtures import RecordedBedrock
from tests.bedrock_fixtures import converse_reply as bedrock_reply
from tests.contract.llm_contract import FACT_TYPES, event
from tests.openai_fixtures import FakeOpenAIServer

MOVED = "Priya moved from Pune to Lisbon in March."
NULLABLE = {"anyOf": [{"type": "string"}, {"type": "null"}]}


def city(**extra: Any) -> dict[str, Any]:
    return {"key": "city", "text": "Priya lives in Lisbon.", "value": "Lisbon", **extra}


class Model:
    """A model answering every extraction with `facts`, on either adapter and output mode; the
    request bodies it was sent are kept (OpenAI's checked against the SDK's types on the way)."""

    def __init__(self, adapter: str, mode: str, facts: list[dict[str, Any]]) -> None:
        answer = {"facts": facts}
        if adapter == "openai":
            self.server = FakeOpenAIServer(chat=lambda body: answer, takes_json_schema=mode == "json_schema")
            self.llm: LLM = OpenAICompatLLM("qwen2.5:7b-instruct", client=self.server.client())
            self.requests = self.server.requests
        else:
            bedrock = RecordedBedrock("bedrock-runtime", lambda request: bedrock_reply(answer, request))
            self.llm = BedrockLLM(client=bedrock.client, structured_output=mode)  # type: ignore[arg-type]
            self.requests = bedrock.requests

    def extract(self, text: str = MOVED, *, open_keys: bool = False) -> list[FactInput]:
        return self.llm.extract_facts(event(text), FACT_TYPES, allow_undeclared=open_keys)


ADAPTERS = ["bedrock", "openai"]
MODES = ["json_schema", "tool"]


def sent_schema(body: dict[str, Any]) -> dict[str, Any]:
    """The fact schema a request binds the answer to, whichever adapter and mode sent it."""
    if "response_format" in body:
        schema = body["response_format"]["json_schema"]["schema"]
    elif "tools" in body:
        schema = body["tools"][0]["function"]["parameters"]
    elif "toolConfig" in body:
        schema = body["toolConfig"]["tools"][0]["toolSpec"]["inputSchema"]["json"]
    else:
        schema = json.loads(body["outputConfig"]["textFormat"]["structure"]["jsonSchema"]["schema"])
    fact: dict[str, Any] = schema["properties"]["facts"]["items"]
    return fact


def sent_rules(body: dict[str, Any]) -> str:
    if "messages" in body and body["messages"][0].get("role") == "system":
        return str(body["messages"][0]["content"])
    return str(body["system"][0]["text"])


@pytest.mark.parametrize("open_keys", [False, True], ids=["declared", "open"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("adapter", ADAPTERS)
def test_every_extraction_request_asks_for_the_old_value_required_and_nullable(
    adapter: str, mode: str, open_keys: bool
) -> None:
    model = Model(adapter, mode, [])
    model.extract(open_keys=open_keys)
    body = model.requests[-1]  # the OpenAI fallback's probe is refused first
    fact = sent_schema(body)
    assert {k: v for k, v in fact["properties"]["replaces"].items() if k != "description"} == NULLABLE
    assert "replaces" in fact["required"]  # strict mode: every property required, none defaulted
    assert fact["required"] == list(fact["properties"])
    assert REPLACES_RULE in sent_rules(body)


def test_the_rule_says_what_it_means_with_one_example_and_forbids_inferring_it() -> None:
    for tool in (EXTRACT_TOOL, OPEN_EXTRACT_TOOL):
        assert REPLACES_RULE in tool.system
    assert '"Priya moved from Porto to Lisbon": value Lisbon, replaces Porto' in REPLACES_RULE
    assert "null unless the event itself names the earlier value; never infer it" in REPLACES_RULE


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("adapter", ADAPTERS)
def test_an_old_value_the_event_names_becomes_the_facts_replaces(adapter: str, mode: str) -> None:
    (fact,) = Model(adapter, mode, [city(replaces=" Pune ")]).extract()
    assert fact == ExtractedFact(key="city", text="Priya lives in Lisbon.", value="Lisbon", replaces="Pune")


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_a_proposed_key_keeps_its_proposal_and_its_old_value(adapter: str) -> None:
    text = "Priya left Globex for a design studio."
    employer = {
        "key": "employer", "text": "Priya works at a design studio.", "value": "a design studio",
        "replaces": "Globex", "cardinality": "single", "description": "The company the subject works for.",
    }  # fmt: skip
    (fact,) = Model(adapter, "json_schema", [employer]).extract(text, open_keys=True)
    assert isinstance(fact, ExtractedFact)
    assert (fact.key, fact.cardinality, fact.replaces) == ("employer", Cardinality.SINGLE, "Globex")
    assert fact.description == "The company the subject works for."


ABSENT: dict[str, dict[str, Any]] = {
    "null": city(replaces=None),
    "left out": city(),  # a server that did not hold the answer to the schema
    "empty": city(replaces=""),
    "blank": city(replaces="  \n "),
}


@pytest.mark.parametrize("answer", sorted(ABSENT))
@pytest.mark.parametrize("adapter", ADAPTERS)
def test_an_answer_naming_no_old_value_gives_the_plain_fact_as_before(adapter: str, answer: str) -> None:
    (fact,) = Model(adapter, "json_schema", [ABSENT[answer]]).extract()
    assert type(fact) is FactInput  # exactly what extraction gave before `replaces` was asked for
    assert fact == FactInput(key="city", text="Priya lives in Lisbon.", value="Lisbon")


BAD: dict[str, tuple[str, str]] = {
    "the new value": ("Lisbon", "an old value that is the new value"),
    "the new value, spelt otherwise": ("lisbon.", "an old value that is the new value"),
    "no words": ("...", "an old value with no words"),
    "not in the event": ("Porto", "an old value the event does not state"),
    "inferred in other words": ("the city of Pune", "an old value the event does not state"),
    "over the bound": (" ".join(["Pune"] * 120), "an old value out of bounds"),
}


@pytest.mark.parametrize("case", sorted(BAD))
@pytest.mark.parametrize("adapter", ADAPTERS)
def test_a_bad_old_value_is_dropped_and_logged_and_its_fact_kept(
    adapter: str, case: str, caplog: pytest.LogCaptureFixture
) -> None:
    old, why = BAD[case]
    with caplog.at_level(logging.INFO, logger="agentmem.adapters.llm_prompts.facts"):
        (fact,) = Model(adapter, "json_schema", [city(replaces=old)]).extract()
    assert fact == FactInput(key="city", text="Priya lives in Lisbon.", value="Lisbon")
    (record,) = [r for r in caplog.records if r.getMessage() == "model old value dropped"]
    assert (record.__dict__["key"], record.__dict__["why"]) == ("city", why)
    assert old not in str(record.__dict__.values())  # a value may be personal data: not logged


def test_the_bound_is_the_fields_own() -> None:
    assert len(" ".join(["Pune"] * 120)) > MAX_REPLACES_CHARS
    ExtractedFact(key="city", text="x", replaces="a" * MAX_REPLACES_CHARS)
    with pytest.raises(ValueError, match="replaces"):
        ExtractedFact(key="city", text="x", replaces="a" * (MAX_REPLACES_CHARS + 1))
