"""The OpenSearch belief adapter, offline: a fake connection records every request (method, path,
query params, body) and answers from a queue of canned replies, so each test pins the exact
requests the adapter sends and how it reads the answers. A request the test did not expect
fails it, as an empty queue."""

from __future__ import annotations

import json
import logging
from collections import deque
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

import pytest
from opensearchpy import Connection, OpenSearch
from opensearchpy.exceptions import ConnectionError, ConnectionTimeout

from agentmem.adapters.aws.opensearch_belief_store import OpenSearchBeliefStore
from agentmem.adapters.aws.opensearch_beliefs import OpenSearchBeliefIndex
from agentmem.adapters.aws.opensearch_mappings import belief_index_body, revision_of
from agentmem.adapters.local.rules_llm import RulesLLM
from agentmem.errors import AgentMemError, BackendUnavailableError, NotFoundError, VersionConflictError
from agentmem.semantic.fact_types import FactTypeCatalog
from agentmem.semantic.health import PROBE_MISSING, deep_health
from agentmem.semantic.service import SemanticService
from tests.contract.belief_index_contract import EAST, NORTH, chain_of, observation

Reply = tuple[int, Any] | Exception
CHAIN_ID = "acme|priya|city|"
BELIEFS, OBSERVATIONS = "agentmem-beliefs-g1", "agentmem-observations-g1"
SCOPE = [{"term": {"tenant_id": "acme"}}, {"term": {"subject_id": "priya"}}, {"term": {"current": True}}]
ACK = (200, {"acknowledged": True})
NO_ALIAS = (404, {"error": "alias [agentmem-beliefs,agentmem-observations] missing", "status": 404})
NO_INDEX = (404, {"error": {"type": "index_not_found_exception", "reason": "no such index"}, "status": 404})
CONFLICT = (409, {"error": {"type": "version_conflict_engine_exception", "reason": "seq_no mismatch"}})
PARIS = chain_of(observation(1, "city", "Paris"))
MOVED = chain_of(observation(1, "city", "Paris"), observation(2, "city", "Berlin"))


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    params: dict[str, Any]
    body: Any


def decode(body: bytes | str | None) -> Any:
    if body is None:
        return None
    text = body.decode() if isinstance(body, bytes) else body
    try:
        return json.loads(text)
    except json.JSONDecodeError:  # NDJSON: the bulk API
        return [json.loads(line) for line in text.splitlines() if line.strip()]


class FakeConnection(Connection):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.requests: list[Request] = []
        self.replies: deque[Reply] = deque()

    def perform_request(
        self,
        method: str,
        url: str,
        params: Mapping[str, Any] | None = None,
        body: bytes | None = None,
        timeout: float | None = None,
        ignore: Collection[int] = (),
        headers: Mapping[str, str] | None = None,
    ) -> Any:
        # opensearch-py hands query params over already escaped, as bytes
        query = {k: v.decode() if isinstance(v, bytes) else v for k, v in (params or {}).items()}
        self.requests.append(Request(method, unquote(url), query, decode(body)))
        assert self.replies, f"unexpected request: {method} {unquote(url)}"
        reply = self.replies.popleft()
        if isinstance(reply, Exception):
            raise reply
        status, payload = reply
        raw = json.dumps(payload)
        if not 200 <= status < 300 and status not in ignore:
            self._raise_error(status, raw, "application/json")
        return status, {"content-type": "application/json"}, raw


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
def index(client: OpenSearch) -> OpenSearchBeliefIndex:
    return OpenSearchBeliefIndex(client, "acme", 1, prefix="agentmem")


@pytest.fixture
def store(client: OpenSearch) -> OpenSearchBeliefStore:
    return OpenSearchBeliefStore(client, "acme", dimensions=4)


def answer(fake: FakeConnection, *replies: Reply) -> None:
    fake.replies.extend(replies)


def stored_chain(chain: list[Any], *, seq_no: int = 7, term: int = 2, **source: Any) -> tuple[int, Any]:
    body = {"chain": [b.model_dump(mode="json") for b in chain]} if chain else {}
    found = {"_index": BELIEFS, "_id": CHAIN_ID, "_version": 3, "found": True}
    return 200, found | {"_seq_no": seq_no, "_primary_term": term, "_source": body | source}


