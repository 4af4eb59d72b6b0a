"""`POST /v1/library/review`: a session's write-ups become drafts (functions first, then guidance
that links them by id), nothing is searchable before approval, and a second review changes nothing."""

from __future__ import annotations

from typing import Any

import pytest

from agentmem.model.events import AppendEventRequest
from agentmem.ports.procedural import SkillLibrary
from agentmem.wiring import Services
from tests.functional.conftest import Call

SESSION = "close-2026-11"
LEDGER_CODE = '''
def normalise_amount(raw: str) -> int:
    """Parse '1,234.50' into cents."""
    return round(float(raw.replace(",", "")) * 100)


def reconcile_ledger(rows: list[dict]) -> int:
    """Sum the ledger rows in cents so the close can compare them with the bank."""
    return sum(normalise_amount(r["amount"]) for r in rows)
'''
PROCEDURE = """# Month-end ledger close

1. Export the ledger for the month.
2. Run `reconcile_ledger` on the rows and compare with the bank statement.
3. Escalate any difference over 100 EUR to the controller.
"""


def append(services: Services, seq_round: int, kind: str, content: Any) -> None:
    services.episodic.append(
        SESSION,
        AppendEventRequest(
            subject_id="acme-finance", round=seq_round, agent="closer", kind=kind, content=content
        ),
    )


@pytest.fixture
def written_up(services: Services) -> Services:
    append(services, 1, "message", "Starting the November close.")
    append(services, 2, "code", LEDGER_CODE)
    append(services, 3, "procedure", PROCEDURE)
    append(
        services,
        4,
        "code",
        {"name": "fx_rate", "implementation": "return rates[currency]", "signature": "fx_rate(currency)"},
    )
    return services


def test_review_proposes_functions_then_guidance_linked_by_id(written_up: Services, api: Call) -> None:
    status, body = api("POST", "/v1/library/review", {"session_id": SESSION})
    assert status == 201
    assert body["events_read"] == 4
    ids = [f["function_id"] for f in body["functions"]]
    # Dependencies first: reconcile_ledger calls normalise_amount.
    assert ids == [f"normalise_amount.{SESSION}", f"reconcile_ledger.{SESSION}", f"fx_rate.{SESSION}"]
    reconcile = body["functions"][1]
    assert reconcile["depends_on"] == [f"normalise_amount.{SESSION}"]
    assert reconcile["signature"] == "def reconcile_ledger(rows: list[dict]) -> int"
    assert reconcile["docstring"].startswith("Sum the ledger rows")
    assert all(f["status"] == "draft" for f in body["functions"])
    [guidance] = body["guidance"]
    assert guidance["title"] == "Month-end ledger close"
    assert guidance["function_ids"] == [f"reconcile_ledger.{SESSION}"]
    assert guidance["status"] == "draft" and "Escalate any difference" in guidance["content"]


def test_drafts_are_not_searchable_until_approved(written_up: Services, api: Call) -> None:
    api("POST", "/v1/library/review", {"session_id": SESSION})
    query = {"task": "reconcile the ledger against the bank for the month-end close"}
    _, before = api("POST", "/v1/library/search", query)
    assert before["functions"] == [] and before["guidance"] == []

    assert api("POST", f"/v1/functions/reconcile_ledger.{SESSION}/approve")[0] == 200
    _, after = api("POST", "/v1/library/search", query)
    assert [f["function_id"] for f in after["functions"]] == [f"reconcile_ledger.{SESSION}"]
    assert after["functions"][0]["closure"] == [f"normalise_amount.{SESSION}", f"reconcile_ledger.{SESSION}"]
    assert after["guidance"] == []  # still a draft


def test_a_second_review_writes_nothing_and_keeps_approvals(
    written_up: Services, api: Call, library: SkillLibrary
) -> None:
    api("POST", "/v1/library/review", {"session_id": SESSION})
    api("POST", f"/v1/functions/fx_rate.{SESSION}/approve")
    status, again = api("POST", "/v1/library/review", {"session_id": SESSION})
    assert status == 201 and again["functions"] == [] and again["guidance"] == []
    assert {n["reason"] for n in again["notes"]} == {"already in the library; left as it is"}
    assert library.get_function(f"fx_rate.{SESSION}").status == "approved"
    assert library.get_function(f"fx_rate.{SESSION}").version == 1


def test_other_kinds_propose_nothing(services: Services, api: Call) -> None:
    append(services, 1, "message", "def looks_like_code(): pass")
    status, body = api("POST", "/v1/library/review", {"session_id": SESSION})
    assert (status, body["functions"], body["guidance"]) == (201, [], [])


def test_unknown_names_and_cycles_are_dropped_with_a_note(services: Services, api: Call) -> None:
    append(services, 1, "code", "def ping():\n    return pong()\n\n\ndef pong():\n    return ping()\n")
    append(
        services,
        2,
        "procedure",
        {"title": "Ping safely", "steps": ["Call ping"], "uses": ["ping", "nowhere"]},
    )
    status, body = api("POST", "/v1/library/review", {"session_id": SESSION})
    assert status == 201
    by_id = {f["function_id"]: f for f in body["functions"]}
    # One of the two calls closes the cycle and is dropped; the other stays.
    assert sorted(len(f["depends_on"]) for f in by_id.values()) == [0, 1]
    reasons = [n["reason"] for n in body["notes"]]
    assert any("closes a cycle" in r for r in reasons)
    assert {"item": "nowhere", "reason": "names no function of this session or the library"} in body["notes"]
    assert body["guidance"][0]["function_ids"] == [f"ping.{SESSION}"]
    assert body["guidance"][0]["content"] == "1. Call ping"


@pytest.mark.parametrize(
    ("body", "status", "field"),
    [
        ({}, 422, "session_id"),
        ({"session_id": "bad id!"}, 422, "session_id"),
        ({"session_id": "never-written"}, 404, "session_id"),
    ],
)
def test_bad_review_requests_name_the_field(api: Call, body: dict[str, Any], status: int, field: str) -> None:
    got_status, got = api("POST", "/v1/library/review", body)
    assert (got_status, got["error"]["field"]) == (status, field)
