"""`GET /v1/subjects/{id}/export`: everything held about a subject as NDJSON, cut into bounded
responses that a cursor stitches back together."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentmem.api.app import build_resolver
from agentmem.model.events import AppendEventRequest
from agentmem.settings import Settings
from agentmem.subjects.export import SubjectExport
from agentmem.wiring import Services
from tests.conftest import FakeLambdaContext

Raw = Callable[..., tuple[int, dict[str, str], str]]
CITY_1 = {"key": "home_city", "text": "Priya lives in Leeds.", "value": "Leeds"}
CITY_2 = {"key": "home_city", "text": "Priya moved to Bristol.", "value": "Bristol"}
STATEMENT = "Priya's bank statement for March. " * 20


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", inline_max_bytes=256)


@pytest.fixture
def raw(services: Services) -> Raw:
    """(status, headers, body text) of a GET through the real resolver."""
    app = build_resolver(services)

    def call(
        path: str, query: dict[str, str] | None = None, principals: str = "writer"
    ) -> tuple[int, dict[str, str], str]:
        context = {"httpMethod": "GET", "path": path, "stage": "prod", "requestId": "r",
                   "authorizer": {"principals": principals}}  # fmt: skip
        event: dict[str, Any] = {
            "resource": path, "path": path, "httpMethod": "GET", "headers": {}, "multiValueHeaders": {},
            "queryStringParameters": query, "pathParameters": None, "stageVariables": None,
            "multiValueQueryStringParameters": {k: [v] for k, v in query.items()} if query else None,
            "requestContext": context,
            "body": None, "isBase64Encoded": False,
        }  # fmt: skip
        result = app.resolve(event, FakeLambdaContext())
        headers = {k.lower(): v for k, v in (result.get("headers") or {}).items()}
        for k, values in (result.get("multiValueHeaders") or {}).items():
            headers[k.lower()] = values[-1]
        return result["statusCode"], headers, result["body"]

    return call


@pytest.fixture
def priya(services: Services) -> Services:
    def say(session: str, content: str, *facts: dict[str, str], subject: str = "priya") -> None:
        request = AppendEventRequest(
            subject_id=subject,
            round=0,
            agent="intake",
            kind="note",
            content=content,
            facts=list(facts) or None,
        )  # type: ignore[arg-type]
        services.episodic.append(session, request)

    say("s1", "Priya lives in Leeds.", CITY_1)
    say("s1", STATEMENT)
    say("s2", "Priya moved to Bristol.", CITY_2)
    say("s3", "Someone else entirely.", subject="omar")
    for event in [e for s in ("s1", "s2") for e in services.event_log.list_events(s)]:
        services.semantic.project(event)
    return services


def lines(body: str) -> list[dict[str, Any]]:
    assert body.endswith("\n")
    return [json.loads(line) for line in body.splitlines()]


def test_export_streams_events_blob_references_and_belief_chains(priya: Services, raw: Raw) -> None:
    status, headers, body = raw("/v1/subjects/priya/export")

    assert status == 200
    assert headers["content-type"] == "application/x-ndjson"
    out = lines(body)
    assert [line["type"] for line in out] == ["subject", "event", "event", "blob", "event", "belief", "end"]
    assert out[0]["subject_id"] == "priya" and out[0]["format"] == "agentmem-export/1"
    events = [line["event"] for line in out if line["type"] == "event"]
    assert [(e["session_id"], e["seq"]) for e in events] == [("s1", 1), ("s1", 2), ("s2", 1)]
    assert all(e["subject_id"] == "priya" for e in events)
    blob = out[3]
    assert blob["event_id"] == events[1]["event_id"] and blob["sha256"] == events[1]["blob"]["sha256"]
    assert "content" not in blob
    belief = out[5]
    assert (belief["key"], belief["member"]) == ("home_city", "")
    assert [(v["value"], v["current"]) for v in belief["versions"]] == [("Leeds", False), ("Bristol", True)]


def test_inline_blobs_carry_their_content(priya: Services, raw: Raw) -> None:
    _, _, body = raw("/v1/subjects/priya/export", {"inline_blobs": "true"})

    (blob,) = [line for line in lines(body) if line["type"] == "blob"]
    assert blob["content"] == STATEMENT


def test_a_cut_export_resumes_from_its_cursor_and_adds_up_to_the_whole(priya: Services, raw: Raw) -> None:
    whole = lines(raw("/v1/subjects/priya/export")[2])
    export = priya.subject_export
    pages, cursor = [], None
    while True:
        page = export.page("priya", cursor, max_bytes=300)  # about one unit of lines a response
        pages.append(lines(page.body))
        if page.next_cursor is None:
            break
        assert pages[-1][-1] == {"type": "continue", "cursor": page.next_cursor}
        cursor = page.next_cursor

    assert len(pages) > 3
    stitched = [line for page in pages for line in page if line["type"] != "continue"]
    strip = [{k: v for k, v in line.items() if k != "exported_at"} for line in stitched]
    assert strip == [{k: v for k, v in line.items() if k != "exported_at"} for line in whole]


def test_the_next_cursor_is_also_a_header(priya: Services, raw: Raw, monkeypatch: pytest.MonkeyPatch) -> None:
    small = SubjectExport(
        priya.ports.subject_log, priya.ports.erasure_ledger, priya.semantic.store.active,
        priya.blobs, max_bytes=300,
    )  # fmt: skip
    monkeypatch.setitem(priya.__dict__, "subject_export", small)

    _, headers, body = raw("/v1/subjects/priya/export")

    assert headers["x-agentmem-next-cursor"] == lines(body)[-1]["cursor"]


def test_an_erased_subject_has_nothing_to_export(priya: Services, raw: Raw) -> None:
    priya.erasure.erase("priya")

    status, _, body = raw("/v1/subjects/priya/export")

    assert status == 410
    assert json.loads(body)["error"]["code"] == "subject_erased"


@pytest.mark.parametrize("cursor", ["not-base64!", "eyJwaGFzZSI6ICJuby1zdWNoIn0", "e30"])
def test_a_cursor_the_export_never_gave_is_a_422_naming_it(priya: Services, raw: Raw, cursor: str) -> None:
    status, _, body = raw("/v1/subjects/priya/export", {"cursor": cursor})

    assert status == 422
    assert json.loads(body)["error"]["field"] == "cursor"


def test_a_subject_nobody_wrote_about_exports_only_its_frame(services: Services, raw: Raw) -> None:
    status, _, body = raw("/v1/subjects/nobody/export")

    assert status == 200
    assert [line["type"] for line in lines(body)] == ["subject", "end"]


def test_export_is_an_operator_action_a_reader_is_refused(priya: Services, raw: Raw) -> None:
    status, _, body = raw("/v1/subjects/priya/export", principals="analyst")
    assert status == 403
    assert json.loads(body)["error"]["code"] == "forbidden"
    assert "Leeds" not in body
