"""The OpenSearch passage adapter, offline: the fake connection of test_opensearch_beliefs records
every request and answers from canned replies, so each test pins the exact bodies sent."""

from __future__ import annotations

from typing import Any

import pytest
from opensearchpy import OpenSearch

from agentmem.adapters.aws.opensearch_passage_store import OpenSearchPassageStore
from agentmem.adapters.aws.opensearch_passages import OpenSearchPassageIndex
from agentmem.errors import BackendUnavailableError
from tests.contract.passage_index_contract import EAST, GARDEN, MOVE, NORTH
from tests.unit.test_opensearch_beliefs import ACK, NO_INDEX, FakeConnection, answer, client, fake

__all__ = ["client", "fake"]  # fixtures, shared with the belief adapter's tests

EVENTS = "agentmem-events-g1"
SCOPE = [{"term": {"tenant_id": "acme"}}, {"term": {"subject_id": "priya"}}]
NO_ALIAS = (404, {"error": "alias [agentmem-events] missing", "status": 404})
EXISTS = (400, {"error": {"type": "resource_already_exists_exception"}, "status": 400})


@pytest.fixture
def index(client: OpenSearch) -> OpenSearchPassageIndex:
    return OpenSearchPassageIndex(client, "acme", 1, prefix="agentmem")


@pytest.fixture
def store(client: OpenSearch) -> OpenSearchPassageStore:
    return OpenSearchPassageStore(client, "acme", dimensions=4)


def hits(*scored: tuple[float, Any]) -> tuple[int, Any]:
    rows = [
        {"_id": p.passage_id, "_score": s, "_source": {"passage": p.model_dump(mode="json")}}
        for s, p in scored
    ]
    return 200, {"hits": {"total": {"value": len(rows)}, "hits": rows}}


# -- generations and the alias ----------------------------------------------------------------


def test_a_first_generation_gets_its_knn_index_and_the_alias(
    store: OpenSearchPassageStore, fake: FakeConnection
) -> None:
    answer(fake, ACK, NO_ALIAS, NO_ALIAS, ACK)
    assert store.generation(1).generation == 1
    create, _, _, alias = fake.requests
    assert (create.method, create.path) == ("PUT", "/agentmem-events-g1")
    fields = create.body["mappings"]["properties"]
    assert fields["vector"]["type"] == "knn_vector" and fields["vector"]["dimension"] == 4
    assert fields["vector"]["method"]["space_type"] == "cosinesimil"
    assert fields["text"] == {"type": "text", "analyzer": "english"}
    for name in ("tenant_id", "subject_id", "session_id", "passage_id", "event_id"):
        assert fields[name] == {"type": "keyword"}
    assert fields["passage"] == {"type": "object", "enabled": False}
    assert create.body["mappings"]["dynamic"] == "strict"
    assert alias.body == {"actions": [{"add": {"index": EVENTS, "alias": "agentmem-events"}}]}
    # Once per process: a stream Lambda building a projector per record sends nothing more.
    store.generation(1)
    assert len(fake.requests) == 4


def test_a_generation_another_writer_created_is_not_an_error(
    store: OpenSearchPassageStore, fake: FakeConnection
) -> None:
    answer(fake, EXISTS, (200, {EVENTS: {"aliases": {"agentmem-events": {}}}}))
    store.generation(1)
    assert [r.method for r in fake.requests] == ["PUT", "GET"]  # the alias exists: left alone


def test_active_follows_the_alias_and_activate_moves_it_in_one_call(
    store: OpenSearchPassageStore, fake: FakeConnection
) -> None:
    current = (200, {EVENTS: {"aliases": {"agentmem-events": {}}}})
    answer(fake, current)
    assert store.active().generation == 1
    answer(fake, current, ACK)
    store.activate(2)
    assert fake.requests[-1].path == "/_aliases"
    assert fake.requests[-1].body == {
        "actions": [
            {"remove": {"index": EVENTS, "alias": "agentmem-events"}},
            {"add": {"index": "agentmem-events-g2", "alias": "agentmem-events"}},
        ]
    }
    answer(fake, NO_ALIAS)
    assert store.active().generation == 1  # a new deployment: reads answer empty


