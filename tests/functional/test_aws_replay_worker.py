"""The AWS replay's worker (agentmem.entrypoints.replay_worker), through its Lambda handler, on moto.

Events are appended by the real DynamoDB log adapter into a moto table; the whole table is then
written to a moto bucket as DynamoDB's ExportTableToPointInTime writes it (DYNAMODB_JSON: gzip JSON
lines of `{"Item": ...}`, under `<prefix>/AWSDynamoDB/<export id>/data/`, every item of the table,
heads and idempotency records included) and the worker reads it back through boto3. The semantic
tier is the local one, whose generations can be read back; the OpenSearch requests of the alias
switch are pinned offline in tests/unit/test_replay_worker_opensearch.py."""

from __future__ import annotations

import gzip
import json
import random
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import boto3
import pytest
from moto import mock_aws

from agentmem.adapters.aws.dynamodb_log import DynamoDbEventLog
from agentmem.adapters.local.rules_llm import RulesLLM
from agentmem.entrypoints.replay_worker import replay_worker_handler
from agentmem.errors import ConflictError, InvalidInputError, NotFoundError
from agentmem.model.beliefs import Belief, FactInput
from agentmem.model.events import AppendEventRequest, Event
from agentmem.semantic.health import PROBE_SUBJECT
from agentmem.settings import Settings
from agentmem.wiring import Services, bootstrap
from tests.aws_fixtures import create_blob_bucket, create_log_table, use_fake_aws_environment
from tests.conftest import FakeLambdaContext

TABLE, BUCKET = "agentmem-acme-log", "agentmem-acme-replay"
PREFIX = "replay/exec-1/build"
EXPORT_DIR = f"{PREFIX}/AWSDynamoDB/01764650000000-a1b2c3d4"
VALUES = ("cautious", "bold", "reckless")


class CountingLLM(RulesLLM):
    """The rules extractor, counting the events it was asked to extract facts from."""

    def __init__(self) -> None:
        super().__init__()
        self.extracted: list[str] = []

    def extract_facts(self, event: Event, *args: Any, **kwargs: Any) -> list[FactInput]:
        self.extracted.append(event.event_id)
        return super().extract_facts(event, *args, **kwargs)


class Context(FakeLambdaContext):
    function_name = "agentmem-replay-worker"

    def __init__(self, remaining: Sequence[int] = ()) -> None:
        self._remaining = list(remaining)

    def get_remaining_time_in_millis(self) -> int:
        return self._remaining.pop(0) if self._remaining else 900_000


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    use_fake_aws_environment(monkeypatch)
    with mock_aws():
        dynamodb = boto3.client("dynamodb")
        create_log_table(dynamodb, TABLE)
        s3 = boto3.client("s3")
        create_blob_bucket(s3, BUCKET)
        llm = CountingLLM()
        settings = Settings(backend="local", tenant_id="acme", table_name=TABLE, data_dir=tmp_path / "data")
        services = bootstrap(settings, event_log=DynamoDbEventLog(TABLE, "acme", client=dynamodb), llm=llm)
        asked: list[Mapping[str, str]] = []

        def services_for(overrides: Mapping[str, str]) -> Services:
            asked.append(dict(overrides))
            return services

        handler = replay_worker_handler(services_for, s3=s3, bucket=BUCKET)
        yield {"services": services, "dynamodb": dynamodb, "s3": s3, "handler": handler, "llm": llm,
               "asked": asked}  # fmt: skip


def say(services: Services, session: str, subject: str, value: str, *, explicit: bool = True) -> Event:
    facts = [FactInput(key="risk_tolerance", text=f"{subject} is {value} about risk.", value=value)]
    request = AppendEventRequest(
        subject_id=subject, round=0, agent="intake", kind="profile",
        content=f"{subject.capitalize()} says the risk tolerance is {value}.",
        facts=facts if explicit else None,
    )  # fmt: skip
    event = services.episodic.append(session, request).event
    services.semantic.project(event)  # what the stream projector does, into the live generation
    return event


