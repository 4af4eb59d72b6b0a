"""Token counts that survive between reads: the same event renders to the same lines read after
read, so a growing session's reads count mostly what they already counted."""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from agentmem.ports.tokens import EncodingName

TokenCounter = Callable[[str, EncodingName], int]
MAX_ENTRIES = 100_000


class CachedTokenCounts:
    """Exact counts (a pure function's results) keyed by a 128-bit digest of the text, so the
    cache holds no content and needs no erasure. Bounded: it starts afresh when full, which
    costs one round of recounting and nothing else."""

    def __init__(self, count: TokenCounter, *, max_entries: int = MAX_ENTRIES) -> None:
        self._count = count
        self._max = max_entries
        self._known: dict[tuple[str, bytes], int] = {}

    def __call__(self, text: str, encoding: EncodingName) -> int:
        key = (encoding, hashlib.blake2b(text.encode(), digest_size=16).digest())
        known = self._known.get(key)
        if known is None:
            if len(self._known) >= self._max:
                self._known = {}
            known = self._known[key] = self._count(text, encoding)
        return known
