"""The access rule on the catalogue's routes, through the real resolver over the sample catalogue
(SQLite, MiniLM, tiktoken): reading an asset needs its principals and its ancestors', a hidden
asset is a 404 like a missing one, writing needs the writer role and may not open or take over
what the writer cannot read, deprecation covers everything under a deprecated asset, and the
compose report counts only what the caller may read."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from agentmem.api.app import build_resolver
from agentmem.wiring import Services
from tests.conftest import FakeLambdaContext
from tests.functional.conftest import Call, proxy_event

RESTRICTED = "table:finance.fct_revenue_recognized"  # principals: finance only
FINANCE_SKILL = {"intent": "Finance questions.", "scope": {"include": ["warehouse/finance/**"]}}
FINANCE_QUESTION = "recognised revenue by revenue stream and deferred balance"
PUBLISHER = "writer,analyst,finance"
V2 = "warehouse/analytics/customers_v2"
V3 = "warehouse/analytics/customers_v3"

Raw = Callable[..., tuple[int, dict[str, str], Any]]


@pytest.fixture
def services(sample_services: Services) -> Services:
    return sample_services


@pytest.fixture
def raw(services: Services) -> Raw:
    """(status, headers, JSON body): for the routes whose headers matter."""
    app = build_resolver(services)

    def call(method: str, path: str, body: Any = None, **options: Any) -> tuple[int, dict[str, str], Any]:
        result = app.resolve(proxy_event(method, path, body, **options), FakeLambdaContext())
        headers = {k: v[-1] for k, v in (result.get("multiValueHeaders") or {}).items()}
        return result["statusCode"], headers, json.loads(result["body"] or "null")

    return call


def asset(
    asset_id: str, path: str, *principals: str, deprecated: bool = False, **fields: Any
) -> dict[str, Any]:
    title = fields.pop("title", path.rsplit("/", 1)[-1].replace("_", " "))
    return {
        "asset_id": asset_id, "path": path, "kind": fields.pop("kind", "column"), "title": title,
        "body": fields.pop("body", f"The {title}."), "payload": {},
        "principals": list(principals or ["everyone"]), "deprecated": deprecated,
        "updated_at": datetime(2026, 11, 1, tzinfo=UTC).isoformat(), **fields,
    }  # fmt: skip


def stored(services: Services, asset_id: str) -> dict[str, Any]:
    found = services.composer.catalogue.get_assets([asset_id])[asset_id]
    return found.model_dump(mode="json", exclude={"change_seq"})


def put(api: Call, *assets: dict[str, Any], principals: str | None = PUBLISHER) -> tuple[int, Any]:
    return api("PUT", "/v1/assets", {"assets": list(assets)}, principals=principals)


def compose(api: Call, skill: str, question: str, principals: str | None) -> dict[str, Any]:
    status, answer = api("POST", f"/v1/skills/{skill}/compose", {"question": question}, principals=principals)
    assert status == 200, answer
    return answer  # type: ignore[no-any-return]


def test_a_hidden_asset_is_404_like_a_missing_one_and_200_to_its_readers(api: Call) -> None:
    hidden = api("GET", f"/v1/assets/{RESTRICTED}", principals="analyst")
    missing = api("GET", "/v1/assets/table:finance.no_such_table", principals="analyst")
    assert hidden[0] == missing[0] == 404
    assert hidden[1]["error"] == {**missing[1]["error"], "message": f"no asset {RESTRICTED!r}"}
    assert api("GET", f"/v1/assets/{RESTRICTED}", principals=None)[0] == 404
    status, found = api("GET", f"/v1/assets/{RESTRICTED}", principals="analyst,finance")
    assert status == 200 and found["asset_id"] == RESTRICTED and found["payload"]


@pytest.mark.parametrize("principals", [None, "analyst", "analyst,finance"])
def test_writes_by_a_caller_without_the_writer_role_are_403_and_write_nothing(
    services: Services, api: Call, principals: str | None
) -> None:
    revision = services.composer.catalogue.revision()
    writes = [
        ("PUT", "/v1/assets", {"assets": [asset("note:new", "notes/new", kind="note")]}),
        ("DELETE", "/v1/assets/note:data-team.test-orders", None),
        ("PUT", "/v1/skills/new-skill", {"intent": "x", "scope": {"include": ["wiki/**"]}}),
    ]
    for method, path, body in writes:
        status, error = api(method, path, body, principals=principals)
        assert (status, error["error"]["code"]) == (403, "forbidden"), (method, path, error)
        assert "needs the writer role" in error["error"]["message"]
    assert services.composer.catalogue.revision() == revision
    assert api("GET", "/v1/skills/new-skill", principals=PUBLISHER)[0] == 404


def test_a_reader_cannot_rewrite_a_secret_s_principals_and_then_compose_it(
    services: Services, api: Call
) -> None:
    assert api("PUT", "/v1/skills/finance-tables", FINANCE_SKILL)[0] == 200
    opened = {**stored(services, RESTRICTED), "principals": ["everyone"]}
    for attacker in (None, "analyst"):
        status, error = put(api, opened, principals=attacker)
        assert status == 403, error
        composed = compose(api, "finance-tables", FINANCE_QUESTION, principals=attacker)
        assert RESTRICTED not in json.dumps(composed)
        assert api("GET", f"/v1/assets/{RESTRICTED}", principals=attacker)[0] == 404
    assert stored(services, RESTRICTED)["principals"] == ["finance"]


def test_a_writer_cannot_take_over_or_delete_what_it_cannot_read(services: Services, api: Call) -> None:
    opened = {**stored(services, RESTRICTED), "principals": ["everyone"]}
    status, error = put(api, opened, principals="writer,analyst")
    assert (status, error["error"]["field"]) == (403, "assets[0].asset_id")
    # Deleting is answered as if the asset did not exist.
    status, error = api("DELETE", f"/v1/assets/{RESTRICTED}", principals="writer,analyst")
    assert (status, error["error"]) == (
        404,
        {"code": "not_found", "message": f"no asset {RESTRICTED!r}", "field": "asset_id"},
    )
    assert stored(services, RESTRICTED)["principals"] == ["finance"]
    assert api("DELETE", f"/v1/assets/{RESTRICTED}", principals="writer,finance")[0] == 204


def test_a_writer_cannot_publish_what_it_could_not_read_back(services: Services, api: Call) -> None:
    revision = services.composer.catalogue.revision()
    cases = [
        (asset("note:finance-only", "notes/finance/only", "finance", kind="note"), "assets[0].principals"),
        # Under the finance-only table: the column's own `everyone` does not open it.
        (asset("col:leak", "warehouse/finance/fct_revenue_recognized/columns/leak"), "assets[0].principals"),
    ]  # fmt: skip
    for written, field in cases:
        status, error = put(api, written, principals="writer,analyst")
        assert (status, error["error"]["field"]) == (403, field), error
    assert services.composer.catalogue.revision() == revision


def test_the_authorizer_s_role_claim_comes_before_the_writer_principals(api: Call) -> None:
    note = asset("note:claimed", "notes/claimed", "analyst", kind="note")
    assert api("PUT", "/v1/assets", {"assets": [note]}, principals="analyst", role="writer")[0] == 200
    status, error = api("PUT", "/v1/assets", {"assets": [note]}, principals="writer,analyst", role="reader")
    assert (status, error["error"]["code"]) == (403, "forbidden")


@pytest.fixture
def versions(api: Call) -> None:
    """customers_v2 deprecated (its columns are not, themselves) beside the live customers_v3."""
    tables = [
        asset("table:v2", V2, "analyst", deprecated=True, kind="table", title="Customers v2",
              body="The old customer dimension, one row per account."),
        asset("table:v3", V3, "analyst", kind="table", title="Customers v3",
              body="The customer dimension, one row per customer, duplicates merged."),
    ]  # fmt: skip
    columns = [
        asset(f"col:{v}.{c}", f"{path}/columns/{c}", "analyst", body=f"The customer's {c.replace('_', ' ')}.")
        for v, path in (("v2", V2), ("v3", V3))
        for c in ("email_hash", "signup_channel")
    ]
    assert put(api, *tables, *columns)[0] == 200
    spec = {"intent": "Customer questions.", "scope": {"include": ["warehouse/analytics/customers_*/**"]}}
    assert api("PUT", "/v1/skills/customers", spec)[0] == 200


@pytest.mark.usefixtures("versions")
def test_everything_under_a_deprecated_asset_is_404_to_readers(raw: Raw) -> None:
    for asset_id in ("table:v2", "col:v2.email_hash"):
        assert raw("GET", f"/v1/assets/{asset_id}", principals="analyst")[0] == 404
    assert raw("GET", "/v1/assets/col:v3.email_hash", principals="analyst")[0] == 200
    # A writer still sees them, to edit or restore them; the inherited deprecation is named.
    status, headers, column = raw("GET", "/v1/assets/col:v2.email_hash", principals="writer,analyst")
    assert status == 200 and column["deprecated"] is False
    assert headers["X-Agentmem-Deprecated-By"] == "table:v2"
    status, headers, table = raw("GET", "/v1/assets/table:v2", principals="writer,analyst")
    assert status == 200 and table["deprecated"] is True and "X-Agentmem-Deprecated-By" not in headers


@pytest.mark.usefixtures("versions")
def test_compose_drops_everything_under_a_deprecated_asset_and_never_heads_a_section_with_it(
    api: Call,
) -> None:
    answer = compose(
        api, "customers", "which column holds the customer email hash and signup channel", "analyst"
    )
    assert "customers_v2" not in answer["markdown"] and "Customers v2" not in answer["markdown"]
    placed = {i for s in answer["report"]["sections"] for i in s["items"]}
    assert placed >= {"col:v3.email_hash", "col:v3.signup_channel"}
    assert not any(i.startswith(("col:v2", "table:v2")) for i in placed)
    assert all("v2" not in s["heading"] for s in answer["report"]["sections"])
    assert answer["report"]["scope"]["deprecated"] == 3  # the table and both of its columns


def test_a_child_of_a_restricted_asset_is_hidden_wherever_the_parent_is(
    services: Services, api: Call
) -> None:
    column = asset(
        "col:finance.fct_revenue_recognized.deferred_note",
        "warehouse/finance/fct_revenue_recognized/columns/deferred_note",
        body="Deferred revenue balance by revenue stream, as a note on recognised revenue.",
    )  # its own principals say everyone; the table above it says finance only
    assert put(api, column)[0] == 200
    assert api("PUT", "/v1/skills/finance-tables", FINANCE_SKILL)[0] == 200
    assert api("GET", f"/v1/assets/{column['asset_id']}", principals="analyst")[0] == 404
    analyst = compose(api, "finance-tables", FINANCE_QUESTION, "analyst")
    assert (
        column["asset_id"] not in json.dumps(analyst) and "fct_revenue_recognized" not in analyst["markdown"]
    )
    assert api("GET", f"/v1/assets/{column['asset_id']}", principals="finance")[0] == 200
    assert column["asset_id"] in compose(api, "finance-tables", FINANCE_QUESTION, "finance")["markdown"]


def scope_report(answer: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in answer["report"]["scope"].items() if k not in ("revision", "cached")}


def test_the_report_counts_only_what_the_caller_may_read(api: Call) -> None:
    assert api("PUT", "/v1/skills/finance-tables", FINANCE_SKILL)[0] == 200
    before = compose(api, "finance-tables", FINANCE_QUESTION, "analyst")
    finance_before = compose(api, "finance-tables", FINANCE_QUESTION, "finance")
    hidden = [
        asset(f"table:finance.hidden_{i}", f"warehouse/finance/hidden_{i}", "finance", kind="table")
        for i in range(5)
    ]
    assert put(api, *hidden)[0] == 200
    after = compose(api, "finance-tables", FINANCE_QUESTION, "analyst")
    # Five more finance-only matches change nothing an analyst can see of the scope.
    assert scope_report(after) == scope_report(before)
    assert "withheld" not in after["report"] and "readable" not in after["report"]["scope"]
    assert scope_report(after)["assets"] == scope_report(after)["rules"]["include:warehouse/finance/**"]
    finance_after = compose(api, "finance-tables", FINANCE_QUESTION, "finance")
    assert finance_after["report"]["scope"]["assets"] == finance_before["report"]["scope"]["assets"] + 5
