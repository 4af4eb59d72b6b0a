"""Every kind of bad input gets a 4xx JSON error naming the field, over real HTTP, and writes nothing."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import urllib3

from agentmem.api.app import build_resolver
from agentmem.entrypoints.server import LocalServer
from agentmem.settings import Settings
from agentmem.wiring import Services, bootstrap

INLINE_MAX, REQUEST_MAX = 1024, 4096
VALID: dict[str, Any] = {
    "subject_id": "priya",
    "round": 0,
    "agent": "intake",
    "kind": "note",
    "content": "ok",
}
_sessions = (f"bad-{n}" for n in itertools.count())


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Services, Path]]:
    data_dir = tmp_path_factory.mktemp("bad-input")
    services = bootstrap(
        Settings(data_dir=data_dir, inline_max_bytes=INLINE_MAX, max_request_bytes=REQUEST_MAX)
    )
    with LocalServer(lambda: build_resolver(services), port=0, max_request_bytes=REQUEST_MAX) as server:
        yield server.url, services, data_dir / "blobs"


def post_raw(url: str, session: str, data: bytes, content_type: str = "application/json") -> tuple[int, Any]:
    response = urllib3.request(
        "POST", f"{url}/v1/sessions/{session}/events", body=data, headers={"content-type": content_type}
    )
    return response.status, json.loads(response.data)


def with_fields(**changes: Any) -> bytes:
    body = {**VALID, **changes}
    return json.dumps({k: v for k, v in body.items() if v is not ...}).encode()


BODY_CASES = [
    ("missing field", with_fields(subject_id=...), 422, "subject_id"),
    ("unknown field", with_fields(priority="high"), 422, "priority"),
    ("tenant smuggled in body", with_fields(tenant_id="globex"), 422, "tenant_id"),
    ("round as string", with_fields(round="1"), 422, "round"),
    ("round as bool", with_fields(round=True), 422, "round"),
    ("content as number", with_fields(content=42), 422, "content"),
    ("content null", with_fields(content=None), 422, "content"),
    ("agent as number", with_fields(agent=7), 422, "agent"),
    ("id with space", with_fields(subject_id="pri ya"), 422, "subject_id"),
    ("id too long", with_fields(agent="a" * 129), 422, "agent"),
    ("id empty", with_fields(kind=""), 422, "kind"),
    ("idempotency key with slash", with_fields(idempotency_key="a/b"), 422, "idempotency_key"),
    ("negative round", with_fields(round=-1), 422, "round"),
    ("empty content", with_fields(content=""), 422, "content"),
    ("whitespace content", with_fields(content=" \n\t"), 422, "content"),
    ("empty object content", with_fields(content={}), 422, "content"),
    ("empty array content", with_fields(content=[]), 422, "content"),
    (
        "lone surrogate content",
        b'{"subject_id":"priya","round":0,"agent":"a","kind":"k","content":"\\ud800"}',
        422,
        "content",
    ),
    ("bad media type", with_fields(media_type="csv"), 422, "media_type"),
    (
        "non-UTF-8 bytes",
        b'{"subject_id":"priya","round":0,"agent":"a","kind":"k","content":"\xff\xfe"}',
        400,
        "body",
    ),
    ("malformed JSON", b'{"subject_id": "priya", "round": 0,', 400, "body"),
    ("body is an array", b"[1, 2]", 422, "body"),
    ("empty body", b"", 422, "body"),
    ("over the request ceiling", with_fields(content="x" * (REQUEST_MAX + 1)), 413, "content"),
]


@pytest.mark.parametrize(("label", "data", "status", "field"), BODY_CASES, ids=[c[0] for c in BODY_CASES])
def test_bad_body_is_refused_naming_the_field_and_writes_nothing(
    stack: tuple[str, Services, Path], label: str, data: bytes, status: int, field: str
) -> None:
    url, services, blobs = stack
    session = next(_sessions)
    got_status, body = post_raw(url, session, data)
    assert got_status == status, body
    assert body["error"]["field"] == field
    assert body["error"]["message"]
    assert services.event_log.last_seq(session) == 0
    assert not list(blobs.rglob("*")) or all(p.is_dir() for p in blobs.rglob("*"))


def test_over_ceiling_message_names_the_limit(stack: tuple[str, Services, Path]) -> None:
    url, _, _ = stack
    _, body = post_raw(url, next(_sessions), with_fields(content="y" * (REQUEST_MAX + 10)))
    assert str(REQUEST_MAX) in body["error"]["message"]


def test_form_encoded_body_is_415_naming_the_content_type(stack: tuple[str, Services, Path]) -> None:
    url, services, _ = stack
    session = next(_sessions)
    status, body = post_raw(url, session, with_fields(), content_type="application/x-www-form-urlencoded")
    assert status == 415
    assert body["error"]["field"] == "content-type"
    assert services.event_log.last_seq(session) == 0


@pytest.mark.parametrize(
    ("path", "field"),
    [
        ("/v1/sessions/bad%20id/events", "session_id"),
        (f"/v1/sessions/{'s' * 129}/events", "session_id"),
    ],
)
def test_bad_session_id_in_path_is_422(stack: tuple[str, Services, Path], path: str, field: str) -> None:
    url, _, _ = stack
    response = urllib3.request(
        "POST", url + path, body=with_fields(), headers={"content-type": "application/json"}
    )
    assert response.status == 422
    assert json.loads(response.data)["error"]["field"] == field


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("limit=0", "limit"),
        ("limit=5000", "limit"),
        ("after=-1", "after"),
        ("round=-2", "round"),
        ("after=abc", "after"),
        ("agent=no%20spaces", "agent"),
        ("resolve_blobs=maybe", "resolve_blobs"),
    ],
)
def test_bad_list_query_is_422_naming_the_parameter(
    stack: tuple[str, Services, Path], query: str, field: str
) -> None:
    url, _, _ = stack
    response = urllib3.request("GET", f"{url}/v1/sessions/s1/events?{query}")
    assert response.status == 422
    assert json.loads(response.data)["error"]["field"] == field


def test_valid_append_after_all_that_gets_seq_1(stack: tuple[str, Services, Path]) -> None:
    """The control: the same server accepts a good request, so the refusals above were about input."""
    url, _, _ = stack
    status, body = post_raw(url, "good-session", with_fields())
    assert (status, body["seq"]) == (201, 1)


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/v1/skills/metric-answering/compose", {"question": "   "}, "question"),
        ("/v1/library/search", {"task": " \t "}, "task"),
    ],
    ids=["compose-question", "skill-search-task"],
)
def test_a_query_of_only_spaces_is_422_naming_it(
    stack: tuple[str, Services, Path], path: str, body: dict[str, str], field: str
) -> None:
    """Like context and belief queries: a blank text has nothing to embed (Titan refuses it on
    AWS, MiniLM would embed it locally), so both backends refuse it at the door, alike."""
    url, _, _ = stack
    response = urllib3.request(
        "POST", f"{url}{path}", body=json.dumps(body).encode(), headers={"content-type": "application/json"}
    )
    error = json.loads(response.data)["error"]
    assert (response.status, error["field"]) == (422, field)
