"""Stale dependents as a user meets them, over the local HTTP server: guidance and a knowledge
asset cite Priya's risk tolerance; she changes her mind; the projector worker's next round marks
both stale, and the compliance agent's next composition says why (docs/stale-dependents.md)."""

from __future__ import annotations

import base64
import io
import json
import sqlite3
import time
import zipfile
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
import urllib3

from agentmem.api.app import build_resolver
from agentmem.client import Invalid, MemoryClient, NotFound
from agentmem.compose.evaluate import SampleCatalogue
from agentmem.compose.model import Asset
from agentmem.demo.eval_run import install
from agentmem.entrypoints.server import LocalServer
from agentmem.inspector.serve import local_inspector
from agentmem.model.beliefs import FactInput
from agentmem.wiring import Services

RISK = {"subject_id": "priya", "key": "risk_tolerance"}
WRITER = "writer,compliance"
NOTE = {
    "asset_id": "note:priya.suitability",
    "path": "clients/priya/suitability",
    "kind": "note",
    "title": "Priya's suitability assessment",
    "body": "Priya is a cautious investor: only low-risk products are suitable.",
    "principals": ["compliance"],
    "updated_at": "2026-11-01T09:00:00Z",
    "cites": [RISK],
}
SKILL = {
    "intent": "Check a recommendation against the client's suitability assessment.",
    "scope": {"include": ["clients/priya/**"]},
    "budget_tokens": 2000,
}


@pytest.fixture
def server(services: Services) -> Iterator[LocalServer]:
    inspector = local_inspector(lambda: build_resolver(services), services.settings.data_dir, None)
    with LocalServer(lambda: build_resolver(services), port=0, mounts=inspector) as running:
        yield running


@pytest.fixture
def advisor(server: LocalServer) -> MemoryClient:
    return MemoryClient(server.url, local_principals=WRITER)


def state_risk(advisor: MemoryClient, services: Services, value: str, session: str) -> None:
    advisor.append_event(
        session, subject_id="priya", round=0, agent="advisor", kind="note",
        content=f"Priya says her risk tolerance is {value}.",
        facts=[FactInput(key="risk_tolerance", text=f"Priya's risk tolerance is {value}.", value=value)],
    )  # fmt: skip
    services.projector_worker().run_once()  # one round of `agentmem serve`'s worker


def compose(server: LocalServer) -> tuple[dict[str, Any], str | None]:
    answer = urllib3.request(
        "POST",
        f"{server.url}/v1/skills/suitability/compose",
        body=json.dumps({"question": "Is an aggressive growth fund suitable for Priya?"}),
        headers={"Content-Type": "application/json", "X-Agentmem-Principals": "compliance"},
    )
    assert answer.status == 200, answer.data
    return json.loads(answer.data), answer.headers.get("X-Agentmem-Report-Id")


def test_guidance_citing_priyas_risk_is_stale_once_she_changes_her_mind(
    server: LocalServer, advisor: MemoryClient, services: Services
) -> None:
    state_risk(advisor, services, "cautious", "s1")
    guidance = {"guidance_id": "priya-products", "title": "Products for Priya", "cites": [RISK],
                "content": "Offer Priya capital-protected products only: she is cautious."}  # fmt: skip
    assert advisor.request("POST", "/v1/guidance", guidance)["cites"] == [RISK]
    advisor.request("PUT", "/v1/assets", {"assets": [NOTE]})
    advisor.request("PUT", "/v1/skills/suitability", SKILL)
    services.composer.indexer.sync()  # the worker's index lane, as in `agentmem serve`
    assert advisor.request("GET", "/v1/guidance/priya-products")["stale"] == []
    before, report_id = compose(server)
    assert before["report"]["stale"] == [] and report_id is not None

    state_risk(advisor, services, "aggressive", "s2")  # she changed her mind

    why = {"belief": "priya/risk_tolerance", "from_version": 1, "to_version": 2}
    (stale,) = advisor.request("GET", "/v1/guidance/priya-products")["stale"]
    assert {k: stale[k] for k in why} == why and stale["reason"] in {"updated", "contradicted"}
    assert advisor.request("GET", f"/v1/assets/{NOTE['asset_id']}")["stale"] == [stale]
    # The compliance agent's next read says why its suitability note no longer holds ...
    after, _ = compose(server)
    assert after["report"]["stale"] == [stale]
    assert after["report"]["cache"]["retrieval"] is False  # the entry built on version 1 is not served
    # ... and the report of the read before says it went stale after it.
    assert advisor.request("GET", f"/v1/compose/reports/{report_id}")["stale"] == [stale]