def search_reply(*hits: tuple[float, Any], total: int | None = None) -> tuple[int, Any]:
    rows = [
        {"_id": b.doc_id, "_score": score, "_source": {"belief": b.model_dump(mode="json")}}
        for score, b in hits
    ]
    return 200, {"hits": {"total": {"value": len(hits) if total is None else total}, "hits": rows}}


# -- generations ------------------------------------------------------------------------------


def test_new_generation_creates_both_indices_with_the_knn_mapping(
    store: OpenSearchBeliefStore, fake: FakeConnection
) -> None:
    existing: dict[str, Any] = {
        name: {} for name in ("agentmem-beliefs-g1", "agentmem-beliefs-g2", "agentmem-beliefs-gold")
    }
    answer(fake, (200, existing), ACK, ACK)

    assert store.new_generation().generation == 3

    listing, beliefs, observations = fake.requests
    assert (listing.method, listing.path) == ("GET", "/agentmem-beliefs-g*")
    assert (beliefs.method, beliefs.path) == ("PUT", "/agentmem-beliefs-g3")
    assert beliefs.body["settings"]["index"]["knn"] is True
    assert beliefs.body["settings"]["index"]["search.slowlog.threshold.query.warn"] == "2s"
    fields = beliefs.body["mappings"]["properties"]
    assert fields["vector"] == {
        "type": "knn_vector",
        "dimension": 4,
        "method": {"name": "hnsw", "space_type": "cosinesimil", "engine": "faiss"},
    }
    assert fields["text"]["type"] == "text"
    assert fields["current"] == {"type": "boolean"}
    for name in ("tenant_id", "subject_id", "key", "member", "doc_id", "kind", "source_order"):
        assert fields[name] == {"type": "keyword"}
    assert fields["belief"] == fields["chain"] == {"type": "object", "enabled": False}
    assert (observations.method, observations.path) == ("PUT", "/agentmem-observations-g3")
    assert observations.body["mappings"]["properties"]["order"] == {"type": "keyword"}


def test_an_index_that_already_exists_is_not_an_error(
    store: OpenSearchBeliefStore, fake: FakeConnection
) -> None:
    exists = (400, {"error": {"type": "resource_already_exists_exception"}, "status": 400})
    answer(fake, (200, {}), exists, ACK)
    assert store.new_generation().generation == 1


def test_lucene_is_the_other_engine_and_nothing_else_is_accepted(
    client: OpenSearch, fake: FakeConnection
) -> None:
    answer(fake, (200, {}), ACK, ACK)
    OpenSearchBeliefStore(client, "acme", dimensions=8, engine="lucene").new_generation()
    assert fake.requests[1].body["mappings"]["properties"]["vector"]["method"]["engine"] == "lucene"
    with pytest.raises(ValueError, match="engine"):
        OpenSearchBeliefStore(client, "acme", dimensions=8, engine="nmslib")


def test_active_follows_the_alias(store: OpenSearchBeliefStore, fake: FakeConnection) -> None:
    aliases: dict[str, Any] = {
        "agentmem-beliefs-g3": {"aliases": {"agentmem-beliefs": {}}},
        "agentmem-observations-g3": {"aliases": {"agentmem-observations": {}}},
    }
    answer(fake, (200, aliases))
    assert store.active().generation == 3
    (resolve,) = fake.requests
    assert (resolve.method, resolve.path) == ("GET", "/_alias/agentmem-beliefs,agentmem-observations")


def test_a_generation_by_number_reads_its_own_indices_without_touching_the_aliases(
    store: OpenSearchBeliefStore, fake: FakeConnection
) -> None:
    shadow = store.generation(4)  # a shadow build's generation, read while readers stay where they are
    assert shadow.generation == 4
    answer(fake, (200, {"hits": {"total": {"value": 0}, "hits": []}}))
    assert shadow.current("priya") == []
    (search,) = fake.requests
    assert search.path.startswith("/agentmem-beliefs-g4/")
    assert store.generation(4) is shadow


