"""The vector cache's table and grants: a table of its own, and every DynamoDB call the adapter
makes for a function allowed by that function's policy on it, and nothing of it for the others.

The calls are recorded as the adapter makes them on moto with the stack's tenant
(tests/infra/grants.py), so a change to its keys or its operations fails here rather than on a
deployed stack."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import pytest
from aws_cdk.assertions import Match

from agentmem.adapters.aws.dynamodb_vector_cache import DynamoDbVectorCache
from tests.aws_fixtures import fake_vector_table
from tests.contract.vector_cache_contract import MODEL, SINGLE, digest
from tests.infra.conftest import Synth, log_table, only, vector_table
from tests.infra.grants import Call, allows, as_list, calls_sent, function_statements, role_statements

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("infra")]

TABLE = "agentmem-vectors"
Use = Callable[[DynamoDbVectorCache], object]
CACHERS = ["agentmem projector:", "agentmem replay worker:"]
WITHOUT = ["write path", "read path", "procedural", "composer"]


@pytest.fixture
def dynamodb(monkeypatch: pytest.MonkeyPatch) -> Iterator[DynamoDBClient]:
    yield from fake_vector_table(monkeypatch, TABLE)


def _calls(client: DynamoDBClient, use: Use) -> set[Call]:
    """What `use` sends, on a cache already holding a vector of priya's and sam's words."""
    cache = DynamoDbVectorCache(TABLE, "acme", client=client)
    cache.put(MODEL, {("priya", digest("a")): SINGLE, ("sam", digest("a")): SINGLE})
    return calls_sent(client, lambda: use(cache))


def _projecting(cache: DynamoDbVectorCache) -> None:
    """What projection does: ask, keep what the model computed, forget a subject erased meanwhile."""
    cache.get(MODEL, [digest("a"), digest("b")])
    cache.put(MODEL, {("priya", digest("b")): SINGLE, ("", digest("c")): SINGLE})
    cache.forget_subject("priya")


def _forgetting(cache: DynamoDbVectorCache) -> None:
    cache.forget_subject("priya")


def test_the_vector_table_is_its_own_on_demand_encrypted_table_without_stream_or_backups(acme: Synth) -> None:
    log_id, _ = log_table(acme)
    table_id, table = vector_table(acme)
    props = table["Properties"]
    assert table_id != log_id
    assert [k["AttributeName"] for k in props["KeySchema"]] == ["pk", "sk"]
    assert props["BillingMode"] == "PAY_PER_REQUEST"
    assert props["SSESpecification"] == {"SSEEnabled": True}
    # No stream for the projector to filter, no backup to keep erased vectors restorable.
    assert "StreamSpecification" not in props and "PointInTimeRecoverySpecification" not in props
    assert table["DeletionPolicy"] == "Retain"  # the acme tenant retains, as its sibling table does


@pytest.mark.parametrize("description", [*CACHERS, "agentmem erasure:"])
def test_the_functions_that_use_the_cache_are_told_its_table(acme: Synth, description: str) -> None:
    table_id, _ = vector_table(acme)
    _, function = only(
        acme.resources("AWS::Lambda::Function", {"Description": Match.string_like_regexp(description)})
    )
    assert function["Properties"]["Environment"]["Variables"]["AGENTMEM_VECTOR_TABLE_NAME"] == {
        "Ref": table_id
    }


@pytest.mark.parametrize("description", CACHERS)
def test_the_projector_and_the_replay_worker_may_read_write_and_forget_cached_vectors(
    acme: Synth, dynamodb: DynamoDBClient, description: str
) -> None:
    table_id, _ = vector_table(acme)
    statements = function_statements(acme, description)
    calls = _calls(dynamodb, _projecting)
    assert {a for a, _ in calls} == {"dynamodb:BatchGetItem", "dynamodb:BatchWriteItem", "dynamodb:Query"}
    assert sorted((a, sorted(k)) for a, k in calls if not allows(statements, table_id, (a, k))) == []


def test_the_operator_embeds_through_the_cache_as_the_projector_does(
    acme: Synth, dynamodb: DynamoDBClient
) -> None:
    """Catch-up and redrive run the projector's code with its settings, from a workstation."""
    table_id, _ = vector_table(acme)
    statements = role_statements(acme, "ReplayOperatorRole")
    assert all(allows(statements, table_id, call) for call in _calls(dynamodb, _projecting))


def test_the_erasure_function_may_forget_cached_vectors_and_not_read_them(
    acme: Synth, dynamodb: DynamoDBClient
) -> None:
    table_id, _ = vector_table(acme)
    statements = function_statements(acme, "agentmem erasure:")
    calls = _calls(dynamodb, _forgetting)
    assert {a for a, _ in calls} == {"dynamodb:BatchWriteItem", "dynamodb:Query"}
    assert [c for c in calls if not allows(statements, table_id, c)] == []
    read = _calls(dynamodb, lambda cache: cache.get(MODEL, [digest("a")]))
    assert not any(allows(statements, table_id, call) for call in read)


@pytest.mark.parametrize("description", WITHOUT)
def test_no_other_function_reaches_the_vector_table(acme: Synth, description: str) -> None:
    table_id, _ = vector_table(acme)
    statements = function_statements(acme, description)
    assert not any({"Fn::GetAtt": [table_id, "Arn"]} in as_list(s["Resource"]) for s in statements)


def test_no_function_may_touch_another_tenants_vectors(acme: Synth) -> None:
    table_id, _ = vector_table(acme)
    other: list[Call] = [("dynamodb:BatchWriteItem", frozenset({f"T#globex#V#{MODEL}#{digest('a')}"})),
                         ("dynamodb:Query", frozenset({"T#globex#OWNS#priya"}))]  # fmt: skip
    for statements in [*(function_statements(acme, d) for d in [*CACHERS, "agentmem erasure:"]),
                       role_statements(acme, "ReplayOperatorRole")]:  # fmt: skip
        assert not any(allows(statements, table_id, call) for call in other)
