"""Port of the blob store: large payloads kept once, by content hash, outside the log."""

from __future__ import annotations

from typing import Protocol


class BlobStore(Protocol):
    """Content-addressed store for payloads too large to keep inline in the log."""

    def put(self, data: bytes, *, sha256: str, media_type: str) -> str:
        """Store `data` under its sha256 (a no-op if present) and return its uri."""
        ...

    def get(self, uri: str) -> bytes:
        """The bytes behind `uri`. Raises NotFoundError when absent."""
        ...

    def exists(self, sha256: str) -> bool: ...

    def delete(self, sha256: str) -> bool:
        """Remove the blob filed under `sha256`; False when there was none. Only erasure and
        retention call it, after checking that no event still points at it."""
        ...