def test_the_belief_index_sets_slowlog_thresholds() -> None:
    # The domain ships slow logs to CloudWatch; without thresholds an index logs nothing.
    settings = belief_index_body(4, "faiss")["settings"]["index"]
    assert settings["search.slowlog.threshold.query.warn"] == "2s"
    assert settings["search.slowlog.threshold.query.info"] == "500ms"
    assert settings["indexing.slowlog.threshold.index.warn"] == "2s"


def test_active_without_an_alias_is_generation_one_and_writes_nothing(
    store: OpenSearchBeliefStore, fake: FakeConnection
) -> None:
    answer(fake, NO_ALIAS)
    assert store.active().generation == 1
    (resolve,) = fake.requests
    assert (resolve.method, resolve.path) == ("GET", "/_alias/agentmem-beliefs,agentmem-observations")


def test_ensure_ready_creates_generation_one_and_points_both_aliases_in_one_call(
    store: OpenSearchBeliefStore, fake: FakeConnection
) -> None:
    answer(fake, NO_ALIAS, ACK, ACK, ACK)

    store.ensure_ready()

    resolve, beliefs, observations, aliases = fake.requests
    assert resolve.method == "GET"
    assert [(r.method, r.path) for r in (beliefs, observations)] == [
        ("PUT", "/agentmem-beliefs-g1"),
        ("PUT", "/agentmem-observations-g1"),
    ]
    assert (aliases.method, aliases.path) == ("POST", "/_aliases")
    assert aliases.body == {
        "actions": [
            {"add": {"index": "agentmem-beliefs-g1", "alias": "agentmem-beliefs"}},
            {"add": {"index": "agentmem-observations-g1", "alias": "agentmem-observations"}},
        ]
    }


def test_ensure_ready_is_idempotent(store: OpenSearchBeliefStore, fake: FakeConnection) -> None:
    aliases: dict[str, Any] = {
        "agentmem-beliefs-g2": {"aliases": {"agentmem-beliefs": {}}},
        "agentmem-observations-g2": {"aliases": {"agentmem-observations": {}}},
    }
    answer(fake, (200, aliases), ACK)
    store.ensure_ready()
    # An alias exists: nothing to create, only the field added since (idempotent) mapped.
    assert [(r.method, r.path) for r in fake.requests] == [
        ("GET", "/_alias/agentmem-beliefs,agentmem-observations"),
        ("PUT", "/agentmem-beliefs/_mapping"),
    ]
    assert fake.requests[1].body == {"properties": {"source_order": {"type": "keyword"}}}

    exists = (400, {"error": {"type": "resource_already_exists_exception"}, "status": 400})
    answer(fake, NO_ALIAS, exists, exists, ACK)  # another writer created the indices first
    store.ensure_ready()
    assert fake.requests[-1].path == "/_aliases"


def test_activate_moves_both_aliases_in_one_call(store: OpenSearchBeliefStore, fake: FakeConnection) -> None:
    aliases: dict[str, Any] = {
        "agentmem-beliefs-g1": {"aliases": {"agentmem-beliefs": {}}},
        "agentmem-observations-g1": {"aliases": {"agentmem-observations": {}}},
    }
    answer(fake, (200, aliases), ACK)

    store.activate(2)

    moves = [r for r in fake.requests if r.path == "/_aliases"]
    assert len(moves) == 1
    assert (moves[0].method, moves[0].body) == (
        "POST",
        {
            "actions": [
                {"remove": {"index": "agentmem-beliefs-g1", "alias": "agentmem-beliefs"}},
                {"add": {"index": "agentmem-beliefs-g2", "alias": "agentmem-beliefs"}},
                {"remove": {"index": "agentmem-observations-g1", "alias": "agentmem-observations"}},
                {"add": {"index": "agentmem-observations-g2", "alias": "agentmem-observations"}},
            ]
        },
    )


