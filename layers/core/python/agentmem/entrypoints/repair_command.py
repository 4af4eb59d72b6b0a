"""`agentmem redrive` and `agentmem catch-up`: repairs of the semantic tier on the AWS backend, where
`agentmem replay` (which tails the local log) does not run. See docs/deploy.md, "Redrive and catch-up"."""

from __future__ import annotations

import argparse
from typing import Any

from agentmem.settings import Settings


def cmd_redrive(args: argparse.Namespace) -> int:
    import boto3

    from agentmem.entrypoints.redrive import redrive
    from agentmem.wiring import bootstrap

    services = bootstrap(Settings.from_env())
    report = redrive(
        services,
        queue_url=args.queue_url,
        sqs=boto3.client("sqs"),
        streams=boto3.client("dynamodbstreams"),
        dynamodb=boto3.client("dynamodb"),
        max_messages=args.max_messages,
    )
    print(
        f"{report.messages} messages: {report.redriven} redriven and deleted; {report.records} stream "
        f"records read, {report.events} events projected, {report.gone} events no longer in the table"
    )
    for info in report.expired:
        print(
            f"expired (kept): shard {info.shard_id} {info.start}..{info.end}, arrived "
            f"{info.first_arrival}..{info.last_arrival}; the stream no longer holds it: run "
            "`agentmem catch-up --session <id>` for the sessions written then"
        )
    for where, reason in report.failed:
        print(f"failed (kept): {where}: {reason}")
    return 0 if not (report.expired or report.failed) else 1


def cmd_catch_up(args: argparse.Namespace) -> int:
    from agentmem.semantic.catch_up import catch_up
    from agentmem.wiring import bootstrap

    overrides: dict[str, Any] = {"data_dir": args.data_dir} if args.data_dir is not None else {}
    services = bootstrap(Settings.from_env(**overrides))
    for session in args.session:
        result = catch_up(services.ports.event_log, services.semantic, session, after=args.after)
        print(
            f"session {result.session_id}: {result.events_read} events projected again up to seq "
            f"{result.last_seq}, {result.beliefs_changed} belief changes"
        )
    return 0


def add_repair_verbs(verbs: Any) -> None:
    redrive = verbs.add_parser(
        "redrive", help="AWS: project again the stream ranges in the projector's on-failure queue"
    )
    redrive.add_argument(
        "--queue-url", required=True, help="the DeadLetters queue URL (stack output or console)"
    )
    redrive.add_argument("--max-messages", type=int, default=100, help="stop after this many messages")
    redrive.set_defaults(run=cmd_redrive)

    catch = verbs.add_parser("catch-up", help="project a session's events again, read from the log")
    catch.add_argument("--session", action="append", required=True, help="a session id (repeatable)")
    catch.add_argument("--after", type=int, default=0, help="only events with a higher seq")
    catch.add_argument("--data-dir", default=None, help="local backend only")
    catch.set_defaults(run=cmd_catch_up)