def compliance_read(
    server: LocalServer, include: tuple[str, ...] = ("skills", "semantic", "episodic")
) -> dict[str, Any]:
    """The compliance agent's context read, with the skills source beside the beliefs."""
    answer = urllib3.request(
        "POST",
        f"{server.url}/v1/context",
        body=json.dumps({
            "subject_id": "priya", "session_id": "s3", "agent": "compliance",
            "query": "Which products suit Priya's risk tolerance?",
            "budget_tokens": 1500, "include": list(include),
        }),
        headers={"Content-Type": "application/json", "X-Agentmem-Principals": "compliance"},
    )  # fmt: skip
    assert answer.status == 200, answer.data
    read: dict[str, Any] = json.loads(answer.data)
    return read


def guidance_line(read: dict[str, Any], guidance_id: str) -> str:
    (line,) = [line for line in read["markdown"].splitlines() if f"guidance `{guidance_id}`" in line]
    return line


def test_the_compliance_agents_next_context_read_labels_the_guidance_stale_and_says_why(
    server: LocalServer, advisor: MemoryClient, services: Services
) -> None:
    state_risk(advisor, services, "cautious", "s1")
    products = {"guidance_id": "priya-products", "title": "Products for Priya's risk tolerance",
                "content": "Offer Priya capital-protected products only: she is cautious.",
                "cites": [RISK], "status": "approved"}  # fmt: skip
    plain = {"guidance_id": "suitability-checklist", "title": "Suitability checklist for products",
             "content": "Check every product against the client's risk tolerance.",
             "status": "approved"}  # fmt: skip
    advisor.request("POST", "/v1/guidance", products)
    advisor.request("POST", "/v1/guidance", plain)
    services.skill_search.sync()  # the worker's index lane, as in `agentmem serve`
    before = compliance_read(server)
    items = {i["item_id"]: i for i in before["items"]}
    assert {"guidance:priya-products", "guidance:suitability-checklist"} <= set(items)
    assert "stale" not in items["guidance:priya-products"]["ref"]  # fresh: as it reads without cites
    assert "⚠" not in before["markdown"]

    state_risk(advisor, services, "aggressive", "s2")  # she changed her mind

    after = compliance_read(server)
    items = {i["item_id"]: i for i in after["items"]}
    (stale,) = advisor.request("GET", "/v1/guidance/priya-products")["stale"]
    assert items["guidance:priya-products"]["ref"]["stale"] == [stale]  # the list GET answers
    assert "stale" not in items["guidance:suitability-checklist"]["ref"]  # it cites nothing
    why = f" ⚠ stale: built on priya/risk_tolerance v1, now v2 ({stale['reason']})"
    assert guidance_line(after, "priya-products").endswith(why)  # the agent reads why it no longer holds
    assert "⚠" not in guidance_line(after, "suitability-checklist")

    services.erasure.erase("priya")  # no beliefs of hers to read now: the skills alone
    gone = compliance_read(server, ("skills",))
    (erased,) = [i for i in gone["items"] if i["item_id"] == "guidance:priya-products"]
    assert erased["ref"]["stale"] == advisor.request("GET", "/v1/guidance/priya-products")["stale"]
    assert guidance_line(gone, "priya-products").endswith(
        " ⚠ stale: built on priya/risk_tolerance v1, now erased"
    )


def test_rewriting_the_guidance_makes_it_fresh_and_a_restatement_does_not(
    server: LocalServer, advisor: MemoryClient, services: Services
) -> None:
    state_risk(advisor, services, "cautious", "s1")
    guidance = {"guidance_id": "g", "title": "Products for Priya", "cites": [RISK], "content": "Cautious."}
    advisor.request("POST", "/v1/guidance", guidance)
    state_risk(advisor, services, "aggressive", "s2")

    advisor.request("POST", "/v1/guidance", guidance)  # the same spec again: still built on v1
    assert advisor.request("GET", "/v1/guidance/g")["stale"][0]["from_version"] == 1
    advisor.request("POST", "/v1/guidance", {**guidance, "content": "Growth funds are fine."})
    assert advisor.request("GET", "/v1/guidance/g")["stale"] == []


def test_erasing_priya_marks_what_cites_her_for_good(
    server: LocalServer, advisor: MemoryClient, services: Services
) -> None:
    state_risk(advisor, services, "cautious", "s1")
    advisor.request("POST", "/v1/guidance", {"guidance_id": "g", "title": "For Priya", "cites": [RISK]})
    services.erasure.erase("priya")

    (stale,) = advisor.request("GET", "/v1/guidance/g")["stale"]
    assert (stale["to_version"], stale["reason"]) == (None, "erased")


def test_nothing_citing_a_belief_answers_as_before(server: LocalServer, advisor: MemoryClient) -> None:
    created = advisor.request("POST", "/v1/guidance", {"guidance_id": "plain", "title": "Plain"})
    assert "cites" not in created  # an entry citing nothing is stored and answered as before
    assert advisor.request("GET", "/v1/guidance/plain") == {**created, "stale": []}


