"""End to end against a deployed tenant stack (docs/deploy.md); opt-in, skipped without AGENTMEM_E2E_URL.

    AGENTMEM_E2E_URL=https://<id>.execute-api.<region>.amazonaws.com/prod \\
    AGENTMEM_E2E_REGION=<region>  AGENTMEM_E2E_API_KEY=<key, only with a usage plan> \\
    python -m pytest tests/e2e -m e2e

The caller's AWS credentials sign every request (SigV4). Its IAM identity must map to a writer principal
(and to `analyst`, the asset's reader) through the stack's principalMap, and may call DELETE on
/v1/subjects/* (an operator). Every run writes to a fresh subject and session, and erases that subject at
the end. Projection is asynchronous: the waits poll with a generous deadline, since the projector's
batching and Bedrock latency set the pace, not this test.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

import pytest

from agentmem.client import MemoryApiError, MemoryClient
from agentmem.compose.model import Asset, ComposerSkillSpec, Scope

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not os.environ.get("AGENTMEM_E2E_URL"), reason="AGENTMEM_E2E_URL is not set"),
]

PROJECTION_DEADLINE_S = float(os.environ.get("AGENTMEM_E2E_DEADLINE", "180"))
POLL_S = 3.0
T = TypeVar("T")


def _region(url: str) -> str:
    explicit = os.environ.get("AGENTMEM_E2E_REGION") or os.environ.get("AWS_REGION")
    if explicit:
        return explicit
    # https://<id>.execute-api.<region>.amazonaws.com/<stage>
    return url.split(".execute-api.")[1].split(".", maxsplit=1)[0]


def eventually(probe: Callable[[], T | None], what: str) -> T:
    """Poll `probe` until it returns something, or fail after the deadline naming what never came."""
    deadline = time.monotonic() + PROJECTION_DEADLINE_S
    while True:
        found = probe()
        if found is not None:
            return found
        if time.monotonic() > deadline:
            pytest.fail(f"{what} did not happen within {PROJECTION_DEADLINE_S:.0f} s")
        time.sleep(POLL_S)


@pytest.fixture(scope="module")
def client() -> MemoryClient:
    url = os.environ["AGENTMEM_E2E_URL"]
    return MemoryClient(
        url,
        sigv4_region=_region(url),
        timeout_seconds=30,
        gateway_api_key=os.environ.get("AGENTMEM_E2E_API_KEY"),
    )


@pytest.fixture(scope="module")
def run_id() -> str:
    return f"e2e-{uuid.uuid4().hex[:12]}"


def test_health(client: MemoryClient) -> None:
    assert client.health()["status"] == "ok"


def test_append_project_and_read_back(client: MemoryClient, run_id: str) -> None:
    subject, session = run_id, f"{run_id}-s1"
    first = client.append_event(
        session, subject_id=subject, round=1, agent="planner", kind="note",
        content="The customer's preferred currency is EUR, and invoices go out on the first Monday.",
    )  # fmt: skip
    again = client.append_event(
        session, subject_id=subject, round=1, agent="planner", kind="note",
        content="The customer's preferred currency is EUR, and invoices go out on the first Monday.",
        idempotency_key=f"{run_id}-second",
    )  # fmt: skip
    assert again.seq == first.seq + 1  # gap-free per session

    beliefs = eventually(lambda: client.beliefs(subject) or None, "projection into the belief index")
    assert all(belief.subject_id == subject for belief in beliefs)

    context = client.context(
        subject_id=subject, session_id=session, agent="analyst", query="Which currency?", budget_tokens=800
    )
    assert "EUR" in context.markdown
    assert context.trace.used_tokens <= 800


def test_compose_a_skill_over_an_asset(client: MemoryClient, run_id: str) -> None:
    asset = Asset(
        asset_id=f"wiki:{run_id}", path=f"wiki/e2e/{run_id}", kind="wiki_page", title="Net revenue",
        body="Net revenue is gross bookings minus refunds and chargebacks.", principals=["analyst", "writer"],
        updated_at=datetime.now(UTC),
    )  # fmt: skip
    client.put_assets([asset])
    skill_id = f"skill-{run_id}"
    client.put_skill(
        skill_id,
        ComposerSkillSpec(
            intent="Answer metric definition questions", scope=Scope(include=[f"wiki/e2e/{run_id}"])
        ),
    )

    def composed() -> Any:
        answer = client.compose(skill_id, "How is net revenue defined?", budget_tokens=2000)
        return answer if asset.asset_id in answer.markdown else None

    answer = eventually(composed, "the asset reaching the composer's index")
    assert answer.report.used_tokens <= 2000


def test_erase_the_test_subject(client: MemoryClient, run_id: str) -> None:
    accepted = client.request("DELETE", f"/v1/subjects/{run_id}")
    erasure_id = accepted["erasure_id"]

    def finished() -> Any:
        record = client.request("GET", f"/v1/erasures/{erasure_id}")
        return record if record["state"] != "running" else None

    record = eventually(finished, "the erasure")
    assert record["state"] == "done", record["tiers"]
    assert client.beliefs(run_id) == []
    try:  # the session's events went with the subject
        remaining = client.list_events(f"{run_id}-s1").items
    except MemoryApiError as error:
        assert error.status == 404
        remaining = []
    assert remaining == []