def test_copy_other_subjects_reindexes_all_but_the_replayed_one(
    store: OpenSearchPassageStore, fake: FakeConnection
) -> None:
    answer(fake, ACK, (200, {EVENTS: {"aliases": {"agentmem-events": {}}}}), (200, {"created": 3}))
    store.copy_other_subjects(1, 2, "priya")
    reindex = fake.requests[-1]
    assert (reindex.method, reindex.path) == ("POST", "/_reindex")
    assert reindex.body["source"] == {
        "index": EVENTS,
        "query": {
            "bool": {
                "filter": [{"term": {"tenant_id": "acme"}}],
                "must_not": [{"term": {"subject_id": "priya"}}],
            }
        },
    }
    assert reindex.body["dest"] == {"index": "agentmem-events-g2", "op_type": "create"}


def test_erasure_reaches_every_generation_and_is_visible_at_once(
    store: OpenSearchPassageStore, fake: FakeConnection
) -> None:
    answer(fake, (200, {"deleted": 7}))
    assert store.erase_subject("priya") == 7
    (erase,) = fake.requests
    assert (erase.method, erase.path) == ("POST", "/agentmem-events-g*/_delete_by_query")
    assert erase.body == {"query": {"bool": {"filter": SCOPE}}}
    assert erase.params["refresh"] == "true"


# -- writes -----------------------------------------------------------------------------------


def test_add_creates_each_passage_under_its_id_and_a_repeat_is_no_error(
    index: OpenSearchPassageIndex, fake: FakeConnection
) -> None:
    reply = {
        "errors": True,
        "items": [
            {"create": {"status": 201}},
            {"create": {"status": 409, "error": {"type": "version_conflict_engine_exception"}}},
        ],
    }
    answer(fake, (200, reply))
    assert index.add([GARDEN, MOVE], [EAST, NORTH]) == 1
    (bulk,) = fake.requests
    # The index's own path and no `_index` in the body: the domain refuses explicit indexes in bulk
    # bodies, and the projector may POST only to `<index>/_bulk` (infra/constructs/vectors.py).
    assert (bulk.method, bulk.path) == ("POST", f"/{EVENTS}/_bulk")
    action, doc = bulk.body[0], bulk.body[1]
    assert action == {"create": {"_id": f"acme|priya|{GARDEN.passage_id}"}}
    assert doc["vector"] == EAST and doc["text"] == GARDEN.text and doc["session_id"] == "s1"
    assert doc["passage"] == GARDEN.model_dump(mode="json")


def test_restate_updates_only_the_stored_passage_and_never_upserts(
    index: OpenSearchPassageIndex, fake: FakeConnection
) -> None:
    reply = {
        "errors": True,
        "items": [
            {"update": {"status": 200, "result": "updated"}},
            {"update": {"status": 404, "error": {"type": "document_missing_exception"}}},
        ],
    }
    answer(fake, (200, reply))
    assert index.restate([MOVE, GARDEN]) == 1  # GARDEN was erased meanwhile: it stays gone
    (bulk,) = fake.requests
    assert (bulk.method, bulk.path) == ("POST", f"/{EVENTS}/_bulk")
    assert bulk.body[0] == {"update": {"_id": f"acme|priya|{MOVE.passage_id}"}}
    assert bulk.body[1] == {"doc": {"passage": MOVE.model_dump(mode="json")}}


def test_a_throttled_item_is_retryable(index: OpenSearchPassageIndex, fake: FakeConnection) -> None:
    reply = {"errors": True, "items": [{"create": {"status": 429, "error": {"type": "rejected"}}}]}
    answer(fake, (200, reply))
    with pytest.raises(BackendUnavailableError):
        index.add([GARDEN], [EAST])