def test_the_inspector_badges_stale_guidance_and_links_to_the_change(
    server: LocalServer, advisor: MemoryClient, services: Services
) -> None:
    state_risk(advisor, services, "cautious", "s1")
    advisor.request("POST", "/v1/guidance", {"guidance_id": "g", "title": "For Priya", "cites": [RISK]})
    fresh = urllib3.request("GET", f"{server.url}/ui/skills/guidance/g").data.decode()
    state_risk(advisor, services, "aggressive", "s2")

    page = urllib3.request("GET", f"{server.url}/ui/skills/guidance/g").data.decode()

    assert "badge stale" not in fresh
    assert '<span class="badge stale">stale</span>' in page
    assert '<a href="/ui/subjects/priya/beliefs/risk_tolerance">priya/risk_tolerance</a> v1, now v2' in page


def skill_zip(manifest: dict[str, Any]) -> str:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("priya/SKILL.md", "---\nname: Products for Priya\ndescription: Cautious.\n---\n")
        archive.writestr("priya/agentmem.json", json.dumps(manifest))
    return base64.b64encode(buffer.getvalue()).decode()


def test_an_imported_skill_records_its_manifests_cites_and_exports_them(
    server: LocalServer, advisor: MemoryClient, services: Services
) -> None:
    state_risk(advisor, services, "cautious", "s1")
    manifest = {"guidance_id": "priya-products", "functions": {}, "cites": [RISK]}
    imported = advisor.request("POST", "/v1/library/import", {"zip_base64": skill_zip(manifest)})
    assert imported["guidance"]["cites"] == [RISK]
    assert advisor.request("GET", "/v1/guidance/priya-products")["stale"] == []

    state_risk(advisor, services, "aggressive", "s2")

    (stale,) = advisor.request("GET", "/v1/guidance/priya-products")["stale"]
    assert (stale["belief"], stale["from_version"], stale["to_version"]) == ("priya/risk_tolerance", 1, 2)
    # Importing the same folder again is a restatement: still built on version 1.
    advisor.request("POST", "/v1/library/import", {"zip_base64": skill_zip(manifest)})
    assert advisor.request("GET", "/v1/guidance/priya-products")["stale"] == [stale]
    # The export carries the cites, so export then import gives guidance citing the same beliefs.
    exported = advisor.request("GET", "/v1/guidance/priya-products/export")["zip_base64"]
    with zipfile.ZipFile(io.BytesIO(base64.b64decode(exported))) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith("agentmem.json")]
        assert json.loads(archive.read(name))["cites"] == [RISK]


def test_an_import_whose_manifest_cites_badly_writes_nothing(advisor: MemoryClient) -> None:
    bad = {"guidance_id": "g", "functions": {}, "cites": [{"subject_id": "priya", "key": "Not A Key"}]}
    with pytest.raises(Invalid) as raised:
        advisor.request("POST", "/v1/library/import", {"zip_base64": skill_zip(bad)})
    assert raised.value.status == 422 and raised.value.field == "cites.0.key"
    with pytest.raises(NotFound):
        advisor.request("GET", "/v1/guidance/g")


def test_assets_loaded_in_bulk_record_what_they_cite(
    server: LocalServer, advisor: MemoryClient, services: Services
) -> None:
    state_risk(advisor, services, "cautious", "s1")
    # `agentmem eval`'s loader, in process: no route involved.
    install(services, SampleCatalogue(assets=[Asset.model_validate(NOTE)], skills=[]))
    state_risk(advisor, services, "aggressive", "s2")
    (stale,) = advisor.request("GET", f"/v1/assets/{NOTE['asset_id']}")["stale"]
    assert (stale["from_version"], stale["to_version"]) == (1, 2)


def test_a_kept_report_expires_after_the_setting_and_the_worker_sweeps_it(
    server: LocalServer, advisor: MemoryClient, services: Services
) -> None:
    state_risk(advisor, services, "cautious", "s1")
    advisor.request("PUT", "/v1/assets", {"assets": [NOTE]})
    advisor.request("PUT", "/v1/skills/suitability", SKILL)
    services.composer.indexer.sync()
    _, report_id = compose(server)
    assert report_id is not None
    db = services.settings.data_dir / "agentmem.db"
    with sqlite3.connect(db) as conn:
        (expires_at,) = conn.execute(
            "SELECT expires_at FROM dependent_bodies WHERE dependent=?", (f"report:{report_id}",)
        ).fetchone()
    days = services.settings.compose_report_ttl_days
    assert abs(expires_at - (time.time() + days * 86_400)) < 60
    # One already past its time: GET answers 404 at once, and the worker's next round removes it.
    services.ports.dependents.record("report:old", [], body="{}", ttl=timedelta(0))
    with pytest.raises(NotFound):
        advisor.request("GET", "/v1/compose/reports/old")
    services.projector_worker().run_once()  # its first round sweeps, with or without a retention
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT 1 FROM dependent_bodies WHERE dependent='report:old'").fetchone() is None
        assert conn.execute(
            "SELECT 1 FROM dependent_bodies WHERE dependent=?", (f"report:{report_id}",)
        ).fetchone()
