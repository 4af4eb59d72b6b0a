"""`POST /v1/library/search` and `include: ["skills"]` in `POST /v1/context`, through the real
resolver over a real SQLite library, its lazily kept index and the MiniLM embedder."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agentmem.adapters.tokens import count_tokens
from tests.functional.conftest import Call  # `api` calls as a writer: the library is authored first

FUNCTIONS = [
    ("read_ledger", "(path: str) -> list[Row]", "Load the general ledger export from a CSV file.", []),
    (
        "reconcile_invoices",
        "(ledger: list[Row], bank: list[Row]) -> Report",
        "Match supplier invoices against bank statement lines and report the unmatched ones.",
        ["read_ledger"],
    ),
    (
        "send_reminder",
        "(customer_id: str) -> None",
        "Email a customer a reminder about an overdue payment.",
        [],
    ),
    ("resize_image", "(blob: bytes, width: int) -> bytes", "Scale a picture down to a width in pixels.", []),
]


def seed(api: Call, *, approve: bool = True) -> None:
    for fid, sig, doc, deps in FUNCTIONS:
        spec = {"function_id": fid, "name": fid, "signature": sig, "docstring": doc,
                "implementation": f"def {fid}(): ...", "depends_on": deps}  # fmt: skip
        assert api("POST", "/v1/functions", spec)[0] == 201
        if approve:
            assert api("POST", f"/v1/functions/{fid}/approve")[0] == 200
    guide = {"guidance_id": "month_end_close", "title": "Month-end close for accounts payable",
             "content": "First reconcile the invoices with the bank, then chase what is still open.",
             "function_ids": ["reconcile_invoices", "send_reminder"]}  # fmt: skip
    assert api("POST", "/v1/guidance", guide)[0] == 201
    if approve:
        assert api("POST", "/v1/guidance/month_end_close/approve")[0] == 200


def search(api: Call, task: str, **fields: Any) -> dict[str, Any]:
    status, body = api("POST", "/v1/library/search", {"task": task, **fields})
    assert status == 200, body
    result: dict[str, Any] = body
    return result


def ids(result: dict[str, Any]) -> tuple[list[str], list[str]]:
    return [f["function_id"] for f in result["functions"]], [g["guidance_id"] for g in result["guidance"]]


def test_drafts_are_never_found_and_approval_makes_them_searchable(api: Call) -> None:
    seed(api, approve=False)
    assert ids(search(api, "reconcile supplier invoices with the bank")) == ([], [])
    assert api("POST", "/v1/functions/read_ledger/approve")[0] == 200
    assert api("POST", "/v1/functions/reconcile_invoices/approve")[0] == 200
    functions, guidance = ids(search(api, "reconcile supplier invoices with the bank"))
    assert functions[0] == "reconcile_invoices"
    assert "send_reminder" not in functions and guidance == []


def test_a_paraphrased_task_finds_the_function_by_meaning(api: Call) -> None:
    seed(api)
    result = search(api, "tie out what vendors billed us against the money that left our account", k=1)
    assert ids(result)[0] == ["reconcile_invoices"]
    assert "function:reconcile_invoices" in result["trace"]["candidates"]["vector"]
    assert result["trace"]["fused"][0]["ranks"]


def test_either_result_leads_to_the_other_and_closure_is_in_dependency_order(api: Call) -> None:
    seed(api)
    result = search(api, "month-end close: reconcile supplier invoices")
    function = next(f for f in result["functions"] if f["function_id"] == "reconcile_invoices")
    guidance = next(g for g in result["guidance"] if g["guidance_id"] == "month_end_close")
    assert function["guidance_ids"] == ["month_end_close"]
    assert "reconcile_invoices" in guidance["function_ids"]
    assert function["closure"] == ["read_ledger", "reconcile_invoices"]
    assert {"candidates", "fused", "dropped"} <= result["trace"].keys()


@pytest.mark.parametrize("budget", [40, 120, 2000])
def test_markdown_respects_the_budget(api: Call, budget: int) -> None:
    seed(api)
    result = search(api, "reconcile invoices at month end", k=10, budget_tokens=budget)
    assert result["markdown"] is not None
    assert count_tokens(result["markdown"]) <= budget
    if budget == 2000:
        assert "Match supplier invoices against bank statement lines" in result["markdown"]
    assert search(api, "reconcile invoices")["markdown"] is None


def test_bad_search_input_names_the_field(api: Call) -> None:
    for body, field in [
        ({"task": "x", "k": 0}, "k"),
        ({"task": "x", "budget_tokens": 50_001}, "budget_tokens"),
    ]:
        status, error = api("POST", "/v1/library/search", body)
        assert status == 422 and field in json.dumps(error)


def test_the_api_document_states_the_cap_on_k(api: Call) -> None:
    status, document = api("GET", "/v1/openapi.json")
    assert status == 200
    k = document["components"]["schemas"]["SkillSearchRequest"]["properties"]["k"]
    assert (k["minimum"], k["maximum"]) == (1, 50)
    assert "1 to 50" in k["description"]
    status, error = api("POST", "/v1/library/search", {"task": "x", "k": 51})
    assert status == 422 and error["error"]["field"] == "k"


def test_deleting_an_item_removes_it_from_search(api: Call) -> None:
    seed(api)
    task = "remind a customer about a late payment by email"
    assert "send_reminder" in ids(search(api, task))[0]
    assert api("DELETE", "/v1/functions/send_reminder")[0] == 204
    assert "send_reminder" not in ids(search(api, task))[0]
    assert api("DELETE", "/v1/guidance/month_end_close")[0] == 204
    assert ids(search(api, "month-end close accounts payable"))[1] == []


def test_context_with_skills_has_a_skills_section(api: Call) -> None:
    seed(api)
    body = {"subject_id": "acme", "session_id": "S1", "agent": "clerk", "budget_tokens": 800,
            "query": "reconcile supplier invoices", "include": ["episodic", "skills"]}  # fmt: skip
    status, result = api("POST", "/v1/context", body)
    assert status == 200, result
    assert "## Skills for this task" in result["markdown"]
    assert "reconcile_invoices" in result["markdown"]
    assert any(i["source"] == "skills" for i in result["items"])
    assert not any("skills" in n for n in result["trace"]["notes"])
    assert count_tokens(result["markdown"]) <= 800


def test_a_small_budget_shows_the_best_hits_in_detail_even_at_a_large_k(api: Call) -> None:
    """Was: k=50 found 40 functions, each admitted at its id line first, and 300 tokens of ids
    left no room for any signature or docstring."""
    reports = ["revenue", "churn", "refund", "payroll", "inventory", "shipping", "tax", "audit"]
    for n in range(40):
        topic = reports[n % len(reports)]
        doc = f"Export the monthly {topic} report, variant {n}, as a PDF for finance."
        name = f"export_{topic}_{n}"
        spec = {"function_id": name, "name": name, "signature": "(month: str) -> bytes",
                "implementation": "def f(): ...", "docstring": doc}  # fmt: skip
        assert api("POST", "/v1/functions", spec)[0] == 201
        assert api("POST", f"/v1/functions/{name}/approve")[0] == 200
    result = search(api, "export the monthly refund report as a pdf", k=50, budget_tokens=300)
    assert len(result["functions"]) == 40
    lines = result["markdown"].splitlines()
    best = result["functions"][0]
    assert f"- **{best['name']}** `{best['signature']}`: {best['docstring']}" in "\n".join(lines)
    detailed = [line for line in lines if line.startswith("- **")]
    ids_only = [line for line in lines if line.startswith("- function `")]
    assert len(detailed) >= 4
    assert sum(count_tokens(line + "\n") for line in ids_only) <= 0.05 * 300
    assert count_tokens(result["markdown"]) == result["used_tokens"] <= 300
