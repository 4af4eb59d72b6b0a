"""The wire side of the OpenSearch skill index: the index body, document ids, bulk actions and
query bodies. Pure functions, so unit tests pin them without a server."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agentmem.adapters.aws.opensearch_bulk import line
from agentmem.adapters.aws.opensearch_mappings import ENGINES, KEYWORD, SLOWLOG, Body, document_id, terms
from agentmem.ports.procedural import IndexedSkill, SkillKey

STAMP_PAGE = 1_000
KEY_FIELDS = ["kind", "skill_id"]
STAMP_FIELDS = [*KEY_FIELDS, "stamp"]
# Equal scores come back in key order, as from the SQLite index. (With a sort that is not only
# `_score`, hits carry no `_score` unless track_scores asks; nothing reads it, the order is enough.)
BY_SCORE_THEN_KEY: list[Body] = [{"_score": "desc"}, {"kind": "asc"}, {"skill_id": "asc"}]
BY_KEY: list[Body] = [{"kind": "asc"}, {"skill_id": "asc"}]


def skill_index_name(prefix: str) -> str:
    return f"{prefix}-skills"


def skill_index_body(dimension: int, engine: str) -> Body:
    """One document per approved skill item. The engine must filter inside the k-NN query (see
    `opensearch_mappings.belief_index_body`), so the tenant narrows candidates before top-k."""
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, not {engine!r}")
    return {
        # One shard: a tenant's library is small, and BM25 idf and k-NN top-k are per shard, so a
        # single shard keeps rankings identical from run to run.
        "settings": {"index": {"knn": True, "number_of_shards": 1, **SLOWLOG}},
        "mappings": {
            "dynamic": "strict",
            "properties": {
                "tenant_id": KEYWORD,
                "kind": KEYWORD,
                "skill_id": KEYWORD,
                "stamp": KEYWORD,
                # english: stemming and stop words, like the porter tokenizer of the SQLite FTS5 index
                "text": {"type": "text", "analyzer": "english"},
                # cosinesimil like the belief index: vectors arrive normalised, so the ranking is the
                # local index's dot product, and a stray unnormalised vector still ranks by angle.
                "vector": {
                    "type": "knn_vector",
                    "dimension": dimension,
                    "method": {"name": "hnsw", "space_type": "cosinesimil", "engine": engine},
                },
            },
        },
    }


def skill_doc_id(tenant_id: str, key: SkillKey) -> str:
    return document_id(tenant_id, *key)


def bulk_actions(tenant_id: str, put: Sequence[IndexedSkill], remove: Sequence[SkillKey]) -> list[str]:
    """NDJSON actions, deletes first, then puts: a bulk request runs in order on the one shard,
    so a key in both ends up written, as in the SQLite index. No `_index`: the bulk goes to the
    index's own path (opensearch_bulk)."""
    actions = [line({"delete": {"_id": skill_doc_id(tenant_id, key)}}) for key in remove]
    for skill in put:
        meta = {"index": {"_id": skill_doc_id(tenant_id, (skill.kind, skill.skill_id))}}
        doc = {
            "tenant_id": tenant_id,
            "kind": skill.kind,
            "skill_id": skill.skill_id,
            "stamp": skill.stamp,
            "text": skill.text,
            "vector": [float(x) for x in skill.vector],
        }
        actions.append(line(meta) + line(doc))
    return actions


def knn_query(tenant_id: str, vector: Sequence[float], k: int) -> Body:
    # The filter sits inside the knn clause (efficient filtering): outside it, as a bool filter
    # around the knn query, it would drop other tenants' hits after top-k and return fewer than k.
    knn = {
        "vector": [float(x) for x in vector],
        "k": k,
        "filter": {"bool": {"filter": terms(tenant_id=tenant_id)}},
    }
    return {"size": k, "query": {"knn": {"vector": knn}}, "sort": BY_SCORE_THEN_KEY, "_source": KEY_FIELDS}


def keyword_query(tenant_id: str, text: str, k: int) -> Body:
    query = {"bool": {"must": [{"match": {"text": {"query": text}}}], "filter": terms(tenant_id=tenant_id)}}
    return {"size": k, "query": query, "sort": BY_SCORE_THEN_KEY, "_source": KEY_FIELDS}


def stamps_query(tenant_id: str, after: list[Any] | None, size: int = STAMP_PAGE) -> Body:
    """One page of the tenant's stamps in key order; `after` is the last hit's sort values.
    (kind, skill_id) is unique within a tenant, so search_after neither repeats nor skips a key."""
    body: Body = {
        "size": size,
        "query": {"bool": {"filter": terms(tenant_id=tenant_id)}},
        "sort": BY_KEY,
        "_source": STAMP_FIELDS,
    }
    if after is not None:
        body["search_after"] = after
    return body
