"""Agent Skills folders over HTTP: export a guidance with its functions as a zip, import it into an
empty deployment, and get the same library and links back; bad zips are refused naming the field."""

from __future__ import annotations

import base64
import io
import json
import zipfile
from pathlib import Path
from typing import Any

from agentmem.api.app import build_resolver
from agentmem.settings import Settings
from agentmem.wiring import bootstrap
from tests.conftest import FakeLambdaContext
from tests.functional.conftest import Call


def resolver_call(data_dir: Path) -> Call:
    app = build_resolver(bootstrap(Settings(data_dir=data_dir)))

    def call(method: str, path: str, body: Any = None) -> tuple[int, Any]:
        event = {
            "resource": path, "path": path, "httpMethod": method,
            "headers": {"Content-Type": "application/json"}, "multiValueHeaders": {},
            "queryStringParameters": None, "multiValueQueryStringParameters": None,
            "pathParameters": None, "stageVariables": None,
            "requestContext": {
                "httpMethod": method, "path": path, "stage": "prod", "requestId": "r",
                "authorizer": {"principals": "writer"},  # importing writes drafts: a writer's job
            },
            "body": json.dumps(body) if body is not None else None, "isBase64Encoded": False,
        }  # fmt: skip
        result = app.resolve(event, FakeLambdaContext())
        return result["statusCode"], json.loads(result["body"] or "null")

    return call


def zipped(files: dict[str, str]) -> str:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return base64.b64encode(buffer.getvalue()).decode()


def test_export_then_import_elsewhere_gives_the_same_library_and_links(api: Call, tmp_path: Path) -> None:
    api(
        "POST",
        "/v1/functions",
        {
            "function_id": "cents",
            "name": "cents",
            "implementation": "def cents(x):\n    return round(x * 100)\n",
        },
    )
    api(
        "POST",
        "/v1/functions",
        {
            "function_id": "total",
            "name": "total",
            "depends_on": ["cents"],
            "implementation": "def total(rows):\n    return sum(cents(r) for r in rows)\n",
        },
    )
    api(
        "POST",
        "/v1/guidance",
        {
            "guidance_id": "close",
            "title": "Month close",
            "content": "Sum the ledger.\n\nUse `total`.",
            "function_ids": ["total"],
        },
    )
    status, exported = api("GET", "/v1/guidance/close/export")
    assert status == 200

    other = resolver_call(tmp_path / "elsewhere")
    status, imported = other("POST", "/v1/library/import", exported)
    assert status == 201
    assert imported["guidance"]["guidance_id"] == "close"
    assert imported["guidance"]["function_ids"] == ["total"]
    assert [f["function_id"] for f in imported["functions"]] == ["cents", "total"]
    _, closure = other("GET", "/v1/functions/total/closure")
    assert [f["function_id"] for f in closure["items"]] == ["cents", "total"]
    _, original = api("GET", "/v1/functions/total")
    assert imported["functions"][1]["implementation"] == original["implementation"]
    # Importing the same folder again changes nothing.
    again = other("POST", "/v1/library/import", exported)
    assert again[1]["functions"] == imported["functions"]


def test_bad_zips_are_refused_naming_the_field(api: Call) -> None:
    no_front_matter = zipped({"s/SKILL.md": "# Just a heading\n", "s/run.py": "def run(): ...\n"})
    escaping = zipped({"s/SKILL.md": "---\nname: s\ndescription: d\n---\nbody\n", "../evil.py": "x = 1\n"})
    cases = [
        ({"zip_base64": "not base64!"}, "zip_base64"),
        ({"zip_base64": no_front_matter}, "front_matter"),
        ({"zip_base64": escaping}, "path"),
    ]
    for body, field in cases:
        status, error = api("POST", "/v1/library/import", body)
        assert status == 422, (field, error)
        assert field in (error["error"]["field"] or ""), error
    _, links = api("GET", "/v1/library/links")
    assert links["items"] == []
