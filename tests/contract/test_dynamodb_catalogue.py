"""The DynamoDB catalogue and conversation memory against their contracts, on in-process moto with
the stack's log table, plus the item layout, the single transaction per write, its retry when
another writer wins the revision, and payloads near DynamoDB's item and transaction limits."""

from __future__ import annotations

import base64
import json
import os
import time
import zlib
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import boto3
import pytest
from moto import mock_aws

from agentmem.adapters.aws.dynamodb_catalogue import DynamoDbCatalogue, DynamoDbConversationMemory
from agentmem.compose.catalogue_rules import MAX_ASSETS_PER_WRITE, MAX_PAYLOAD_BYTES
from agentmem.errors import ContentionError, InvalidInputError
from tests.aws_fixtures import create_log_table, serialize_moto_requests, use_fake_aws_environment
from tests.contract.catalogue_contract import (
    CatalogueContract,
    CatalogueFactory,
    ConversationMemoryContract,
    MemoryFactory,
    asset,
    spec,
    stored,
)

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient

TABLE = "agentmem-log"


@pytest.fixture
def dynamodb(monkeypatch: pytest.MonkeyPatch) -> Iterator[DynamoDBClient]:
    use_fake_aws_environment(monkeypatch)
    serialize_moto_requests(monkeypatch)
    with mock_aws():
        client = boto3.client("dynamodb")
        create_log_table(client, TABLE)
        yield client


def calls_to(client: DynamoDBClient) -> list[str]:
    """The names of the operations `client` sends from now on, in order."""
    calls: list[str] = []

    def record(model: Any, **_: Any) -> None:
        calls.append(model.name)

    client.meta.events.register("before-call.dynamodb", record)
    return calls


def before_each_transaction(client: DynamoDBClient, hook: Callable[[], object]) -> None:
    def run(**_: Any) -> None:
        hook()

    client.meta.events.register("before-call.dynamodb.TransactWriteItems", run)


def incompressible(size: int) -> dict[str, Any]:
    """A payload of `size` bytes of JSON that zlib shrinks by only about a quarter."""
    text = base64.b64encode(os.urandom(size)).decode()[: size - len('{"blob":""}')]
    return {"blob": text}


