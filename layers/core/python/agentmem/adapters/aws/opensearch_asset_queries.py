"""The wire side of the OpenSearch asset index: the index body, document ids, bulk bodies and query
bodies. Pure functions, so unit tests pin them without a server."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from agentmem.adapters.aws.opensearch_bulk import line
from agentmem.adapters.aws.opensearch_mappings import (
    ENGINES,
    KEYWORD,
    MAX_HITS,
    SLOWLOG,
    Body,
    document_id,
    terms,
)
from agentmem.ports.catalogue import IndexedAsset

STAMP_PAGE = 1_000
# index.max_terms_count's default: one `terms` query takes at most this many values. A compiled
# scope is at most ~10,000 ids; a larger set is split over several `terms` clauses (see
# `any_of`) rather than relying on a raised index setting.
MAX_TERMS = 65_536
# Well under the 10 MB default http.max_content_length of the smallest OpenSearch Service
# instances, and small enough that one slow bulk does not hold a Lambda for long.
SIMILARITY_PAGE = MAX_HITS  # one search returns at most index.max_result_window hits

BY_SCORE_THEN_ID: list[Body] = [{"_score": "desc"}, {"asset_id": "asc"}]
BY_ID: list[Body] = [{"asset_id": "asc"}]
# Exact cosine, whatever the engine or version: the k-NN plugin's own `knn_score` script changed
# its cosinesimil score from 1 + cos to (1 + cos) / 2 in 2.19. Scores may not be negative, hence
# the 1.0 added here and taken off again by the adapter.
COSINE_SCRIPT = "1.0 + cosineSimilarity(params.query_value, doc[params.field])"

# The english analyzer rebuilt (possessives, lowercase, stop words, Porter stemming, as the SQLite
# index's porter tokenizer stems), plus `_` as a word separator: the standard tokenizer keeps
# `dim_customers_v3` as one token, so `customers` would never find it.
ANALYSIS: Body = {
    "char_filter": {"underscore_to_space": {"type": "pattern_replace", "pattern": "_", "replacement": " "}},
    "filter": {
        "english_possessive_stemmer": {"type": "stemmer", "language": "possessive_english"},
        "english_stop": {"type": "stop", "stopwords": "_english_"},
        "english_stemmer": {"type": "stemmer", "language": "english"},
    },
    "analyzer": {
        "asset_text": {
            "type": "custom",
            "char_filter": ["underscore_to_space"],
            "tokenizer": "standard",
            "filter": ["english_possessive_stemmer", "lowercase", "english_stop", "english_stemmer"],
        }
    },
}


def asset_index_name(prefix: str) -> str:
    return f"{prefix}-assets"


def asset_index_body(dimension: int, engine: str) -> Body:
    """One document per indexed asset. The engine must filter inside the k-NN query (see
    `opensearch_mappings.belief_index_body`), so the scope narrows candidates before top-k."""
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, not {engine!r}")
    return {
        # One shard: BM25 idf and k-NN top-k are per shard, so a single shard keeps rankings
        # identical from run to run; 10,000 assets of 512 floats fit one shard many times over.
        "settings": {"index": {"knn": True, "number_of_shards": 1, **SLOWLOG}, "analysis": ANALYSIS},
        "mappings": {
            "dynamic": "strict",
            "properties": {
                "tenant_id": KEYWORD,
                "asset_id": KEYWORD,
                "path": KEYWORD,
                "change_seq": {"type": "long"},
                "principals": KEYWORD,
                "text": {"type": "text", "analyzer": "asset_text"},
                # cosinesimil: the ranking is the local index's cosine, normalised vectors or not.
                "vector": {
                    "type": "knn_vector",
                    "dimension": dimension,
                    "method": {"name": "hnsw", "space_type": "cosinesimil", "engine": engine},
                },
            },
        },
    }


def asset_doc_id(tenant_id: str, asset_id: str) -> str:
    return document_id(tenant_id, asset_id)


def bulk_actions(tenant_id: str, put: Sequence[IndexedAsset], remove: Sequence[str]) -> list[str]:
    """NDJSON actions, deletes first, then puts, in order on the one shard: an id in both ends up
    written, as in the SQLite index; an id put twice keeps its last entry. No `_index`: the bulk
    goes to the index's own path (opensearch_bulk)."""
    actions = [line({"delete": {"_id": asset_doc_id(tenant_id, a)}}) for a in remove]
    for a in {asset.asset_id: asset for asset in put}.values():
        doc = {
            "tenant_id": tenant_id,
            "asset_id": a.asset_id,
            "path": a.path,
            "change_seq": a.change_seq,
            "principals": list(a.principals),
            "text": a.text,  # as the composer built it (title, path words, body, payload strings)
            "vector": [float(x) for x in a.vector],
        }
        meta = {"index": {"_id": asset_doc_id(tenant_id, a.asset_id)}}
        actions.append(line(meta) + line(doc))
    return actions


