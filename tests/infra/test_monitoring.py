"""Alarms and the dashboard (infra/constructs/monitoring.py, dashboard.py): what is watched, at which
threshold, and that every alarm reaches the tenant's topic."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aws_cdk.assertions import Match

from tests.infra.conftest import Synth, only, synthesize

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("infra")]

FUNCTIONS = ("write path", "read path", "projector", "erasure", "procedural tier", "composer")


@pytest.fixture(scope="module")
def dev(tmp_path_factory: pytest.TempPathFactory) -> Synth:
    """A single-node dev stack whose alarms mail an address."""
    outdir: Path = tmp_path_factory.mktemp("cdk-dev-alarms")
    return synthesize(outdir, removalPolicy="destroy", alarmEmail="oncall@example.com")


def _alarms(synth: Synth) -> dict[str, dict[str, Any]]:
    return {key: value["Properties"] for key, value in synth.resources("AWS::CloudWatch::Alarm").items()}


def _by_metric(synth: Synth, namespace: str, metric: str) -> list[dict[str, Any]]:
    return [
        a for a in _alarms(synth).values() if (a.get("Namespace"), a.get("MetricName")) == (namespace, metric)
    ]


def _function_ids(synth: Synth) -> dict[str, str]:
    """description keyword -> logical id of that function."""
    ids = {}
    for keyword in FUNCTIONS:
        logical_id, _ = only(
            synth.resources("AWS::Lambda::Function", {"Description": Match.string_like_regexp(keyword)})
        )
        ids[keyword] = logical_id
    return ids


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)


def test_every_alarm_notifies_the_tenant_topic_on_alarm_and_on_ok(acme: Synth) -> None:
    topic_id, _ = only(acme.resources("AWS::SNS::Topic"))
    alarms = _alarms(acme)
    assert len(alarms) >= 20
    for props in alarms.values():
        assert props["AlarmActions"] == [{"Ref": topic_id}]
        assert props["OKActions"] == [{"Ref": topic_id}]
        assert props["AlarmDescription"].startswith("agentmem acme: ")
        assert "AlarmName" not in props  # CloudFormation names them after the stack: tenants never collide


def test_the_topic_refuses_plain_http_and_is_an_output(acme: Synth) -> None:
    topic_id, _ = only(acme.resources("AWS::SNS::Topic"))
    _, policy = only(acme.resources("AWS::SNS::TopicPolicy"))
    (deny,) = policy["Properties"]["PolicyDocument"]["Statement"]
    assert deny["Effect"] == "Deny"
    assert deny["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}
    assert acme.template.to_json()["Outputs"]["AlarmTopicArn"]["Value"] == {"Ref": topic_id}
    assert acme.resources("AWS::SNS::Subscription") == {}  # nobody to mail: subscribe to the output ARN


def test_every_dead_letter_queue_has_an_alarm(acme: Synth) -> None:
    queues = acme.template.to_json()["Resources"]
    dead_letter_queues = {
        dlq["deadLetterTargetArn"]["Fn::GetAtt"][0]
        for queue in acme.resources("AWS::SQS::Queue").values()
        if (dlq := queue["Properties"].get("RedrivePolicy"))
    }
    # The projector's is the stream event source's on-failure destination.
    for mapping in acme.resources("AWS::Lambda::EventSourceMapping").values():
        destination = mapping["Properties"].get("DestinationConfig", {}).get("OnFailure")
        if destination:
            dead_letter_queues.add(destination["Destination"]["Fn::GetAtt"][0])
    assert len(dead_letter_queues) == 2
    watched = {
        alarm["Dimensions"][0]["Value"]["Fn::GetAtt"][0]
        for alarm in _by_metric(acme, "AWS/SQS", "ApproximateNumberOfMessagesVisible")
    }
    assert dead_letter_queues <= watched
    assert all(queues[q]["Type"] == "AWS::SQS::Queue" for q in watched)


def test_projector_lag_alarms_after_ten_minutes_for_three_periods(acme: Synth) -> None:
    (alarm,) = _by_metric(acme, "AWS/Lambda", "IteratorAge")
    assert alarm["Dimensions"] == [
        {"Name": "FunctionName", "Value": {"Ref": _function_ids(acme)["projector"]}}
    ]
    assert (alarm["Statistic"], alarm["Threshold"], alarm["EvaluationPeriods"]) == ("Maximum", 600_000, 3)


@pytest.mark.parametrize("metric", ["Errors", "Throttles"])
def test_every_function_alarms_on_errors_and_throttles(acme: Synth, metric: str) -> None:
    alarms = _by_metric(acme, "AWS/Lambda", metric)
    watched = {alarm["Dimensions"][0]["Value"]["Ref"] for alarm in alarms}
    assert watched == set(_function_ids(acme).values())
    for alarm in alarms:
        assert (alarm["Statistic"], alarm["ComparisonOperator"], alarm["Threshold"]) == (
            "Sum",
            "GreaterThanThreshold",
            0,
        )
        assert (alarm["EvaluationPeriods"], alarm["DatapointsToAlarm"]) == (3, 2)
        assert alarm["TreatMissingData"] == "notBreaching"


def test_api_alarms_on_5xx_and_p99_latency(acme: Synth) -> None:
    api_name = {"Name": "ApiName", "Value": "agentmem-acme"}
    (errors,) = _by_metric(acme, "AWS/ApiGateway", "5XXError")
    assert api_name in errors["Dimensions"]
    assert (errors["Statistic"], errors["Threshold"]) == ("Sum", 0)
    (latency,) = _by_metric(acme, "AWS/ApiGateway", "Latency")
    assert api_name in latency["Dimensions"]
    assert (latency["ExtendedStatistic"], latency["Threshold"]) == ("p99", 10_000)


def test_opensearch_alarms_on_status_storage_and_memory(acme: Synth) -> None:
    domain_id, _ = only(acme.resources("AWS::OpenSearchService::Domain"))
    expected = {
        "ClusterStatus.red": ("GreaterThanOrEqualToThreshold", 1),
        "ClusterStatus.yellow": ("GreaterThanOrEqualToThreshold", 1),
        # A quarter of the production default's 20 GiB per node, in MB (what FreeStorageSpace reports).
        "FreeStorageSpace": ("LessThanOrEqualToThreshold", 5120),
        "JVMMemoryPressure": ("GreaterThanOrEqualToThreshold", 95),
    }
    for metric, (operator, threshold) in expected.items():
        (alarm,) = _by_metric(acme, "AWS/ES", metric)
        assert (alarm["ComparisonOperator"], alarm["Threshold"]) == (operator, threshold), metric
        assert {"Name": "DomainName", "Value": {"Ref": domain_id}} in alarm["Dimensions"]
    # A domain that stops reporting is as bad as a red one.
    (red,) = _by_metric(acme, "AWS/ES", "ClusterStatus.red")
    assert red["TreatMissingData"] == "breaching"


def test_a_single_node_domain_has_no_yellow_alarm_it_could_never_clear(dev: Synth) -> None:
    # One node cannot place a replica: the cluster is yellow for good, and the alarm would never clear.
    assert _by_metric(dev, "AWS/ES", "ClusterStatus.yellow") == []
    (storage,) = _by_metric(dev, "AWS/ES", "FreeStorageSpace")
    assert storage["Threshold"] == 10 * 1024 * 0.25


def test_an_alarm_email_is_subscribed_to_the_topic(dev: Synth) -> None:
    topic_id, _ = only(dev.resources("AWS::SNS::Topic"))
    _, subscription = only(dev.resources("AWS::SNS::Subscription"))
    assert subscription["Properties"] == {
        "Protocol": "email",
        "Endpoint": "oncall@example.com",
        "TopicArn": {"Ref": topic_id},
    }


def test_dashboard_shows_the_write_projection_and_read_paths(acme: Synth) -> None:
    _, dashboard = only(acme.resources("AWS::CloudWatch::Dashboard"))
    body = "".join(_strings(dashboard["Properties"]["DashboardBody"]))
    for heading in ("## Write path", "## Projection path", "## Read path"):
        assert heading in body
    for metric in (
        "IteratorAge",
        "5XXError",
        "Latency",
        "ClusterStatus.red",
        "FreeStorageSpace",
        "Throttles",
    ):
        assert f'"{metric}"' in body
    assert "ApproximateNumberOfMessagesVisible" in body
    name = dashboard["Properties"]["DashboardName"]
    assert name == {"Fn::Join": ["", ["agentmem-acme-", {"Ref": "AWS::Region"}]]}