def conversation(services: Services, *, explicit: bool = True) -> None:
    for round_ in range(3):
        for subject, session in (("priya", "p1"), ("sam", "s1"), ("priya", "p2")):
            say(services, session, subject, VALUES[(round_ + len(session)) % 3], explicit=explicit)


def export_table(world: dict[str, Any], files: int = 2) -> list[str]:
    """Every item of the table, shuffled over `files` data files, and the manifest of them."""
    items = world["dynamodb"].scan(TableName=TABLE)["Items"]
    random.Random(7).shuffle(items)
    keys, manifest = [], []
    for n in range(files):
        part = items[n::files]
        key = f"{EXPORT_DIR}/data/part{n}.json.gz"
        body = "".join(json.dumps({"Item": item}) + "\n" for item in part).encode()
        world["s3"].put_object(Bucket=BUCKET, Key=key, Body=gzip.compress(body))
        keys.append(key)
        manifest.append({"itemCount": len(part), "md5Checksum": "x", "etag": "y", "dataFileS3Key": key})
    lines = "".join(json.dumps(entry) + "\n" for entry in manifest)
    world["s3"].put_object(Bucket=BUCKET, Key=f"{EXPORT_DIR}/manifest-files.json", Body=lines.encode())
    return keys


def step(world: dict[str, Any], context: Context | None = None, **event: Any) -> dict[str, Any]:
    result: dict[str, Any] = world["handler"](event, context or Context())
    return result


def project_file(world: dict[str, Any], generation: int, key: str, **extra: Any) -> list[dict[str, Any]]:
    """Invoke the worker on one file until it says done, as the state machine's loop does."""
    answers = [step(world, action="project", generation=generation, prefix=PREFIX, file=key, **extra)]
    while not answers[-1]["done"]:
        answers.append(step(world, **{**answers[-1], "action": "project"}))
    return answers


Row = tuple[str, str, str, int, bool, str]


def tier(services: Services, generation: int) -> dict[str, list[Row]]:
    """Each subject's chain of versions, and its current beliefs, as comparable rows."""
    index = services.semantic.store.generation(generation)

    def row(kind: str, b: Belief) -> Row:
        return (kind, b.member, b.value, b.version, b.flag, ",".join(p.event_id for p in b.provenance))

    return {
        subject: sorted(
            [row("version", b) for b in index.history(subject, "risk_tolerance")]
            + [row("current", b) for b in index.current(subject)]
        )
        for subject in ("priya", "sam")
    }


def test_a_replay_from_an_export_equals_the_incremental_projection_and_switches_nothing(
    world: dict[str, Any],
) -> None:
    services = world["services"]
    conversation(services)
    live = tier(services, 1)
    keys = export_table(world)

    prepared = step(world, action="prepare", mode="shadow", settings={})
    assert prepared == {"generation": 2, "live_generation": 1}
    answers = [a for key in reversed(keys) for a in project_file(world, 2, key)]  # any file order

    assert sum(a["events"] for a in answers) == 9  # the heads and idempotency records are not events
    assert tier(services, 2) == live
    assert services.semantic.store.active().generation == 1  # readers were not switched
    assert set(services.semantic.store.generation(2).subjects()) == {"priya", "sam", PROBE_SUBJECT}


def test_activate_switches_readers_to_the_replayed_generation(world: dict[str, Any]) -> None:
    services = world["services"]
    conversation(services)
    keys = export_table(world, files=1)
    generation = step(world, action="prepare", mode="replay")["generation"]
    project_file(world, generation, keys[0])

    assert step(world, action="activate", generation=generation) == {
        "generation": 2,
        "previous_generation": 1,
    }
    assert services.semantic.store.active().generation == 2
    assert {b.value for b in services.semantic.current("sam")} == {"bold"}


