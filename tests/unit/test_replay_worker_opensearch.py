"""The replay worker's alias switch on the OpenSearch adapters, offline: the fake connection of
tests/unit/test_opensearch_beliefs records each request and answers from a queue, so these pin
what `activate` sends (the passage alias first, then both belief aliases, each in one `_aliases`
call) and that an unprepared generation is refused before any alias moves."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from opensearchpy import OpenSearch

from agentmem.adapters.aws.opensearch_belief_store import OpenSearchBeliefStore
from agentmem.adapters.aws.opensearch_passage_store import OpenSearchPassageStore
from agentmem.adapters.local.rules_llm import RulesLLM
from agentmem.entrypoints.replay_worker import replay_worker_handler
from agentmem.errors import NotFoundError
from agentmem.semantic.fact_types import FactTypeCatalog
from agentmem.semantic.service import SemanticService
from tests.conftest import FakeLambdaContext
from tests.unit.test_opensearch_beliefs import ACK, FakeConnection, answer

BELIEF_ALIASES = (
    200,
    {
        "agentmem-beliefs-g1": {"aliases": {"agentmem-beliefs": {}}},
        "agentmem-observations-g1": {"aliases": {"agentmem-observations": {}}},
    },
)
EVENTS_ALIAS = (200, {"agentmem-events-g1": {"aliases": {"agentmem-events": {}}}})
PROBE_COUNT = (200, {"count": 2})  # the probe's two beliefs, both with a vector: a prepared generation


class NoEmbedder:
    model_id, dimensions = "none", 4

    def embed(self, texts: Any) -> list[list[float]]:
        raise AssertionError("an alias switch embeds nothing")


@pytest.fixture
def fake() -> FakeConnection:
    client = OpenSearch(
        hosts=[{"host": "fake", "port": 9200}], connection_class=FakeConnection, max_retries=0
    )
    connection = client.transport.get_connection()
    assert isinstance(connection, FakeConnection)
    connection.client = client  # type: ignore[attr-defined]
    return connection


def activate(fake: FakeConnection, generation: int) -> dict[str, Any]:
    client = fake.client  # type: ignore[attr-defined]
    semantic = SemanticService(
        OpenSearchBeliefStore(client, "acme", dimensions=4), RulesLLM(), NoEmbedder(), FactTypeCatalog([]),
        passages=OpenSearchPassageStore(client, "acme", dimensions=4),
    )  # fmt: skip
    services = SimpleNamespace(semantic=semantic, settings=SimpleNamespace(tenant_id="acme"))
    handler = replay_worker_handler(lambda _: services, s3=None, bucket="unused")  # type: ignore[arg-type,return-value]
    result: dict[str, Any] = handler({"action": "activate", "generation": generation}, FakeLambdaContext())
    return result


def test_activate_moves_the_passage_alias_then_both_belief_aliases(fake: FakeConnection) -> None:
    answer(fake, BELIEF_ALIASES, PROBE_COUNT, PROBE_COUNT, EVENTS_ALIAS, ACK, BELIEF_ALIASES, ACK)

    assert activate(fake, 2) == {"generation": 2, "previous_generation": 1}

    counts = [r for r in fake.requests if r.path.endswith("/_count")]
    assert {r.path for r in counts} == {"/agentmem-beliefs-g2/_count"}  # the probe, in the new generation
    moves = [r.body["actions"] for r in fake.requests if r.path == "/_aliases"]
    assert moves == [
        [
            {"remove": {"index": "agentmem-events-g1", "alias": "agentmem-events"}},
            {"add": {"index": "agentmem-events-g2", "alias": "agentmem-events"}},
        ],
        [
            {"remove": {"index": "agentmem-beliefs-g1", "alias": "agentmem-beliefs"}},
            {"add": {"index": "agentmem-beliefs-g2", "alias": "agentmem-beliefs"}},
            {"remove": {"index": "agentmem-observations-g1", "alias": "agentmem-observations"}},
            {"add": {"index": "agentmem-observations-g2", "alias": "agentmem-observations"}},
        ],
    ]
    assert not fake.replies  # nothing else was sent


def test_an_unprepared_generation_is_refused_before_any_alias_moves(fake: FakeConnection) -> None:
    answer(fake, BELIEF_ALIASES, (200, {"count": 0}))

    with pytest.raises(NotFoundError, match="generation 5 was never prepared"):
        activate(fake, 5)

    assert [r.path for r in fake.requests] == [
        "/_alias/agentmem-beliefs,agentmem-observations",
        "/agentmem-beliefs-g5/_count",
    ]
