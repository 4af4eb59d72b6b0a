"""The wire side of the OpenSearch belief index: index bodies, document ids, revisions, query
bodies and fault translation. Bodies are pure functions, so unit tests pin them without a server."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal

from opensearchpy.exceptions import (
    ConflictError,
    ConnectionError,
    OpenSearchException,
    SSLError,
    TransportError,
)
from opensearchpy.exceptions import NotFoundError as OpenSearchNotFound

from agentmem.errors import AgentMemError, BackendUnavailableError, NotFoundError, VersionConflictError
from agentmem.model.beliefs import Belief, Observation

logger = logging.getLogger(__name__)

Body = dict[str, Any]

ENGINES = ("faiss", "lucene")
# index.max_result_window's default: one search page can hold at most this many hits.
MAX_HITS = 10_000
SUBJECT_PAGE = 1_000
MAX_ID_BYTES = 512  # OpenSearch refuses a longer _id (bulk enforces it from 2.9)

KEYWORD = {"type": "keyword"}
STORED_ONLY = {"type": "object", "enabled": False}  # kept in _source, never parsed or indexed

Refresh = Literal["false", "true", "wait_for"]
# The domain ships slow logs to CloudWatch, but an index logs nothing until it sets thresholds.
SLOWLOG: Body = {
    "search.slowlog.threshold.query.warn": "2s",
    "search.slowlog.threshold.query.info": "500ms",
    "indexing.slowlog.threshold.index.warn": "2s",
}
TERM_SHIFT = 48  # seq_no is per shard; 2**48 operations on one shard is out of reach


def revision_of(seq_no: int, primary_term: int) -> int:
    """Never 0 (primary terms start at 1), which the port reserves for "no chain yet"."""
    return (primary_term << TERM_SHIFT) | seq_no


def cas_position(revision: int) -> tuple[int, int]:
    return revision & ((1 << TERM_SHIFT) - 1), revision >> TERM_SHIFT


def translate(exc: OpenSearchException, action: str) -> AgentMemError:
    """The domain error for an opensearch-py fault: 409 lost a race, 429/5xx and transport
    failures are retryable, 404 is not found, and the rest (400, 403, TLS) are deployment faults
    that would fail the same way on every retry."""
    if isinstance(exc, ConflictError):
        return VersionConflictError(f"{action}: a concurrent writer got there first")
    if isinstance(exc, ConnectionError) and not isinstance(exc, SSLError):
        logger.warning("opensearch unreachable", extra={"action": action, "fault": type(exc).__name__})
        return BackendUnavailableError(f"{action}: search backend unreachable")
    if isinstance(exc, TransportError):
        status = exc.status_code
        if isinstance(status, int) and (status == 429 or status >= 500):
            logger.warning("opensearch unavailable", extra={"action": action, "status": status})
            return BackendUnavailableError(f"{action}: search backend throttled or unavailable ({status})")
        if isinstance(exc, OpenSearchNotFound):
            return NotFoundError(f"{action}: not found")
        logger.error("opensearch request failed", extra={"action": action, "status": status})
        return AgentMemError(f"{action} failed ({status} {exc.error})")
    logger.error("opensearch client failure", extra={"action": action, "fault": type(exc).__name__})
    return AgentMemError(f"{action} failed ({type(exc).__name__})")


def index_missing(exc: OpenSearchException) -> bool:
    """A 404 for the index itself, not for a document in it: a generation nobody created yet."""
    return isinstance(exc, OpenSearchNotFound) and exc.error == "index_not_found_exception"


@contextmanager
def translated(action: str) -> Iterator[None]:
    try:
        yield
    except OpenSearchException as exc:
        raise translate(exc, action) from exc


def index_names(prefix: str, generation: int) -> tuple[str, str]:
    return f"{prefix}-beliefs-g{generation}", f"{prefix}-observations-g{generation}"


def belief_index_body(dimensions: int, engine: str) -> Body:
    """One document per chain (kind=chain: the current version's searchable fields plus the whole
    chain as stored JSON) and one per archived version (kind=archived, no vector).

    The engine must support filtering inside the k-NN query, so a tenant/subject/current filter
    narrows the candidates before top-k rather than after: Faiss HNSW (2.9+; cosinesimil from
    2.19; the only engine OpenSearch Serverless offers) or Lucene HNSW (2.4+)."""
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, not {engine!r}")
    return {
        # One shard: a tenant's beliefs are small, and BM25 idf and k-NN top-k are per shard, so a
        # single shard keeps scores identical from run to run.
        "settings": {"index": {"knn": True, "number_of_shards": 1, **SLOWLOG}},
        "mappings": {
            "dynamic": "strict",
            "properties": {
                "tenant_id": KEYWORD,
                "subject_id": KEYWORD,
                "key": KEYWORD,
                "member": KEYWORD,
                "doc_id": KEYWORD,
                "kind": KEYWORD,
                "current": {"type": "boolean"},
                "version": {"type": "integer"},
                # The log position of the last event applied: what reads since a watermark
                # compare (opensearch_belief_changes.py).
                "source_order": KEYWORD,
                # english: stemming and stop words, like the porter tokenizer of the SQLite FTS5 index
                "text": {"type": "text", "analyzer": "english"},
                "vector": {
                    "type": "knn_vector",
                    "dimension": dimensions,
                    "method": {"name": "hnsw", "space_type": "cosinesimil", "engine": engine},
                },
                "belief": STORED_ONLY,
                "chain": STORED_ONLY,
            },
        },
    }


def observation_index_body() -> Body:
    return {
        "mappings": {
            "dynamic": "strict",
            "properties": {
                "tenant_id": KEYWORD,
                "subject_id": KEYWORD,
                "key": KEYWORD,
                "member": KEYWORD,
                "event_id": KEYWORD,
                "order": KEYWORD,
                "observation": STORED_ONLY,
            },
        }
    }


def document_id(*parts: str) -> str:
    """A readable _id from id parts. `|` never occurs in an id (ids match [A-Za-z0-9._:-]), so the
    join is unambiguous; an id over the _id limit is replaced by its digest, still deterministic."""
    text = "|".join(parts)
    if len(text.encode()) <= MAX_ID_BYTES:
        return text
    return "sha256-" + hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class ChainRef:
    """Which chain: one per (tenant, subject, key, member)."""

    tenant_id: str
    subject_id: str
    key: str
    member: str

    @property
    def id(self) -> str:
        return document_id(self.tenant_id, self.subject_id, self.key, self.member)

    def archived_id(self, version: int) -> str:
        """One more `|`-joined part than any chain id, so no chain (whatever its key or member
        spells) can share an archived version's _id; a `__v<N>` suffix on the member could."""
        return document_id(self.tenant_id, self.subject_id, self.key, self.member, f"v{version}")

    def belief_doc(self, belief: Belief, kind: str) -> Body:
        return {
            "tenant_id": self.tenant_id,
            "subject_id": self.subject_id,
            "key": self.key,
            "member": self.member,
            "kind": kind,
            "doc_id": belief.doc_id,
            "current": belief.current,
            "version": belief.version,
            "source_order": belief.source_order,
            "text": belief.text,
            "belief": belief.model_dump(mode="json"),
        }

    def chain_doc(self, chain: list[Belief], vector: Sequence[float] | None) -> Body:
        """The current version's searchable fields, plus every version as stored JSON."""
        doc = self.belief_doc(chain[-1], "chain") | {"chain": [b.model_dump(mode="json") for b in chain]}
        if vector is not None:
            doc["vector"] = list(vector)
        return doc

    def archive_actions(self, chain: list[Belief], chain_version: int) -> list[Body]:
        """Bulk actions that copy each past version to `<chain id>|v<N>`. external_gte with the
        chain document's _version: a slow writer of an older chain loses (409) to a newer one, and
        rewriting the same chain is a no-op."""
        actions: list[Body] = []
        for belief in chain[:-1]:
            meta = {"_id": self.archived_id(belief.version)}  # no _index: sent to <index>/_bulk
            actions.append({"index": meta | {"version": chain_version, "version_type": "external_gte"}})
            actions.append(self.belief_doc(belief, "archived"))
        return actions


