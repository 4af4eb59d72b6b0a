"""`agentmem` command line. Every verb takes `--data-dir` (or AGENTMEM_DATA_DIR)."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

# The verbs' shared helpers live in cli_support, below the command modules that use them too;
# they stay importable from here for the demo, the benches and the tests.
from agentmem.entrypoints.cli_support import MAX_ROWS, load_settings, local_tail, local_worker, print_rows
from agentmem.errors import BackendUnavailableError
from agentmem.settings import SettingsError

__all__ = ["MAX_ROWS", "build_parser", "load_settings", "local_tail", "local_worker", "main", "print_rows"]


# What exists on AWS instead of a replay (docs/deploy.md, "Redrive and catch-up").
AWS_REPAIRS = (
    "On AWS, `agentmem redrive --queue-url <DeadLetters queue>` projects the stream ranges the projector "
    "gave up on, and `agentmem catch-up --session <id>` projects a session again from the table; "
    "`agentmem replay --backend aws` rebuilds the tier with the stack's state machine (docs/deploy.md)."
)


def cmd_project(args: argparse.Namespace) -> int:
    from agentmem.wiring import bootstrap

    worker = local_worker(bootstrap(load_settings(args)))
    try:
        read = worker.settle()  # one shot: the passages' vectors too, before it returns
    except BackendUnavailableError as exc:
        # The worker has recorded the failure (the shared status /v1/health/deep reports) and
        # indexed the passages ahead: the user needs the cause in one line, not a traceback.
        print(
            f"agentmem project: projection failed: {exc}. The log keeps every event and reads still"
            " see them; run it again once the server answers.",
            file=sys.stderr,
        )
        return 1
    print(f"projected {read} events")
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from agentmem.entrypoints.shadow_command import check_flags, cmd_promote, cmd_shadow
    from agentmem.semantic.replay import replay
    from agentmem.wiring import bootstrap

    if args.backend == "aws":
        from agentmem.entrypoints.aws_replay_command import cmd_aws_replay
        from agentmem.entrypoints.shadow_command import shadow_overrides

        return cmd_aws_replay(args, shadow_overrides(args), load_settings(args).tenant_id)
    aws_only = {"--generation": args.generation, "--state-machine-arn": args.state_machine_arn,
                "--stack": args.stack, "--no-wait": args.no_wait}  # fmt: skip
    if stray := [flag for flag, value in aws_only.items() if value]:
        raise SystemExit(f"agentmem replay: {', '.join(stray)} only go with --backend aws")
    check_flags(args)
    services = bootstrap(load_settings(args))
    base = {"data_dir": args.data_dir} if args.data_dir is not None else {}
    if args.shadow:
        return cmd_shadow(args, services, base)
    if args.promote is not None:
        return cmd_promote(args, services)
    log, checkpoints = local_tail(services, "replay", hint=AWS_REPAIRS)
    store = services.semantic.store
    copier = getattr(store, "copy_other_subjects", None)
    from agentmem.progress import CountingTail, progress

    with progress("replay", log.head_position(), unit="events") as step:
        result = replay(
            CountingTail(log, step),
            services.semantic,
            checkpoints,
            subject_id=args.subject,
            copy_other_subjects=copier,
            snapshot=services.ports.observation_snapshot,
        )
    print(
        f"replayed {result.events_read} events into generation {result.generation}"
        f" (was {result.previous_generation}); readers switched"
    )
    if services.settings.procedural_enabled and args.subject is None:
        indexed, dropped = services.skill_search.rebuild()
        print(f"rebuilt the skill index from the library: {indexed} items indexed ({dropped} dropped first)")
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    """Compare the log with the active belief generation and print every difference; exit 1 if
    there is one. Reads only: `replay` is what repairs."""
    from agentmem.semantic.health import PROBE_SUBJECT
    from agentmem.semantic.verify import verify
    from agentmem.semantic.worker import checkpoint_name
    from agentmem.wiring import bootstrap

    services = bootstrap(load_settings(args))
    log, checkpoints = local_tail(services, "verify (on AWS, GET /v1/health/deep checks a sample)")
    semantic = services.semantic
    index = semantic.store.active()
    # The checkpoint first: every event up to it was projected before the beliefs are read.
    watermark = checkpoints.load(checkpoint_name(index.generation))
    report = verify(
        index, log, watermark=watermark, fact_types=semantic.fact_types,
        extract=services.reproducible_extraction(), skip_subjects={PROBE_SUBJECT},
    )  # fmt: skip
    print(
        f"generation {report.generation}: {report.chains_checked} chains,"
        f" {report.citations_checked} citations, {report.events_checked} events"
        f" ({report.facts_checked} facts) compared"
    )
    if report.unchecked_events:
        print(f"{report.unchecked_events} events without explicit facts not compared: extraction is a model")
    if report.unprojected_events:
        print(
            f"{report.unprojected_events} events past the projector's checkpoint not compared"
            " (not projected yet)"
        )
    if report.ok:
        print("no divergence: the beliefs say what the log says")
        return 0
    rows = [[d.kind, d.subject_id, d.key, d.member or "-", d.event_id, d.detail] for d in report.divergences]
    print(f"{len(rows)} divergences (run `agentmem replay` to rebuild from the log):")
    print_rows(["kind", "subject", "key", "member", "event", "detail"], rows[:MAX_ROWS])
    if len(rows) > MAX_ROWS:
        print(f"... and {len(rows) - MAX_ROWS} more")
    return 1


def cmd_forget(args: argparse.Namespace) -> int:
    """Erase a subject from every tier, on either backend; prints the erasure and each tier."""
    from agentmem.wiring import bootstrap

    record = bootstrap(load_settings(args)).erasure.erase(args.subject)
    print(f"erasure {record.erasure_id}: {record.state} (run {record.runs})")
    for name, tier in record.tiers.items():
        note = f" ({tier.note})" if tier.note else ""
        print(f"  {name:<14} {tier.status:<8} {tier.removed} removed{note}")
    return 0 if record.state == "done" else 1


def cmd_reindex(args: argparse.Namespace) -> int:
    """Rebuild the skill and asset search indexes from their primary stores, on either backend
    (on AWS, run it with the stack's environment and credentials): the indexes are projections."""
    from agentmem.progress import counting_embeddings, progress
    from agentmem.wiring import bootstrap

    services = bootstrap(load_settings(args))
    if services.settings.procedural_enabled:
        services.skill_index.ensure_ready()
        approved = sum(status == "approved" for _, _, status, _ in services.skills.stamps())
        with progress("skills", approved) as step, counting_embeddings(services.semantic, step):
            indexed, dropped = services.skill_search.rebuild()
        print(f"skill index: {indexed} approved items indexed, {dropped} stale ones removed")
    services.composer.index.ensure_ready()
    assets = len(services.composer.catalogue.headers())
    with progress("assets", assets) as step, counting_embeddings(services.semantic, step):
        indexed, dropped = services.composer.indexer.rebuild()
    print(f"asset index: {indexed} assets indexed, {dropped} stale ones removed")
    return 0


def cmd_eval(args: argparse.Namespace) -> int:
    from agentmem.demo.eval_run import run_eval, sample_folder

    dataset = args.dataset or sample_folder() / "golden.jsonl"
    budgets = [int(b) for b in args.budgets.split(",") if b.strip()]
    return run_eval(
        dataset,
        budgets,
        catalogue=args.catalogue,
        baseline=args.baseline,
        out=args.out,
        pin=args.pin,
        tolerance=args.tolerance,
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="agentmem", description="Shared memory for teams of LLM agents.")
    verbs = parser.add_subparsers(dest="verb", required=True)

    from agentmem.entrypoints.serve_command import add_serve_verb

    add_serve_verb(verbs)

    project = verbs.add_parser("project", help="project the log into the semantic tier")
    project.add_argument("--once", action="store_true", required=True, help="drain the log and exit")
    project.add_argument("--data-dir", type=Path, default=None)
    project.set_defaults(run=cmd_project)

    replay = verbs.add_parser("replay", help="rebuild the semantic tier from the log into a new generation")
    replay.add_argument("--subject", default=None, help="rebuild only this subject; the rest is copied")
    replay.add_argument("--data-dir", type=Path, default=None)
    from agentmem.entrypoints.shadow_command import add_shadow_arguments

    add_shadow_arguments(replay)
    from agentmem.entrypoints.aws_replay_command import add_aws_replay_arguments

    add_aws_replay_arguments(replay)
    replay.set_defaults(run=cmd_replay)

    check = verbs.add_parser("verify", help="compare the log with the beliefs; exit 1 on any divergence")
    check.add_argument("--data-dir", type=Path, default=None)
    check.set_defaults(run=cmd_verify)
    forget = verbs.add_parser("forget", help="erase a subject from every tier; no replay brings it back")
    forget.add_argument("subject", help="the subject id")
    forget.add_argument("--data-dir", type=Path, default=None)
    forget.set_defaults(run=cmd_forget)

    reindex = verbs.add_parser("reindex", help="rebuild the skill and asset indexes from their stores")
    reindex.add_argument("--data-dir", type=Path, default=None)
    reindex.set_defaults(run=cmd_reindex)

    evaluate = verbs.add_parser("eval", help="recall of needed assets at token budgets, on a labelled set")
    evaluate.add_argument("--dataset", type=Path, default=None, help="JSONL questions (default: the sample)")
    evaluate.add_argument("--budgets", default="2500,5000,10000,15000", help="comma-separated token budgets")
    evaluate.add_argument(
        "--catalogue", type=Path, default=None, help="folder with assets.jsonl and skills.json"
    )
    evaluate.add_argument(
        "--baseline", type=Path, default=None, help="JSON of a previous run: exit 1 on regression"
    )
    evaluate.add_argument("--tolerance", type=float, default=0.02, help="allowed drop below the baseline")
    evaluate.add_argument("--out", type=Path, default=None, help="write the full result (per question) here")
    evaluate.add_argument("--pin", type=Path, default=None, help="write the summary here, as a new baseline")
    evaluate.set_defaults(run=cmd_eval)

    from agentmem.entrypoints.mcp_server.command import add_parser as add_mcp_parser

    add_mcp_parser(verbs)

    from agentmem.inspector.command import add_inspect_verb

    add_inspect_verb(verbs)

    from agentmem.entrypoints.repair_command import add_repair_verbs

    add_repair_verbs(verbs)
    return parser


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING)
    args = build_parser().parse_args(argv)
    try:
        code: int = args.run(args)
    except SettingsError as exc:  # one line naming the variable, as argparse answers a bad flag
        print(f"agentmem {args.verb}: {exc}", file=sys.stderr)
        return 2
    return code


if __name__ == "__main__":
    sys.exit(main())