def test_missing_asks_by_id_and_a_missing_index_holds_nothing(
    index: OpenSearchPassageIndex, fake: FakeConnection
) -> None:
    docs = [
        {"_id": f"acme|priya|{GARDEN.passage_id}", "found": True},
        {"_id": f"acme|priya|{MOVE.passage_id}", "found": False},
    ]
    answer(fake, (200, {"docs": docs}))
    assert index.missing("priya", [GARDEN.passage_id, MOVE.passage_id]) == {MOVE.passage_id}
    assert fake.requests[0].path == f"/{EVENTS}/_mget"
    answer(fake, NO_INDEX)
    assert index.missing("priya", [GARDEN.passage_id]) == {GARDEN.passage_id}


# -- reads ------------------------------------------------------------------------------------


def test_vector_search_filters_inside_the_knn_clause_and_leaves_the_session_out(
    index: OpenSearchPassageIndex, fake: FakeConnection
) -> None:
    answer(fake, hits((0.9, MOVE), (0.9, GARDEN)))
    found = index.vector_search("priya", EAST, 3, exclude_session="s9")
    (search,) = fake.requests
    assert search.path == f"/{EVENTS}/_search"
    assert search.body["query"] == {
        "knn": {
            "vector": {
                "vector": EAST,
                "k": 3,
                "filter": {"bool": {"filter": SCOPE, "must_not": [{"term": {"session_id": "s9"}}]}},
            }
        }
    }
    assert [h.passage for h in found] == [GARDEN, MOVE]  # equal scores: by passage id
    assert [h.score for h in found] == pytest.approx([0.8, 0.8])  # cosine, from (1 + cos) / 2


def test_keyword_search_is_bm25_under_the_same_scope(
    index: OpenSearchPassageIndex, fake: FakeConnection
) -> None:
    answer(fake, hits((3.5, MOVE)))
    (hit,) = index.keyword_search("priya", "lisbon", 5)
    query = fake.requests[0].body["query"]["bool"]
    assert query == {"must": [{"match": {"text": {"query": "lisbon"}}}], "filter": SCOPE}
    assert (hit.passage, hit.score, hit.source) == (MOVE, 3.5, "keyword")


def test_reads_of_a_generation_not_created_yet_are_empty(
    index: OpenSearchPassageIndex, fake: FakeConnection
) -> None:
    answer(fake, NO_INDEX, NO_INDEX, NO_INDEX)
    assert index.vector_search("priya", EAST, 3) == []
    assert index.keyword_search("priya", "lisbon", 3) == []
    assert index.count("priya") == 0
    assert index.keyword_search("priya", " ", 3) == [] and index.vector_search("priya", EAST, 0) == []
    assert len(fake.requests) == 3


def test_every_request_the_projector_sends_for_passages_is_one_its_policy_allows(
    store: OpenSearchPassageStore, fake: FakeConnection
) -> None:
    """The domain's access policy names paths (infra/constructs/vectors.py PROJECTOR_PATHS); a
    request outside them is a 403 in production that no offline test would otherwise see."""
    from fnmatch import fnmatchcase

    from infra.constructs.vectors import PROJECTOR_PATHS

    answer(fake, ACK, NO_ALIAS, NO_ALIAS, ACK)  # the first generation and its alias
    index = store.generation(1)
    answer(fake, (200, {"docs": [{"_id": "x", "found": False}]}))
    index.missing("priya", [GARDEN.passage_id])
    answer(fake, (200, {"errors": False, "items": [{"create": {"status": 201}}]}))
    index.add([GARDEN], [EAST])
    answer(fake, (200, {"errors": False, "items": [{"update": {"status": 200, "result": "updated"}}]}))
    index.restate([GARDEN])
    answer(fake, (200, {"count": 1}))
    index.count("priya")
    answer(fake, (200, {"deleted": 1}), ACK)
    index.erase_subject("priya")
    sent = {(r.method, r.path.lstrip("/")) for r in fake.requests}
    refused = {
        (method, path)
        for method, path in sent
        if not any(fnmatchcase(path, p) for p in PROJECTOR_PATHS.get(f"es:ESHttp{method.capitalize()}", ()))
    }
    assert len(sent) >= 6 and refused == set()