def test_a_slice_stops_before_its_time_runs_out_and_the_next_one_goes_on_from_there(
    world: dict[str, Any],
) -> None:
    services = world["services"]
    conversation(services)
    live = tier(services, 1)
    (key,) = export_table(world, files=1)
    generation = step(world, action="prepare")["generation"]

    # Plenty of time for three lines, then under the reserve: the slice ends there.
    first = step(world, Context([900_000] * 3 + [1_000]), action="project", generation=generation,
                 prefix=PREFIX, file=key)  # fmt: skip
    assert (first["done"], first["start"]) == (False, 3)
    rest = project_file(world, generation, key, start=first["start"])

    assert rest[-1]["done"] is True
    assert tier(services, generation) == live


def test_a_slice_run_again_skips_the_events_it_projected_without_extracting_them(
    world: dict[str, Any],
) -> None:
    services, llm = world["services"], world["llm"]
    conversation(services, explicit=False)  # facts come from the extractor: each costs a model call
    live = tier(services, 1)
    (key,) = export_table(world, files=1)
    generation = step(world, action="prepare")["generation"]
    project_file(world, generation, key)
    llm.extracted.clear()

    (again,) = project_file(world, generation, key)  # a retried or redriven slice

    assert (again["events"], again["skipped"], again["beliefs_changed"]) == (9, 9, 0)
    assert llm.extracted == []
    assert tier(services, generation) == live


def test_prepare_refuses_a_generation_never_prepared_and_the_live_one(world: dict[str, Any]) -> None:
    step(world, action="prepare")  # generation 2, prepared

    with pytest.raises(NotFoundError, match="never prepared"):
        step(world, action="prepare", generation=5)
    with pytest.raises(ConflictError, match="readers use already"):
        step(world, action="prepare", generation=1)
    assert step(world, action="prepare", generation=2)["generation"] == 2  # a resume


def test_a_step_may_change_only_the_settings_projection_reads(world: dict[str, Any]) -> None:
    step(world, action="prepare", settings={"bedrock_embedding_model": "amazon.titan-embed-text-v2:0"})
    assert world["asked"] == [{"bedrock_embedding_model": "amazon.titan-embed-text-v2:0"}]

    with pytest.raises(InvalidInputError, match="table_name") as caught:
        step(world, action="prepare", settings={"table_name": "someone-elses"})
    assert caught.value.field == "settings"


def test_a_file_outside_the_replay_exports_is_refused(world: dict[str, Any]) -> None:
    with pytest.raises(InvalidInputError) as caught:
        step(world, action="project", generation=2, prefix="blobs", file="sha256/secret.json.gz")
    assert caught.value.field == "prefix"


def test_an_unknown_step_is_refused(world: dict[str, Any]) -> None:
    with pytest.raises(InvalidInputError, match="unknown replay step 'reindex'"):
        step(world, action="reindex")


def test_the_worker_takes_exactly_the_settings_a_local_shadow_may_change() -> None:
    from agentmem.entrypoints.replay_worker import SHADOW_SETTINGS as WORKER
    from agentmem.entrypoints.shadow_command import SHADOW_SETTINGS as CLI

    assert set(CLI) == WORKER


def test_a_tenant_with_a_retention_is_refused_before_anything_is_built(
    world: dict[str, Any], tmp_path: Path
) -> None:
    """Expired events' beliefs are only in the live generation's observations: a replay from the log
    would drop them, so the worker refuses rather than build a generation that loses them."""
    settings = Settings(backend="local", tenant_id="acme", data_dir=tmp_path / "kept", retention_days=30)
    kept = bootstrap(settings)
    handler = replay_worker_handler(lambda _: kept, s3=world["s3"], bucket=BUCKET)

    with pytest.raises(ConflictError, match="retention") as caught:
        handler({"action": "prepare", "mode": "shadow"}, Context())

    assert caught.value.field == "retention_days"
    assert kept.semantic.store.active().generation == 1
    assert kept.semantic.store.generation(2).subjects() == []  # no generation was prepared
