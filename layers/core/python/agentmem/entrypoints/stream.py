"""What the stream projector does with one DynamoDB stream record of the log table: project an
inserted event into the semantic tier, or re-index the function, guidance or asset a record names
(the skill library and the catalogue share the table; their search indexes are projections too).
Kept here so the Lambda entry point stays a few lines of wiring."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aws_lambda_powertools.metrics import MetricUnit

from agentmem.adapters.aws.dynamodb_catalogue_items import asset_id_of
from agentmem.adapters.aws.dynamodb_items import item_to_event
from agentmem.adapters.aws.dynamodb_skills import skill_key_of
from agentmem.entrypoints.observability import logger, metrics
from agentmem.semantic.health import prepare_for_writes
from agentmem.wiring.bootstrap import Services


def prepare(services: Services) -> None:
    """Create what the projector writes before its first record: the read functions may only
    read these indexes, so the writer creates them and seeds the belief probe."""
    prepare_for_writes(services.semantic)
    if services.settings.procedural_enabled:
        services.skill_index.ensure_ready()
    services.composer.index.ensure_ready()


def _count(name: str) -> None:
    metrics.add_metric(name=name, unit=MetricUnit.Count, value=1)


def _reindex(what: str, run: Callable[[], tuple[int, int]], where: dict[str, str]) -> None:
    """Insert, modify and remove alike: the item is read again from the table, so a redelivered
    or out-of-order record changes nothing."""
    try:
        embedded, removed = run()
    except Exception:
        logger.exception("library record failed", extra={"library": what, **where})
        _count("StreamRecordsFailed")
        raise
    logger.debug(
        "library record indexed", extra={"library": what, "embedded": embedded, "removed": removed, **where}
    )
    _count(f"{what.capitalize()}sIndexed")


def project_record(services: Services, raw: dict[str, Any]) -> None:
    """One record (its raw form: item_to_event reads {"S": ...} values). Raises to be retried."""
    stream = raw["dynamodb"]
    image = stream.get("NewImage") or {}
    where = {"event_name": raw["eventName"], "sequence_number": stream["SequenceNumber"]}
    keys, tenant = stream["Keys"], services.settings.tenant_id
    if (skill := skill_key_of(keys, tenant)) is not None:
        if services.settings.procedural_enabled:
            where["skill_id"] = skill[1]
            _reindex("skill", lambda: services.skill_search.sync_keys([skill]), where)
        return
    if (asset_id := asset_id_of(keys, tenant)) is not None:
        _reindex(
            "asset", lambda: services.composer.indexer.sync_ids([asset_id]), {**where, "asset_id": asset_id}
        )
        return
    is_event = image.get("entity", {}).get("S") == "event" or keys["sk"]["S"].startswith("E#")
    if raw["eventName"] != "INSERT" or not is_event:
        # Heads and idempotency records are not events. The log is append-only: a changed event is a bug.
        (logger.warning if is_event else logger.debug)(
            "stream record skipped", extra={"is_event": is_event, **where}
        )
        _count("StreamRecordsSkipped")
        return
    try:
        applied = services.semantic.project(item_to_event(image))
    except Exception:
        logger.exception("stream record failed", extra=where)
        _count("StreamRecordsFailed")
        raise
    logger.debug("event projected", extra={"beliefs_changed": len(applied), **where})
    _count("EventsProjected")
