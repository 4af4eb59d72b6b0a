"""Caches of the composer, in process (one per Lambda instance or local server).

- The catalogue view is rebuilt only when the catalogue's revision moves.
- A resolved scope is kept per (skill, version, catalogue revision).
- Retrieval results are kept per (scope ids, question, principal set), and reused only while the
  scope's freshness (the highest change_seq among its assets) and the set the caller may read in
  it are what they were: a change to any asset in scope, to which assets are in scope, or to an
  ancestor that decides who reads them, misses.
Nothing here can serve stale permissions: the primary store is read again on every compose."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

V = TypeVar("V")


class Lru(Generic[V]):
    """A small thread-safe LRU map with hit counting."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._items: OrderedDict[object, V] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: object, valid: Callable[[V], bool] = lambda _: True) -> V | None:
        with self._lock:
            value = self._items.get(key)
            if value is None or not valid(value):
                self.misses += 1
                return None
            self._items.move_to_end(key)
            self.hits += 1
            return value

    def put(self, key: object, value: V) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self._size:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