class TestDynamoDbCatalogue(CatalogueContract):
    @pytest.fixture
    def make_catalogue(self, dynamodb: DynamoDBClient) -> CatalogueFactory:
        return lambda tenant: DynamoDbCatalogue(TABLE, tenant, client=dynamodb)

    def test_put_assets_is_one_transaction(self, dynamodb: DynamoDBClient) -> None:
        catalogue = DynamoDbCatalogue(TABLE, "acme", client=dynamodb)
        calls = calls_to(dynamodb)
        catalogue.put_assets([asset(f"a{i}") for i in range(MAX_ASSETS_PER_WRITE)])
        assert calls == ["GetItem", "TransactWriteItems"]

    def test_items_follow_the_layout(self, dynamodb: DynamoDBClient) -> None:
        catalogue = DynamoDbCatalogue(TABLE, "acme", client=dynamodb)
        source = asset("dim_customers", payload={"columns": ["id", "name"]}, body="Customers.")
        catalogue.put_assets([source])
        catalogue.put_skill("revenue", spec())
        catalogue.put_skill("revenue", spec(budget=6000))
        DynamoDbConversationMemory(TABLE, "acme", client=dynamodb).record("c1", {"dim_customers": "h1"})
        items = {(i["pk"]["S"], i["sk"]["S"]): i for i in dynamodb.scan(TableName=TABLE)["Items"]}
        assert {key: item["entity"]["S"] for key, item in items.items()} == {
            ("CATALOGUE#acme", "A#dim_customers"): "asset",
            ("CATALOGUE#acme", "REV"): "catalogue_revision",
            ("CATALOGUE#acme", "S#revenue#V000001"): "composer_skill",
            ("CATALOGUE#acme", "S#revenue#V000002"): "composer_skill",
            ("CONV#acme#c1", "SENT"): "conversation_sent",
        }
        item = items["CATALOGUE#acme", "A#dim_customers"]
        assert "payload" not in item
        assert json.loads(zlib.decompress(item["payload_z"]["B"])) == source.payload
        assert (item["path"]["S"], item["change_seq"]["N"]) == (source.path, "1")
        assert item["principals"] == {"L": [{"S": "analysts"}]}
        assert items["CATALOGUE#acme", "REV"]["revision"] == {"N": "1"}
        assert items["CATALOGUE#acme", "S#revenue#V000002"]["version"] == {"N": "2"}
        sent = items["CONV#acme#c1", "SENT"]
        assert sent["sent"] == {"M": {"dim_customers": {"S": "h1"}}}
        assert abs(int(sent["expires_at"]["N"]) - (time.time() + 7 * 86_400)) < 60

    def test_a_large_compressible_payload_is_stored_compressed(self, dynamodb: DynamoDBClient) -> None:
        catalogue = DynamoDbCatalogue(TABLE, "acme", client=dynamodb)
        rows = [{"id": i, "name": f"customer {i}", "ratio": i / 7} for i in range(4000)]
        source = asset("big", payload={"rows": rows})
        assert len(json.dumps(source.payload)) > 200_000
        catalogue.put_assets([source])
        assert catalogue.get_assets(["big"])["big"] == stored(source, 1)
        item = dynamodb.get_item(TableName=TABLE, Key={"pk": {"S": "CATALOGUE#acme"}, "sk": {"S": "A#big"}})
        assert len(item["Item"]["payload_z"]["B"]) < 60_000

    def test_an_incompressible_payload_at_the_limit_round_trips(self, dynamodb: DynamoDBClient) -> None:
        catalogue = DynamoDbCatalogue(TABLE, "acme", client=dynamodb)
        source = asset("noise", payload=incompressible(MAX_PAYLOAD_BYTES))
        catalogue.put_assets([source])
        assert catalogue.get_assets(["noise"])["noise"] == stored(source, 1)

    def test_a_batch_over_the_transaction_limit_is_refused(self, dynamodb: DynamoDBClient) -> None:
        catalogue = DynamoDbCatalogue(TABLE, "acme", client=dynamodb)
        calls = calls_to(dynamodb)
        batch = [asset(f"n{i}", payload=incompressible(MAX_PAYLOAD_BYTES)) for i in range(18)]
        with pytest.raises(InvalidInputError) as err:
            catalogue.put_assets(batch)
        assert err.value.field == "assets"
        assert calls == []
        assert catalogue.revision() == 0
        assert catalogue.put_assets(batch[:9]) == 1

    def test_headers_are_read_page_by_page(self, dynamodb: DynamoDBClient) -> None:
        catalogue = DynamoDbCatalogue(TABLE, "acme", client=dynamodb)
        batch = [
            asset(f"n{i}", f"wh/s/t{9 - i}", payload=incompressible(MAX_PAYLOAD_BYTES)) for i in range(6)
        ]
        catalogue.put_assets(batch)
        calls = calls_to(dynamodb)
        headers = catalogue.headers()
        assert calls.count("Query") >= 2  # over 1 MB of items: DynamoDB pages the answer
        assert [h.asset_id for h in headers] == [f"n{i}" for i in reversed(range(6))]

    def test_a_writer_that_loses_the_revision_retries_on_the_new_one(self, dynamodb: DynamoDBClient) -> None:
        catalogue = DynamoDbCatalogue(TABLE, "acme", client=dynamodb)
        rival = DynamoDbCatalogue(TABLE, "acme", client=boto3.client("dynamodb"))
        raced: list[int] = []

        def rival_writes_first() -> None:
            if not raced:
                raced.append(rival.put_assets([asset("rival")]))

        before_each_transaction(dynamodb, rival_writes_first)
        assert catalogue.put_assets([asset("mine")]) == 2
        got = catalogue.get_assets(["mine", "rival"])
        assert (got["rival"].change_seq, got["mine"].change_seq) == (1, 2)
        assert catalogue.revision() == 2

    def test_endless_contention_gives_up(self, dynamodb: DynamoDBClient) -> None:
        catalogue = DynamoDbCatalogue(TABLE, "acme", client=dynamodb, max_attempts=3)
        rival = DynamoDbCatalogue(TABLE, "acme", client=boto3.client("dynamodb"))
        before_each_transaction(dynamodb, lambda: rival.put_assets([asset("rival")]))
        with pytest.raises(ContentionError):
            catalogue.put_assets([asset("mine")])
        assert catalogue.get_assets(["mine"]) == {}
        assert catalogue.revision() == 3


class TestDynamoDbConversationMemory(ConversationMemoryContract):
    @pytest.fixture
    def make_memory(self, dynamodb: DynamoDBClient) -> MemoryFactory:
        return lambda tenant: DynamoDbConversationMemory(TABLE, tenant, client=dynamodb)

    def test_an_expired_conversation_starts_afresh(self, dynamodb: DynamoDBClient) -> None:
        expired = DynamoDbConversationMemory(TABLE, "acme", client=dynamodb, ttl_days=0)
        expired.record("c1", {"a": "h1"})
        assert expired.sent("c1") == {}  # past expires_at, though the TTL has not removed it yet
        live = DynamoDbConversationMemory(TABLE, "acme", client=dynamodb)
        live.record("c1", {"b": "h2"})
        assert live.sent("c1") == {"b": "h2"}

    def test_a_large_record_is_merged_in_chunks(self, make_memory: MemoryFactory) -> None:
        memory = make_memory("acme")
        sent = {f"asset-{i:03d}": f"hash-{i}" for i in range(250)}
        memory.record("c1", sent)
        memory.record("c1", {"asset-000": "changed"})
        assert memory.sent("c1") == {**sent, "asset-000": "changed"}
