"""The projector Lambda entry point, fed the DynamoDB stream samples in events/, on the local backend.

The samples were captured from the real DynamoDB log adapter (on moto), so their NewImages are exactly
what an append writes: an event item, its session head and its idempotency record."""

from __future__ import annotations

import importlib.util
import json
import logging
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from aws_lambda_powertools.utilities.batch.exceptions import BatchProcessingError

from agentmem.entrypoints.observability import logger as stream_logger
from agentmem.semantic.health import deep_health
from agentmem.settings import Settings
from agentmem.wiring import bootstrap
from tests.conftest import ROOT, FakeLambdaContext, load_event


def load_handler(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        f"{name}_handler_under_test", ROOT / f"functions/{name}/handler.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def projector(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.setenv("AGENTMEM_BACKEND", "local")
    monkeypatch.setenv("AGENTMEM_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("AGENTMEM_TENANT_ID", "acme")
    return load_handler("projector")


def invoke(module: ModuleType, event: dict[str, Any]) -> dict[str, Any]:
    response: dict[str, Any] = module.handler(event, FakeLambdaContext())
    return response


def current_values(module: ModuleType) -> dict[str, str]:
    return {belief.key: belief.value for belief in module.services.semantic.current("priya")}


def snapshot(module: ModuleType) -> list[dict[str, Any]]:
    """Every version of every belief about priya: what a redelivery must leave untouched."""
    semantic = module.services.semantic
    keys = sorted({belief.key for belief in semantic.current("priya")})
    return [v.model_dump() for key in keys for v in semantic.belief("priya", key, history=True).history or []]


def emitted(out: str) -> dict[str, float]:
    """Metric values from the EMF lines Powertools printed, summed by name."""
    totals: dict[str, float] = {}
    for line in out.splitlines():
        if '"_aws"' not in line:
            continue
        record = json.loads(line)
        for metric in record["_aws"]["CloudWatchMetrics"][0]["Metrics"]:
            value = record[metric["Name"]]
            totals[metric["Name"]] = totals.get(metric["Name"], 0) + sum(
                value if isinstance(value, list) else [value]
            )
    return totals


def test_a_cold_start_prepares_the_belief_store_for_the_read_function(projector: ModuleType) -> None:
    # The read function may not write to the index: the projector creates it and seeds the probe.
    report = deep_health(projector.services.semantic)
    assert (report.status, report.problems) == ("ok", []), report


def test_insert_of_an_event_projects_its_stated_fact(projector: ModuleType) -> None:
    response = invoke(projector, load_event("stream_insert_event.json"))

    assert response == {"batchItemFailures": []}
    (belief,) = projector.services.semantic.current("priya")
    assert (belief.key, belief.value, belief.text) == (
        "risk_tolerance",
        "cautious",
        "Priya's risk tolerance is cautious.",
    )
    assert [p.event_id for p in belief.provenance] == ["ev_3f9c2a7e5b1d4c08a6e2f1b9d7c3a501"]


def test_an_inserted_event_becomes_history_passages_once(projector: ModuleType) -> None:
    invoke(projector, load_event("stream_insert_event.json"))
    passages = projector.services.semantic.passages
    indexed = passages.active().count("priya")
    assert indexed >= 1
    (hit,) = passages.active().keyword_search("priya", "risk tolerance", 5)[:1]
    assert hit.passage.event_id == "ev_3f9c2a7e5b1d4c08a6e2f1b9d7c3a501"
    assert [f.key for f in hit.passage.stated] == ["risk_tolerance"]  # the belief it produced
    invoke(projector, load_event("stream_insert_event.json"))  # at-least-once: a redelivery
    assert passages.active().count("priya") == indexed


def test_projection_is_durable_for_a_fresh_process(projector: ModuleType) -> None:
    invoke(projector, load_event("stream_insert_event.json"))

    fresh = bootstrap(Settings.from_env())

    assert [(b.key, b.value) for b in fresh.semantic.current("priya")] == [("risk_tolerance", "cautious")]


def test_mixed_batch_projects_the_event_once_and_skips_heads_and_idempotency_records(
    projector: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    response = invoke(projector, load_event("stream_mixed_batch.json"))

    assert response == {"batchItemFailures": []}
    (belief,) = projector.services.semantic.current("priya")
    assert len(belief.provenance) == 1
    assert emitted(capsys.readouterr().out) == {"EventsProjected": 1, "StreamRecordsSkipped": 3}


def test_poison_record_fails_alone_and_the_good_ones_are_projected(
    projector: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    event = load_event("stream_poison_batch.json")
    (poison,) = [r for r in event["Records"] if "event_id" not in r["dynamodb"]["NewImage"]]

    response = invoke(projector, event)

    assert response == {"batchItemFailures": [{"itemIdentifier": poison["dynamodb"]["SequenceNumber"]}]}
    assert current_values(projector) == {"goal": "house deposit", "employer": "Contoso Health"}
    assert emitted(capsys.readouterr().out) == {"EventsProjected": 2, "StreamRecordsFailed": 1}


def test_poison_record_is_logged_with_its_sequence_number(
    projector: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    event = load_event("stream_poison_batch.json")
    invoke(projector, event)

    (failure,) = [r for r in caplog.records if r.getMessage() == "stream record failed"]
    assert failure.levelname == "ERROR"
    assert failure.__dict__["sequence_number"] == event["Records"][1]["dynamodb"]["SequenceNumber"]
    assert failure.exc_info is not None
    assert failure.exc_info[0] is KeyError


def test_a_batch_of_nothing_but_poison_fails_the_invocation(projector: ModuleType) -> None:
    # Powertools raises when every record failed, so Lambda retries (bisecting) and finally dead-letters it.
    event = load_event("stream_poison_batch.json")
    event["Records"] = [r for r in event["Records"] if "event_id" not in r["dynamodb"]["NewImage"]]

    with pytest.raises(BatchProcessingError):
        invoke(projector, event)


@pytest.mark.parametrize(
    "names",
    [
        ["stream_insert_event.json"],
        ["stream_mixed_batch.json"],
        ["stream_poison_batch.json"],
        ["stream_insert_event.json", "stream_mixed_batch.json", "stream_poison_batch.json"],
    ],
)
def test_redelivering_the_same_batches_changes_nothing(projector: ModuleType, names: list[str]) -> None:
    first = [invoke(projector, load_event(name)) for name in names]
    state = snapshot(projector)
    assert state

    again = [invoke(projector, load_event(name)) for name in names]

    assert again == first
    assert snapshot(projector) == state


def test_a_modified_event_is_skipped_with_a_warning(
    projector: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    # The log is append-only; a MODIFY of an event item means something rewrote the log.
    event = load_event("stream_insert_event.json")
    event["Records"][0]["eventName"] = "MODIFY"

    response = invoke(projector, event)

    assert response == {"batchItemFailures": []}
    assert current_values(projector) == {}
    skipped = [r for r in caplog.records if r.getMessage() == "stream record skipped"]
    assert [(r.levelname, r.__dict__["event_name"]) for r in skipped] == [("WARNING", "MODIFY")]


def test_an_event_expired_by_ttl_leaves_the_beliefs_distilled_from_it(
    projector: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    # Retention: DynamoDB's TTL deletes the event (userIdentity dynamodb.amazonaws.com); a REMOVE
    # record of a NEW_IMAGE stream carries the keys only. Beliefs survive their raw events.
    invoke(projector, load_event("stream_insert_event.json"))
    before = snapshot(projector)
    caplog.set_level(logging.DEBUG, logger=stream_logger.name)

    response = invoke(projector, load_event("stream_ttl_remove.json"))

    assert response == {"batchItemFailures": []}
    assert snapshot(projector) == before and before
    (ignored,) = [r for r in caplog.records if r.getMessage() == "event removal ignored"]
    assert ignored.__dict__["expired"] is True


def test_an_event_removed_by_an_erasure_changes_no_belief_either(projector: ModuleType) -> None:
    event = load_event("stream_ttl_remove.json")
    del event["Records"][0]["userIdentity"]  # the erasure function's own delete

    response = invoke(projector, event)

    assert response == {"batchItemFailures": []}
    assert current_values(projector) == {}


def test_a_redelivered_insert_of_an_erased_subject_is_not_projected(projector: ModuleType) -> None:
    projector.services.erasure.erase("priya")

    response = invoke(projector, load_event("stream_insert_event.json"))

    assert response == {"batchItemFailures": []}
    assert current_values(projector) == {}


def test_read_handler_serves_what_the_projector_projected(projector: ModuleType) -> None:
    # Same data dir: the read function (on AWS another process) reads the projection, not projector memory.
    invoke(projector, load_event("stream_insert_event.json"))
    read = load_handler("read")
    event = load_event(
        "api_list_events.json",
        resource="/v1/subjects/{subject_id}/beliefs",
        path="/v1/subjects/priya/beliefs",
        pathParameters={"subject_id": "priya"},
        queryStringParameters=None,
        multiValueQueryStringParameters=None,
    )

    response = read.handler(event, FakeLambdaContext())

    assert response["statusCode"] == 200
    items = json.loads(response["body"])["items"]
    assert [(item["key"], item["value"]) for item in items] == [("risk_tolerance", "cautious")]


def test_read_handler_openapi_document_lists_the_reads_and_the_writes(projector: ModuleType) -> None:
    # API Gateway routes /v1/openapi.json to the read function, so its document must be the whole API.
    response = load_handler("read").handler(load_event("api_openapi.json"), FakeLambdaContext())

    paths = json.loads(response["body"])["paths"]
    assert {
        "/v1/sessions/{session_id}/events",
        "/v1/subjects/{subject_id}/beliefs",
        "/v1/subjects/{subject_id}/beliefs/{key}",
        "/v1/subjects/{subject_id}/beliefs/search",
        "/v1/health/deep",
    } <= set(paths)


def test_skill_records_reindex_the_library_item_they_name(projector: ModuleType) -> None:
    """A function approved in the library reaches the skill index through its stream record; a
    link record changes nothing; a REMOVE of guidance removes it from the index."""
    from agentmem.procedural.model import FunctionSpec, GuidanceSpec, SkillStatus

    services = projector.services
    services.skills.put_function(
        FunctionSpec(
            function_id="net_revenue",
            name="net_revenue",
            docstring="Net revenue for a month: gross sales minus refunds and discounts.",
            implementation="return gross - refunds - discounts",
            status=SkillStatus.APPROVED,
        )
    )
    services.skills.put_guidance(
        GuidanceSpec(guidance_id="close", title="Month close", status=SkillStatus.APPROVED)
    )
    services.skill_search.sync_keys([("guidance", "close")])
    services.skills.delete_guidance("close")
    assert ("guidance", "close") in services.skill_index.stamps()

    response = invoke(projector, load_event("stream_skill_changes.json"))

    assert response == {"batchItemFailures": []}
    assert set(services.skill_index.stamps()) == {("function", "net_revenue")}
