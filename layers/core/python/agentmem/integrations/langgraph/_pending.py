"""Read-your-writes: what this store appended that the beliefs may not show yet.

Beliefs are projected from the log asynchronously, so a read just after a write can find the
belief as it was. Each write is remembered with the event id its append was acknowledged with,
until a read finds that id in the belief's provenance: the projection has then applied it (or
something later), and the belief is the answer again. Until then the write is the answer."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

ItemId = tuple[tuple[str, ...], str]  # (namespace, key)
MAX_PENDING = 10_000


@dataclass(frozen=True)
class PendingWrite:
    event_id: str
    value: dict[str, Any] | None  # None: a delete
    written_at: datetime


class PendingWrites:
    """Safe to share between threads (LangGraph runs a step's nodes in parallel). Holds at most
    `limit` writes; past that the oldest are forgotten, and reads fall back to the beliefs."""

    def __init__(self, limit: int = MAX_PENDING) -> None:
        self._writes: OrderedDict[ItemId, PendingWrite] = OrderedDict()
        self._lock = threading.Lock()
        self._limit = limit

    def record(self, item: ItemId, write: PendingWrite) -> None:
        with self._lock:
            self._writes.pop(item, None)
            self._writes[item] = write
            while len(self._writes) > self._limit:
                self._writes.popitem(last=False)

    def settle(self, item: ItemId, applied_event_ids: Iterable[str]) -> PendingWrite | None:
        """Forget the write to `item` if its event is among those applied; what is still pending."""
        applied = set(applied_event_ids)
        with self._lock:
            write = self._writes.get(item)
            if write is not None and write.event_id in applied:
                del self._writes[item]
                return None
            return write

    def under(self, prefix: tuple[str, ...]) -> dict[ItemId, PendingWrite]:
        """The pending writes of every item whose namespace starts with `prefix`."""
        with self._lock:
            return {item: w for item, w in self._writes.items() if item[0][: len(prefix)] == prefix}
