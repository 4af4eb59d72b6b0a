"""The stream projector's failure path on the local backend, fed the stream sample in events/: an
event whose extraction fails (the model server is down) is reported for retry as before, and now
also has its history passages indexed and marks projection failing in the shared status, which
the deep health check reports; once the model answers again, the redelivered record projects,
its passages get their facts, and the status clears."""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from aws_lambda_powertools.utilities.batch.exceptions import BatchProcessingError

from agentmem.errors import BackendUnavailableError
from agentmem.model.beliefs import (
    Belief,
    FactInput,
    FactType,
    KeyCandidate,
    KeyChoice,
    KeyProposal,
    Observation,
    Verdict,
)
from agentmem.model.events import Event
from agentmem.semantic.health import deep_health
from tests.conftest import ROOT, FakeLambdaContext, load_event

DOWN = "extract facts: the model server is unreachable (APIConnectionError); check AGENTMEM_LLM_BASE_URL"
STATED = FactInput(key="risk_tolerance", text="Priya's risk tolerance is cautious.", value="cautious")


class ModelServer:
    """The LLM port of a model server that is down until `up` is set, then states STATED."""

    def __init__(self) -> None:
        self.up = False

    def extract_facts(
        self, event: Event, fact_types: Sequence[FactType], *, allow_undeclared: bool = False
    ) -> list[FactInput]:
        if not self.up:
            raise BackendUnavailableError(DOWN)
        return [STATED]

    def resolve_key(self, proposal: KeyProposal, candidates: Sequence[KeyCandidate]) -> KeyChoice:
        raise BackendUnavailableError(DOWN)

    def decide(self, current: Belief, candidate: Observation, fact_type: FactType) -> Verdict:
        raise BackendUnavailableError(DOWN)


@pytest.fixture
def projector(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.setenv("AGENTMEM_BACKEND", "local")
    monkeypatch.setenv("AGENTMEM_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("AGENTMEM_TENANT_ID", "acme")
    spec = importlib.util.spec_from_file_location(
        "projector_status_under_test", ROOT / "functions/projector/handler.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def prose_insert() -> dict[str, Any]:
    """The sample insert without its explicit facts, so projecting it needs extraction."""
    event = load_event("stream_insert_event.json")
    for record in event["Records"]:
        record["dynamodb"]["NewImage"].pop("facts_json")
    return event


def test_a_failing_event_still_becomes_passages_and_marks_projection_failing_until_it_projects(
    projector: ModuleType,
) -> None:
    services = projector.services
    model = ModelServer()
    services.semantic.llm = model
    event = prose_insert()

    # Given the model server is down, when the stream delivers the event, then it fails to be
    # retried as before (a batch whose every record failed raises, so Lambda retries it whole)
    with pytest.raises(BatchProcessingError):
        projector.handler(event, FakeLambdaContext())

    # And history already finds what it said
    (hit,) = services.semantic.passages.active().keyword_search("priya", "individual stocks", 5)
    assert (hit.passage.event_id, hit.passage.stated) == ("ev_3f9c2a7e5b1d4c08a6e2f1b9d7c3a501", ())
    # And the read side hears that projection fails, since when and why
    lag = services.semantic.projection_lag()
    assert lag is not None and (lag.failed_attempts, lag.last_error) == (1, DOWN)
    assert lag.unprojected_events is None and lag.lag_seconds is not None  # the stream cannot count
    report = deep_health(services.semantic)
    assert report.status == "failing" and report.projection is not None
    # lag_seconds is measured at each call, so it grows between the two: compare the rest.
    assert report.projection.model_dump(exclude={"lag_seconds"}) == lag.model_dump(exclude={"lag_seconds"})
    assert any(p.startswith("projection failing since") for p in report.problems)

    since = lag.failing_since
    with pytest.raises(BatchProcessingError):  # Lambda's retry, still down: still failing since then
        projector.handler(event, FakeLambdaContext())
    lag = services.semantic.projection_lag()
    assert lag is not None and lag.failing_since == since

    # When the model answers again and the record is redelivered
    model.up = True
    assert projector.handler(event, FakeLambdaContext()) == {"batchItemFailures": []}

    # Then the belief is there, the passage carries the fact it stated, and the status is clear
    assert [(b.key, b.value) for b in services.semantic.current("priya")] == [("risk_tolerance", "cautious")]
    (hit,) = services.semantic.passages.active().keyword_search("priya", "individual stocks", 5)
    assert [f.key for f in hit.passage.stated] == ["risk_tolerance"]
    assert services.semantic.projection_lag() is None
    assert deep_health(services.semantic).projection is None
