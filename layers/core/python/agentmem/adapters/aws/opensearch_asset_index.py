"""The composer's AssetIndex on OpenSearch: one `{prefix}-assets` index, each asset a document
`{tenant}|{asset_id}` with its searchable text (BM25 under an english analyzer that also splits on
`_`) and its embedding (`knn_vector`, HNSW, cosinesimil).

The writer calls `ensure_ready` when it starts. Readers may hold only read and search rights and
may start first, so a missing index reads as empty; a write to it still fails (or, on a domain that
auto-creates indices, would get a dynamic mapping without k-NN, hence `ensure_ready` first).

`allowed` (a skill's compiled scope) travels as a `terms` filter on asset_id, inside the knn clause
for vector search so the scope narrows candidates before top-k. One `terms` query takes at most
index.max_terms_count values (65,536 by default); larger sets are split (`any_of`). Every query
also filters on the tenant (defence in depth, one stack serves one tenant).

Scores: vector search returns cosines (k-NN's cosinesimil score is (1 + cos) / 2 on Lucene and on
Faiss from 2.19, so cos = 2 * score - 1); keyword search returns BM25 scores; similarities are exact
cosines from a script (see `opensearch_asset_queries.similarity_query`). Results come best first
with ties by asset_id; at the k-th place a k-NN tie is the engine's pick, since top-k is taken
before the sort. Searches are near-real-time (visible after the next refresh, 1 s by default)
unless `refresh="wait_for"`."""

from __future__ import annotations

import logging
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Any

from opensearchpy.exceptions import OpenSearchException, RequestError

from agentmem.adapters.aws.opensearch_asset_queries import (
    SIMILARITY_PAGE,
    STAMP_PAGE,
    asset_index_body,
    asset_index_name,
    bulk_actions,
    keyword_query,
    knn_query,
    similarity_query,
    stamps_query,
)
from agentmem.adapters.aws.opensearch_bulk import MAX_BULK_BYTES, send
from agentmem.adapters.aws.opensearch_mappings import Body, Refresh, index_missing, translate, translated
from agentmem.compose.ports import IndexedAsset

if TYPE_CHECKING:
    from opensearchpy import OpenSearch

logger = logging.getLogger(__name__)


class OpenSearchAssetIndex:
    def __init__(
        self,
        client: OpenSearch,
        tenant_id: str,
        *,
        prefix: str = "agentmem",
        dimension: int,
        engine: str = "faiss",
        refresh: Refresh = "false",
        max_bulk_bytes: int = MAX_BULK_BYTES,
    ) -> None:
        self._client = client
        self._tenant = tenant_id
        self._index = asset_index_name(prefix)
        self._body = asset_index_body(dimension, engine)  # also refuses an unknown engine
        self._write: dict[str, str] = {} if refresh == "false" else {"refresh": refresh}
        self._max_bulk_bytes = max_bulk_bytes

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
        logger.info("asset index created", extra={"index": self._index})

    def update(self, put: Sequence[IndexedAsset], remove: Sequence[str]) -> None:
        """Delete `remove` and write `put` (replacing documents of the same id) in one bulk
        request, or in several when the body would pass `max_bulk_bytes`. Not atomic: if an item
        fails this raises after its request, and the caller's retry is safe because every action
        is keyed by document id."""
        if put or remove:
            actions = bulk_actions(self._index, self._tenant, put, remove)
            send(
                self._client,
                actions,
                what="update asset index",
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

    def stamps(self) -> dict[str, int]:
        """Every indexed asset of the tenant with its change_seq, read page by page in id order
        (asset_id is unique within a tenant, so search_after neither repeats nor skips one)."""
        stamps: dict[str, int] = {}
        after: list[Any] | None = None
        while True:
            hits = self._hits(stamps_query(self._tenant, after, STAMP_PAGE), "read asset index stamps")
            for hit in hits:
                stamps[str(hit["_source"]["asset_id"])] = int(hit["_source"]["change_seq"])
            if len(hits) < STAMP_PAGE:
                return stamps
            after = list(hits[-1]["sort"])

    def vector_search(
        self, vector: Sequence[float], allowed: Collection[str], k: int
    ) -> list[tuple[str, float]]:
        """Nearest by cosine among `allowed`, best first, ties by id."""
        if k <= 0 or not allowed:
            return []
        hits = self._hits(knn_query(self._tenant, vector, allowed, k), "asset vector search")
        return [(str(hit["_source"]["asset_id"]), 2.0 * float(hit["_score"]) - 1.0) for hit in hits]

    def keyword_search(self, text: str, allowed: Collection[str], k: int) -> list[tuple[str, float]]:
        """Best BM25 matches among `allowed`, best first, ties by id."""
        if k <= 0 or not allowed or not text.strip():
            return []
        hits = self._hits(keyword_query(self._tenant, text, allowed, k), "asset keyword search")
        return [(str(hit["_source"]["asset_id"]), float(hit["_score"])) for hit in hits]

    def similarities(self, vector: Sequence[float], asset_ids: Collection[str]) -> dict[str, float]:
        """Exact cosine of each indexed id among `asset_ids`; ids not indexed are absent."""
        wanted = sorted(set(asset_ids))
        found: dict[str, float] = {}
        for start in range(0, len(wanted), SIMILARITY_PAGE):
            page = wanted[start : start + SIMILARITY_PAGE]
            for hit in self._hits(similarity_query(self._tenant, vector, page), "asset similarities"):
                found[str(hit["_source"]["asset_id"])] = float(hit["_score"]) - 1.0
        return found