def observation_doc(tenant_id: str, obs: Observation) -> tuple[str, Body]:
    """(_id, document): the id names the event, so a redelivery collides with the first write."""
    doc_id = document_id(tenant_id, obs.subject_id, obs.key, obs.member, obs.event_id)
    fields = {"tenant_id": tenant_id, "subject_id": obs.subject_id, "key": obs.key, "member": obs.member}
    return doc_id, fields | {
        "event_id": obs.event_id,
        "order": obs.order,
        "observation": obs.model_dump(mode="json"),
    }


def terms(**fields: object) -> list[Body]:
    return [{"term": {name: value}} for name, value in fields.items()]


def current_filter(tenant_id: str, subject_id: str) -> list[Body]:
    """Defence in depth: every read names the tenant, even though one stack serves one tenant."""
    return terms(tenant_id=tenant_id, subject_id=subject_id, current=True)


# Ties break by doc id, so equal scores come back in a stable order. A sort that is not only
# `_score` stops OpenSearch filling in `_score` unless track_scores asks for it.
RANKED: Body = {"sort": [{"_score": "desc"}, {"doc_id": "asc"}], "track_scores": True, "_source": ["belief"]}


def knn_query(tenant_id: str, subject_id: str, vector: Sequence[float], k: int) -> Body:
    # The filter sits inside the knn clause (efficient filtering): outside it, as a bool filter
    # around the knn query, it would drop hits after top-k and return fewer than k.
    knn = {
        "vector": list(vector),
        "k": k,
        "filter": {"bool": {"filter": current_filter(tenant_id, subject_id)}},
    }
    return {"size": k, "query": {"knn": {"vector": knn}}, **RANKED}


