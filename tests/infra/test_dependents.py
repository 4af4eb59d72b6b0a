"""The stale-dependents index's grants: every DynamoDB call the adapter makes for a function, with
the keys it makes it on, is allowed by that function's policy, and nothing more of the index is.

The calls are recorded as the adapter makes them on moto with the stack's tenant (tests/infra/grants.py),
so a change to its key shapes or operations fails here rather than on a deployed stack."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import pytest

from agentmem.adapters.aws.dynamodb_dependents import DynamoDbDependentsIndex
from agentmem.model.dependents import BeliefRef, BeliefUse
from tests.aws_fixtures import fake_log_table
from tests.infra.conftest import Synth, log_table
from tests.infra.grants import Call, allows, calls_sent, function_statements, role_statements

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("infra")]

TABLE = "agentmem-log"
RISK = BeliefRef(subject_id="priya", key="risk_tolerance")
HORIZON = BeliefRef(subject_id="priya", key="horizon")
Use = Callable[[DynamoDbDependentsIndex], None]


@pytest.fixture
def dynamodb(monkeypatch: pytest.MonkeyPatch) -> Iterator[DynamoDBClient]:
    yield from fake_log_table(monkeypatch, TABLE)


def _calls(client: DynamoDBClient, use: Use) -> set[Call]:
    """What `use` sends, on an index already holding a guidance entry and a kept report."""
    index = DynamoDbDependentsIndex(TABLE, "acme", client=client)
    index.record("guidance:g", [BeliefUse(RISK, 1), BeliefUse(HORIZON, 0)], "v1")
    index.record("report:r", [BeliefUse(RISK, 1)], "{}")
    return calls_sent(client, lambda: use(index))


def _recording(index: DynamoDbDependentsIndex) -> None:
    """What the skills and compose functions do: cite, rewrite, read back, keep, forget."""
    index.record("guidance:g", [BeliefUse(RISK, 2)], "v2")  # drops HORIZON: deletes its items
    index.uses_of("guidance:g")
    index.stale_of("guidance:g")
    index.stale_of_many(["guidance:g", "asset:a"])  # a context read's guidance, at once
    index.body_of("report:r")
    index.record("cache:abc", [BeliefUse(RISK, 2)])
    index.forget("guidance:g")


def _marking(index: DynamoDbDependentsIndex) -> None:
    """What projection onto the live beliefs and an erasure do."""
    index.mark_stale(RISK, 2, "updated")
    index.mark_erased("priya")


RECORDERS = ["procedural", "composer"]
MARKERS = ["agentmem projector:", "agentmem erasure:"]


@pytest.mark.parametrize("description", RECORDERS)
def test_skills_and_compose_may_record_read_and_forget_dependents(
    acme: Synth, dynamodb: DynamoDBClient, description: str
) -> None:
    table_id, _ = log_table(acme)
    statements = function_statements(acme, description)
    calls = _calls(dynamodb, _recording)
    assert {a for a, _ in calls} >= {"dynamodb:BatchWriteItem", "dynamodb:Query", "dynamodb:GetItem"}
    missing = sorted((a, sorted(k)) for a, k in calls if not allows(statements, table_id, (a, k)))
    assert missing == []
    # They never mark: that is the projection step's alone.
    assert not any(allows(statements, table_id, call) for call in _calls(dynamodb, _marking)
                   if call[0] == "dynamodb:UpdateItem")  # fmt: skip


def test_the_read_function_may_look_up_the_stale_guidance_a_context_read_places(
    acme: Synth, dynamodb: DynamoDBClient
) -> None:
    """It serves `POST /v1/context`, whose skills source asks which found guidance is stale."""
    table_id, _ = log_table(acme)
    statements = function_statements(acme, "agentmem read path")
    calls = _calls(dynamodb, lambda index: index.stale_of_many(["guidance:g", "guidance:h"]))
    assert {a for a, _ in calls} == {"dynamodb:Query"}
    assert [c for c in calls if not allows(statements, table_id, c)] == []


@pytest.mark.parametrize("description", MARKERS)
def test_the_projector_and_the_erasure_may_mark_dependents_and_nothing_more(
    acme: Synth, dynamodb: DynamoDBClient, description: str
) -> None:
    table_id, _ = log_table(acme)
    statements = function_statements(acme, description)
    calls = _calls(dynamodb, _marking)
    assert {action for action, _ in calls} == {"dynamodb:Query", "dynamodb:UpdateItem"}
    assert sorted((a, sorted(k)) for a, k in calls if not allows(statements, table_id, (a, k))) == []
    # Recording (a batch over both partitions, a dependent's body) is not theirs.
    recorded = [c for c in _calls(dynamodb, _recording) if c[0] == "dynamodb:BatchWriteItem"]
    assert recorded and not any(allows(statements, table_id, call) for call in recorded)


def test_the_operator_marks_what_catch_up_and_redrive_move(acme: Synth, dynamodb: DynamoDBClient) -> None:
    table_id, _ = log_table(acme)
    statements = role_statements(acme, "ReplayOperatorRole")
    assert all(allows(statements, table_id, call) for call in _calls(dynamodb, _marking))
    recorded = _calls(dynamodb, _recording)
    assert not any(allows(statements, table_id, c) for c in recorded if c[0] == "dynamodb:BatchWriteItem")


def test_one_statement_grants_a_batch_over_both_partitions(acme: Synth) -> None:
    """A recording batch mixes DEP and CITED keys; split over two statements, IAM refuses it."""
    table_id, _ = log_table(acme)
    batch = ("dynamodb:BatchWriteItem", frozenset({"T#acme#DEP#guidance:g", "T#acme#CITED#priya"}))
    composer = function_statements(acme, "composer")
    assert allows(composer, table_id, batch)
    assert not allows(composer, table_id, ("dynamodb:BatchWriteItem", frozenset({"T#acme#S#s1"})))


def test_no_function_may_touch_another_tenants_dependents(acme: Synth) -> None:
    table_id, _ = log_table(acme)
    other = [("dynamodb:UpdateItem", frozenset({"T#globex#DEP#guidance:g"})),
             ("dynamodb:BatchWriteItem", frozenset({"T#globex#CITED#priya"}))]  # fmt: skip
    for description in [*RECORDERS, *MARKERS]:
        assert not any(allows(function_statements(acme, description), table_id, call) for call in other)
