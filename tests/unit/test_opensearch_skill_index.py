"""The OpenSearch skill index, offline: the fake connection of test_opensearch_beliefs records every
request and answers from a queue of canned replies, so each test pins the exact requests the
adapter sends and how it reads the answers. A request the test did not expect fails it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from opensearchpy import OpenSearch
from opensearchpy.exceptions import ConnectionError, ConnectionTimeout

from agentmem.adapters.aws import opensearch_skill_index
from agentmem.adapters.aws.opensearch_skill_index import OpenSearchSkillIndex
from agentmem.errors import AgentMemError, BackendUnavailableError, NotFoundError
from agentmem.ports.procedural import IndexedSkill, SkillKey
from tests.unit.test_opensearch_beliefs import FakeConnection, Reply, Request, answer

INDEX = "agentmem-skills"
EAST, NORTH = [1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]
TENANT = [{"term": {"tenant_id": "acme"}}]
BY_SCORE_THEN_KEY = [{"_score": "desc"}, {"kind": "asc"}, {"skill_id": "asc"}]
ACK = (200, {"acknowledged": True})
NO_INDEX = (404, {"error": {"type": "index_not_found_exception", "reason": "no such index"}, "status": 404})
PARSE = IndexedSkill("function", "parse-csv", "2|2026-01-02T00:00:00Z", "parse csv rows", EAST)
EMAIL = IndexedSkill("guidance", "send-email", "1|2026-01-01T00:00:00Z", "send an email", NORTH)


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
def index(client: OpenSearch) -> OpenSearchSkillIndex:
    return OpenSearchSkillIndex(client, "acme", dimension=4)


def hits(*keys: SkillKey) -> tuple[int, Any]:
    rows = [
        {"_id": f"acme|{kind}|{skill_id}", "_source": {"kind": kind, "skill_id": skill_id}}
        for kind, skill_id in keys
    ]
    return 200, {"hits": {"total": {"value": len(rows)}, "hits": rows}}


def stamp_page(*skills: IndexedSkill) -> tuple[int, Any]:
    rows = [
        {"_source": {"kind": s.kind, "skill_id": s.skill_id, "stamp": s.stamp}, "sort": [s.kind, s.skill_id]}
        for s in skills
    ]
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


# -- ensure_ready -----------------------------------------------------------------------------


def test_ensure_ready_creates_the_missing_index_with_the_knn_and_bm25_mapping(
    index: OpenSearchSkillIndex, fake: FakeConnection
) -> None:
    answer(fake, (404, {}), ACK)

    index.ensure_ready()

    exists, create = fake.requests
    assert (exists.method, exists.path) == ("HEAD", f"/{INDEX}")
    assert (create.method, create.path) == ("PUT", f"/{INDEX}")
    settings = create.body["settings"]["index"]
    assert (settings["knn"], settings["number_of_shards"]) == (True, 1)
    assert settings["search.slowlog.threshold.query.warn"] == "2s"
    assert create.body["mappings"] == {
        "dynamic": "strict",
        "properties": {
            "tenant_id": {"type": "keyword"},
            "kind": {"type": "keyword"},
            "skill_id": {"type": "keyword"},
            "stamp": {"type": "keyword"},
            "text": {"type": "text", "analyzer": "english"},
            "vector": {
                "type": "knn_vector",
                "dimension": 4,
                "method": {"name": "hnsw", "space_type": "cosinesimil", "engine": "faiss"},
            },
        },
    }


def test_ensure_ready_leaves_an_existing_index_alone(
    index: OpenSearchSkillIndex, fake: FakeConnection
) -> None:
    answer(fake, (200, {}))
    index.ensure_ready()
    assert [r.method for r in fake.requests] == ["HEAD"]

    exists = (400, {"error": {"type": "resource_already_exists_exception"}, "status": 400})
    answer(fake, (404, {}), exists)  # another writer created it between our HEAD and PUT
    index.ensure_ready()
    assert [r.method for r in fake.requests] == ["HEAD", "HEAD", "PUT"]


def test_ensure_ready_raises_any_other_refusal(index: OpenSearchSkillIndex, fake: FakeConnection) -> None:
    answer(fake, (404, {}), (400, {"error": {"type": "mapper_parsing_exception"}, "status": 400}))
    with pytest.raises(AgentMemError, match="create index agentmem-skills"):
        index.ensure_ready()


def test_the_engine_is_faiss_or_lucene(client: OpenSearch, fake: FakeConnection) -> None:
    answer(fake, (404, {}), ACK)
    OpenSearchSkillIndex(client, "acme", prefix="team", dimension=8, engine="lucene").ensure_ready()
    create = fake.requests[-1]
    assert create.path == "/team-skills"
    assert create.body["mappings"]["properties"]["vector"]["method"]["engine"] == "lucene"
    assert create.body["mappings"]["properties"]["vector"]["dimension"] == 8
    with pytest.raises(ValueError, match="engine"):
        OpenSearchSkillIndex(client, "acme", dimension=8, engine="nmslib")


# -- update -----------------------------------------------------------------------------------


def test_update_is_one_bulk_of_deletes_then_puts(index: OpenSearchSkillIndex, fake: FakeConnection) -> None:
    answer(fake, bulk_reply(("delete", 200, None), ("index", 201, None), ("index", 200, None)))

    index.update([PARSE, EMAIL], [("function", "old-one")])

    (bulk,) = fake.requests
    assert (bulk.method, bulk.path, bulk.params) == ("POST", f"/{INDEX}/_bulk", {})
    assert bulk.body == [
        {"delete": {"_id": "acme|function|old-one"}},
        {"index": {"_id": "acme|function|parse-csv"}},
        {
            "tenant_id": "acme",
            "kind": "function",
            "skill_id": "parse-csv",
            "stamp": "2|2026-01-02T00:00:00Z",
            "text": "parse csv rows",
            "vector": EAST,
        },
        {"index": {"_id": "acme|guidance|send-email"}},
        {
            "tenant_id": "acme",
            "kind": "guidance",
            "skill_id": "send-email",
            "stamp": "1|2026-01-01T00:00:00Z",
            "text": "send an email",
            "vector": NORTH,
        },
    ]


def test_an_empty_update_sends_nothing(index: OpenSearchSkillIndex, fake: FakeConnection) -> None:
    index.update([], [])
    assert fake.requests == []


def test_update_carries_the_configured_refresh(client: OpenSearch, fake: FakeConnection) -> None:
    answer(fake, bulk_reply(("index", 201, None)))
    OpenSearchSkillIndex(client, "acme", dimension=4, refresh="wait_for").update([PARSE], [])
    assert fake.requests[0].params == {"refresh": "wait_for"}


def test_an_id_over_the_limit_becomes_its_digest(index: OpenSearchSkillIndex, fake: FakeConnection) -> None:
    answer(fake, bulk_reply(("delete", 404, None)))
    index.update([], [("function", "x" * 600)])
    doc_id = bulk_lines(fake.requests[0])[0]["delete"]["_id"]
    assert doc_id.startswith("sha256-")
    assert len(doc_id) < 512


def test_removing_a_missing_document_is_no_failure(index: OpenSearchSkillIndex, fake: FakeConnection) -> None:
    # OpenSearch answers a delete of nothing with 404 `not_found` and no `error`: not a failure.
    answer(fake, (200, {"errors": False, "items": [{"delete": {"status": 404, "result": "not_found"}}]}))
    index.update([], [("function", "never-indexed")])


@pytest.mark.parametrize(
    ("status", "error"),
    [(400, AgentMemError), (429, BackendUnavailableError), (503, BackendUnavailableError)],
    ids=["mapping", "throttled", "unavailable"],
)
def test_a_failed_bulk_item_raises(
    index: OpenSearchSkillIndex, fake: FakeConnection, status: int, error: type[Exception]
) -> None:
    fault = {"type": "mapper_parsing_exception" if status == 400 else "rejected", "reason": "no"}
    answer(fake, bulk_reply(("delete", 404, None), ("index", 201, None), ("index", status, fault)))
    with pytest.raises(AgentMemError, match="1 of 3 items failed") as raised:
        index.update([PARSE, EMAIL], [("function", "gone")])
    assert type(raised.value) is error


# -- reads ------------------------------------------------------------------------------------


def test_vector_search_filters_on_the_tenant_inside_the_knn_clause(
    index: OpenSearchSkillIndex, fake: FakeConnection
) -> None:
    answer(fake, hits(("function", "parse-csv"), ("guidance", "send-email")))

    assert index.vector_search(EAST, 3) == [("function", "parse-csv"), ("guidance", "send-email")]

    (search,) = fake.requests
    assert (search.method, search.path) == ("POST", f"/{INDEX}/_search")
    assert search.body == {
        "size": 3,
        "query": {"knn": {"vector": {"vector": EAST, "k": 3, "filter": {"bool": {"filter": TENANT}}}}},
        "sort": BY_SCORE_THEN_KEY,
        "_source": ["kind", "skill_id"],
    }


def test_keyword_search_is_bm25_under_the_tenant_filter(
    index: OpenSearchSkillIndex, fake: FakeConnection
) -> None:
    answer(fake, hits(("function", "parse-csv")))

    assert index.keyword_search("parse CSV", 5) == [("function", "parse-csv")]

    (search,) = fake.requests
    assert search.path == f"/{INDEX}/_search"
    assert search.body == {
        "size": 5,
        "query": {"bool": {"must": [{"match": {"text": {"query": "parse CSV"}}}], "filter": TENANT}},
        "sort": BY_SCORE_THEN_KEY,
        "_source": ["kind", "skill_id"],
    }


def test_searches_that_cannot_match_send_nothing(index: OpenSearchSkillIndex, fake: FakeConnection) -> None:
    assert index.keyword_search("  ", 5) == []
    assert index.keyword_search("csv", 0) == []
    assert index.vector_search(EAST, 0) == []
    assert fake.requests == []


def test_stamps_page_through_the_tenant_in_key_order(
    index: OpenSearchSkillIndex, fake: FakeConnection, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(opensearch_skill_index, "STAMP_PAGE", 2)
    third = IndexedSkill("guidance", "zz-last", "5|t", "", EAST)
    answer(fake, stamp_page(PARSE, EMAIL), stamp_page(third))

    assert index.stamps() == {
        ("function", "parse-csv"): PARSE.stamp,
        ("guidance", "send-email"): EMAIL.stamp,
        ("guidance", "zz-last"): "5|t",
    }
    first, second = fake.requests
    assert first.path == second.path == f"/{INDEX}/_search"
    assert first.body["size"] == second.body["size"] == 2
    assert first.body["query"] == {"bool": {"filter": TENANT}}
    assert first.body["sort"] == [{"kind": "asc"}, {"skill_id": "asc"}]
    assert first.body["_source"] == ["kind", "skill_id", "stamp"]
    assert "search_after" not in first.body
    assert second.body["search_after"] == ["guidance", "send-email"]


def test_stamps_stop_at_an_empty_page(
    index: OpenSearchSkillIndex, fake: FakeConnection, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(opensearch_skill_index, "STAMP_PAGE", 2)
    answer(fake, stamp_page(PARSE, EMAIL), stamp_page())
    assert len(index.stamps()) == 2
    assert len(fake.requests) == 2


def test_every_read_of_an_index_not_created_yet_is_empty(
    index: OpenSearchSkillIndex, fake: FakeConnection
) -> None:
    # Readers may start before the projector has run ensure_ready.
    answer(fake, NO_INDEX, NO_INDEX, NO_INDEX)
    assert index.stamps() == {}
    assert index.vector_search(EAST, 5) == []
    assert index.keyword_search("csv", 5) == []
    assert not fake.replies  # each read asked once and stopped at the 404


def test_a_write_to_a_missing_index_fails(index: OpenSearchSkillIndex, fake: FakeConnection) -> None:
    failed = {"type": "index_not_found_exception", "reason": "no such index [agentmem-skills]"}
    answer(fake, bulk_reply(("index", 404, failed)))
    with pytest.raises(AgentMemError, match="index_not_found_exception"):
        index.update([PARSE], [])


# -- faults -----------------------------------------------------------------------------------

OPERATIONS: dict[str, Callable[[OpenSearchSkillIndex], object]] = {
    "ensure_ready": lambda index: index.ensure_ready(),
    "update": lambda index: index.update([PARSE], []),
    "stamps": lambda index: index.stamps(),
    "vector_search": lambda index: index.vector_search(EAST, 5),
    "keyword_search": lambda index: index.keyword_search("csv", 5),
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
    index: OpenSearchSkillIndex, fake: FakeConnection, reply: Reply, error: type[Exception], operation: str
) -> None:
    answer(fake, reply)
    with pytest.raises(AgentMemError) as raised:
        OPERATIONS[operation](index)
    assert type(raised.value) is error
    assert raised.value.__cause__ is not None


def test_a_404_that_is_not_a_missing_index_is_not_found(
    index: OpenSearchSkillIndex, fake: FakeConnection
) -> None:
    answer(fake, (404, {"error": {"type": "resource_not_found_exception"}, "status": 404}))
    with pytest.raises(NotFoundError):
        index.keyword_search("csv", 5)


def test_a_rebuild_of_a_large_library_is_split_into_bulks_under_the_byte_limit(
    client: OpenSearch, fake: FakeConnection
) -> None:
    skills = [IndexedSkill("function", f"f{i:02}", "1|t", "x" * 500, EAST) for i in range(10)]
    answer(fake, *[bulk_reply(("index", 201, None))] * 11)
    OpenSearchSkillIndex(client, "acme", dimension=4, max_bulk_bytes=2_000).update(skills, [])
    bodies = [bulk_lines(request) for request in fake.requests]
    assert len(bodies) > 1
    assert [line["skill_id"] for lines in bodies for line in lines if "skill_id" in line] == [
        s.skill_id for s in skills
    ]