def keyword_query(tenant_id: str, subject_id: str, text: str, k: int) -> Body:
    query = {
        "bool": {
            "must": [{"match": {"text": {"query": text}}}],
            "filter": current_filter(tenant_id, subject_id),
        }
    }
    return {"size": k, "query": query, **RANKED}


def current_query(tenant_id: str, subject_id: str, key: str | None) -> Body:
    filters = current_filter(tenant_id, subject_id) + (terms(key=key) if key is not None else [])
    return {
        "size": MAX_HITS,
        "query": {"bool": {"filter": filters}},
        "sort": [{"key": "asc"}, {"member": "asc"}],
        "_source": ["belief"],
    }


def history_query(tenant_id: str, subject_id: str, key: str) -> Body:
    # Chain documents, not the archived ones: the chain is written by compare-and-set, so it is
    # authoritative; archived documents are a best-effort copy.
    filters = terms(tenant_id=tenant_id, subject_id=subject_id, key=key, kind="chain")
    return {
        "size": MAX_HITS,
        "query": {"bool": {"filter": filters}},
        "sort": [{"member": "asc"}],
        "_source": ["chain"],
    }


def observations_query(tenant_id: str, subject_id: str, key: str, member: str) -> Body:
    filters = terms(tenant_id=tenant_id, subject_id=subject_id, key=key, member=member)
    return {
        "size": MAX_HITS,
        "track_total_hits": True,  # to refuse, rather than fold, a truncated list
        "query": {"bool": {"filter": filters}},
        "sort": [{"order": "asc"}, {"event_id": "asc"}],
        "_source": ["observation"],
    }


def subjects_query(tenant_id: str, after: Body | None) -> Body:
    # A composite aggregation pages through every subject in key order; a plain terms
    # aggregation would silently stop at its size.
    composite: Body = {"size": SUBJECT_PAGE, "sources": [{"subject": {"terms": {"field": "subject_id"}}}]}
    if after is not None:
        composite["after"] = after
    return {
        "size": 0,
        "query": {"bool": {"filter": terms(tenant_id=tenant_id)}},
        "aggs": {"subjects": {"composite": composite}},
    }


def coverage_queries(tenant_id: str, subject_id: str) -> tuple[Body, Body]:
    """Count bodies: current beliefs, and current beliefs that have a vector."""
    current = current_filter(tenant_id, subject_id)
    with_vector = [*current, {"exists": {"field": "vector"}}]
    return {"query": {"bool": {"filter": current}}}, {"query": {"bool": {"filter": with_vector}}}