def test_activating_a_generation_that_does_not_exist_is_not_found(
    store: OpenSearchBeliefStore, fake: FakeConnection
) -> None:
    answer(fake, (200, {}), (404, {"error": {"type": "index_not_found_exception"}, "status": 404}))
    with pytest.raises(NotFoundError):
        store.activate(9)


# -- chains -----------------------------------------------------------------------------------


def test_chain_reads_the_chain_document_and_packs_its_position(
    index: OpenSearchBeliefIndex, fake: FakeConnection
) -> None:
    answer(fake, stored_chain(MOVED, seq_no=7, term=2))
    assert index.chain("priya", "city", "") == (revision_of(7, 2), MOVED)
    (get,) = fake.requests
    assert (get.method, get.path, get.params) == (
        "GET",
        f"/{BELIEFS}/_doc/{CHAIN_ID}",
        {"_source_includes": "chain"},
    )


def test_a_missing_chain_is_revision_zero(index: OpenSearchBeliefIndex, fake: FakeConnection) -> None:
    answer(fake, (404, {"_index": BELIEFS, "_id": CHAIN_ID, "found": False}))
    assert index.chain("priya", "city", "") == (0, [])


def test_every_read_of_a_generation_not_created_yet_is_empty(
    index: OpenSearchBeliefIndex, fake: FakeConnection
) -> None:
    # Readers resolve to generation 1 before the projector has created it (see active()).
    answer(fake, *[NO_INDEX] * 9)
    assert index.chain("priya", "city", "") == (0, [])
    assert index.current("priya") == []
    assert index.current("priya", "city") == []
    assert index.history("priya", "city") == []
    assert index.observations("priya", "city", "") == []
    assert index.vector_search("priya", EAST, 5) == []
    assert index.keyword_search("priya", "berlin", 5) == []
    assert index.subjects() == []
    assert index.vector_coverage("priya") == (0, 0)
    assert not fake.replies  # each read asked once and stopped at the 404
    assert [r.method for r in fake.requests if r.method not in ("GET", "HEAD")] == ["POST"] * 8


@pytest.mark.parametrize("operation", ["add_observation", "replace_chain"])
def test_a_write_to_a_missing_index_fails(
    index: OpenSearchBeliefIndex, fake: FakeConnection, operation: str
) -> None:
    answer(fake, NO_INDEX)
    with pytest.raises(NotFoundError):
        if operation == "add_observation":
            index.add_observation(observation(1, "city", "Paris"))
        else:
            index.replace_chain("priya", "city", "", expected_revision=0, chain=PARIS, vector=EAST)


class OneVectorEmbedder:
    model_id = "fake-embedder"
    dimensions = 4

    def embed(self, texts: Any) -> list[list[float]]:
        return [EAST for _ in texts]


def read_role_allows(request: Request) -> bool:
    """The read function's grant on the domain (infra/constructs/vectors.py)."""
    if request.method in ("GET", "HEAD"):
        return True
    return request.method == "POST" and request.path.endswith(("/_search", "/_count"))


def test_deep_health_on_a_new_deployment_reports_the_missing_probe_with_reads_only(
    store: OpenSearchBeliefStore, fake: FakeConnection
) -> None:
    semantic = SemanticService(store, RulesLLM(), OneVectorEmbedder(), FactTypeCatalog([]))
    answer(fake, NO_ALIAS, NO_INDEX, NO_INDEX)  # aliases, subjects, the probe's first chain

    report = deep_health(semantic)

    assert (report.status, report.generation, report.problems) == ("failing", 1, [PROBE_MISSING])
    assert not fake.replies
    assert all(read_role_allows(r) for r in fake.requests), fake.requests


def test_a_new_chain_is_put_if_absent_with_the_current_fields(
    index: OpenSearchBeliefIndex, fake: FakeConnection
) -> None:
    answer(fake, (201, {"_version": 1, "result": "created"}))
    index.replace_chain("priya", "city", "", expected_revision=0, chain=PARIS, vector=EAST)

    (put,) = fake.requests  # one version: nothing to archive
    assert (put.method, put.path, put.params) == ("PUT", f"/{BELIEFS}/_doc/{CHAIN_ID}", {"op_type": "create"})
    assert put.body == {
        "tenant_id": "acme",
        "subject_id": "priya",
        "key": "city",
        "member": "",
        "kind": "chain",
        "doc_id": "city",
        "current": True,
        "version": 1,
        "source_order": PARIS[0].source_order,
        "text": PARIS[0].text,
        "belief": PARIS[0].model_dump(mode="json"),
        "chain": [PARIS[0].model_dump(mode="json")],
        "vector": EAST,
    }


