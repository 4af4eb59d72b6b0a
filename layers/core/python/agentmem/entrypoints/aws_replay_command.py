"""`agentmem replay --backend aws [--shadow] [--generation N] [--promote N]`: start the tenant stack's
replay state machine (infra/constructs/replay.py) and report its progress until it ends.

The state machine's ARN is `--state-machine-arn`, or AGENTMEM_REPLAY_STATE_MACHINE_ARN, or the
`ReplayStateMachineArn` output of the tenant's stack (`--stack`, default `agentmem-<tenant>`). A
promotion looks up the shadow build in the state machine's own history: the newest SUCCEEDED shadow
execution of that generation, whose settings the promotion replays it with."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mypy_boto3_cloudformation.client import CloudFormationClient
    from mypy_boto3_stepfunctions.client import SFNClient

OUTPUT_KEY = "ReplayStateMachineArn"
ARN_VARIABLE = "AGENTMEM_REPLAY_STATE_MACHINE_ARN"
DONE = frozenset({"SUCCEEDED", "FAILED", "TIMED_OUT", "ABORTED"})


def add_aws_replay_arguments(replay: argparse.ArgumentParser) -> None:
    replay.add_argument(
        "--backend",
        choices=("local", "aws"),
        default="local",
        help="aws: run the tenant stack's replay state machine instead of replaying a local data dir",
    )
    replay.add_argument(
        "--generation",
        type=int,
        default=None,
        metavar="N",
        help="aws: build into generation N again (resume a failed or stopped replay); default a new one",
    )
    replay.add_argument("--state-machine-arn", default=None, help=f"aws: default ${ARN_VARIABLE} or --stack")
    replay.add_argument("--stack", default=None, help="aws: the tenant stack (default agentmem-<tenant>)")
    replay.add_argument("--no-wait", action="store_true", help="aws: start the execution and return")
    replay.add_argument("--poll", type=float, default=30.0, help="aws: seconds between progress reports")


def _refuse(message: str) -> SystemExit:
    return SystemExit(f"agentmem replay --backend aws: {message}")


def state_machine_arn(args: argparse.Namespace, tenant_id: str, cloudformation: CloudFormationClient) -> str:
    if args.state_machine_arn:
        return str(args.state_machine_arn)
    if os.environ.get(ARN_VARIABLE):
        return os.environ[ARN_VARIABLE]
    stack = args.stack or f"agentmem-{tenant_id}"
    (described,) = cloudformation.describe_stacks(StackName=stack)["Stacks"]
    for output in described.get("Outputs", []):
        if output.get("OutputKey") == OUTPUT_KEY:
            return str(output["OutputValue"])
    raise _refuse(f"stack {stack} has no {OUTPUT_KEY} output: deploy this version of the stack first")


def shadow_builds(sfn: SFNClient, machine: str) -> Iterator[dict[str, Any]]:
    """The outputs of the state machine's succeeded shadow executions, newest first."""
    pages = sfn.get_paginator("list_executions").paginate(stateMachineArn=machine, statusFilter="SUCCEEDED")
    for page in pages:
        for execution in page["executions"]:
            output = json.loads(
                sfn.describe_execution(executionArn=execution["executionArn"]).get("output") or "{}"
            )
            if output.get("mode") == "shadow":
                yield output


def execution_input(
    args: argparse.Namespace, settings: dict[str, str], sfn: SFNClient, machine: str
) -> dict[str, Any]:
    if args.promote is not None:
        if settings:
            raise _refuse("a promotion replays the shadow with the settings it was built with; drop --set")
        known = []
        for build in shadow_builds(sfn, machine):
            if build.get("generation") == args.promote:
                return {"mode": "replay", "generation": args.promote, "settings": build.get("settings", {})}
            known.append(str(build.get("generation")))
        listed = ", ".join(dict.fromkeys(known)) or "none"
        print(
            f"agentmem replay --backend aws --promote: no complete shadow build of generation {args.promote}"
            f" in this state machine's history (complete shadow builds: {listed})",
            file=sys.stderr,
        )
        raise SystemExit(2)
    if settings and not args.shadow:
        raise _refuse(
            "--set, --llm and --embedder only go with --shadow: a replay goes live with the live models"
        )
    return {
        "mode": "shadow" if args.shadow else "replay",
        "generation": args.generation,
        "settings": settings,
    }


def progress_line(sfn: SFNClient, execution: str) -> str:
    """One line: each Map Run's files succeeded / failed / of total so far."""
    parts = []
    for run in sfn.list_map_runs(executionArn=execution).get("mapRuns", []):
        counts = sfn.describe_map_run(mapRunArn=run["mapRunArn"]).get("itemCounts", {})
        label = run["mapRunArn"].rsplit("/", 1)[-1].split(":", 1)[0]
        parts.append(f"{label} {counts.get('succeeded', 0)}/{counts.get('total', 0)} files"
                     + (f", {counts['failed']} failed" if counts.get("failed") else ""))  # fmt: skip
    return "; ".join(parts) or "exporting the log"


def wait(sfn: SFNClient, execution: str, poll: float, sleep: Callable[[float], None]) -> dict[str, Any]:
    last = ""
    while True:
        described: dict[str, Any] = dict(sfn.describe_execution(executionArn=execution))
        status = str(described["status"])
        if status in DONE:
            return described
        line = f"{status.lower()}: {progress_line(sfn, execution)}"
        if line != last:
            print(line, flush=True)
            last = line
        sleep(poll)


def report(described: dict[str, Any], given: dict[str, Any], execution: str) -> int:
    status = str(described["status"])
    if status != "SUCCEEDED":
        print(
            f"execution {status.lower()}: {described.get('error', '')} {described.get('cause', '')}".rstrip()
        )
        print(
            f"resume it where it stopped: aws stepfunctions redrive-execution --execution-arn {execution}\n"
            "or start again into the same generation (done work is skipped): "
            "agentmem replay --backend aws --generation <N>"
        )
        return 1
    output = json.loads(described.get("output") or "{}")
    generation = output.get("generation")
    if given["mode"] == "shadow":
        live = output.get("live_generation")
        print(f"shadow generation {generation} built; readers stay on generation {live}")
        print(f"nothing switched: `agentmem replay --backend aws --promote {generation}` makes it live")
    else:
        print(
            f"replayed into generation {generation} (was {output.get('live_generation')}); readers switched"
        )
    return 0


def cmd_aws_replay(
    args: argparse.Namespace,
    settings: dict[str, str],
    tenant_id: str,
    *,
    sfn: SFNClient | None = None,
    cloudformation: CloudFormationClient | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> int:
    if args.subject is not None:
        raise _refuse("--subject is local only: on AWS, `agentmem catch-up --session` repairs a session")
    if args.eval_set is not None or args.json:
        raise _refuse("--eval and --json compare generations locally; on AWS compare them with the read API")
    import boto3

    sfn = sfn or boto3.client("stepfunctions")
    machine = state_machine_arn(args, tenant_id, cloudformation or boto3.client("cloudformation"))
    given = execution_input(args, settings, sfn, machine)
    generation = f"g{given['generation']}" if given["generation"] is not None else "new"
    name = f"{given['mode']}-{generation}-{datetime.now(UTC):%Y%m%dT%H%M%S%fZ}"
    execution = sfn.start_execution(stateMachineArn=machine, name=name, input=json.dumps(given))[
        "executionArn"
    ]
    print(f"started {execution}")
    if args.no_wait:
        print(f"watch it with: aws stepfunctions describe-execution --execution-arn {execution}")
        return 0
    return report(wait(sfn, execution, args.poll, sleep), given, execution)
