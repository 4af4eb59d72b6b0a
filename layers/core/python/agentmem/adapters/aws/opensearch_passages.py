"""PassageIndex on OpenSearch: one events index per tenant and generation (`<prefix>-events-gN`),
k-NN (`knn_vector`) plus BM25 over the subject's passages. Bodies are pure functions, so unit
tests pin them without a server.

Every read of a generation whose index does not exist yet answers empty; write errors are never
swallowed. Writes use `op_type=create` under a deterministic id, so a redelivered event collides
with the first write (409) and changes nothing."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from opensearchpy.exceptions import OpenSearchException

from agentmem.adapters.aws.opensearch_bulk import bulk_failures, chunked, line, raise_for
from agentmem.adapters.aws.opensearch_mappings import (
    KEYWORD,
    MAX_HITS,
    SLOWLOG,
    STORED_ONLY,
    Body,
    Refresh,
    document_id,
    index_missing,
    terms,
    translate,
    translated,
)
from agentmem.errors import UnsupportedOnBackendError
from agentmem.model.passages import Passage, PassageHit

if TYPE_CHECKING:
    from opensearchpy import OpenSearch


def events_index_name(prefix: str, generation: int) -> str:
    return f"{prefix}-events-g{generation}"


def events_index_body(dimensions: int, engine: str) -> Body:
    """One document per passage: its searchable fields, and the passage as stored JSON. Filtering
    happens inside the k-NN query (Faiss 2.9+ or Lucene), so the subject filter narrows the
    candidates before top-k."""
    return {
        "settings": {"index": {"knn": True, "number_of_shards": 1, **SLOWLOG}},
        "mappings": {
            "dynamic": "strict",
            "properties": {
                "tenant_id": KEYWORD,
                "subject_id": KEYWORD,
                "session_id": KEYWORD,
                "passage_id": KEYWORD,
                "event_id": KEYWORD,
                "seq": {"type": "long"},
                "text": {"type": "text", "analyzer": "english"},
                "vector": {
                    "type": "knn_vector",
                    "dimension": dimensions,
                    "method": {"name": "hnsw", "space_type": "cosinesimil", "engine": engine},
                },
                "passage": STORED_ONLY,
            },
        },
    }


def passage_doc_id(tenant_id: str, passage: Passage) -> str:
    return document_id(tenant_id, passage.subject_id, passage.passage_id)


def passage_doc(tenant_id: str, passage: Passage, vector: Sequence[float]) -> Body:
    return {
        "tenant_id": tenant_id,
        "subject_id": passage.subject_id,
        "session_id": passage.session_id,
        "passage_id": passage.passage_id,
        "event_id": passage.event_id,
        "seq": passage.seq,
        "text": passage.text,
        "vector": [float(x) for x in vector],
        "passage": passage.model_dump(mode="json"),
    }


def subject_filter(tenant_id: str, subject_id: str) -> list[Body]:
    """Defence in depth: every read names the tenant, even though one stack serves one tenant."""
    return terms(tenant_id=tenant_id, subject_id=subject_id)


def scoped(tenant_id: str, subject_id: str, exclude_session: str | None) -> Body:
    scope: Body = {"filter": subject_filter(tenant_id, subject_id)}
    if exclude_session is not None:
        scope["must_not"] = terms(session_id=exclude_session)
    return scope


RANKED: Body = {
    "sort": [{"_score": "desc"}, {"passage_id": "asc"}],
    "track_scores": True,
    "_source": ["passage"],
}


def passage_knn_query(
    tenant_id: str, subject_id: str, vector: Sequence[float], k: int, exclude_session: str | None
) -> Body:
    knn = {"vector": list(vector), "k": k, "filter": {"bool": scoped(tenant_id, subject_id, exclude_session)}}
    return {"size": k, "query": {"knn": {"vector": knn}}, **RANKED}


def passage_keyword_query(
    tenant_id: str, subject_id: str, text: str, k: int, exclude_session: str | None
) -> Body:
    query = {
        "bool": {
            "must": [{"match": {"text": {"query": text}}}],
            **scoped(tenant_id, subject_id, exclude_session),
        }
    }
    return {"size": k, "query": query, **RANKED}


def subject_query(tenant_id: str, subject_id: str) -> Body:
    return {"query": {"bool": {"filter": subject_filter(tenant_id, subject_id)}}}


class OpenSearchPassageIndex:
    def __init__(
        self, client: OpenSearch, tenant_id: str, generation: int, *, prefix: str, refresh: Refresh = "false"
    ) -> None:
        self._client = client
        self._tenant = tenant_id
        self.generation = generation
        self._index = events_index_name(prefix, generation)
        self._write: dict[str, str] = {} if refresh == "false" else {"refresh": refresh}

    def missing(self, subject_id: str, passage_ids: Sequence[str]) -> set[str]:
        wanted = list(dict.fromkeys(passage_ids))
        if not wanted:
            return set()
        ids = {document_id(self._tenant, subject_id, pid): pid for pid in wanted}
        try:
            found = self._client.mget(index=self._index, body={"ids": list(ids)}, _source="false")
        except OpenSearchException as exc:
            if index_missing(exc):
                return set(wanted)
            raise translate(exc, "look up passages") from exc
        present = {ids[doc["_id"]] for doc in found.get("docs", []) if doc.get("found") and doc["_id"] in ids}
        return set(wanted) - present

    # The stream Lambda embeds each batch's passages in-line: an events document is written
    # whole, vector included, so there is never a passage vector search cannot see. (Shards run
    # in parallel Lambdas, so the model's rate is not one process's ceiling there.)
    defers_vectors = False

    def pending(self, limit: int) -> list[Passage]:
        return []

    def pending_count(self, subject_id: str) -> int:
        return 0

    def store_vectors(self, passages: Sequence[Passage], vectors: Sequence[Sequence[float]]) -> int:
        raise UnsupportedOnBackendError("OpenSearch passages are written with their vectors")

    def add(self, passages: Sequence[Passage], vectors: Sequence[Sequence[float]] | None) -> int:
        if vectors is None:
            raise UnsupportedOnBackendError("OpenSearch passages are written with their vectors")
        if len(passages) != len(vectors):
            raise ValueError("add takes one vector per passage")
        actions = [
            line({"create": {"_id": passage_doc_id(self._tenant, p)}})  # no _index: sent to <index>/_bulk
            + line(passage_doc(self._tenant, p, v))
            for p, v in zip(passages, vectors, strict=True)
        ]
        added = 0
        for body, count in chunked(actions, 5 * 1024 * 1024):
            with translated("index passages"):
                reply: dict[str, Any] = self._client.bulk(body=body, index=self._index, **self._write)
            # 409: the passage is already indexed (a redelivery), which is what create is for.
            raise_for([f for f in bulk_failures(reply) if f.get("status") != 409], count, "index passages")
            added += sum(
                1 for item in reply.get("items", []) for o in item.values() if o.get("status") == 201
            )
        return added

    def restate(self, passages: Sequence[Passage]) -> int:
        # A partial update, never an upsert: a passage erased meanwhile answers 404 and stays gone.
        actions = [
            line({"update": {"_id": passage_doc_id(self._tenant, p)}})
            + line({"doc": {"passage": p.model_dump(mode="json")}})
            for p in passages
        ]
        changed = 0
        for body, count in chunked(actions, 5 * 1024 * 1024):
            with translated("restate passages"):
                reply: dict[str, Any] = self._client.bulk(body=body, index=self._index, **self._write)
            raise_for([f for f in bulk_failures(reply) if f.get("status") != 404], count, "restate passages")
            changed += sum(
                1 for item in reply.get("items", []) for o in item.values() if o.get("result") == "updated"
            )
        return changed

    def _hits(self, body: Body, action: str) -> list[dict[str, Any]]:
        try:
            found: dict[str, Any] = self._client.search(index=self._index, body=body)
        except OpenSearchException as exc:
            if index_missing(exc):
                return []
            raise translate(exc, action) from exc
        return list(found["hits"]["hits"])

    def _ranked(self, body: Body, source: Literal["vector", "keyword"]) -> list[PassageHit]:
        hits = [
            PassageHit(
                passage=Passage.model_validate(hit["_source"]["passage"]),
                # cosinesimil scores are (1 + cos) / 2: report the cosine, as the local index does
                score=2.0 * float(hit["_score"]) - 1.0 if source == "vector" else float(hit["_score"]),
                source=source,
            )
            for hit in self._hits(body, f"passage {source} search")
        ]
        return sorted(hits, key=lambda h: (-h.score, h.passage.passage_id))

    def vector_search(
        self, subject_id: str, vector: Sequence[float], k: int, *, exclude_session: str | None = None
    ) -> list[PassageHit]:
        if k <= 0:
            return []
        body = passage_knn_query(self._tenant, subject_id, vector, min(k, MAX_HITS), exclude_session)
        return self._ranked(body, "vector")

    def keyword_search(
        self, subject_id: str, query: str, k: int, *, exclude_session: str | None = None
    ) -> list[PassageHit]:
        if k <= 0 or not query.strip():
            return []
        body = passage_keyword_query(self._tenant, subject_id, query, min(k, MAX_HITS), exclude_session)
        return self._ranked(body, "keyword")

    def count(self, subject_id: str) -> int:
        try:
            return int(
                self._client.count(index=self._index, body=subject_query(self._tenant, subject_id))["count"]
            )
        except OpenSearchException as exc:
            if index_missing(exc):
                return 0
            raise translate(exc, "count passages") from exc

    def erase_subject(self, subject_id: str) -> int:
        return erase(self._client, self._index, self._tenant, subject_id)


def erase(client: OpenSearch, index: str, tenant_id: str, subject_id: str) -> int:
    """Delete the subject's passages from `index` (a name or a pattern), refreshed at once so no
    search finds them after the call returns. A missing index erases nothing."""
    try:
        reply = client.delete_by_query(
            index=index,
            body=subject_query(tenant_id, subject_id),
            refresh=True,
            conflicts="proceed",
            allow_no_indices=True,
            ignore_unavailable=True,
        )
    except OpenSearchException as exc:
        if index_missing(exc):
            return 0
        raise translate(exc, "erase passages") from exc
    return int(reply.get("deleted", 0))
