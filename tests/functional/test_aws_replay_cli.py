"""`agentmem replay --backend aws` on moto, through boto3: it starts an execution of the replay state
machine with the right input, follows it to its end, and promotes only a shadow build the state
machine's own history shows as complete.

moto cannot run the real definition (its Lambda needs Docker, its DynamoDB has no export to S3), so
the state machines here are stand-ins that moto's Step Functions interpreter does run: a Pass state
answering what the real one ends with, a Fail state as a failed export does. What is tested is the
command against real Step Functions API answers; the real definition is pinned in
tests/infra/test_replay.py and the worker in tests/functional/test_aws_replay_worker.py."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber
from moto import mock_aws

from agentmem.entrypoints import aws_replay_command
from agentmem.entrypoints.aws_replay_command import OUTPUT_KEY, progress_line, state_machine_arn
from agentmem.entrypoints.cli import main
from tests.aws_fixtures import use_fake_aws_environment

ROLE = "arn:aws:iam::123456789012:role/agentmem-acme-replay"
# What the real state machine's last state passes on: the input, and the generation Prepare chose.
ANSWERS = {
    "StartAt": "Done",
    "States": {
        "Done": {
            "Type": "Pass",
            "Parameters": {
                "mode.$": "$.mode",
                "settings.$": "$.settings",
                "generation": 3,
                "live_generation": 2,
            },
            "End": True,
        }
    },
}
FAILS = {
    "StartAt": "Export",
    "States": {"Export": {"Type": "Fail", "Error": "ExportFailed", "Cause": "no PITR"}},
}


@pytest.fixture
def sfn(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    use_fake_aws_environment(monkeypatch)
    monkeypatch.setenv("AGENTMEM_TENANT_ID", "acme")
    monkeypatch.delenv("AGENTMEM_REPLAY_STATE_MACHINE_ARN", raising=False)
    # moto's interpreter answers ListMapRuns from its execution thread's state, which it clears as the
    # execution ends: a call at that moment fails inside moto. The progress line has its own test
    # (the last one here), so these leave it out and follow the status alone.
    monkeypatch.setattr(aws_replay_command, "progress_line", lambda sfn, execution: "running")
    with mock_aws(config={"stepfunctions": {"execute_state_machine": True}}):
        yield boto3.client("stepfunctions")


def machine(sfn: Any, definition: dict[str, Any], name: str = "agentmem-acme-replay") -> str:
    arn: str = sfn.create_state_machine(name=name, definition=json.dumps(definition), roleArn=ROLE)[
        "stateMachineArn"
    ]
    return arn


def executions(sfn: Any, arn: str) -> list[dict[str, Any]]:
    """Every execution's input, oldest first."""
    listed = sfn.list_executions(stateMachineArn=arn)["executions"]
    described = [sfn.describe_execution(executionArn=e["executionArn"]) for e in listed]
    return [json.loads(d["input"]) for d in sorted(described, key=lambda d: d["startDate"])]


def replay(arn: str, *flags: str) -> int:
    return main(["replay", "--backend", "aws", "--state-machine-arn", arn, "--poll", "0.05", *flags])


