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
with ties by asset_id. k-NN takes its top k before the sort, so a tie at the k-th place would be
the engine's pick: vector search asks for KTH_TIE_MARGIN more neighbours than it returns, and the
sort over those breaks such a tie by id whenever the tied group fits in the margin. Searches are
near-real-time (visible after the next refresh, 1 s by default) unless `refresh="wait_for"`."""

from __future__ import annotations

import logging
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

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
from agentmem.adapters.aws.opensearch_bulk import MAX_BULK_BYTES
from agentmem.adapters.aws.opensearch_mappings import Refresh
from agentmem.adapters.aws.opensearch_tenant_index import TenantIndex
from agentmem.ports.catalogue import IndexedAsset

if TYPE_CHECKING:
    from opensearchpy import OpenSearch

logger = logging.getLogger(__name__)

KTH_TIE_MARGIN = 16


class OpenSearchAssetIndex(TenantIndex):
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
        super().__init__(
            client,
            tenant_id,
            index=asset_index_name(prefix),
            body=asset_index_body(dimension, engine),  # also refuses an unknown engine
            refresh=refresh,
            max_bulk_bytes=max_bulk_bytes,
            label="asset index",
        )

    def update(self, put: Sequence[IndexedAsset], remove: Sequence[str]) -> None:
        """Delete `remove` and write `put` (replacing documents of the same id) in one bulk
        request, or in several when the body would pass `max_bulk_bytes`. Not atomic: if an item
        fails this raises after its request, and the caller's retry is safe because every action
        is keyed by document id."""
        self._send(bulk_actions(self._tenant, put, remove))

    def stamps(self) -> dict[str, int]:
        """Every indexed asset of the tenant with its change_seq, read page by page in id order
        (asset_id is unique within a tenant, so search_after neither repeats nor skips one)."""
        hits = self._all_hits(
            lambda after: stamps_query(self._tenant, after, STAMP_PAGE), STAMP_PAGE, "read asset index stamps"
        )
        return {str(hit["_source"]["asset_id"]): int(hit["_source"]["change_seq"]) for hit in hits}

    def vector_search(
        self, vector: Sequence[float], allowed: Collection[str], k: int
    ) -> list[tuple[str, float]]:
        """Nearest by cosine among `allowed`, best first, ties by id."""
        if k <= 0 or not allowed:
            return []
        query = knn_query(self._tenant, vector, allowed, k + KTH_TIE_MARGIN)
        hits = self._hits(query, "asset vector search")[:k]
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
