"""The composer over HTTP routes (real resolver, real SQLite catalogue and index, real MiniLM and
tiktoken), on the shipped sample catalogue: budgets, determinism, fail-closed scopes, deprecation,
permissions, conversations, caches, and every bad input named."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from agentmem.adapters.tokens import count_tokens
from agentmem.wiring import Services
from tests.functional.conftest import Call

QUESTION = "How do we compute monthly net revenue, and which table has the refunds?"
METRICS = "/v1/skills/metric-answering"
RESTRICTED = "table:finance.fct_revenue_recognized"  # principals: finance only


@pytest.fixture
def services(sample_services: Services) -> Services:
    """Every route here runs over the sample catalogue."""
    return sample_services


def compose(
    api: Call, skill: str, question: str = QUESTION, principals: str = "analyst", **body: Any
) -> dict[str, Any]:
    status, answer = api(
        "POST", f"/v1/skills/{skill}/compose", {"question": question, **body}, principals=principals
    )
    assert status == 200, answer
    return answer  # type: ignore[no-any-return]


def stable(report: dict[str, Any]) -> dict[str, Any]:
    """The report without timings and cache flags, which may differ between identical calls."""
    out = copy.deepcopy(report)
    out.pop("ms")
    out.pop("cache")
    for strategy in out["strategies"]:
        strategy.pop("ms")
    out["scope"].pop("cached")
    return out


def test_compose_fits_the_budget_exactly_and_says_what_it_did(services: Services, api: Call) -> None:
    answer = compose(api, "metric-answering", budget_tokens=2500)
    report = answer["report"]
    assert count_tokens(answer["markdown"], report["encoding"]) == report["used_tokens"] <= 2500
    assert answer["markdown"].startswith("# metric-answering: How do we compute monthly net revenue")
    assert "## Intent" in answer["markdown"] and "## Guardrails" in answer["markdown"]
    assert "query:finance.monthly_net_revenue" in answer["markdown"]
    assert [s["name"] for s in report["strategies"]] == [
        "entities", "keyword", "vector", "hierarchy", "orphans", "relatives"
    ]  # fmt: skip
    assert report["sections"][0]["rank"] == 1 and report["cut_line"] is not None
    assert report["truncated"] is True
    assert all(d["reason"] for d in report["dropped"])


def test_identical_input_gives_byte_identical_output(services: Services, api: Call) -> None:
    first, second = compose(api, "metric-answering"), compose(api, "metric-answering")
    assert first["markdown"] == second["markdown"]
    assert stable(first["report"]) == stable(second["report"])
    assert second["report"]["cache"] == {"scope": True, "retrieval": True}


def test_a_rule_that_matches_nothing_fails_closed(services: Services, api: Call) -> None:
    spec = {"intent": "Answer about nothing.", "scope": {"include": ["warehouse/nowhere/**"]}}
    assert api("PUT", "/v1/skills/empty-scope", spec)[0] == 200
    report = compose(api, "empty-scope")["report"]
    assert report["scope"]["assets"] == 0
    assert report["scope"]["empty_rules"] == ["include:warehouse/nowhere/**"]
    assert report["sections"] == [] and report["candidates"] == 0


def test_deprecating_or_deleting_an_asset_takes_effect_at_the_next_compose(
    services: Services, api: Call
) -> None:
    query_id = "query:finance.monthly_net_revenue"
    assert query_id in compose(api, "metric-answering")["markdown"]
    _, stored = api("GET", f"/v1/assets/{query_id}")
    stored = {k: v for k, v in stored.items() if k not in ("change_seq", "stale")}
    assert api("PUT", "/v1/assets", {"assets": [{**stored, "deprecated": True}]})[0] == 200
    after = compose(api, "metric-answering")
    assert query_id not in after["markdown"] and query_id not in json.dumps(after["report"]["sections"])
    assert after["report"]["cache"]["retrieval"] is False  # something in scope changed
    assert api("DELETE", "/v1/assets/note:data-team.test-orders")[0] == 204
    assert api("GET", "/v1/assets/note:data-team.test-orders")[0] == 404
    assert "note:data-team.test-orders" not in compose(api, "metric-answering", "test orders")["markdown"]


def test_a_restricted_asset_never_reaches_a_caller_without_its_principal(
    services: Services, api: Call
) -> None:
    question = "recognised revenue by revenue stream and deferred balance"
    spec = {"intent": "Finance questions.", "scope": {"include": ["warehouse/finance/**"]}}
    api("PUT", "/v1/skills/finance-tables", spec)
    analyst = compose(api, "finance-tables", question)
    assert RESTRICTED not in json.dumps(analyst)
    # The report used to count withheld assets (`withheld`, `readable` beside `assets`): a leak.
    assert "withheld" not in analyst["report"] and "readable" not in analyst["report"]["scope"]
    assert RESTRICTED in compose(api, "finance-tables", question, principals="analyst,finance")["markdown"]


def test_within_a_conversation_unchanged_bodies_are_not_sent_again(services: Services, api: Call) -> None:
    first = compose(api, "metric-answering", conversation_id="c1", budget_tokens=5000)
    second = compose(api, "metric-answering", conversation_id="c1", budget_tokens=5000)
    sent = second["report"]["already_sent"]
    assert sent and "query:finance.monthly_net_revenue" in sent
    assert "sent earlier in this conversation, unchanged" in second["markdown"]
    full_first = {i for s in first["report"]["sections"] for i, lvl in s["levels"].items() if lvl == 0}
    full_second = {i for s in second["report"]["sections"] for i, lvl in s["levels"].items() if lvl == 0}
    assert full_second - full_first, "the freed budget went to items not sent before"


def skill(**scope: list[str]) -> dict[str, Any]:
    return {"intent": "x", "scope": scope}


@pytest.mark.parametrize(
    ("method", "path", "body", "status", "field"),
    [
        ("PUT", "/v1/skills/bad-glob", skill(include=["wiki/**x"]), 422, "scope.include[0]"),
        ("PUT", "/v1/skills/bad-glob", skill(include=["a", "b/[c]"]), 422, "scope.include[1]"),
        ("PUT", "/v1/skills/no-rules", skill(exclude=["wiki/**"]), 422, "scope"),
        ("PUT", "/v1/skills/big", {**skill(include=["w"]), "budget_tokens": 50_001}, 422, "budget_tokens"),
        ("POST", f"{METRICS}/compose", {"question": "q", "budget_tokens": 50_001}, 422, "budget_tokens"),
        ("POST", "/v1/skills/no-such-skill/compose", {"question": "q"}, 404, "skill_id"),
        ("POST", f"{METRICS}/compose", {"question": ""}, 422, "question"),
        ("PUT", "/v1/assets", {"assets": []}, 422, "assets"),
        ("GET", "/v1/assets/nope", None, 404, "asset_id"),
    ],
)  # fmt: skip
def test_bad_input_names_the_field_and_writes_nothing(
    services: Services, api: Call, method: str, path: str, body: Any, status: int, field: str
) -> None:
    revision = services.composer.catalogue.revision()
    got, error = api(method, path, body)
    assert (got, error["error"]["field"]) == (status, field), error
    assert services.composer.catalogue.revision() == revision


def test_a_bulk_over_the_transaction_size_is_refused_whole(services: Services, api: Call) -> None:
    _, one = api("GET", "/v1/assets/note:data-team.test-orders")
    one.pop("change_seq")
    one.pop("stale")
    bulk = [{**one, "asset_id": f"note:bulk.{i}", "path": f"notes/bulk/n{i}"} for i in range(100)]
    status, error = api("PUT", "/v1/assets", {"assets": bulk})
    assert (status, error["error"]["field"]) == (422, "assets")
    assert api("GET", "/v1/assets/note:bulk.0")[0] == 404


def test_a_composer_skill_may_take_any_id_the_library_used_to_reserve(api: Call) -> None:
    # The library's routes live under /v1/library, so /v1/skills/{skill_id} holds every id.
    spec = {"intent": "Find it.", "scope": {"include": ["wiki/**"]}}
    for skill_id in ("search", "review", "links", "import"):
        assert api("PUT", f"/v1/skills/{skill_id}", spec)[0] == 200, skill_id
        status, stored = api("GET", f"/v1/skills/{skill_id}", principals="analyst")
        assert (status, stored["skill_id"]) == (200, skill_id)
