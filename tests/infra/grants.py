"""What an adapter sends to DynamoDB, recorded on moto, and whether a function's policy in the
synthesised stack allows it: the grant tests' shared parts (test_dependents.py,
test_vector_cache.py).

The calls are not listed by hand: the adapter runs against moto and every request it sends is
recorded as its IAM action and the partition keys it touches, so a change to the adapter's key
shapes or operations fails the grant tests until the stack grants it."""

from __future__ import annotations

import fnmatch
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from aws_cdk.assertions import Match

from tests.infra.conftest import Synth, only

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient

Call = tuple[str, frozenset[str]]  # IAM action, the partition keys it touches


def partition_keys(operation: str, params: dict[str, Any]) -> frozenset[str]:
    """The partition keys of one DynamoDB request's parameters."""
    if operation == "Query":
        return frozenset({params["ExpressionAttributeValues"][":pk"]["S"]})
    if operation == "BatchGetItem":
        return frozenset(k["pk"]["S"] for t in params["RequestItems"].values() for k in t["Keys"])
    if operation == "BatchWriteItem":
        requests = [r for t in params["RequestItems"].values() for r in t]
        return frozenset(
            (r["PutRequest"]["Item"] if "PutRequest" in r else r["DeleteRequest"]["Key"])["pk"]["S"]
            for r in requests
        )
    return frozenset({(params.get("Key") or params["Item"])["pk"]["S"]})


def calls_sent(client: DynamoDBClient, use: Callable[[], object]) -> set[Call]:
    """Every DynamoDB call `use` makes through `client`; it must make one."""
    seen: set[Call] = set()

    def record(model: Any, params: dict[str, Any], **_: Any) -> None:
        seen.add((f"dynamodb:{model.name}", partition_keys(model.name, params)))

    client.meta.events.register("provide-client-params.dynamodb.*", record)
    try:
        use()
    finally:
        client.meta.events.unregister("provide-client-params.dynamodb.*", record)
    assert seen, "the use sent nothing"
    return seen


def function_statements(synth: Synth, description: str) -> list[dict[str, Any]]:
    """The policy statements of the role of the one function whose description matches."""
    _, function = only(
        synth.resources("AWS::Lambda::Function", {"Description": Match.string_like_regexp(description)})
    )
    role = function["Properties"]["Role"]["Fn::GetAtt"][0]
    return role_statements(synth, role)


def role_statements(synth: Synth, role_prefix: str) -> list[dict[str, Any]]:
    statements: list[dict[str, Any]] = []
    for policy in synth.resources("AWS::IAM::Policy").values():
        if any(r["Ref"].startswith(role_prefix) for r in policy["Properties"].get("Roles", [])):
            statements += policy["Properties"]["PolicyDocument"]["Statement"]
    assert statements, role_prefix
    return statements


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def allows(statements: list[dict[str, Any]], table_id: str, call: Call) -> bool:
    """Whether one Allow statement grants the call on the table, its LeadingKeys (ForAllValues:
    every key of the request matches one of the statement's patterns) included. IAM evaluates each
    statement on the whole request: two statements cannot share one BatchWriteItem between them."""
    action, keys = call
    for statement in statements:
        if statement.get("Effect", "Allow") != "Allow" or action not in as_list(statement["Action"]):
            continue
        if {"Fn::GetAtt": [table_id, "Arn"]} not in as_list(statement["Resource"]):
            continue
        condition = statement.get("Condition")
        if condition is None:
            return True
        patterns = condition.get("ForAllValues:StringLike", {}).get("dynamodb:LeadingKeys")
        if (
            set(condition) == {"ForAllValues:StringLike"}
            and patterns is not None
            and all(any(fnmatch.fnmatchcase(key, p) for p in patterns) for key in keys)
        ):
            return True
    return False