def any_of(field: str, values: Collection[str]) -> Body:
    """A filter matching any of `values`, sorted so equal sets send equal bodies; split into
    several `terms` clauses past index.max_terms_count."""
    ordered = sorted(set(values))
    if len(ordered) <= MAX_TERMS:
        return {"terms": {field: ordered}}
    chunks = [ordered[i : i + MAX_TERMS] for i in range(0, len(ordered), MAX_TERMS)]
    return {"bool": {"should": [{"terms": {field: chunk}} for chunk in chunks], "minimum_should_match": 1}}


def scope_filter(tenant_id: str, allowed: Collection[str]) -> list[Body]:
    return [*terms(tenant_id=tenant_id), any_of("asset_id", allowed)]


def knn_query(tenant_id: str, vector: Sequence[float], allowed: Collection[str], k: int) -> Body:
    # The filter sits inside the knn clause (efficient filtering): outside it, as a bool filter
    # around the knn query, it would drop out-of-scope hits after top-k and return fewer than k.
    knn = {
        "vector": [float(x) for x in vector],
        "k": k,
        "filter": {"bool": {"filter": scope_filter(tenant_id, allowed)}},
    }
    return {
        "size": k,
        "query": {"knn": {"vector": knn}},
        "sort": BY_SCORE_THEN_ID,
        "track_scores": True,  # a sort that is not only _score leaves hits without one otherwise
        "_source": ["asset_id"],
    }


def keyword_query(tenant_id: str, text: str, allowed: Collection[str], k: int) -> Body:
    query = {
        "bool": {"must": [{"match": {"text": {"query": text}}}], "filter": scope_filter(tenant_id, allowed)}
    }
    return {
        "size": k,
        "query": query,
        "sort": BY_SCORE_THEN_ID,
        "track_scores": True,
        "_source": ["asset_id"],
    }


def similarity_query(tenant_id: str, vector: Sequence[float], asset_ids: Collection[str]) -> Body:
    """Exact cosine of each of `asset_ids` (at most SIMILARITY_PAGE) by a script over just them.
    Not a knn query: that is approximate, returns at most k, and scores by engine version."""
    script = {
        "source": COSINE_SCRIPT,
        "params": {"field": "vector", "query_value": [float(x) for x in vector]},
    }
    filtered = {"bool": {"filter": scope_filter(tenant_id, asset_ids)}}
    return {
        "size": len(asset_ids),
        "query": {"script_score": {"query": filtered, "script": script}},
        "_source": ["asset_id"],
    }


def stamps_query(tenant_id: str, after: list[Any] | None, size: int = STAMP_PAGE) -> Body:
    """One page of the tenant's stamps in id order; `after` is the last hit's sort values."""
    body: Body = {
        "size": size,
        "query": {"bool": {"filter": terms(tenant_id=tenant_id)}},
        "sort": BY_ID,
        "_source": ["asset_id", "change_seq"],
    }
    if after is not None:
        body["search_after"] = after
    return body