def test_an_update_is_conditional_and_archives_past_versions(
    index: OpenSearchBeliefIndex, fake: FakeConnection
) -> None:
    answer(fake, (200, {"_version": 5, "result": "updated"}), (200, {"errors": False, "items": []}))
    index.replace_chain("priya", "city", "", expected_revision=revision_of(7, 2), chain=MOVED, vector=NORTH)

    put, bulk = fake.requests
    assert put.params == {"if_seq_no": "7", "if_primary_term": "2"}
    assert (put.body["doc_id"], put.body["version"], put.body["vector"]) == ("city", 2, NORTH)
    assert len(put.body["chain"]) == 2
    assert (bulk.method, bulk.path) == ("POST", f"/{BELIEFS}/_bulk")
    action, doc = bulk.body
    assert action == {"index": {"_id": f"{CHAIN_ID}|v1", "version": 5, "version_type": "external_gte"}}
    assert (doc["kind"], doc["current"], doc["doc_id"], doc["version"]) == ("archived", False, "city@v1", 1)
    assert "vector" not in doc


def test_an_archived_version_never_takes_the_id_of_a_chain_spelled_like_it(
    index: OpenSearchBeliefIndex, fake: FakeConnection
) -> None:
    # The member `house__v1` is legal; its chain document's id was once goal#house's archived v1.
    moved = chain_of(
        observation(1, "goal", "house", member="house"), observation(2, "goal", "flat", member="house")
    )
    lookalike = chain_of(observation(3, "goal", "boat", member="house__v1"))
    answer(fake, (201, {"_version": 1, "result": "created"}))
    index.replace_chain("priya", "goal", "house__v1", expected_revision=0, chain=lookalike, vector=EAST)
    answer(fake, (200, {"_version": 2, "result": "updated"}), (200, {"errors": False, "items": []}))
    index.replace_chain(
        "priya", "goal", "house", expected_revision=revision_of(7, 2), chain=moved, vector=NORTH
    )

    created, put, bulk = fake.requests
    chain_ids = {created.path.rsplit("/", 1)[-1].split("?")[0], put.path.rsplit("/", 1)[-1]}
    assert chain_ids == {"acme|priya|goal|house__v1", "acme|priya|goal|house"}
    action, doc = bulk.body
    assert action["index"]["_id"] == "acme|priya|goal|house|v1"
    assert action["index"]["_id"] not in chain_ids
    assert doc["doc_id"] == "goal#house@v1"


def test_vector_none_keeps_the_vector_read_at_the_same_revision(
    index: OpenSearchBeliefIndex, fake: FakeConnection
) -> None:
    answer(
        fake, stored_chain([], seq_no=7, term=2, vector=EAST), (200, {"_version": 4}), (200, {"items": []})
    )
    index.replace_chain("priya", "city", "", expected_revision=revision_of(7, 2), chain=MOVED, vector=None)

    get, put, _ = fake.requests
    assert get.params == {"_source_includes": "vector"}
    assert (put.params["if_seq_no"], put.body["vector"]) == ("7", EAST)


def test_vector_none_on_a_chain_that_moved_on_conflicts_without_writing(
    index: OpenSearchBeliefIndex, fake: FakeConnection
) -> None:
    answer(fake, stored_chain([], seq_no=9, term=2, vector=EAST))
    with pytest.raises(VersionConflictError):
        index.replace_chain(
            "priya", "city", "", expected_revision=revision_of(7, 2), chain=MOVED, vector=None
        )
    assert [r.method for r in fake.requests] == ["GET"]


