"""SkillIndex on OpenSearch: one `{prefix}-skills` index of approved functions and guidance, each a
document `{tenant}|{kind}|{skill_id}` with its text (BM25, english analyzer) and its normalised
embedding (`knn_vector`, HNSW, cosinesimil).

The stream projector keeps the index current (`SkillSearch.sync_keys`) and is the only writer: it
calls `ensure_ready` when it starts. Readers may hold only read and search rights on the domain and
may start first, so a missing index reads as empty; a write to it still fails (or, on a domain that
auto-creates indices, would get a dynamic mapping without k-NN, hence `ensure_ready` first).

Every query filters on the tenant, even though one stack serves one tenant (defence in depth).
Searches are near-real-time (visible after the next refresh, 1 s by default) unless
`refresh="wait_for"`. Results come best first with ties in (kind, skill_id) order, as from the
SQLite index; at the k-th place a k-NN tie is the engine's pick, since top-k is taken before the
sort."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from agentmem.adapters.aws.opensearch_bulk import MAX_BULK_BYTES
from agentmem.adapters.aws.opensearch_mappings import Refresh
from agentmem.adapters.aws.opensearch_skill_queries import (
    STAMP_PAGE,
    bulk_actions,
    keyword_query,
    knn_query,
    skill_index_body,
    skill_index_name,
    stamps_query,
)
from agentmem.adapters.aws.opensearch_tenant_index import TenantIndex
from agentmem.ports.procedural import IndexedSkill, SkillKey

if TYPE_CHECKING:
    from opensearchpy import OpenSearch

logger = logging.getLogger(__name__)


class OpenSearchSkillIndex(TenantIndex):
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
            index=skill_index_name(prefix),
            body=skill_index_body(dimension, engine),  # also refuses an unknown engine
            refresh=refresh,
            max_bulk_bytes=max_bulk_bytes,
            label="skill index",
        )

    def update(self, put: Sequence[IndexedSkill], remove: Sequence[SkillKey]) -> None:
        """Write `put` (replacing documents of the same key) and delete `remove`, in one bulk
        request, or several when the body would pass `max_bulk_bytes` (a rebuild sends the whole
        library). Not atomic: if an item fails this raises, and the caller's retry is safe because
        every action is keyed by document id."""
        self._send(bulk_actions(self._tenant, put, remove))

    def stamps(self) -> dict[SkillKey, str]:
        """Every indexed item of the tenant with its stamp, read page by page in key order."""
        hits = self._all_hits(
            lambda after: stamps_query(self._tenant, after, STAMP_PAGE), STAMP_PAGE, "read skill index stamps"
        )
        return {
            (str(h["_source"]["kind"]), str(h["_source"]["skill_id"])): str(h["_source"]["stamp"])
            for h in hits
        }

    @staticmethod
    def _keys(hits: list[dict[str, Any]]) -> list[SkillKey]:
        return [(str(hit["_source"]["kind"]), str(hit["_source"]["skill_id"])) for hit in hits]

    def vector_search(self, vector: Sequence[float], k: int) -> list[SkillKey]:
        """The k nearest items by cosine, best first; ties by key."""
        if k <= 0:
            return []
        return self._keys(self._hits(knn_query(self._tenant, vector, k), "skill vector search"))

    def keyword_search(self, text: str, k: int) -> list[SkillKey]:
        """The k best BM25 matches, best first; ties by key."""
        if k <= 0 or not text.strip():
            return []
        return self._keys(self._hits(keyword_query(self._tenant, text, k), "skill keyword search"))
