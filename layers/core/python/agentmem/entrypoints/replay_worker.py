"""The replay state machine's worker (infra/constructs/replay.py): one Lambda, three steps.

- `prepare`: the generation to build (a new one, or the one named to resume or promote) and the
  live one; seeds the health probe into it, which marks it as prepared.
- `project`: one slice of one export data file into that generation. It stops before its time runs
  out and answers where to go on (`start`), so the state machine invokes it again for the rest: a
  data file of any size fits, and a retried or redriven slice re-reads only its own lines.
- `activate`: moves the passage alias, then the belief aliases, to the generation (one `_aliases`
  call each, atomic in OpenSearch).

`settings` in the input are the settings a shadow is built with (the models, the schema: the
names of agentmem.entrypoints.shadow_command.SHADOW_SETTINGS and nothing else); the services for
them are built once per warm container."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agentmem.adapters.aws.dynamodb_export import data_file_key, event_of, export_items
from agentmem.entrypoints.observability import configure, logger, traced
from agentmem.errors import ConflictError, InvalidInputError, NotFoundError
from agentmem.semantic.replay_batch import prepared, project_batch
from agentmem.settings import Settings

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.typing import LambdaContext
    from mypy_boto3_s3.client import S3Client

    from agentmem.model.events import Event
    from agentmem.wiring import Services

BATCH = 25  # events per projection call: one embedding call for their new sentences
# Stop reading new events with this much time left: one batch (extraction of 25 events, about
# 1-2 s each on Bedrock) must still finish inside the function's timeout.
RESERVE_MS = 120_000
# The settings a shadow may change: agentmem.entrypoints.shadow_command.SHADOW_SETTINGS (the CLI is not
# shipped in the layer, so the list is repeated here; a unit test holds the two equal).
SHADOW_SETTINGS = frozenset(
    {"allow_undeclared_facts", "bedrock_embedding_model", "bedrock_llm_model", "embedder",
     "embedder_base_url", "embedder_dimensions", "embedder_model", "fact_types", "llm", "llm_base_url",
     "llm_model"}
)  # fmt: skip
EXPORT_PREFIX = "replay/"  # where the state machine exports the table (its role may read nothing else)


class Step(BaseModel):
    model_config = ConfigDict(extra="ignore")

    action: str
    settings: dict[str, str] = Field(default_factory=dict)


class Prepare(Step):
    mode: Literal["replay", "shadow"] = "replay"
    generation: int | None = Field(default=None, ge=1)


class Slice(Step):
    generation: int = Field(ge=1)
    prefix: str
    file: str
    start: int = Field(default=0, ge=0)


class Activate(Step):
    generation: int = Field(ge=1)


def _check_settings(settings: Mapping[str, str]) -> None:
    stray = sorted(set(settings) - SHADOW_SETTINGS)
    if stray:
        raise InvalidInputError(f"settings a replay may not change: {', '.join(stray)}", field="settings")


def prepare(services: Services, step: Prepare) -> dict[str, Any]:
    if services.settings.retention_days is not None:
        # The beliefs of events TTL has expired live on only in the live generation's observations;
        # a generation built from the log alone would drop them (docs/erasure.md). Seeding it from
        # those observations, as the local replay seeds from its snapshot, is not built on AWS.
        raise ConflictError(
            "this tenant keeps events for a retention period: a replay from the log would drop the"
            " beliefs of expired events, and seeding from the observation index is not built on AWS",
            field="retention_days",
        )
    store = services.semantic.store
    store.ensure_ready()
    live = store.active().generation
    if services.semantic.passages is not None:
        # As the projector's cold start does: on a deployment whose events alias does not exist yet,
        # the first passage generation created takes it, and that must be the live one, not ours.
        services.semantic.passages.generation(live)
    if step.generation is None:
        index = store.new_generation()
    else:
        if step.generation == live:
            raise ConflictError(
                f"generation {step.generation} is the one readers use already", field="generation"
            )
        index = store.generation(step.generation)
        if not prepared(index):
            raise NotFoundError(
                f"generation {step.generation} was never prepared by a replay", field="generation"
            )
    project_batch(services.semantic, index.generation, [])  # seeds the probe: the generation is prepared
    logger.info("replay prepared", extra={"generation": index.generation, "live": live, "mode": step.mode})
    return {"generation": index.generation, "live_generation": live}


def project_slice(
    services: Services, s3: S3Client, bucket: str, step: Slice, remaining_ms: Callable[[], int]
) -> dict[str, Any]:
    """Project from line `start` of the file until the file ends or the time reserve is reached."""
    if not step.prefix.startswith(EXPORT_PREFIX):
        raise InvalidInputError(f"replay exports are under {EXPORT_PREFIX}", field="prefix")
    key = data_file_key(step.prefix, step.file)
    tenant = services.settings.tenant_id
    batch: list[Event] = []
    events = skipped = changed = 0
    position, done = step.start, True
    for number, item in export_items(s3, bucket, key, start=step.start):
        if remaining_ms() < RESERVE_MS and not batch:
            position, done = number, False
            break
        position = number + 1
        if (event := event_of(item, tenant)) is not None:
            batch.append(event)
        if len(batch) >= BATCH:
            result = project_batch(services.semantic, step.generation, batch)
            events, skipped, changed = (
                events + result.events,
                skipped + result.skipped,
                changed + result.beliefs_changed,
            )
            batch = []
    if batch:
        result = project_batch(services.semantic, step.generation, batch)
        events, skipped, changed = (
            events + result.events,
            skipped + result.skipped,
            changed + result.beliefs_changed,
        )
    return {
        **step.model_dump(exclude={"action"}),
        "start": position,
        "done": done,
        "events": events,
        "skipped": skipped,
        "beliefs_changed": changed,
    }


def activate(services: Services, step: Activate) -> dict[str, Any]:
    semantic = services.semantic
    previous = semantic.store.active().generation
    if not prepared(semantic.store.generation(step.generation)):
        raise NotFoundError(
            f"generation {step.generation} was never prepared by a replay", field="generation"
        )
    # Passages first, as the local replay does: a reader takes the beliefs' alias for the generation.
    if semantic.passages is not None:
        semantic.passages.activate(step.generation)
    semantic.store.activate(step.generation)
    logger.info("replay activated", extra={"generation": step.generation, "previous": previous})
    return {"generation": step.generation, "previous_generation": previous}


Handler = Callable[[dict[str, Any], "LambdaContext"], dict[str, Any]]


def replay_worker_handler(
    services_for: Callable[[Mapping[str, str]], Services] | None = None,
    s3: S3Client | None = None,
    bucket: str | None = None,
) -> Handler:
    """The handler; `services_for` builds the services for a step's settings (default: bootstrap
    from the environment with them over it), `s3` and `bucket` read the export files."""
    configure()
    cache: dict[tuple[tuple[str, str], ...], Services] = {}

    def services(settings: Mapping[str, str]) -> Services:
        _check_settings(settings)
        key = tuple(sorted(settings.items()))
        if key not in cache:
            if services_for is not None:
                cache[key] = services_for(settings)
            else:
                from agentmem.wiring import bootstrap

                cache[key] = bootstrap(Settings.from_env(None, **settings))
        return cache[key]

    def client() -> S3Client:
        nonlocal s3
        if s3 is None:
            import boto3

            s3 = boto3.client("s3")
        return s3

    @logger.inject_lambda_context
    @traced
    def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
        try:
            action = Step.model_validate(event).action
            if action == "prepare":
                step = Prepare.model_validate(event)
                return prepare(services(step.settings), step)
            if action == "project":
                part = Slice.model_validate(event)
                where = bucket or os.environ["AGENTMEM_REPLAY_BUCKET"]
                return project_slice(
                    services(part.settings), client(), where, part, context.get_remaining_time_in_millis
                )
            if action == "activate":
                chosen = Activate.model_validate(event)
                return activate(services(chosen.settings), chosen)
        except ValidationError as exc:
            raise InvalidInputError(f"not a replay step: {exc.errors()[0]['msg']}", field="action") from exc
        raise InvalidInputError(f"unknown replay step {action!r}", field="action")

    return handler