@pytest.mark.parametrize("expected", [0, revision_of(7, 2)], ids=["create", "update"])
def test_a_lost_race_is_a_version_conflict(
    index: OpenSearchBeliefIndex, fake: FakeConnection, expected: int
) -> None:
    answer(fake, CONFLICT)
    with pytest.raises(VersionConflictError):
        index.replace_chain("priya", "city", "", expected_revision=expected, chain=MOVED, vector=NORTH)
    assert len(fake.requests) == 1  # nothing archived for a chain that was not written


def test_a_failed_archive_is_logged_because_the_chain_is_already_written(
    index: OpenSearchBeliefIndex, fake: FakeConnection, caplog: pytest.LogCaptureFixture
) -> None:
    answer(fake, (200, {"_version": 5}), (503, {"error": "unavailable"}))
    with caplog.at_level(logging.WARNING):
        index.replace_chain(
            "priya", "city", "", expected_revision=revision_of(7, 2), chain=MOVED, vector=NORTH
        )
    assert "archived versions not written" in caplog.text


def test_writes_carry_the_configured_refresh(client: OpenSearch, fake: FakeConnection) -> None:
    index = OpenSearchBeliefIndex(client, "acme", 1, prefix="agentmem", refresh="wait_for")
    answer(fake, (201, {"_version": 1}), (201, {"result": "created"}))
    index.replace_chain("priya", "city", "", expected_revision=0, chain=PARIS, vector=EAST)
    index.add_observation(observation(1, "city", "Paris"))
    assert [r.params.get("refresh") for r in fake.requests] == ["wait_for", "wait_for"]


# -- observations -----------------------------------------------------------------------------


def test_an_observation_is_created_once(index: OpenSearchBeliefIndex, fake: FakeConnection) -> None:
    obs = observation(1, "city", "Paris")
    answer(fake, (201, {"result": "created"}), CONFLICT)
    index.add_observation(obs)
    index.add_observation(obs)  # the redelivery's 409 is the no-op

    first, again = fake.requests
    assert (first.method, first.path, first.params) == (
        "PUT",
        f"/{OBSERVATIONS}/_doc/acme|priya|city||ev1",
        {"op_type": "create"},
    )
    assert first.body["order"] == obs.order
    assert first.body["observation"] == obs.model_dump(mode="json")
    assert again == first


def test_observations_refresh_then_read_in_log_order(
    index: OpenSearchBeliefIndex, fake: FakeConnection
) -> None:
    stated = [observation(1, "city", "Paris"), observation(2, "city", "Berlin")]
    hits = [{"_source": {"observation": o.model_dump(mode="json")}} for o in stated]
    answer(fake, (200, {}), (200, {"hits": {"total": {"value": 2}, "hits": hits}}))

    assert index.observations("priya", "city", "") == stated
    refresh, search = fake.requests
    assert (refresh.method, refresh.path) == ("POST", f"/{OBSERVATIONS}/_refresh")
    assert search.path == f"/{OBSERVATIONS}/_search"
    assert search.body["sort"] == [{"order": "asc"}, {"event_id": "asc"}]
    assert search.body["size"] == 10_000
    assert search.body["query"]["bool"]["filter"] == [
        {"term": {"tenant_id": "acme"}},
        {"term": {"subject_id": "priya"}},
        {"term": {"key": "city"}},
        {"term": {"member": ""}},
    ]


def test_more_observations_than_one_page_are_refused(
    index: OpenSearchBeliefIndex, fake: FakeConnection
) -> None:
    answer(fake, (200, {}), (200, {"hits": {"total": {"value": 10_001}, "hits": []}}))
    with pytest.raises(AgentMemError, match="partial fold"):
        index.observations("priya", "city", "")


# -- reads ------------------------------------------------------------------------------------


