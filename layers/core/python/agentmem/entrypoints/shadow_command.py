"""`agentmem replay --shadow` and `agentmem replay --promote GEN` (docs/shadow-replay.md): wiring
and printing only; the build, the diff and the recall are the semantic tier's."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import JsonValue, ValidationError

from agentmem.settings import Settings

if TYPE_CHECKING:
    from agentmem.semantic.shadow import ShadowDiff
    from agentmem.semantic.shadow_recall import BeliefQuestion, Recall
    from agentmem.wiring import Services

# The settings a shadow may change: the ones projection reads (which models, and the schema).
# API keys stay in the environment and out of the ledger; timeouts and the reranker change no belief.
SHADOW_SETTINGS = (
    "allow_undeclared_facts",
    "bedrock_embedding_model",
    "bedrock_llm_model",
    "embedder",
    "embedder_base_url",
    "embedder_dimensions",
    "embedder_model",
    "fact_types",
    "llm",
    "llm_base_url",
    "llm_model",
)
EVAL_SET = "beliefs_golden.jsonl"


def add_shadow_arguments(replay: argparse.ArgumentParser) -> None:
    mode = replay.add_mutually_exclusive_group()
    mode.add_argument(
        "--shadow",
        action="store_true",
        help="build a new generation beside the live one; readers stay where they are",
    )
    mode.add_argument(
        "--promote",
        type=int,
        default=None,
        metavar="GEN",
        help="switch readers to the complete shadow generation GEN",
    )
    replay.add_argument(
        "--llm",
        choices=("rules", "bedrock", "openai"),
        default=None,
        help="the shadow's extractor (default: the live one)",
    )
    replay.add_argument(
        "--embedder",
        choices=("minilm", "bedrock", "openai"),
        default=None,
        help="the shadow's embedder (default: the live one)",
    )
    replay.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        dest="settings",
        help=f"another setting for the shadow, one of: {', '.join(SHADOW_SETTINGS)}",
    )
    replay.add_argument(
        "--eval",
        type=Path,
        default=None,
        dest="eval_set",
        help="labelled belief questions, JSONL (default: the demo's set)",
    )
    replay.add_argument("--json", action="store_true", help="print the diff and recall as JSON")


def check_flags(args: argparse.Namespace) -> None:
    """The shadow's own flags make no sense without --shadow; --subject none with either mode."""
    given = {"--llm": args.llm, "--embedder": args.embedder, "--set": args.settings,
             "--eval": args.eval_set, "--json": args.json}  # fmt: skip
    stray = [flag for flag, value in given.items() if value]
    if stray and not args.shadow:
        raise SystemExit(f"agentmem replay: {', '.join(stray)} only go with --shadow")
    if args.subject is not None and (args.shadow or args.promote is not None):
        raise SystemExit(
            "agentmem replay: --subject rebuilds one subject in place; a shadow is the whole log"
        )


def shadow_overrides(args: argparse.Namespace) -> dict[str, str]:
    overrides: dict[str, str] = {}
    for name in ("llm", "embedder"):
        if getattr(args, name) is not None:
            overrides[name] = getattr(args, name)
    for pair in args.settings:
        name, sep, value = pair.partition("=")
        if not sep or name not in SHADOW_SETTINGS:
            raise SystemExit(
                f"replay --set {pair!r}: expected NAME=VALUE with NAME one of {', '.join(SHADOW_SETTINGS)}"
            )
        overrides[name] = value
    return overrides


def _settings(base: dict[str, Any], overrides: dict[str, str]) -> Settings:
    try:
        return Settings.from_env(None, **base, **overrides)
    except ValidationError as exc:
        raise SystemExit(f"replay: the shadow's settings are invalid: {exc}") from None


def eval_questions(path: Path | None) -> tuple[str, list[BeliefQuestion]]:
    from agentmem.demo.eval_run import sample_folder
    from agentmem.semantic.shadow_recall import load_questions

    chosen = path or sample_folder() / EVAL_SET
    return str(chosen), load_questions(chosen.read_text(encoding="utf-8").splitlines())


def cmd_shadow(args: argparse.Namespace, live: Services, base: dict[str, Any]) -> int:
    from agentmem.adapters.tokens import count_tokens
    from agentmem.entrypoints.cli_support import local_tail
    from agentmem.ports.tokens import DEFAULT_ENCODING
    from agentmem.progress import CountingTail, progress
    from agentmem.semantic.health import PROBE_SUBJECT
    from agentmem.semantic.shadow import diff_generations
    from agentmem.semantic.shadow_build import build_shadow
    from agentmem.semantic.shadow_recall import recall
    from agentmem.wiring import bootstrap

    overrides = shadow_overrides(args)
    shadow = bootstrap(_settings(base, overrides))
    log, checkpoints = local_tail(shadow, "replay --shadow (see docs/shadow-replay.md for AWS)")
    with progress("shadow", log.head_position(), unit="events") as step:
        build = build_shadow(
            CountingTail(log, step),
            shadow.semantic,
            checkpoints,
            shadow.ports.shadow_ledger,
            overrides,
            projection_settings(shadow.settings),
            snapshot=shadow.ports.observation_snapshot,
        )
    live_index = live.semantic.store.generation(build.live_generation)
    shadow_index = shadow.semantic.store.generation(build.generation)
    diff = diff_generations(live_index, shadow_index, skip_subjects={PROBE_SUBJECT})
    source, questions = eval_questions(args.eval_set)
    subjects = set(live_index.subjects()) | set(shadow_index.subjects())
    questions = [q for q in questions if q.subject_id in subjects]
    recalls = [
        recall(index, semantic.embedder, questions, count=count_tokens, encoding=DEFAULT_ENCODING)
        for index, semantic in ((live_index, live.semantic), (shadow_index, shadow.semantic))
    ]
    if args.json:
        print(json.dumps(report_json(build.overrides, build.events_read, diff, source, recalls), indent=2))
    else:
        print_report(build.overrides, build.events_read, diff, source, recalls)
    return 0


