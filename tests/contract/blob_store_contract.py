"""The BlobStore contract; each adapter's module subclasses BlobStoreContract and provides `store`."""

from __future__ import annotations

import hashlib

import pytest

from agentmem.errors import NotFoundError
from agentmem.ports.blobs import BlobStore


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class BlobStoreContract:
    @pytest.fixture
    def store(self) -> BlobStore:
        raise NotImplementedError

    def test_put_then_get_round_trips_bytes(self, store: BlobStore) -> None:
        data = b"date,amount\n2026-01-02,12.50\n" * 1000
        uri = store.put(data, sha256=sha(data), media_type="text/csv")
        assert store.get(uri) == data
        assert store.exists(sha(data))

    def test_equal_content_is_stored_once_under_one_uri(self, store: BlobStore) -> None:
        data = b"x" * 50_000
        first = store.put(data, sha256=sha(data), media_type="text/plain")
        second = store.put(data, sha256=sha(data), media_type="text/plain")
        assert first == second
        assert sha(data) in first

    def test_missing_blob_is_not_found(self, store: BlobStore) -> None:
        data = b"present"
        uri = store.put(data, sha256=sha(data), media_type="text/plain")
        missing = uri.replace(sha(data), "0" * 64)
        assert not store.exists("0" * 64)
        with pytest.raises(NotFoundError):
            store.get(missing)

    def test_delete_removes_the_blob_once(self, store: BlobStore) -> None:
        data, other = b"erase me" * 100, b"keep me" * 100
        uri = store.put(data, sha256=sha(data), media_type="text/plain")
        store.put(other, sha256=sha(other), media_type="text/plain")

        assert store.delete(sha(data)) is True
        assert store.delete(sha(data)) is False  # a repeat finds nothing
        assert not store.exists(sha(data)) and store.exists(sha(other))
        with pytest.raises(NotFoundError):
            store.get(uri)

    def test_delete_refuses_what_is_not_a_content_hash(self, store: BlobStore) -> None:
        data = b"present"
        store.put(data, sha256=sha(data), media_type="text/plain")
        assert store.delete("../" + sha(data)[3:]) is False
        assert store.exists(sha(data))
