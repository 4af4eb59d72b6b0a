"""The access rule on the procedural tier's routes, through the real resolver: every write to the
function and guidance libraries (create, rewrite, delete, approve, links, review, import) needs
the writer role and writes nothing without it; reads and search are open to every caller."""

from __future__ import annotations

import base64
import io
import zipfile
from typing import Any

import pytest

from agentmem.ports.procedural import SkillLibrary
from tests.functional.conftest import Call

FUNCTION = {"function_id": "net", "name": "net_revenue", "implementation": "def net_revenue(m): ..."}
GUIDANCE = {"guidance_id": "close", "title": "Month-end close", "function_ids": ["net"]}


def skill_zip() -> str:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("s/SKILL.md", "---\nname: s\ndescription: d\n---\nbody\n")
    return base64.b64encode(buffer.getvalue()).decode()


@pytest.fixture
def authored(api: Call) -> None:
    """A draft function and the draft guidance that links it, written by a writer."""
    assert api("POST", "/v1/functions", FUNCTION)[0] == 201
    assert api("POST", "/v1/guidance", GUIDANCE)[0] == 201


WRITES: list[tuple[str, str, Any]] = [
    ("POST", "/v1/functions", {**FUNCTION, "function_id": "other", "name": "other"}),
    ("PUT", "/v1/functions/net", {**FUNCTION, "implementation": "def net_revenue(m): return 0"}),
    ("DELETE", "/v1/functions/net", None),
    ("POST", "/v1/functions/net/approve", None),
    ("POST", "/v1/guidance", {**GUIDANCE, "guidance_id": "other"}),
    ("PUT", "/v1/guidance/close", {**GUIDANCE, "title": "Rewritten"}),
    ("DELETE", "/v1/guidance/close", None),
    ("POST", "/v1/guidance/close/approve", None),
    ("POST", "/v1/library/links/close/net/confirm", None),
    ("DELETE", "/v1/library/links/close/net", None),
    ("POST", "/v1/library/review", {"session_id": "s1"}),
    ("POST", "/v1/library/import", {"zip_base64": skill_zip()}),
]


@pytest.mark.usefixtures("authored")
@pytest.mark.parametrize(("method", "path", "body"), WRITES, ids=[f"{m} {p}" for m, p, _ in WRITES])
@pytest.mark.parametrize("principals", [None, "analyst"])
def test_library_writes_without_the_writer_role_are_403_and_change_nothing(
    api: Call, library: SkillLibrary, method: str, path: str, body: Any, principals: str | None
) -> None:
    before = (library.get_function("net"), library.get_guidance("close"), library.links())
    status, error = api(method, path, body, principals=principals)
    assert (status, error["error"]["code"]) == (403, "forbidden"), error
    assert "needs the writer role" in error["error"]["message"]
    assert (library.get_function("net"), library.get_guidance("close"), library.links()) == before
    assert api("GET", "/v1/functions/other")[0] == api("GET", "/v1/guidance/other")[0] == 404


@pytest.mark.usefixtures("authored")
@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("GET", "/v1/functions/net", None),
        ("GET", "/v1/functions/net/closure", None),
        ("GET", "/v1/guidance/close", None),
        ("GET", "/v1/guidance/close/export", None),
        ("GET", "/v1/library/links", None),
        ("POST", "/v1/library/search", {"task": "monthly net revenue"}),
    ],
)
def test_library_reads_and_search_are_open_to_every_caller(
    api: Call, method: str, path: str, body: Any
) -> None:
    assert api(method, path, body, principals=None)[0] == 200


def test_a_writer_by_claim_or_by_principal_may_write(api: Call) -> None:
    assert api("POST", "/v1/functions", FUNCTION, principals="analyst", role="writer")[0] == 201
    assert api("POST", "/v1/functions/net/approve", principals="writer")[0] == 200
    assert api("POST", "/v1/functions/net/approve", principals="writer", role="reader")[0] == 403