def report_json(
    overrides: dict[str, str], events: int, diff: ShadowDiff, source: str, recalls: list[Recall]
) -> dict[str, Any]:
    return {
        "live_generation": diff.live_generation,
        "shadow_generation": diff.shadow_generation,
        "overrides": overrides,
        "events_read": events,
        "subjects": diff.subjects,
        "beliefs": {"live": diff.beliefs[0], "shadow": diff.beliefs[1]},
        "counts": diff.counts(),
        "changes": [asdict(change) for change in diff.changes],
        "recall": {
            "eval_set": source,
            "questions": recalls[0].questions,
            "by_budget": {
                str(budget): {
                    "live": recalls[0].answered[budget],
                    "shadow": recalls[1].answered[budget],
                    "live_missed": recalls[0].missed[budget],
                    "shadow_missed": recalls[1].missed[budget],
                }
                for budget in recalls[0].answered
            },
        },
        "promote_with": f"agentmem replay --promote {diff.shadow_generation}",
    }


def print_report(
    overrides: dict[str, str], events: int, diff: ShadowDiff, source: str, recalls: list[Recall]
) -> None:
    from agentmem.entrypoints.cli_support import MAX_ROWS, print_rows

    given = ", ".join(f"{k}={v}" for k, v in sorted(overrides.items())) or "the live settings"
    print(
        f"shadow generation {diff.shadow_generation} built from {events} events with {given};"
        f" readers stay on generation {diff.live_generation}"
    )
    counts = diff.counts()
    tally = ", ".join(f"{n} {kind.replace('_', ' ')}" for kind, n in counts.items())
    print(
        f"{diff.subjects} subjects; current beliefs {diff.beliefs[0]} live, {diff.beliefs[1]} shadow; {tally}"
    )
    if diff.changes:
        rows = [
            [c.subject_id, c.key, c.member or "-", c.kind.replace("_", " "), c.live or "-", c.shadow or "-"]
            for c in diff.changes
        ]
        print_rows(["subject", "key", "member", "change", "live", "shadow"], rows[:MAX_ROWS])
        if len(rows) > MAX_ROWS:
            print(f"... and {len(rows) - MAX_ROWS} more (--json prints them all)")
    else:
        print("no belief a reader sees would change")
    live, shadow = recalls
    print(f"recall on {live.questions} labelled questions ({source}):")
    if live.questions:
        cells = [
            [
                f"{b} tokens",
                f"{live.answered[b]}/{live.questions}",
                f"{shadow.answered[b]}/{shadow.questions}",
            ]
            for b in live.answered
        ]
        print_rows(["budget", f"live g{live.generation}", f"shadow g{shadow.generation}"], cells)
    else:
        print("  none of its subjects are in this data dir; pass --eval with questions about yours")
    print(f"nothing switched: `agentmem replay --promote {diff.shadow_generation}` makes it live")


def projection_settings(settings: Settings) -> dict[str, JsonValue]:
    """Every setting projection reads, as JSON: what a shadow is built with, and promoted under."""
    return settings.model_dump(mode="json", include=set(SHADOW_SETTINGS))


def settings_to_set(recorded: dict[str, JsonValue], now: dict[str, JsonValue]) -> list[str]:
    """`AGENTMEM_X=value` (or `unset AGENTMEM_X`) for each setting that differs from the build's."""
    wanted = []
    for name in SHADOW_SETTINGS:
        value = recorded.get(name)
        if value == now.get(name):
            continue
        variable = f"AGENTMEM_{name.upper()}"
        shown = json.dumps(value) if isinstance(value, bool) else str(value)
        wanted.append(f"unset {variable}" if value is None else f"{variable}={shown}")
    return wanted


def cmd_promote(args: argparse.Namespace, live: Services) -> int:
    from agentmem.entrypoints.cli_support import local_tail
    from agentmem.errors import AgentMemError
    from agentmem.semantic.shadow_build import promotable, promote

    log, checkpoints = local_tail(live, "replay --promote (see docs/shadow-replay.md for AWS)")
    ledger = live.ports.shadow_ledger
    try:
        build = promotable(ledger, args.promote, live.semantic.store.active().generation)
    except AgentMemError as exc:
        print(f"agentmem replay --promote: {exc.message}", file=sys.stderr)
        return 2
    wanted = settings_to_set(build.settings, projection_settings(live.settings))
    if wanted:
        print(
            f"agentmem replay --promote: generation {build.generation} was built with other settings than"
            f" these: {'; '.join(wanted)} (here and for `agentmem serve`) first, or new events would be"
            " projected into it by other models",
            file=sys.stderr,
        )
        return 2
    snapshot = live.ports.observation_snapshot
    result = promote(log, live.semantic, checkpoints, ledger, build.generation, snapshot=snapshot)
    print(
        f"readers switched to generation {result.generation} (was {result.previous_generation});"
        f" {result.caught_up} events logged since the build projected first"
    )
    return 0
