"""The skills and compose functions: what they may do to the table, the bucket and the models."""

from __future__ import annotations

from typing import Any

import pytest
from aws_cdk.assertions import Match

from tests.infra.conftest import Synth, only

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("infra")]
LIBRARY_ONLY = {"ForAllValues:StringLike": {"dynamodb:LeadingKeys": ["SKILLS#*", "CATALOGUE#*", "CONV#*"]}}
DEPENDENTS = {"ForAllValues:StringLike": {"dynamodb:LeadingKeys": ["T#acme#DEP#*", "T#acme#CITED#*"]}}
WRITES = {"dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:ConditionCheckItem"}


def _statements(synth: Synth, description: str) -> list[dict[str, Any]]:
    _, function = only(
        synth.resources("AWS::Lambda::Function", {"Description": Match.string_like_regexp(description)})
    )
    role = function["Properties"]["Role"]["Fn::GetAtt"][0]
    _, policy = only(synth.resources("AWS::IAM::Policy", {"Roles": [{"Ref": role}]}))
    statements: list[dict[str, Any]] = policy["Properties"]["PolicyDocument"]["Statement"]
    return statements


def _actions(statement: dict[str, Any]) -> set[str]:
    action = statement["Action"]
    return {action} if isinstance(action, str) else set(action)


@pytest.mark.parametrize("description", ["procedural", "composer"])
def test_library_functions_write_only_their_partitions_and_never_the_log(
    acme: Synth, description: str
) -> None:
    statements = _statements(acme, description)
    writing = [s for s in statements if _actions(s) & WRITES]
    assert len(writing) == 1
    assert _actions(writing[0]) >= WRITES
    assert writing[0]["Condition"] == LIBRARY_ONLY
    # The log itself is only read: GetItem and Query, with no condition.
    reads = {"dynamodb:GetItem", "dynamodb:Query"}
    log_reads = [s for s in statements if _actions(s) == reads and "Condition" not in s]
    assert len(log_reads) == 1
    assert not any("dynamodb:Scan" in _actions(s) for s in statements)
    # Batches only in the stale-dependents index (what guidance and assets cite, kept reports),
    # one statement over both its partitions: a recording batch carries items of each.
    (batches,) = [s for s in statements if "dynamodb:BatchWriteItem" in _actions(s)]
    assert _actions(batches) == {"dynamodb:BatchWriteItem"}
    assert batches["Condition"] == DEPENDENTS


def test_only_the_composer_may_put_blobs(acme: Synth) -> None:
    def puts(description: str) -> bool:
        return any("s3:PutObject" in _actions(s) for s in _statements(acme, description))

    assert puts("composer") and not puts("procedural")