def test_vector_search_filters_inside_the_knn_clause(
    index: OpenSearchBeliefIndex, fake: FakeConnection
) -> None:
    pet = chain_of(observation(3, "pet", "cat"))[-1]
    answer(fake, search_reply((0.9, pet), (0.9, MOVED[-1])))

    hits = index.vector_search("priya", EAST, 3)

    (search,) = fake.requests
    assert search.path == f"/{BELIEFS}/_search"
    assert search.body["query"] == {
        "knn": {"vector": {"vector": EAST, "k": 3, "filter": {"bool": {"filter": SCOPE}}}}
    }
    assert search.body["size"] == 3
    assert "post_filter" not in search.body
    assert [h.belief.doc_id for h in hits] == ["city", "pet"]  # equal scores: by doc id
    assert [h.source for h in hits] == ["vector", "vector"]
    assert [h.score for h in hits] == pytest.approx([0.8, 0.8])  # cosine, from (1 + cos) / 2


def test_keyword_search_is_bm25_under_the_same_filters(
    index: OpenSearchBeliefIndex, fake: FakeConnection
) -> None:
    answer(fake, search_reply((2.5, MOVED[-1])))

    (hit,) = index.keyword_search("priya", "berlin", 5)

    query = fake.requests[0].body["query"]["bool"]
    assert query["must"] == [{"match": {"text": {"query": "berlin"}}}]
    assert query["filter"] == SCOPE
    assert (hit.belief, hit.score, hit.source) == (MOVED[-1], 2.5, "keyword")


def test_searches_that_cannot_match_send_nothing(index: OpenSearchBeliefIndex, fake: FakeConnection) -> None:
    assert index.keyword_search("priya", "  ", 5) == []
    assert index.keyword_search("priya", "berlin", 0) == []
    assert index.vector_search("priya", EAST, 0) == []
    assert fake.requests == []


def test_current_and_history(index: OpenSearchBeliefIndex, fake: FakeConnection) -> None:
    tea = chain_of(observation(4, "likes", "tea", member="tea"))
    answer(fake, search_reply((0.0, tea[-1])))
    assert index.current("priya", "likes") == tea
    current = fake.requests[-1].body
    assert current["query"]["bool"]["filter"] == [*SCOPE, {"term": {"key": "likes"}}]
    assert current["sort"] == [{"key": "asc"}, {"member": "asc"}]

    chains = [{"_source": {"chain": [b.model_dump(mode="json") for b in c]}} for c in (MOVED, PARIS)]
    answer(fake, (200, {"hits": {"total": {"value": 2}, "hits": chains}}))
    assert index.history("priya", "city") == [*MOVED, *PARIS]
    history = fake.requests[-1].body
    assert {"term": {"kind": "chain"}} in history["query"]["bool"]["filter"]
    assert history["sort"] == [{"member": "asc"}]


def test_subjects_page_through_a_composite_aggregation(
    index: OpenSearchBeliefIndex, fake: FakeConnection
) -> None:
    def page(*subjects: str) -> tuple[int, Any]:
        buckets = [{"key": {"subject": s}, "doc_count": 1} for s in subjects]
        after = {"after_key": {"subject": subjects[-1]}} if subjects else {}
        return 200, {"hits": {"hits": []}, "aggregations": {"subjects": {"buckets": buckets, **after}}}

    answer(fake, page("amir", "priya"), page())
    assert index.subjects() == ["amir", "priya"]
    first, second = (r.body for r in fake.requests)
    assert first["query"] == {"bool": {"filter": [{"term": {"tenant_id": "acme"}}]}}
    assert "after" not in first["aggs"]["subjects"]["composite"]
    assert second["aggs"]["subjects"]["composite"]["after"] == {"subject": "priya"}


def test_vector_coverage_is_two_counts(index: OpenSearchBeliefIndex, fake: FakeConnection) -> None:
    answer(fake, (200, {"count": 3}), (200, {"count": 2}))
    assert index.vector_coverage("priya") == (3, 2)
    every, with_vector = fake.requests
    assert every.path == with_vector.path == f"/{BELIEFS}/_count"
    assert every.body["query"]["bool"]["filter"] == SCOPE
    assert with_vector.body["query"]["bool"]["filter"] == [*SCOPE, {"exists": {"field": "vector"}}]