def test_a_shadow_build_is_started_with_its_settings_and_reported_without_a_switch(
    sfn: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    arn = machine(sfn, ANSWERS)

    code = replay(arn, "--shadow", "--set", "bedrock_embedding_model=cohere.embed-v4:0")

    assert code == 0
    assert executions(sfn, arn) == [
        {"mode": "shadow", "generation": None, "settings": {"bedrock_embedding_model": "cohere.embed-v4:0"}}
    ]
    out = capsys.readouterr().out
    assert "shadow generation 3 built; readers stay on generation 2" in out
    assert "nothing switched: `agentmem replay --backend aws --promote 3` makes it live" in out


def test_a_promotion_replays_the_shadow_with_the_settings_it_was_built_with(
    sfn: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    arn = machine(sfn, ANSWERS)
    assert replay(arn, "--shadow", "--embedder", "bedrock", "--set", "embedder_dimensions=1024") == 0

    assert replay(arn, "--promote", "3") == 0

    assert executions(sfn, arn)[-1] == {
        "mode": "replay",
        "generation": 3,
        "settings": {"embedder": "bedrock", "embedder_dimensions": "1024"},
    }
    assert "replayed into generation 3 (was 2); readers switched" in capsys.readouterr().out


def test_a_generation_with_no_complete_shadow_build_is_not_promoted(
    sfn: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    arn = machine(sfn, ANSWERS)
    assert replay(arn, "--shadow") == 0

    with pytest.raises(SystemExit) as exited:
        replay(arn, "--promote", "7")

    assert exited.value.code == 2
    assert "no complete shadow build of generation 7" in capsys.readouterr().err
    assert len(executions(sfn, arn)) == 1  # nothing was started


def test_a_failed_execution_exits_1_and_says_how_to_resume(
    sfn: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    arn = machine(sfn, FAILS)

    assert replay(arn) == 1

    out = capsys.readouterr().out
    assert "execution failed: ExportFailed no PITR" in out
    assert "aws stepfunctions redrive-execution --execution-arn arn:aws:states:" in out
    assert executions(sfn, arn) == [{"mode": "replay", "generation": None, "settings": {}}]


def test_no_wait_starts_a_resumed_replay_and_returns_while_it_runs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    use_fake_aws_environment(monkeypatch)
    with mock_aws():  # the plain backend: an execution stays RUNNING
        sfn = boto3.client("stepfunctions")
        arn = machine(sfn, ANSWERS)
        monkeypatch.setenv("AGENTMEM_REPLAY_STATE_MACHINE_ARN", arn)

        code = main(["replay", "--backend", "aws", "--generation", "4", "--no-wait"])

        assert code == 0
        (running,) = sfn.list_executions(stateMachineArn=arn)["executions"]
        assert running["status"] == "RUNNING"
        assert executions(sfn, arn) == [{"mode": "replay", "generation": 4, "settings": {}}]
    assert f"started {running['executionArn']}" in capsys.readouterr().out


def test_the_state_machine_is_found_among_the_tenant_stack_outputs(monkeypatch: pytest.MonkeyPatch) -> None:
    use_fake_aws_environment(monkeypatch)
    monkeypatch.delenv("AGENTMEM_REPLAY_STATE_MACHINE_ARN", raising=False)
    cloudformation = boto3.client("cloudformation")
    arn = "arn:aws:states:us-east-1:123456789012:stateMachine:ReplayStateMachine-x"
    outputs = [
        {"OutputKey": "ApiUrl", "OutputValue": "https://x"},
        {"OutputKey": OUTPUT_KEY, "OutputValue": arn},
    ]
    stack = {
        "StackName": "agentmem-acme",
        "CreationTime": "2026-12-01T00:00:00Z",
        "StackStatus": "CREATE_COMPLETE",
    }
    args = argparse.Namespace(state_machine_arn=None, stack=None)
    with Stubber(cloudformation) as stub:
        stub.add_response(
            "describe_stacks", {"Stacks": [{**stack, "Outputs": outputs}]}, {"StackName": "agentmem-acme"}
        )
        stub.add_response("describe_stacks", {"Stacks": [stack]}, {"StackName": "agentmem-acme"})

        assert state_machine_arn(args, "acme", cloudformation) == arn
        with pytest.raises(SystemExit, match="has no ReplayStateMachineArn output"):
            state_machine_arn(args, "acme", cloudformation)  # a stack deployed before the replay existed


def test_a_replay_that_would_go_live_with_other_models_is_refused(sfn: Any) -> None:
    arn = machine(sfn, ANSWERS)
    with pytest.raises(SystemExit, match="only go with --shadow"):
        replay(arn, "--set", "bedrock_embedding_model=cohere.embed-v4:0")
    assert executions(sfn, arn) == []


def test_the_aws_flags_are_refused_on_a_local_replay(tmp_path: Any) -> None:
    with pytest.raises(SystemExit, match="--generation, --no-wait only go with --backend aws"):
        main(["replay", "--data-dir", str(tmp_path), "--generation", "2", "--no-wait"])


def test_progress_counts_each_map_runs_files(monkeypatch: pytest.MonkeyPatch) -> None:
    """moto lists no Map Runs, so the answers are the documented shapes, through a stubbed client."""
    use_fake_aws_environment(monkeypatch)
    sfn = boto3.client("stepfunctions")
    execution = "arn:aws:states:us-east-1:123456789012:execution:agentmem-acme-replay:replay-new-1"
    run = "arn:aws:states:us-east-1:123456789012:mapRun:agentmem-acme-replay/ProjectBuild:0f6c1a3e"
    counts = {"pending": 1, "running": 0, "succeeded": 3, "failed": 1, "timedOut": 0, "aborted": 0,
              "total": 5, "resultsWritten": 4}  # fmt: skip
    described = {
        "mapRunArn": run, "executionArn": execution, "status": "RUNNING", "startDate": "2026-12-02T03:00:00Z",
        "maxConcurrency": 8, "toleratedFailurePercentage": 0.0, "toleratedFailureCount": 0,
        "itemCounts": counts, "executionCounts": counts,
    }  # fmt: skip
    with Stubber(sfn) as stub:
        listed = {
            "executionArn": execution,
            "mapRunArn": run,
            "stateMachineArn": run,
            "startDate": "2026-12-02T03:00:00Z",
        }
        stub.add_response("list_map_runs", {"mapRuns": [listed]}, {"executionArn": execution})
        stub.add_response("describe_map_run", described, {"mapRunArn": run})
        stub.add_response("list_map_runs", {"mapRuns": []}, {"executionArn": execution})

        assert progress_line(sfn, execution) == "ProjectBuild 3/5 files, 1 failed"
        assert progress_line(sfn, execution) == "exporting the log"  # no Map Run yet: the export is running
