"""The procedural tier's HTTP routes, through the real resolver (validation, routing, error mapping)
over a real SQLite skill library: CRUD, links kept honest on both sides, review, closure, 4xx."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentmem.api.app import build_resolver
from agentmem.procedural.model import MAX_IMPLEMENTATION_BYTES
from tests.conftest import FakeLambdaContext
from tests.functional.conftest import Call

NO_LINKS: dict[str, Any] = {"items": [], "next": None}
REVIEW, CLEAN = {"needs_review": "true"}, {"needs_review": "false"}


def fn(function_id: str, **fields: Any) -> dict[str, Any]:
    return {
        "function_id": function_id,
        "name": function_id,
        "implementation": f"def {function_id}(): ...",
        **fields,
    }


def guide(guidance_id: str, function_ids: list[str], **fields: Any) -> dict[str, Any]:
    return {
        "guidance_id": guidance_id,
        "title": f"How to {guidance_id}",
        "function_ids": function_ids,
        **fields,
    }


def error_field(status_body: tuple[int, Any]) -> tuple[int, str | None]:
    status, body = status_body
    return status, body["error"]["field"]


def test_create_get_and_version_a_function(api: Call) -> None:
    status, created = api("POST", "/v1/functions", fn("parse_iban", docstring="Parse an IBAN."))
    assert status == 201
    assert (created["version"], created["status"], created["guidance_ids"]) == (1, "draft", [])
    assert len(created["impl_hash"]) == 64

    assert api("GET", "/v1/functions/parse_iban") == (200, created)
    # An identical restatement is a no-op; a changed spec is version 2.
    assert api("POST", "/v1/functions", fn("parse_iban", docstring="Parse an IBAN."))[1]["version"] == 1
    status, rewritten = api("PUT", "/v1/functions/parse_iban", fn("parse_iban", docstring="Parse IBANs."))
    assert (status, rewritten["version"], rewritten["docstring"]) == (200, 2, "Parse IBANs.")
    assert rewritten["created_at"] == created["created_at"]

    status, approved = api("POST", "/v1/functions/parse_iban/approve")
    assert (status, approved["status"], approved["version"]) == (200, "approved", 2)


def test_create_get_and_approve_guidance(api: Call) -> None:
    api("POST", "/v1/functions", fn("f1"))
    status, created = api("POST", "/v1/guidance", guide("onboard", ["f1"], content="# Steps"))
    assert (status, created["version"], created["function_ids"]) == (201, 1, ["f1"])
    assert api("GET", "/v1/guidance/onboard") == (200, {**created, "stale": []})  # cites nothing: fresh
    assert api("GET", "/v1/functions/f1")[1]["guidance_ids"] == ["onboard"]
    status, approved = api("POST", "/v1/guidance/onboard/approve")
    assert (status, approved["status"]) == (200, "approved")
    status, rewritten = api("PUT", "/v1/guidance/onboard", guide("onboard", [], content="# None"))
    assert (status, rewritten["version"], rewritten["function_ids"]) == (200, 2, [])
    assert api("GET", "/v1/functions/f1")[1]["guidance_ids"] == []


def test_guidance_naming_an_unknown_function_is_422_and_writes_nothing(api: Call) -> None:
    api("POST", "/v1/functions", fn("known"))
    assert error_field(api("POST", "/v1/guidance", guide("g", ["known", "ghost"]))) == (422, "function_ids")
    assert error_field(api("GET", "/v1/guidance/g")) == (404, "guidance_id")
    assert api("GET", "/v1/functions/known")[1]["guidance_ids"] == []
    assert api("GET", "/v1/library/links") == (200, NO_LINKS)


def test_dependency_cycle_and_unknown_dependency_are_422_on_depends_on(api: Call) -> None:
    api("POST", "/v1/functions", fn("a"))
    api("POST", "/v1/functions", fn("b", depends_on=["a"]))
    status, body = api("PUT", "/v1/functions/a", fn("a", depends_on=["b"]))
    assert (status, body["error"]["field"]) == (422, "depends_on")
    assert "a -> b -> a" in body["error"]["message"]
    assert api("GET", "/v1/functions/a")[1]["depends_on"] == []
    assert error_field(api("POST", "/v1/functions", fn("c", depends_on=["nope"]))) == (422, "depends_on")
    assert error_field(api("POST", "/v1/functions", fn("d", depends_on=["d"]))) == (422, "depends_on")


def test_implementation_over_the_size_limit_is_422_on_implementation(api: Call) -> None:
    big = "x" * (MAX_IMPLEMENTATION_BYTES + 1)
    status, body = api("POST", "/v1/functions", fn("big", implementation=big))
    assert (status, body["error"]["field"]) == (422, "implementation")
    assert str(MAX_IMPLEMENTATION_BYTES) in body["error"]["message"]
    assert api("GET", "/v1/functions/big")[0] == 404
    assert api("POST", "/v1/functions", fn("big", implementation="x" * MAX_IMPLEMENTATION_BYTES))[0] == 201


def test_mismatched_ids_and_bad_bodies_are_422_naming_the_field(api: Call) -> None:
    assert error_field(api("PUT", "/v1/functions/one", fn("other"))) == (422, "function_id")
    assert error_field(api("PUT", "/v1/guidance/one", guide("other", []))) == (422, "guidance_id")
    assert api("GET", "/v1/functions/other")[0] == 404
    assert error_field(api("POST", "/v1/functions", {**fn("f"), "surprise": 1})) == (422, "surprise")
    no_implementation = {"function_id": "f", "name": "f"}
    assert error_field(api("POST", "/v1/functions", no_implementation)) == (422, "implementation")
    assert error_field(api("POST", "/v1/functions", fn("bad id!"))) == (422, "function_id")


def test_deleting_a_function_removes_it_from_guidance(api: Call) -> None:
    api("POST", "/v1/functions", fn("f1"))
    api("POST", "/v1/functions", fn("f2"))
    api("POST", "/v1/guidance", guide("g", ["f1", "f2"]))
    assert api("DELETE", "/v1/functions/f1") == (204, None)
    assert api("GET", "/v1/guidance/g")[1]["function_ids"] == ["f2"]
    assert api("GET", "/v1/functions/f1")[0] == 404
    assert error_field(api("DELETE", "/v1/functions/f1")) == (404, "function_id")

    assert api("DELETE", "/v1/guidance/g") == (204, None)
    assert api("GET", "/v1/functions/f2")[1]["guidance_ids"] == []
    assert error_field(api("DELETE", "/v1/guidance/g")) == (404, "guidance_id")


def test_deleting_a_function_others_depend_on_is_409(api: Call) -> None:
    api("POST", "/v1/functions", fn("base"))
    api("POST", "/v1/functions", fn("user", depends_on=["base"]))
    status, body = api("DELETE", "/v1/functions/base")
    assert (status, body["error"]["code"]) == (409, "conflict")
    assert "user" in body["error"]["message"]
    assert api("GET", "/v1/functions/base")[0] == 200


def test_a_changed_implementation_puts_links_under_review_until_confirmed(api: Call) -> None:
    api("POST", "/v1/functions", fn("f1"))
    api("POST", "/v1/functions", fn("f2"))
    api("POST", "/v1/guidance", guide("g1", ["f1", "f2"]))
    api("POST", "/v1/guidance", guide("g2", ["f1"]))
    assert api("GET", "/v1/library/links", query=REVIEW) == (200, NO_LINKS)

    # A docstring-only rewrite keeps the hash: nothing to review.
    api("PUT", "/v1/functions/f1", fn("f1", docstring="clearer"))
    assert api("GET", "/v1/library/links", query=REVIEW)[1]["items"] == []

    api("PUT", "/v1/functions/f1", fn("f1", implementation="def f1(): return 2"))
    status, page = api("GET", "/v1/library/links", query=REVIEW)
    assert status == 200
    assert page == {
        "items": [
            {"guidance_id": "g1", "function_id": "f1", "needs_review": True},
            {"guidance_id": "g2", "function_id": "f1", "needs_review": True},
        ],
        "next": None,
    }
    clean = api("GET", "/v1/library/links", query=CLEAN)[1]["items"]
    assert clean == [{"guidance_id": "g1", "function_id": "f2", "needs_review": False}]

    confirmed = api("POST", "/v1/library/links/g1/f1/confirm")
    assert confirmed == (200, {"guidance_id": "g1", "function_id": "f1", "needs_review": False})
    assert api("DELETE", "/v1/library/links/g2/f1") == (204, None)
    assert api("GET", "/v1/library/links", query=REVIEW)[1]["items"] == []
    assert api("GET", "/v1/guidance/g2")[1]["function_ids"] == []
    assert api("GET", "/v1/functions/f1")[1]["guidance_ids"] == ["g1"]
    assert len(api("GET", "/v1/library/links")[1]["items"]) == 2

    assert error_field(api("POST", "/v1/library/links/g2/f1/confirm")) == (404, "function_id")
    assert error_field(api("DELETE", "/v1/library/links/g2/f1")) == (404, "function_id")
    maybe = {"needs_review": "maybe"}
    assert error_field(api("GET", "/v1/library/links", query=maybe)) == (422, "needs_review")


def test_closure_lists_dependencies_first(api: Call) -> None:
    api("POST", "/v1/functions", fn("leaf"))
    api("POST", "/v1/functions", fn("left", depends_on=["leaf"]))
    api("POST", "/v1/functions", fn("right", depends_on=["leaf"]))
    api("POST", "/v1/functions", fn("top", depends_on=["left", "right"]))
    status, body = api("GET", "/v1/functions/top/closure")
    assert status == 200
    assert body["function_id"] == "top"
    assert [f["function_id"] for f in body["items"]] == ["leaf", "left", "right", "top"]
    assert [f["function_id"] for f in api("GET", "/v1/functions/leaf/closure")[1]["items"]] == ["leaf"]


@pytest.mark.parametrize(
    ("method", "path", "field"),
    [
        ("GET", "/v1/functions/ghost", "function_id"),
        ("GET", "/v1/functions/ghost/closure", "function_id"),
        ("POST", "/v1/functions/ghost/approve", "function_id"),
        ("DELETE", "/v1/functions/ghost", "function_id"),
        ("GET", "/v1/guidance/ghost", "guidance_id"),
        ("POST", "/v1/guidance/ghost/approve", "guidance_id"),
        ("DELETE", "/v1/guidance/ghost", "guidance_id"),
        ("POST", "/v1/library/links/ghost/ghost/confirm", "function_id"),
        ("DELETE", "/v1/library/links/ghost/ghost", "function_id"),
    ],
)
def test_unknown_ids_are_404(api: Call, method: str, path: str, field: str) -> None:
    status, body = api(method, path)
    assert (status, body["error"]["code"], body["error"]["field"]) == (404, "not_found", field)


def test_openapi_document_lists_the_skill_routes(api: Call) -> None:
    status, document = api("GET", "/v1/openapi.json")
    assert status == 200
    paths = document["paths"]
    expected = {
        "/v1/functions": {"post"},
        "/v1/functions/{function_id}": {"get", "put", "delete"},
        "/v1/functions/{function_id}/closure": {"get"},
        "/v1/functions/{function_id}/approve": {"post"},
        "/v1/guidance": {"post"},
        "/v1/guidance/{guidance_id}": {"get", "put", "delete"},
        "/v1/guidance/{guidance_id}/approve": {"post"},
        "/v1/library/links": {"get"},
        "/v1/library/links/{guidance_id}/{function_id}/confirm": {"post"},
        "/v1/library/links/{guidance_id}/{function_id}": {"delete"},
    }
    for path, methods in expected.items():
        assert path in paths, path
        assert methods <= set(paths[path]), (path, set(paths[path]))
    assert "201" in paths["/v1/functions"]["post"]["responses"]
    assert "204" in paths["/v1/functions/{function_id}"]["delete"]["responses"]
    assert "409" in paths["/v1/functions/{function_id}"]["delete"]["responses"]


def test_a_deployment_that_switches_the_tier_off_answers_404_saying_so(
    tmp_path: Path, api_event: Callable[..., dict[str, Any]]
) -> None:
    from agentmem.settings import Settings
    from agentmem.wiring import bootstrap

    services = bootstrap(Settings(data_dir=tmp_path / "off", procedural_enabled=False))
    app = build_resolver(services)
    for method, path in (
        ("GET", "/v1/functions/f1"),
        ("POST", "/v1/guidance"),
        ("POST", "/v1/library/search"),
        ("GET", "/v1/library/links"),
    ):
        event = api_event("api_openapi.json", httpMethod=method, path=path, resource=path, body=None)
        result = app.resolve(event, FakeLambdaContext())
        body = json.loads(result["body"])
        assert (result["statusCode"], body["error"]["code"]) == (404, "tier_disabled"), path
        assert "switched off" in body["error"]["message"]
    document = json.loads(app.resolve(api_event("api_openapi.json"), FakeLambdaContext())["body"])
    procedural = (
        "/v1/functions",
        "/v1/guidance",
        *(f"/v1/library/{r}" for r in ("search", "review", "links", "import")),
    )
    assert not any(p.startswith(procedural) for p in document["paths"])
    # The composer's authored skills stay.
    assert "/v1/skills/{skill_id}/compose" in document["paths"]
