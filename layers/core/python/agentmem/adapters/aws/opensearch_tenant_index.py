"""What the skill and asset indexes on OpenSearch share: one index, one tenant's documents in it,
creation by the writer only, bulk writes, and searches that read a missing index as empty (a
reader may start before the projector created it)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from opensearchpy.exceptions import OpenSearchException, RequestError

from agentmem.adapters.aws.opensearch_bulk import send
from agentmem.adapters.aws.opensearch_mappings import Body, Refresh, index_missing, translate, translated

if TYPE_CHECKING:
    from opensearchpy import OpenSearch

logger = logging.getLogger(__name__)


class TenantIndex:
    def __init__(
        self,
        client: OpenSearch,
        tenant_id: str,
        *,
        index: str,
        body: Body,
        refresh: Refresh,
        max_bulk_bytes: int,
        label: str,
    ) -> None:
        self._client = client
        self._tenant = tenant_id
        self._index = index
        self._body = body
        self._write: dict[str, str] = {} if refresh == "false" else {"refresh": refresh}
        self._max_bulk_bytes = max_bulk_bytes
        self._label = label  # "skill index", "asset index": what errors and logs name

    def ensure_ready(self) -> None:
        """Create the index if it does not exist. Idempotent, and safe for two writers at once."""
        with translated(f"check index {self._index}"):
            if self._client.indices.exists(index=self._index):
                return
        try:
            self._client.indices.create(index=self._index, body=self._body)
        except RequestError as exc:
            if exc.error != "resource_already_exists_exception":  # another writer won the race
                raise translate(exc, f"create index {self._index}") from exc
        except OpenSearchException as exc:
            raise translate(exc, f"create index {self._index}") from exc
        logger.info(f"{self._label} created", extra={"index": self._index})

    def _send(self, actions: Sequence[str]) -> None:
        """Bulk-write NDJSON actions, in as many requests as the byte limit needs."""
        if actions:
            what = f"update {self._label}"
            send(
                self._client,
                actions,
                index=self._index,
                what=what,
                params=self._write,
                max_bytes=self._max_bulk_bytes,
            )

    def _hits(self, body: Body, action: str) -> list[dict[str, Any]]:
        """The hits of one search, or none when the index does not exist yet."""
        try:
            found: dict[str, Any] = self._client.search(index=self._index, body=body)
        except OpenSearchException as exc:
            if index_missing(exc):
                return []
            raise translate(exc, action) from exc
        return list(found["hits"]["hits"])

    def _all_hits(
        self, query: Callable[[list[Any] | None], Body], page: int, action: str
    ) -> Iterator[dict[str, Any]]:
        """Every hit of a sorted query, page by page with search_after (the sort is on a unique
        key, so a page neither repeats nor skips a document)."""
        after: list[Any] | None = None
        while True:
            hits = self._hits(query(after), action)
            yield from hits
            if len(hits) < page:
                return
            after = list(hits[-1]["sort"])
