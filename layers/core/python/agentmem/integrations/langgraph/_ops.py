"""The store's operations as client programs, so `batch` and `abatch` run the same code on
the sync and the async client (see `agentmem.client._program`)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from langgraph.store.base import (
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    PutOp,
    SearchItem,
    SearchOp,
)
from langgraph.store.memory import _compare_values, _does_match

from agentmem.client import NotFound
from agentmem.client import _memory_calls as memory
from agentmem.client._program import Pause, Program
from agentmem.integrations.langgraph._codec import (
    Address,
    Reading,
    address,
    reading_of,
    statement,
    subject_of,
    value_of_event,
)
from agentmem.integrations.langgraph._pending import ItemId, PendingWrite, PendingWrites
from agentmem.model.beliefs import MEMBER_MARK, Belief

logger = logging.getLogger(__name__)

SEARCH_DEPTH = 50  # the most beliefs one search by meaning returns (the API's k ceiling)
FIRST_POLL_SECONDS = 0.05
LONGEST_POLL_SECONDS = 0.5


@dataclass(frozen=True)
class StoreContext:
    session_id: str
    agent: str
    round: int
    pending: PendingWrites
    read_your_writes_seconds: float
    clock: Callable[[], float]  # monotonic, for the wait on the projection
    now: Callable[[], datetime]  # wall time, stamped on writes not projected yet


def put(op: PutOp, ctx: StoreContext) -> Program[None]:
    """Append one event stating the item's value (or its deletion) as an explicit fact."""
    if op.ttl is not None:
        raise NotImplementedError("agentmem keeps no per-item TTL; a tenant's retention ages events out")
    item = address(op.namespace, op.key)
    value = None if op.value is None else dict(op.value)
    said = statement(item, value)
    ack = yield from memory.append_event(
        ctx.session_id, subject_id=item.subject, round=ctx.round, agent=ctx.agent, kind=item.event_kind,
        content=said.content, facts=[said.fact],
    )  # fmt: skip
    ctx.pending.record((item.namespace, item.key), PendingWrite(ack.event_id, value, ctx.now()))


def get(op: GetOp, ctx: StoreContext) -> Program[Item | None]:
    item = address(op.namespace, op.key)
    if item.read_only:
        return (yield from _get_belief(item))
    try:
        view = yield from memory.belief(item.subject, item.fact_key)
        reading = reading_of(view.current[0]) if view.current else None
    except NotFound:
        reading = None
    if reading is not None and (reading.namespace, reading.key) != (item.namespace, item.key):
        logger.warning("a fact key names another item", extra={"fact_key": item.fact_key})
        reading = None
    write = ctx.pending.settle((item.namespace, item.key), reading.event_ids if reading else ())
    if write is not None:
        return _item(_as_written((item.namespace, item.key), write))
    if reading is None:
        return None
    return _item((yield from _resolved(reading)))


def _get_belief(item: Address) -> Program[Item | None]:
    """One of the subject's own beliefs, by doc id (`key`, or `key#member` for a set key)."""
    key, _, member = item.key.partition(MEMBER_MARK)
    try:
        view = yield from memory.belief(item.subject, key)
    except (NotFound, ValueError):
        return None
    found = [b for b in view.current if b.member == member]
    return _item(reading_of(found[0])) if found else None


def search(op: SearchOp, ctx: StoreContext) -> Program[list[SearchItem]]:
    """By meaning when there is a query (the subject's nearest beliefs), else every current
    item under the prefix, newest first; then LangGraph's own filter, offset and limit."""
    prefix = tuple(op.namespace_prefix)
    subject = _subject_of_prefix(prefix, "search")
    current: list[Belief] = []
    if not op.query or ctx.pending.under(prefix):
        current = yield from _settled(subject, prefix, ctx)
    if op.query:
        hits = yield from memory.search_beliefs(subject, op.query, k=SEARCH_DEPTH)
        ranked: list[tuple[Reading, float | None]] = [(reading_of(h.belief), h.score) for h in hits]
    else:
        ranked = [(reading_of(b), None) for b in current]
    found: list[SearchItem] = []
    seen: set[ItemId] = set()
    for reading, score in ranked:
        item_id = (reading.namespace, reading.key)
        if reading.namespace[: len(prefix)] != prefix or item_id in seen:
            continue
        seen.add(item_id)
        write = ctx.pending.settle(item_id, reading.event_ids)
        shown = _as_written(item_id, write) if write is not None else (yield from _resolved(reading))
        if (hit := _hit(shown, score)) is not None:
            found.append(hit)
    # What the projection has not shown yet, as this store wrote it (ranked last by meaning).
    for item_id, write in ctx.pending.under(prefix).items():
        if item_id not in seen and (hit := _hit(_as_written(item_id, write), None)) is not None:
            found.append(hit)
    if not op.query:
        found.sort(key=lambda h: (-h.updated_at.timestamp(), h.namespace, h.key))
    if op.filter:
        found = [h for h in found if _matches(h.value, op.filter)]
    return found[op.offset : op.offset + op.limit]


