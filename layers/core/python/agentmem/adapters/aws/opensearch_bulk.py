"""Bulk writes to an OpenSearch index, shared by the skill and asset indexes: NDJSON bodies cut
under a byte limit, and item failures turned into domain errors. A bulk is sent to its index's own
`<index>/_bulk` and its action lines name no `_index`: the domain refuses explicit indexes in bulk
bodies (`rest.action.multi.allow_explicit_index: false`), so the access policy's index paths are
the only indexes a writer can reach. A `_bulk` is not atomic; every
action is keyed by document id, so retrying a whole update after a failure is safe."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from agentmem.adapters.aws.opensearch_mappings import Body, translated
from agentmem.errors import AgentMemError, BackendUnavailableError

if TYPE_CHECKING:
    from opensearchpy import OpenSearch

logger = logging.getLogger(__name__)

MAX_BULK_BYTES = 5 * 1024 * 1024
"""Well under the 10 MiB request limit of the smallest OpenSearch Service instance types."""


def line(body: Body) -> str:
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False) + "\n"


def chunked(actions: Sequence[str], max_bytes: int) -> list[tuple[str, int]]:
    """(NDJSON body, number of actions in it), in order; a body passes `max_bytes` only when one
    action alone does."""
    bodies: list[tuple[str, int]] = []
    current: list[str] = []
    size = 0
    for action in actions:
        weight = len(action.encode())
        if current and size + weight > max_bytes:
            bodies.append(("".join(current), len(current)))
            current, size = [], 0
        current.append(action)
        size += weight
    if current:
        bodies.append(("".join(current), len(current)))
    return bodies


def bulk_failures(reply: dict[str, Any]) -> list[Body]:
    """The failed items of a bulk reply. A delete of a missing document answers 404 `not_found`
    without an `error`, and is no failure: removing what is not there is a no-op."""
    if not reply.get("errors"):
        return []
    return [outcome for item in reply.get("items", []) for outcome in item.values() if "error" in outcome]


def raise_for(failed: list[Body], actions: int, what: str) -> None:
    if not failed:
        return
    statuses = sorted({int(outcome.get("status", 0)) for outcome in failed})
    first = failed[0]["error"]
    fault = first.get("type", "unknown") if isinstance(first, dict) else str(first)
    summary = f"{len(failed)} of {actions} items failed ({fault}, status {statuses})"
    # A bulk answers 200 even when items are throttled (429) or a shard is down (5xx); those are
    # retryable like the same faults on a whole request, the rest are deployment faults.
    if any(s == 429 or s >= 500 for s in statuses):
        logger.warning(f"{what} unavailable", extra={"failed": len(failed), "statuses": statuses})
        raise BackendUnavailableError(f"{what}: {summary}")
    logger.error(f"{what} failed", extra={"failed": len(failed), "statuses": statuses})
    raise AgentMemError(f"{what} failed: {summary}")


def send(
    client: OpenSearch,
    actions: Sequence[str],
    *,
    index: str,
    what: str,
    params: dict[str, Any],
    max_bytes: int = MAX_BULK_BYTES,
) -> None:
    """Send `actions` (NDJSON lines, a document's line pair counted as one action) in as few
    bodies as fit under `max_bytes`, raising on the first body with a failed item."""
    for body, count in chunked(actions, max_bytes):
        with translated(what):
            reply: dict[str, Any] = client.bulk(body=body, index=index, **params)
        raise_for(bulk_failures(reply), count, what)
