"""`MemoryClient` against a real local server: the procedural tier and the composer, typed end to
end (authoring, approval, search, review, assets, skills, compose), and errors naming the field."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from agentmem.api.app import build_resolver
from agentmem.client import MemoryApiError, MemoryClient
from agentmem.compose.evaluate import load_catalogue
from agentmem.compose.model import Asset, ComposerSkillSpec
from agentmem.demo.eval_run import sample_folder
from agentmem.entrypoints.server import LocalServer
from agentmem.procedural.model import FunctionSpec, GuidanceSpec
from agentmem.wiring import Services
from tests.functional.conftest import catch_up_indexes


@pytest.fixture
def server(services: Services) -> Iterator[LocalServer]:
    with LocalServer(lambda: build_resolver(services), port=0) as local:
        yield local


@pytest.fixture
def client(server: LocalServer) -> MemoryClient:
    """The catalogue's publisher: a writer that reads every group of the sample catalogue."""
    return MemoryClient(server.url, local_principals="writer,analyst,finance")


def test_authored_skills_are_found_once_approved(client: MemoryClient, services: Services) -> None:
    net = FunctionSpec(
        function_id="net", name="net_revenue", docstring="Net revenue of a month.",
        implementation="def net_revenue(m): ...",
    )  # fmt: skip
    client.put_function(net)
    client.put_guidance(GuidanceSpec(guidance_id="close", title="Month-end close", function_ids=["net"]))
    assert client.search_skills("monthly net revenue").functions == []
    assert client.approve_function("net").status == "approved"
    assert client.approve_guidance("close").function_ids == ["net"]
    catch_up_indexes(services)  # the projector worker's round, run here so the test does not race it
    found = client.search_skills("monthly net revenue", budget_tokens=300)
    assert [f.function_id for f in found.functions] == ["net"] and found.functions[0].guidance_ids == [
        "close"
    ]
    assert found.markdown is not None and (found.used_tokens or 0) <= 300
    with pytest.raises(MemoryApiError) as error:
        client.put_guidance(GuidanceSpec(guidance_id="bad", title="Bad", function_ids=["ghost"]))
    assert (error.value.status, error.value.field) == (422, "function_ids")


def test_a_session_is_reviewed_into_drafts(client: MemoryClient) -> None:
    client.append_event(
        "s1", subject_id="acme", round=1, agent="dev", kind="code", content="def f(x):\n    return x\n"
    )
    review = client.review_session("s1")
    assert [f.function_id for f in review.functions] == ["f.s1"] and review.functions[0].status == "draft"


def test_the_sample_catalogue_goes_in_and_a_skill_composes(client: MemoryClient, services: Services) -> None:
    catalogue = load_catalogue(sample_folder())
    answer = client.put_assets(catalogue.assets)
    assert (answer.written, answer.revision) == (210, 3)  # three bulks of at most 99
    skill = next(s for s in catalogue.skills if s.skill_id == "metric-answering")
    stored = client.put_skill(
        skill.skill_id, ComposerSkillSpec.model_validate(skill.model_dump(exclude={"skill_id"}))
    )
    assert stored.version == 1
    catch_up_indexes(services)
    composed = client.compose("metric-answering", "How is net revenue defined?", budget_tokens=3000)
    assert composed.report.used_tokens <= 3000 and "wiki:metrics.net_revenue" in composed.markdown
    with pytest.raises(MemoryApiError) as error:
        client.compose("metric-answering", "q", budget_tokens=50_001)
    assert (error.value.status, error.value.field) == (422, "budget_tokens")


def test_writes_need_the_writer_role_over_http(server: LocalServer) -> None:
    """The local server's principals header is the stand-in for an authorizer: without a writer
    principal, a write is refused with 403 saying what is missing, and nothing is written."""
    note = Asset(
        asset_id="note:x", path="notes/x", kind="note", title="X", principals=["analyst"],
        updated_at=datetime(2026, 11, 1, tzinfo=UTC),
    )  # fmt: skip
    for anonymous_or_reader in (
        MemoryClient(server.url),
        MemoryClient(server.url, local_principals="analyst"),
    ):
        with pytest.raises(MemoryApiError) as error:
            anonymous_or_reader.put_assets([note])
        assert (error.value.status, error.value.code) == (403, "forbidden")
        assert "writer role" in error.value.message
        with pytest.raises(MemoryApiError) as error:
            anonymous_or_reader.put_function(
                FunctionSpec(function_id="f", name="f", implementation="def f(): ...")
            )
        assert error.value.status == 403
    assert MemoryClient(server.url, local_principals="writer,analyst").put_assets([note]).written == 1
