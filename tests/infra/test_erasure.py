"""Erasure and retention in the stack: the erasure function alone may delete, and only in the
tenant's log partitions; the write function keeps no delete right; the queue retries then dead-
letters; the table's TTL expires items by `expires_at`. A retention's lifecycle rule is pinned on
the dev stack (test_dev_stack.py), which sets one."""

from __future__ import annotations

from typing import Any

import pytest
from aws_cdk.assertions import Match

from tests.infra.conftest import Synth, log_table, only

# Shares the session-scoped `acme` synth with test_stack.py (see the note there).
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("infra")]

DELETES = {"dynamodb:DeleteItem", "dynamodb:BatchWriteItem", "s3:DeleteObject", "s3:DeleteObjectVersion"}


def _function(synth: Synth, description: str) -> tuple[str, dict[str, Any]]:
    return only(
        synth.resources("AWS::Lambda::Function", {"Description": Match.string_like_regexp(description)})
    )


def _statements(synth: Synth, description: str) -> list[dict[str, Any]]:
    role = _function(synth, description)[1]["Properties"]["Role"]["Fn::GetAtt"][0]
    _, policy = only(synth.resources("AWS::IAM::Policy", {"Roles": [{"Ref": role}]}))
    statements: list[dict[str, Any]] = policy["Properties"]["PolicyDocument"]["Statement"]
    return statements


def _actions(statement: dict[str, Any]) -> set[str]:
    action = statement["Action"]
    return {action} if isinstance(action, str) else set(action)


def _leading_keys(statement: dict[str, Any]) -> list[str] | None:
    condition = statement.get("Condition", {}).get("ForAllValues:StringLike", {})
    keys: list[str] | None = condition.get("dynamodb:LeadingKeys")
    return keys


def _on_vector_table(statement: dict[str, Any]) -> bool:
    return "StorageVectorTable" in str(statement["Resource"])


def test_the_write_function_keeps_no_delete_right(acme: Synth) -> None:
    actions = {a for s in _statements(acme, "write path") for a in _actions(s)}
    assert not actions & DELETES
    assert "dynamodb:Scan" not in actions


def test_only_the_erasure_function_deletes_log_items_or_blobs(acme: Synth) -> None:
    for policy in acme.resources("AWS::IAM::Policy").values():
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]:
            if not _actions(statement) & DELETES or _on_vector_table(statement):
                continue  # the vector cache is no log: tests/infra/test_vector_cache.py pins its grants
            keys = _leading_keys(statement) or []
            # Libraries and the stale-dependents index are rewritten by their authors; neither is the log.
            library_only = keys and all(
                k.startswith(("SKILLS#", "CATALOGUE#", "CONV#", "T#acme#DEP#", "T#acme#CITED#")) for k in keys
            )
            assert library_only or "Erasure" in policy["Properties"]["PolicyName"], statement


def test_the_erasure_function_deletes_only_in_the_tenants_log_partitions(acme: Synth) -> None:
    statements = _statements(acme, "erasure")
    deleting = [
        s for s in statements
        if _actions(s) & {"dynamodb:DeleteItem", "dynamodb:BatchWriteItem"} and not _on_vector_table(s)
    ]  # fmt: skip
    by_keys = {tuple(_leading_keys(s) or ["<none>"]): _actions(s) for s in deleting}
    assert by_keys == {
        ("T#acme#S#*", "T#acme#SUBJ#*", "T#acme#BLOB#*"): {
            "dynamodb:GetItem", "dynamodb:Query", "dynamodb:DeleteItem", "dynamodb:BatchWriteItem",
        },
        # Review drafts that quote the subject, and conversations named like its sessions.
        ("SKILLS#*", "CONV#*"): {
            "dynamodb:GetItem", "dynamodb:Query", "dynamodb:BatchGetItem", "dynamodb:PutItem",
            "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:ConditionCheckItem",
        },
    }  # fmt: skip
    (ledger,) = [s for s in statements if _leading_keys(s) == ["T#acme#ERASED#*", "T#acme#ERASURE#*"]]
    assert _actions(ledger) == {
        "dynamodb:GetItem",
        "dynamodb:BatchGetItem",
        "dynamodb:PutItem",
        "dynamodb:UpdateItem",
    }
    table_wide = [s for s in statements if str(s["Resource"]).find("LogTable") >= 0 and not _leading_keys(s)]
    assert table_wide == []  # every table statement names its partitions
    # Every version: the bucket is versioned, and a plain DeleteObject would leave the bytes behind.
    (blobs,) = [s for s in statements if "s3:DeleteObjectVersion" in _actions(s)]
    assert _actions(blobs) == {"s3:GetObject", "s3:DeleteObjectVersion"}
    assert any("s3:ListBucketVersions" in _actions(s) for s in statements)


def test_the_erasure_function_serves_its_routes_and_drains_its_queue(acme: Synth) -> None:
    function_id, function = _function(acme, "erasure")
    props = function["Properties"]
    assert props["Timeout"] == 300 and props["Handler"] == "handler.handler"
    variables = props["Environment"]["Variables"]
    queue_id, queue = only(acme.resources("AWS::SQS::Queue", {"VisibilityTimeout": 1800}))
    assert variables["AGENTMEM_ERASURE_QUEUE_URL"] == {"Ref": queue_id}
    assert queue["Properties"]["SqsManagedSseEnabled"] is True
    assert queue["Properties"]["RedrivePolicy"]["maxReceiveCount"] == 5
    (mapping,) = [
        m for m in acme.resources("AWS::Lambda::EventSourceMapping").values()
        if m["Properties"]["FunctionName"] == {"Ref": function_id}
    ]  # fmt: skip
    assert mapping["Properties"]["EventSourceArn"] == {"Fn::GetAtt": [queue_id, "Arn"]}
    assert mapping["Properties"]["BatchSize"] == 1
    assert mapping["Properties"]["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    sends = [s for s in _statements(acme, "erasure") if "sqs:SendMessage" in _actions(s)]
    assert [s["Resource"] for s in sends] == [{"Fn::GetAtt": [queue_id, "Arn"]}]


def test_the_table_expires_items_by_their_expires_at(acme: Synth) -> None:
    _, table = log_table(acme)
    assert table["Properties"]["TimeToLiveSpecification"] == {"AttributeName": "expires_at", "Enabled": True}


def test_without_a_retention_blobs_never_expire_and_no_function_stamps_expiry(acme: Synth) -> None:
    _, bucket = only(acme.resources("AWS::S3::Bucket", {"VersioningConfiguration": Match.any_value()}))
    # Only the rule for noncurrent versions, which every versioned blob bucket has.
    assert [rule["Id"] for rule in bucket["Properties"]["LifecycleConfiguration"]["Rules"]] == [
        "NoncurrentVersions"
    ]
    for function in acme.resources("AWS::Lambda::Function", {"Handler": "handler.handler"}).values():
        assert "AGENTMEM_RETENTION_DAYS" not in function["Properties"]["Environment"]["Variables"]