# -- faults -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        ((429, {"error": {"type": "too_many_requests"}}), BackendUnavailableError),
        ((503, {"error": {"type": "unavailable"}}), BackendUnavailableError),
        ((500, {"error": {"type": "internal"}}), BackendUnavailableError),
        (ConnectionError("N/A", "refused", OSError("refused")), BackendUnavailableError),
        (ConnectionTimeout("TIMEOUT", "timed out", TimeoutError()), BackendUnavailableError),
        ((404, {"error": {"type": "index_not_found_exception"}}), NotFoundError),
        ((400, {"error": {"type": "search_phase_execution_exception"}}), AgentMemError),
        ((403, {"error": {"type": "security_exception"}}), AgentMemError),
    ],
    ids=["429", "503", "500", "connection", "timeout", "404", "400", "403"],
)
def test_faults_become_domain_errors(
    index: OpenSearchBeliefIndex, fake: FakeConnection, reply: Reply, error: type[Exception]
) -> None:
    answer(fake, reply)
    with pytest.raises(AgentMemError) as raised:
        # a write: a read of a missing index (the 404 case) is empty, not an error
        index.replace_chain("priya", "city", "", expected_revision=0, chain=PARIS, vector=EAST)
    assert type(raised.value) is error
    assert raised.value.__cause__ is not None


READS: dict[str, Callable[[OpenSearchBeliefIndex], object]] = {
    "chain": lambda index: index.chain("priya", "city", ""),
    "current": lambda index: index.current("priya"),
    "subjects": lambda index: index.subjects(),
    "vector_coverage": lambda index: index.vector_coverage("priya"),
}


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        ((503, {"error": {"type": "unavailable"}}), BackendUnavailableError),
        ((403, {"error": {"type": "security_exception"}}), AgentMemError),
        ((404, {"error": {"type": "resource_not_found_exception"}}), NotFoundError),
    ],
    ids=["503", "403", "404-not-an-index"],
)
@pytest.mark.parametrize("read", list(READS))
def test_reads_raise_every_fault_but_a_missing_index(
    index: OpenSearchBeliefIndex, fake: FakeConnection, reply: Reply, error: type[Exception], read: str
) -> None:
    answer(fake, reply)
    with pytest.raises(AgentMemError) as raised:
        READS[read](index)
    assert type(raised.value) is error


# -- reads since a watermark ----------------------------------------------------------------------


def test_the_frontier_is_one_hit_sorted_on_source_order(
    index: OpenSearchBeliefIndex, fake: FakeConnection
) -> None:
    newest = MOVED[-1].source_order
    answer(fake, (200, {"hits": {"total": {"value": 1}, "hits": [{"_source": {"source_order": newest}}]}}))

    assert index.frontier("priya") == newest

    (search,) = fake.requests
    assert (search.method, search.path) == ("POST", f"/{BELIEFS}/_search")
    assert search.body == {
        "size": 1,
        "query": {"bool": {"filter": [*SCOPE, {"exists": {"field": "source_order"}}]}},
        "sort": [{"source_order": "desc"}],
        "_source": ["source_order"],
    }


def test_no_frontier_before_the_generation_exists(index: OpenSearchBeliefIndex, fake: FakeConnection) -> None:
    answer(fake, NO_INDEX)
    assert index.frontier("priya") == ""


def test_changed_since_is_a_range_on_source_order_oldest_first(
    index: OpenSearchBeliefIndex, fake: FakeConnection
) -> None:
    moved = MOVED[-1]
    answer(
        fake,
        (
            200,
            {
                "hits": {
                    "total": {"value": 1},
                    "hits": [{"_source": {"belief": moved.model_dump(mode="json")}}],
                }
            },
        ),
    )

    assert index.changed_since("priya", PARIS[0].source_order, 50) == [moved]

    (search,) = fake.requests
    assert search.body == {
        "size": 50,
        "query": {"bool": {"filter": [*SCOPE, {"range": {"source_order": {"gt": PARIS[0].source_order}}}]}},
        "sort": [{"source_order": "asc"}, {"doc_id": "asc"}],
        "_source": ["belief"],
    }
    assert index.changed_since("priya", "", 0) == []  # asks nothing
    assert len(fake.requests) == 1
