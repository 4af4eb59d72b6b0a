"""Reads since a watermark with the AWS event log: DynamoDB (in-process moto, the stack's table)
holds the session, and the read leads with what was appended to it after the watermark. The
beliefs are the local index here, as OpenSearch cannot run on these machines; its two queries
are pinned offline (tests/unit/test_opensearch_beliefs.py) and its contract runs on a server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest
from moto import mock_aws

from agentmem.adapters.aws.dynamodb_log import DynamoDbEventLog
from agentmem.model.context import ContextRequest
from agentmem.model.events import AppendEventRequest
from agentmem.settings import Settings
from agentmem.wiring import Services, bootstrap
from tests.aws_fixtures import create_log_table, use_fake_aws_environment

TABLE = "agentmem-acme-log"


@pytest.fixture
def services(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Services]:
    use_fake_aws_environment(monkeypatch)
    with mock_aws():
        create_log_table(boto3.client("dynamodb"), TABLE)
        log = DynamoDbEventLog(TABLE, "acme", client=boto3.client("dynamodb"))
        yield bootstrap(Settings(data_dir=tmp_path / "data", tenant_id="acme"), event_log=log)


def say(services: Services, session: str, agent: str, content: str) -> None:
    request = AppendEventRequest(subject_id="priya", round=0, agent=agent, kind="note", content=content)
    outcome = services.episodic.append(session, request)
    services.semantic.project(outcome.event)  # what the stream projector does with the record


def test_a_dynamodb_session_read_since_leads_with_its_new_events_and_the_moved_belief(
    services: Services,
) -> None:
    say(services, "S1", "intake", "Her risk tolerance is cautious.")
    say(services, "S2", "market", "Rates are expected to stay high through 2027.")
    ask = ContextRequest(subject_id="priya", session_id="S2", agent="compliance", query="risk tolerance?")
    first = services.context.build(ask)
    say(services, "S2", "intake", "Her risk tolerance is aggressive.")
    say(services, "S2", "recommendation", "Recommend a 60/40 index mix.")

    again = services.context.build(ask.model_copy(update={"since": first.trace.watermark}))

    assert again.trace.since is not None
    assert (again.trace.since.new_events, again.trace.since.changed_beliefs) == (2, 1)
    assert again.trace.new_since is not None
    assert {"belief:risk_tolerance", "event:S2:3"} <= set(again.trace.new_since)
    assert again.markdown.split("\n\n")[1].startswith("## Changed since your last read")
    assert "Rates are expected" not in again.markdown.split("\n\n")[1]  # seen before: not news
