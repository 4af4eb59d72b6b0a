"""The OpenAI-compatible adapters against recorded exchanges (tests/data/openai/*.json): one file per
server and duty (Ollama, vLLM, llama.cpp, LM Studio, a LiteLLM proxy, OpenAI), each a sequence of
request and answer.

The exchanges are hand-authored in each server's wire format, not captured from a live server
(no model runs on these machines): the requests are what the adapters send, the answers are
written after the servers' documented answers, extra fields included. So they pin three things:
the adapter sends exactly the recorded request (a changed prompt, schema or parameter shows up
here as a diff to review, and the fixture is updated with it); every recorded request is valid
for the SDK's parameter types and every recorded answer parses as the SDK's response model; and
what the adapter makes of each answer (facts kept and dropped, the verdict, the error)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import openai
import pytest
from openai.types import CreateEmbeddingResponse
from openai.types.chat import ChatCompletion

from agentmem.adapters.openai_compat.chat import OpenAICompatLLM
from agentmem.adapters.openai_compat.duties import OpenAICompatRelevance, OpenAICompatSkillReviewer
from agentmem.adapters.openai_compat.embedder import OpenAICompatEmbedder
from agentmem.errors import AgentMemError, BackendUnavailableError
from agentmem.model.beliefs import Cardinality, ExtractedFact, FactInput, KeyChoice, Verdict
from agentmem.model.events import Event
from tests.contract.llm_contract import CANDIDATES, FACT_TYPES, MOVE, REVERSAL, SYNONYM, event
from tests.contract.relevance_contract import DOCUMENTS, QUESTION
from tests.openai_fixtures import check_chat_request, check_embedding_request

DATA = Path(__file__).parents[1] / "data" / "openai"
NOTES = event(
    "Call notes: Priya says her risk tolerance is aggressive now. She moved to Lisbon in March "
    "and still earns $135,000 a year."
)
NOTES_FACTS = [
    FactInput(key="risk_tolerance", text="Priya's risk tolerance is aggressive.", value="aggressive"),
    FactInput(key="city", text="Priya lives in Lisbon.", value="Lisbon"),
    FactInput(key="income", text="Priya earns $135,000 a year.", value="$135,000"),
]
# A change that names what it replaces: the recorded answer gives each fact's old value, one of
# them one the event never states (an inference, dropped; the fact is kept without it).
CHANGES = event(
    "Call notes: Priya moved from Pune to Lisbon in March. Her risk tolerance is aggressive now, "
    "not cautious. She still earns $135,000 a year, and left Globex for a design studio."
)
CHANGES_FACTS = [
    ExtractedFact(key="city", text="Priya lives in Lisbon.", value="Lisbon", replaces="Pune"),
    ExtractedFact(
        key="risk_tolerance",
        text="Priya's risk tolerance is aggressive.",
        value="aggressive",
        replaces="cautious",
    ),
    FactInput(key="income", text="Priya earns $135,000 a year.", value="$135,000"),
    ExtractedFact(
        key="employer",
        text="Priya works at a design studio.",
        value="a design studio",
        cardinality=Cardinality.SINGLE,
        description="The company the subject works for.",
        replaces="Globex",
    ),
]
ADD_VAT = "def add_vat(net: float) -> float:\n    return net * 1.2\n"


def session_event(seq: int, kind: str, content: object) -> Event:
    return Event(
        event_id=f"ev{seq}", session_id="s1", seq=seq, subject_id="acme", round=0, agent="closer",
        kind=kind, media_type="text/plain", content=content, created_at="2026-11-30T00:00:00Z",
    )  # fmt: skip


SESSION = [
    session_event(1, "message", "chit-chat that is not reviewed"),
    session_event(2, "code", {"name": "add_vat", "implementation": ADD_VAT}),
    session_event(3, "procedure", "# Invoice VAT\nUse `add_vat` on every net line."),
]


@dataclass(frozen=True)
class Scenario:
    """What is called on the recorded server, and what must come of it (a value, or a check of
    the error raised)."""

    base_url: str
    run: Callable[[openai.OpenAI], object]
    expected: object = None
    error: Callable[[AgentMemError], bool] | None = None
    api_key: str = "unused"


def llm(model: str) -> Callable[[openai.OpenAI], OpenAICompatLLM]:
    return lambda client: OpenAICompatLLM(model, client=client)


def extract_then_decide(client: openai.OpenAI) -> object:
    adapter = OpenAICompatLLM("ollama_chat/llama3.1", client=client)
    return adapter.extract_facts(NOTES, FACT_TYPES), adapter.decide(*MOVE), adapter.structured_output


def review(client: openai.OpenAI) -> object:
    proposals = OpenAICompatSkillReviewer(OpenAICompatLLM("qwen2.5-coder-7b-instruct", client=client))
    found = proposals.propose_skills(SESSION)
    return [f.name for f in found.functions], [(g.title, g.uses) for g in found.guidance]


def embed(client: openai.OpenAI) -> object:
    embedder = OpenAICompatEmbedder("all-minilm", 384, client=client)
    vectors = embedder.embed(["Priya's risk tolerance is cautious", "Priya lives in Pune"])
    # Ollama's vectors are already of unit length: normalising again changes them by rounding only.
    (exchange,) = load("ollama_embeddings")["exchanges"]
    recorded = [
        d["embedding"] for d in sorted(exchange["response"]["body"]["data"], key=lambda d: d["index"])
    ]
    return all(v == pytest.approx(r, abs=1e-6) for v, r in zip(vectors, recorded, strict=True))


SCENARIOS: dict[str, Scenario] = {
    "ollama_extract": Scenario(
        "http://localhost:11434/v1",
        lambda c: llm("qwen2.5:7b-instruct")(c).extract_facts(NOTES, FACT_TYPES),
        NOTES_FACTS,  # the undeclared `employer` fact is dropped
    ),
    "litellm_tool_fallback": Scenario(
        "http://localhost:4000/v1",
        extract_then_decide,
        (NOTES_FACTS, Verdict.UPDATE, "tool"),
        api_key="sk-1234",
    ),
    "vllm_extract_replaces": Scenario(
        "http://localhost:8000/v1",
        lambda c: llm("Qwen/Qwen2.5-7B-Instruct")(c).extract_facts(
            CHANGES, FACT_TYPES, allow_undeclared=True
        ),
        CHANGES_FACTS,
    ),
    "vllm_verdict": Scenario(
        "http://localhost:8000/v1",
        lambda c: llm("Qwen/Qwen2.5-7B-Instruct")(c).decide(*REVERSAL),
        Verdict.CONFLICT,
    ),
    "llamacpp_resolve_key": Scenario(
        "http://localhost:8080/v1",
        lambda c: llm("gpt-3.5-turbo")(c).resolve_key(SYNONYM, CANDIDATES),
        KeyChoice(key="city", reason="A home city is the city she lives in."),
    ),
    "lmstudio_review": Scenario(
        "http://localhost:1234/v1", review, (["add_vat"], [("Invoice VAT", ["add_vat"])])
    ),
    "openai_rank": Scenario(
        "https://api.openai.com/v1",
        lambda c: OpenAICompatRelevance(llm("gpt-4o-mini")(c)).rank(QUESTION, DOCUMENTS),
        ["revenue", "refunds", "payroll", "holidays"],
        api_key="sk-test",
    ),
    "ollama_embeddings": Scenario("http://localhost:11434/v1", embed, True),
    "ollama_model_not_found": Scenario(
        "http://localhost:11434/v1",
        lambda c: llm("llama3.2")(c).extract_facts(NOTES, FACT_TYPES),
        error=lambda e: (
            not isinstance(e, BackendUnavailableError)
            and "HTTP 404" in e.message
            and "AGENTMEM_LLM_MODEL" in e.message
        ),
    ),
    "openai_rate_limited": Scenario(
        "https://api.openai.com/v1",
        lambda c: llm("gpt-4o-mini")(c).decide(*REVERSAL),
        error=lambda e: isinstance(e, BackendUnavailableError) and e.retry_after_seconds == 20,
        api_key="sk-test",
    ),
}


def load(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))
    return loaded


class Replay:
    """A transport that answers each request with the next recorded answer, after checking that
    the request is the recorded one."""

    def __init__(self, exchanges: list[dict[str, Any]]) -> None:
        self.pending = list(exchanges)

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        assert self.pending, "a request beyond the recorded ones"
        exchange = self.pending.pop(0)
        recorded = exchange["request"]
        assert (request.method, request.url.path) == (recorded["method"], recorded["path"])
        assert json.loads(request.content) == recorded["body"]
        answer = exchange["response"]
        return httpx2.Response(answer["status"], json=answer["body"], headers=answer["headers"])

    def client(self, base_url: str, api_key: str) -> openai.OpenAI:
        transport = httpx2.MockTransport(self.handle)
        return openai.OpenAI(
            base_url=base_url, api_key=api_key, http_client=httpx2.Client(transport=transport), max_retries=0
        )


def test_every_recording_has_a_scenario_and_every_scenario_a_recording() -> None:
    assert sorted(p.stem for p in DATA.glob("*.json")) == sorted(SCENARIOS)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_the_adapter_sends_the_recorded_requests_and_makes_the_expected_use_of_the_answers(name: str) -> None:
    scenario = SCENARIOS[name]
    replay = Replay(load(name)["exchanges"])
    client = replay.client(scenario.base_url, scenario.api_key)
    if scenario.error is not None:
        with pytest.raises(AgentMemError) as raised:
            scenario.run(client)
        assert scenario.error(raised.value), raised.value.message
    else:
        assert scenario.run(client) == scenario.expected
    assert not replay.pending, "recorded exchanges the adapter never made"


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_every_recorded_request_and_answer_fits_the_sdks_types(name: str) -> None:
    for exchange in load(name)["exchanges"]:
        request, answer = exchange["request"], exchange["response"]
        embeddings = request["path"].endswith("/embeddings")
        (check_embedding_request if embeddings else check_chat_request)(request["body"])
        if answer["status"] == 200:
            (CreateEmbeddingResponse if embeddings else ChatCompletion).model_validate(answer["body"])
        else:
            assert set(answer["body"]["error"]) == {"message", "type", "param", "code"}
