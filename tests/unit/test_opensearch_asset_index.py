"""The OpenSearch asset index, offline: the fake connection of test_opensearch_beliefs records every
request and answers from a queue of canned replies, so each test pins the exact requests the
adapter sends and how it reads the answers. A request the test did not expect fails it."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from opensearchpy import OpenSearch
from opensearchpy.exceptions import ConnectionError, ConnectionTimeout

from agentmem.adapters.aws import opensearch_asset_index, opensearch_asset_queries
from agentmem.adapters.aws.opensearch_asset_index import KTH_TIE_MARGIN, OpenSearchAssetIndex
from agentmem.adapters.aws.opensearch_asset_queries import any_of
from agentmem.errors import AgentMemError, BackendUnavailableError, NotFoundError
from agentmem.ports.catalogue import IndexedAsset
from tests.unit.test_opensearch_beliefs import FakeConnection, Reply, Request, answer

INDEX = "agentmem-assets"
EAST, NORTH = [1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]
TENANT = {"term": {"tenant_id": "acme"}}
BY_SCORE_THEN_ID = [{"_score": "desc"}, {"asset_id": "asc"}]
ACK = (200, {"acknowledged": True})
NO_INDEX = (404, {"error": {"type": "index_not_found_exception", "reason": "no such index"}, "status": 404})
CUSTOMERS = IndexedAsset(
    "customers", "warehouse/analytics/dim_customers_v3", 4, ("analysts",), "Customer dimension", EAST
)
ORDERS = IndexedAsset(
    "orders", "warehouse/analytics/fact_orders", 2, ("analysts", "finance"), "Orders", NORTH
)


@pytest.fixture
def client() -> OpenSearch:
    # max_retries=0: the transport's own retries on 5xx would hide what the adapter does.
    return OpenSearch(hosts=[{"host": "fake", "port": 9200}], connection_class=FakeConnection, max_retries=0)


@pytest.fixture
def fake(client: OpenSearch) -> FakeConnection:
    connection = client.transport.get_connection()
    assert isinstance(connection, FakeConnection)
    return connection


@pytest.fixture
def index(client: OpenSearch) -> OpenSearchAssetIndex:
    return OpenSearchAssetIndex(client, "acme", dimension=4)


def hits(*scored: tuple[str, float]) -> tuple[int, Any]:
    rows = [{"_id": f"acme|{a}", "_score": score, "_source": {"asset_id": a}} for a, score in scored]
    return 200, {"hits": {"total": {"value": len(rows)}, "hits": rows}}


def stamp_page(*assets: tuple[str, int]) -> tuple[int, Any]:
    rows = [{"_source": {"asset_id": a, "change_seq": seq}, "sort": [a]} for a, seq in assets]
    return 200, {"hits": {"hits": rows}}


def bulk_lines(request: Request) -> list[Any]:
    """The NDJSON lines of a bulk request (the shared decoder reads a one-line body as one object)."""
    return request.body if isinstance(request.body, list) else [request.body]


def bulk_reply(*outcomes: tuple[str, int, dict[str, Any] | None]) -> tuple[int, Any]:
    """(action, status, error or None) per item, with `errors` set as OpenSearch sets it."""
    items = [
        {action: {"status": status} | ({"error": error} if error else {})}
        for action, status, error in outcomes
    ]
    return 200, {"took": 3, "errors": any(error for _, _, error in outcomes), "items": items}


def document(asset: IndexedAsset) -> dict[str, Any]:
    return {
        "tenant_id": "acme",
        "asset_id": asset.asset_id,
        "path": asset.path,
        "change_seq": asset.change_seq,
        "principals": list(asset.principals),
        "text": asset.text,
        "vector": list(asset.vector),
    }


# -- ensure_ready -----------------------------------------------------------------------------


def test_ensure_ready_creates_the_index_with_knn_and_an_analyzer_splitting_underscores(
    index: OpenSearchAssetIndex, fake: FakeConnection
) -> None:
    answer(fake, (404, {}), ACK)

    index.ensure_ready()

    exists, create = fake.requests
    assert (exists.method, exists.path) == ("HEAD", f"/{INDEX}")
    assert (create.method, create.path) == ("PUT", f"/{INDEX}")
    settings = create.body["settings"]
    assert (settings["index"]["knn"], settings["index"]["number_of_shards"]) == (True, 1)
    analysis = settings["analysis"]
    assert analysis["char_filter"]["underscore_to_space"] == {
        "type": "pattern_replace",
        "pattern": "_",
        "replacement": " ",
    }
    assert analysis["analyzer"]["asset_text"]["char_filter"] == ["underscore_to_space"]
    assert analysis["analyzer"]["asset_text"]["filter"][-1] == "english_stemmer"
    assert create.body["mappings"] == {
        "dynamic": "strict",
        "properties": {
            "tenant_id": {"type": "keyword"},
            "asset_id": {"type": "keyword"},
            "path": {"type": "keyword"},
            "change_seq": {"type": "long"},
            "principals": {"type": "keyword"},
            "text": {"type": "text", "analyzer": "asset_text"},
            "vector": {
                "type": "knn_vector",
                "dimension": 4,
                "method": {"name": "hnsw", "space_type": "cosinesimil", "engine": "faiss"},
            },
        },
    }


def test_ensure_ready_leaves_an_existing_index_alone(
    index: OpenSearchAssetIndex, fake: FakeConnection
) -> None:
    answer(fake, (200, {}))
    index.ensure_ready()
    assert [r.method for r in fake.requests] == ["HEAD"]

    exists = (400, {"error": {"type": "resource_already_exists_exception"}, "status": 400})
    answer(fake, (404, {}), exists)  # another writer created it between our HEAD and PUT
    index.ensure_ready()
    assert [r.method for r in fake.requests] == ["HEAD", "HEAD", "PUT"]


def test_ensure_ready_raises_any_other_refusal(index: OpenSearchAssetIndex, fake: FakeConnection) -> None:
    answer(fake, (404, {}), (400, {"error": {"type": "mapper_parsing_exception"}, "status": 400}))
    with pytest.raises(AgentMemError, match="create index agentmem-assets"):
        index.ensure_ready()


def test_the_prefix_and_engine_are_configurable(client: OpenSearch, fake: FakeConnection) -> None:
    answer(fake, (404, {}), ACK)
    OpenSearchAssetIndex(client, "acme", prefix="team", dimension=8, engine="lucene").ensure_ready()
    create = fake.requests[-1]
    assert create.path == "/team-assets"
    assert create.body["mappings"]["properties"]["vector"]["method"]["engine"] == "lucene"
    assert create.body["mappings"]["properties"]["vector"]["dimension"] == 8
    with pytest.raises(ValueError, match="engine"):
        OpenSearchAssetIndex(client, "acme", dimension=8, engine="nmslib")


# -- update -----------------------------------------------------------------------------------


def test_update_is_one_bulk_of_deletes_then_puts(index: OpenSearchAssetIndex, fake: FakeConnection) -> None:
    answer(fake, bulk_reply(("delete", 200, None), ("index", 201, None), ("index", 200, None)))

    index.update([CUSTOMERS, ORDERS], ["old-one"])

    (bulk,) = fake.requests
    assert (bulk.method, bulk.path, bulk.params) == ("POST", f"/{INDEX}/_bulk", {})
    assert bulk.body == [
        {"delete": {"_id": "acme|old-one"}},
        {"index": {"_id": "acme|customers"}},
        document(CUSTOMERS),
        {"index": {"_id": "acme|orders"}},
        document(ORDERS),
    ]


def test_an_id_put_twice_is_sent_once_with_its_last_entry(
    index: OpenSearchAssetIndex, fake: FakeConnection
) -> None:
    answer(fake, bulk_reply(("index", 200, None)))
    newer = IndexedAsset("customers", "crm/customers", 9, ("sales",), "Accounts", NORTH)
    index.update([CUSTOMERS, newer], [])
    assert bulk_lines(fake.requests[0]) == [
        {"index": {"_id": "acme|customers"}},
        document(newer),
    ]


def test_a_large_update_is_split_into_bulks_under_the_byte_limit(
    client: OpenSearch, fake: FakeConnection
) -> None:
    limit = 2_000
    assets = [IndexedAsset(f"a{i:02}", "kb", 1, ("p",), "x" * 500, EAST) for i in range(10)]
    answer(fake, *[bulk_reply(("index", 201, None))] * 11)  # at most one bulk per action

    OpenSearchAssetIndex(client, "acme", dimension=4, max_bulk_bytes=limit).update(assets, ["gone"])

    bodies = [bulk_lines(request) for request in fake.requests]
    assert len(bodies) > 1
    for lines in bodies:
        sent = sum(
            len(json.dumps(line, ensure_ascii=False, separators=(",", ":")).encode()) + 1 for line in lines
        )
        assert sent <= limit
        assert "delete" in lines[0] or "index" in lines[0]  # a document never opens a body
    everything = [line for lines in bodies for line in lines]
    assert everything[0] == {"delete": {"_id": "acme|gone"}}
    assert [line["asset_id"] for line in everything if "asset_id" in line] == [a.asset_id for a in assets]


def test_a_failed_bulk_stops_before_the_next_one(client: OpenSearch, fake: FakeConnection) -> None:
    assets = [IndexedAsset(f"a{i}", "kb", 1, ("p",), "x" * 500, EAST) for i in range(4)]
    fault = {"type": "mapper_parsing_exception", "reason": "no"}
    answer(fake, bulk_reply(("index", 201, None)), bulk_reply(("index", 400, fault)))
    with pytest.raises(AgentMemError, match="1 of 1 items failed"):
        OpenSearchAssetIndex(client, "acme", dimension=4, max_bulk_bytes=1_000).update(assets, [])
    assert len(fake.requests) == 2  # the third and fourth were never sent


def test_an_empty_update_sends_nothing(index: OpenSearchAssetIndex, fake: FakeConnection) -> None:
    index.update([], [])
    assert fake.requests == []


def test_update_carries_the_configured_refresh(client: OpenSearch, fake: FakeConnection) -> None:
    answer(fake, bulk_reply(("index", 201, None)))
    OpenSearchAssetIndex(client, "acme", dimension=4, refresh="wait_for").update([CUSTOMERS], [])
    assert fake.requests[0].params == {"refresh": "wait_for"}


def test_removing_a_missing_document_is_no_failure(index: OpenSearchAssetIndex, fake: FakeConnection) -> None:
    answer(fake, (200, {"errors": False, "items": [{"delete": {"status": 404, "result": "not_found"}}]}))
    index.update([], ["never-indexed"])


@pytest.mark.parametrize(
    ("status", "error"),
    [(400, AgentMemError), (429, BackendUnavailableError), (503, BackendUnavailableError)],
    ids=["mapping", "throttled", "unavailable"],
)
def test_a_failed_bulk_item_raises(
    index: OpenSearchAssetIndex, fake: FakeConnection, status: int, error: type[Exception]
) -> None:
    fault = {"type": "mapper_parsing_exception" if status == 400 else "rejected", "reason": "no"}
    answer(fake, bulk_reply(("delete", 404, None), ("index", 201, None), ("index", status, fault)))
    with pytest.raises(AgentMemError, match="1 of 3 items failed") as raised:
        index.update([CUSTOMERS, ORDERS], ["gone"])
    assert type(raised.value) is error


# -- searches ---------------------------------------------------------------------------------


def test_vector_search_filters_tenant_and_scope_inside_the_knn_clause(
    index: OpenSearchAssetIndex, fake: FakeConnection
) -> None:
    answer(fake, hits(("customers", 1.0), ("orders", 0.5)))

    found = index.vector_search(EAST, {"orders", "customers", "absent"}, 3)

    assert found == [("customers", 1.0), ("orders", 0.0)]  # (1 + cos) / 2 read back as cos
    (search,) = fake.requests
    assert (search.method, search.path) == ("POST", f"/{INDEX}/_search")
    scope = [TENANT, {"terms": {"asset_id": ["absent", "customers", "orders"]}}]
    fetched = 3 + KTH_TIE_MARGIN  # so a tie at the 3rd place is broken by id, not by the engine
    assert search.body == {
        "size": fetched,
        "query": {"knn": {"vector": {"vector": EAST, "k": fetched, "filter": {"bool": {"filter": scope}}}}},
        "sort": BY_SCORE_THEN_ID,
        "track_scores": True,
        "_source": ["asset_id"],
    }


def test_vector_search_returns_k_of_the_wider_sorted_pool_so_kth_place_ties_go_by_id(
    index: OpenSearchAssetIndex, fake: FakeConnection
) -> None:
    # The engine sorts the pool it was asked for by (score, asset_id); three tie at the 2nd place.
    answer(fake, hits(("a", 1.0), ("b", 0.5), ("c", 0.5), ("d", 0.5)))

    assert index.vector_search(EAST, {"a", "b", "c", "d"}, 2) == [("a", 1.0), ("b", 0.0)]


def test_keyword_search_is_bm25_under_the_tenant_and_scope_filter(
    index: OpenSearchAssetIndex, fake: FakeConnection
) -> None:
    answer(fake, hits(("customers", 2.5)))

    assert index.keyword_search("dim_customers", ["customers"], 5) == [("customers", 2.5)]

    (search,) = fake.requests
    scope = [TENANT, {"terms": {"asset_id": ["customers"]}}]
    assert search.body == {
        "size": 5,
        "query": {"bool": {"must": [{"match": {"text": {"query": "dim_customers"}}}], "filter": scope}},
        "sort": BY_SCORE_THEN_ID,
        "track_scores": True,
        "_source": ["asset_id"],
    }


def test_searches_that_cannot_match_send_nothing(index: OpenSearchAssetIndex, fake: FakeConnection) -> None:
    assert index.keyword_search("  ", {"a"}, 5) == []
    assert index.keyword_search("csv", {"a"}, 0) == []
    assert index.keyword_search("csv", set(), 5) == []
    assert index.vector_search(EAST, {"a"}, 0) == []
    assert index.vector_search(EAST, [], 5) == []
    assert index.similarities(EAST, []) == {}
    assert fake.requests == []


def test_a_scope_past_max_terms_count_is_split_into_several_terms_clauses(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(opensearch_asset_queries, "MAX_TERMS", 2)
    assert any_of("asset_id", ["c", "a", "b", "a"]) == {
        "bool": {
            "should": [{"terms": {"asset_id": ["a", "b"]}}, {"terms": {"asset_id": ["c"]}}],
            "minimum_should_match": 1,
        }
    }
    assert any_of("asset_id", ["b", "a"]) == {"terms": {"asset_id": ["a", "b"]}}


def test_similarities_are_an_exact_cosine_script_over_just_the_ids(
    index: OpenSearchAssetIndex, fake: FakeConnection
) -> None:
    answer(fake, hits(("customers", 2.0), ("orders", 1.25)))

    assert index.similarities(NORTH, ["orders", "customers", "orders", "absent"]) == {
        "customers": 1.0,
        "orders": 0.25,
    }

    (search,) = fake.requests
    scope = [TENANT, {"terms": {"asset_id": ["absent", "customers", "orders"]}}]
    assert search.body == {
        "size": 3,
        "query": {
            "script_score": {
                "query": {"bool": {"filter": scope}},
                "script": {
                    "source": "1.0 + cosineSimilarity(params.query_value, doc[params.field])",
                    "params": {"field": "vector", "query_value": NORTH},
                },
            }
        },
        "_source": ["asset_id"],
    }


def test_similarities_of_many_ids_go_page_by_page(
    index: OpenSearchAssetIndex, fake: FakeConnection, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(opensearch_asset_index, "SIMILARITY_PAGE", 2)
    answer(fake, hits(("a", 1.5), ("b", 1.0)), hits(("c", 0.5)))
    assert index.similarities(EAST, ["c", "b", "a"]) == {"a": 0.5, "b": 0.0, "c": -0.5}
    assert [r.body["query"]["script_score"]["query"]["bool"]["filter"][1] for r in fake.requests] == [
        {"terms": {"asset_id": ["a", "b"]}},
        {"terms": {"asset_id": ["c"]}},
    ]


def test_stamps_page_through_the_tenant_in_id_order(
    index: OpenSearchAssetIndex, fake: FakeConnection, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(opensearch_asset_index, "STAMP_PAGE", 2)
    answer(fake, stamp_page(("customers", 4), ("orders", 2)), stamp_page(("zz-last", 7)))

    assert index.stamps() == {"customers": 4, "orders": 2, "zz-last": 7}

    first, second = fake.requests
    assert first.path == second.path == f"/{INDEX}/_search"
    assert first.body == {
        "size": 2,
        "query": {"bool": {"filter": [TENANT]}},
        "sort": [{"asset_id": "asc"}],
        "_source": ["asset_id", "change_seq"],
    }
    assert second.body["search_after"] == ["orders"]


def test_stamps_stop_at_an_empty_page(
    index: OpenSearchAssetIndex, fake: FakeConnection, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(opensearch_asset_index, "STAMP_PAGE", 2)
    answer(fake, stamp_page(("a", 1), ("b", 1)), stamp_page())
    assert len(index.stamps()) == 2
    assert len(fake.requests) == 2


def test_every_read_of_an_index_not_created_yet_is_empty(
    index: OpenSearchAssetIndex, fake: FakeConnection
) -> None:
    # Readers may start before the writer has run ensure_ready.
    answer(fake, NO_INDEX, NO_INDEX, NO_INDEX, NO_INDEX)
    assert index.stamps() == {}
    assert index.vector_search(EAST, {"a"}, 5) == []
    assert index.keyword_search("csv", {"a"}, 5) == []
    assert index.similarities(EAST, {"a"}) == {}
    assert not fake.replies  # each read asked once and stopped at the 404


def test_a_write_to_a_missing_index_fails(index: OpenSearchAssetIndex, fake: FakeConnection) -> None:
    failed = {"type": "index_not_found_exception", "reason": "no such index [agentmem-assets]"}
    answer(fake, bulk_reply(("index", 404, failed)))
    with pytest.raises(AgentMemError, match="index_not_found_exception"):
        index.update([CUSTOMERS], [])


# -- faults -----------------------------------------------------------------------------------

OPERATIONS: dict[str, Callable[[OpenSearchAssetIndex], object]] = {
    "ensure_ready": lambda index: index.ensure_ready(),
    "update": lambda index: index.update([CUSTOMERS], []),
    "stamps": lambda index: index.stamps(),
    "vector_search": lambda index: index.vector_search(EAST, {"a"}, 5),
    "keyword_search": lambda index: index.keyword_search("csv", {"a"}, 5),
    "similarities": lambda index: index.similarities(EAST, {"a"}),
}


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        (ConnectionError("N/A", "refused", OSError("refused")), BackendUnavailableError),
        (ConnectionTimeout("TIMEOUT", "timed out", TimeoutError()), BackendUnavailableError),
        ((429, {"error": {"type": "too_many_requests"}}), BackendUnavailableError),
        ((503, {"error": {"type": "unavailable"}}), BackendUnavailableError),
        ((403, {"error": {"type": "security_exception"}}), AgentMemError),
    ],
    ids=["connection", "timeout", "429", "503", "403"],
)
@pytest.mark.parametrize("operation", list(OPERATIONS))
def test_faults_become_domain_errors(
    index: OpenSearchAssetIndex, fake: FakeConnection, reply: Reply, error: type[Exception], operation: str
) -> None:
    answer(fake, reply)
    with pytest.raises(AgentMemError) as raised:
        OPERATIONS[operation](index)
    assert type(raised.value) is error
    assert raised.value.__cause__ is not None


def test_a_404_that_is_not_a_missing_index_is_not_found(
    index: OpenSearchAssetIndex, fake: FakeConnection
) -> None:
    answer(fake, (404, {"error": {"type": "resource_not_found_exception"}, "status": 404}))
    with pytest.raises(NotFoundError):
        index.keyword_search("csv", {"a"}, 5)
