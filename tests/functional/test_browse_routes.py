"""The listings the inspector browses with: a subject's sessions, and the library's items."""

from __future__ import annotations

from tests.functional.conftest import Call


def _append(api: Call, session: str, subject: str) -> None:
    body = {"subject_id": subject, "round": 0, "agent": "a", "kind": "note", "content": "hello"}
    status, _ = api("POST", f"/v1/sessions/{session}/events", body)
    assert status == 201


def test_a_subject_lists_exactly_the_sessions_it_appears_in(api: Call) -> None:
    _append(api, "s2", "priya")
    _append(api, "s1", "priya")
    _append(api, "s3", "someone-else")
    status, body = api("GET", "/v1/subjects/priya/sessions", principals=None)
    assert status == 200 and body == {"items": ["s1", "s2"], "next": None}
    assert api("GET", "/v1/subjects/nobody/sessions")[1]["items"] == []
    assert api("GET", "/v1/subjects/bad%20id/sessions")[0] == 422


def test_the_libraries_list_their_items_with_status_and_version(api: Call) -> None:
    fn = {"function_id": "f1", "name": "f1", "implementation": "pass"}
    assert api("POST", "/v1/functions", fn)[0] == 201
    assert (
        api("POST", "/v1/functions", {**fn, "function_id": "f0", "name": "f0", "status": "approved"})[0]
        == 201
    )
    assert api("PUT", "/v1/functions/f1", {**fn, "implementation": "return 1"})[0] == 200
    assert api("POST", "/v1/guidance", {"guidance_id": "g1", "title": "G"})[0] == 201
    status, body = api("GET", "/v1/functions", principals=None)  # reading needs no role
    assert status == 200
    assert body["items"] == [
        {"id": "f0", "status": "approved", "version": 1},
        {"id": "f1", "status": "draft", "version": 2},
    ]
    assert [i["id"] for i in api("GET", "/v1/functions", query={"status": "approved"})[1]["items"]] == ["f0"]
    assert api("GET", "/v1/guidance")[1]["items"] == [{"id": "g1", "status": "draft", "version": 1}]
    assert api("GET", "/v1/functions", query={"status": "gone"})[0] == 422