def _matches(value: dict[str, Any], wanted: dict[str, Any]) -> bool:
    """LangGraph's own filter (InMemoryStore's comparison), with the SQL stores' dotted paths
    into nested fields (`"user.name"`). A comparison that cannot be made (`$gt` on a missing
    field or on text) does not match, as in the SQL stores, rather than failing the read."""
    try:
        return all(_compare_values(_field(value, path), expected) for path, expected in wanted.items())
    except (TypeError, ValueError):
        return False


def _field(value: dict[str, Any], path: str) -> Any:
    if path in value or "." not in path:
        return value.get(path)
    found: Any = value
    for part in path.split("."):
        found = found.get(part) if isinstance(found, dict) else None
    return found


def list_namespaces(op: ListNamespacesOp, ctx: StoreContext) -> Program[list[tuple[str, ...]]]:
    conditions = op.match_conditions or ()
    prefixes = [c.path for c in conditions if c.match_type == "prefix" and c.path and c.path[0] != "*"]
    subject = _subject_of_prefix(tuple(prefixes[0]) if prefixes else (), "list_namespaces")
    current = yield from _settled(subject, (subject,), ctx)
    alive: dict[ItemId, bool] = {}
    for belief in current:
        reading = reading_of(belief)
        alive[reading.namespace, reading.key] = reading.value is not None or reading.stale is not None
    for item_id, write in ctx.pending.under((subject,)).items():
        alive[item_id] = write.value is not None
    namespaces = {ns for (ns, _), live in alive.items() if live}
    matched = [ns for ns in namespaces if all(_does_match(c, ns) for c in conditions)]
    if op.max_depth is not None:
        matched = [ns[: op.max_depth] for ns in matched]
    return sorted(set(matched))[op.offset : op.offset + op.limit]


def flush(subject: str, ctx: StoreContext) -> Program[bool]:
    """Wait until the subject's beliefs show this store's writes; whether they all do."""
    yield from _settled(subject_of((subject,)), (subject,), ctx)
    return not ctx.pending.under((subject,))


def _subject_of_prefix(prefix: tuple[str, ...], operation: str) -> str:
    if not prefix:
        raise InvalidNamespaceError(
            f"{operation} needs a namespace prefix that starts with the subject id: agentmem keeps "
            "beliefs per subject and lists no subjects"
        )
    return subject_of(prefix)


def _settled(subject: str, prefix: tuple[str, ...], ctx: StoreContext) -> Program[list[Belief]]:
    """The subject's current beliefs once they show this store's writes under `prefix`, or as
    they are when `read_your_writes_seconds` runs out (the writes still pending then stand in
    for their beliefs)."""
    deadline = ctx.clock() + ctx.read_your_writes_seconds
    delay = FIRST_POLL_SECONDS
    while True:
        current = yield from memory.beliefs(subject)
        applied = {(r.namespace, r.key): r.event_ids for r in map(reading_of, current)}
        waiting = [
            i for i in ctx.pending.under(prefix) if ctx.pending.settle(i, applied.get(i, ())) is not None
        ]
        remaining = deadline - ctx.clock()
        if not waiting or remaining <= 0:
            if waiting:
                logger.warning("projection behind this store's writes", extra={"pending": len(waiting)})
            return current
        yield Pause(min(delay, remaining))
        delay = min(delay * 2, LONGEST_POLL_SECONDS)


def _resolved(reading: Reading) -> Program[Reading]:
    """`reading` with the latest value: from the log when the belief's sentence is an older one."""
    statement_ = reading.stale
    if statement_ is None:
        return reading
    page = yield from memory.list_events(
        statement_.session_id, after=statement_.seq - 1, limit=1, resolve_blobs=True
    )
    event = next((e for e in page.items if e.event_id == statement_.event_id), None)
    if event is None:
        logger.warning("the latest value's event is gone (retention): showing the one before it")
        return replace(reading, stale=None)
    value = value_of_event(event.content)
    return replace(reading, value=value, updated_at=datetime.fromisoformat(event.created_at), stale=None)


def _item(reading: Reading) -> Item | None:
    """The item of a reading; None for a deleted item. The belief's current version is when the
    item was last written, and the belief keeps no earlier creation time: both timestamps are
    that version's (docs/langgraph.md)."""
    if reading.value is None:
        return None
    return Item(
        namespace=reading.namespace, key=reading.key, value=reading.value,
        created_at=reading.updated_at, updated_at=reading.updated_at,
    )  # fmt: skip


def _hit(reading: Reading, score: float | None) -> SearchItem | None:
    if reading.value is None:
        return None
    at = reading.updated_at
    return SearchItem(reading.namespace, reading.key, reading.value, at, at, score)


def _as_written(item_id: ItemId, write: PendingWrite) -> Reading:
    return Reading(item_id[0], item_id[1], write.value, write.written_at, frozenset())
