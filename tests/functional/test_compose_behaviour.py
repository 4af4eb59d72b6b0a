"""The composer's machinery under stress, on the sample catalogue: a strategy that times out, an
index that leaks restricted assets, offloading, exploding sections, guardrail events, and the
retrieval cache's freshness check."""

from __future__ import annotations

import threading
from collections.abc import Collection, Sequence
from datetime import UTC, datetime
from typing import Any

import pytest

from agentmem.compose.model import Asset, ComposeRequest
from agentmem.compose.service import GUARDRAIL_TRUNCATED, ComposerService
from agentmem.compose.strategies import Limits
from agentmem.ports.catalogue import AssetIndex, IndexedAsset
from agentmem.wiring import Services

RESTRICTED = "table:finance.fct_revenue_recognized"
ANALYST = ["analyst"]


class WrappedIndex:
    """Delegates to the real index; subclasses bend one behaviour."""

    def __init__(self, inner: AssetIndex) -> None:
        self.inner = inner

    def stamps(self) -> dict[str, int]:
        return self.inner.stamps()

    def update(self, put: Sequence[IndexedAsset], remove: Sequence[str]) -> None:
        self.inner.update(put, remove)

    def keyword_search(self, text: str, allowed: Collection[str], k: int) -> list[tuple[str, float]]:
        return self.inner.keyword_search(text, allowed, k)

    def vector_search(
        self, vector: Sequence[float], allowed: Collection[str], k: int
    ) -> list[tuple[str, float]]:
        return self.inner.vector_search(vector, allowed, k)

    def similarities(self, vector: Sequence[float], asset_ids: Collection[str]) -> dict[str, float]:
        return self.inner.similarities(vector, asset_ids)


class StuckKeywords(WrappedIndex):
    """A keyword search that cannot answer before the test releases it: it times out whatever the
    machine's load, where a sleep only races the timeout."""

    def __init__(self, inner: AssetIndex) -> None:
        super().__init__(inner)
        self.release = threading.Event()

    def keyword_search(self, text: str, allowed: Collection[str], k: int) -> list[tuple[str, float]]:
        self.release.wait(timeout=60)
        return super().keyword_search(text, allowed, k)


class LeakyIndex(WrappedIndex):
    """A stale or permissive index: ignores the filter and ranks a restricted asset first."""

    def keyword_search(self, text: str, allowed: Collection[str], k: int) -> list[tuple[str, float]]:
        return [(RESTRICTED, 99.0), *self.inner.keyword_search(text, [*allowed, RESTRICTED], k)]

    def vector_search(
        self, vector: Sequence[float], allowed: Collection[str], k: int
    ) -> list[tuple[str, float]]:
        return [(RESTRICTED, 1.0), *self.inner.vector_search(vector, [*allowed, RESTRICTED], k)]


def rebuilt(services: Services, index: Any = None, **options: Any) -> ComposerService:
    base = services.composer
    embedder = services.semantic.embedder
    index = index or base.index
    return ComposerService(
        base.catalogue, index, lambda: embedder, base.layout, base.conversations, **options
    )


@pytest.fixture
def services(sample_services: Services) -> Services:
    return sample_services


def ask(composer: ComposerService, question: str, skill: str = "metric-answering", **kw: Any) -> Any:
    composer.indexer.sync()  # what the projector worker does between a write and a compose
    return composer.compose(skill, ComposeRequest(question=question, **kw), ANALYST)


def test_a_strategy_that_times_out_is_reported_and_the_rest_go_on(services: Services) -> None:
    stuck = StuckKeywords(services.composer.index)
    # The vector search over 210 assets takes milliseconds; 2 s leaves it room on a loaded machine.
    composer = rebuilt(services, stuck, limits=Limits(timeout_s=2.0))
    try:
        response = ask(composer, "monthly net revenue")
    finally:
        stuck.release.set()
    runs = {s.name: s for s in response.report.strategies}
    assert runs["keyword"].timed_out and runs["keyword"].candidates == 0
    assert runs["vector"].fired and not runs["vector"].timed_out and runs["vector"].candidates > 0
    assert "query:finance.monthly_net_revenue" in response.markdown


def test_a_restricted_asset_the_index_returns_never_reaches_output_or_report(services: Services) -> None:
    spec = {"intent": "Finance tables.", "scope": {"include": ["warehouse/finance/**"]}}
    from agentmem.compose import authoring
    from agentmem.compose.model import ComposerSkillSpec

    authoring.put_skill(services.composer.catalogue, "fin", ComposerSkillSpec.model_validate(spec))
    composer = rebuilt(services, LeakyIndex(services.composer.index))
    response = ask(composer, "recognised revenue by stream", skill="fin")
    assert RESTRICTED not in response.markdown
    assert RESTRICTED not in response.report.model_dump_json()


def test_truncation_emits_the_guardrail_event_as_a_metric(services: Services) -> None:
    emitted: list[tuple[str, float]] = []
    composer = rebuilt(services, metric=lambda name, value: emitted.append((name, value)))
    assert ask(composer, "net revenue and refunds", budget_tokens=800).report.truncated
    assert emitted == [(GUARDRAIL_TRUNCATED, 1.0)]


def test_a_value_that_would_eat_the_budget_is_offloaded_with_a_placeholder(services: Services) -> None:
    response = ask(
        services.composer,
        "warehouse handbook deprecation policy naming conventions",
        "data-discovery",
        budget_tokens=4000,
    )
    offloaded = {o["asset_id"]: o for o in response.report.offloaded}
    assert "wiki:data-platform.warehouse_handbook" in offloaded
    assert "[full payload offloaded:" in response.markdown
    sha = str(offloaded["wiki:data-platform.warehouse_handbook"]["sha256"])
    assert services.blobs.exists(sha)


def test_a_section_over_five_thousand_tokens_is_exploded_into_its_children(services: Services) -> None:
    when = datetime(2026, 11, 1, tzinfo=UTC)
    payload = {"type": "int", "nullable": True, "description": "wide metric " * 20, "example": "1"}
    columns = [
        Asset(asset_id=f"col:analytics.wide.c{i:03d}", path=f"warehouse/analytics/wide/columns/c{i:03d}",
              kind="column", title=f"wide.c{i:03d}", body=f"Wide metric column {i}: " + "detail " * 30,
              payload=payload, principals=["analyst"], updated_at=when)
        for i in range(120)
    ]  # fmt: skip
    table = Asset(asset_id="table:analytics.wide", path="warehouse/analytics/wide", kind="note",
                  title="Wide metrics table", body="A very wide table of metrics.",
                  payload={"text": "wide", "author": "x"}, principals=["analyst"],
                  updated_at=when)  # fmt: skip
    for start in range(0, 121, 99):
        services.composer.catalogue.put_assets([table, *columns][start : start + 99])
    response = ask(services.composer, "wide metric column detail", budget_tokens=20_000)
    exploded = [s for s in response.report.sections if s.exploded_from == "warehouse/analytics/wide"]
    assert exploded and all(s.estimated_tokens <= 5000 or len(s.items) == 1 for s in exploded)


def test_retrieval_is_reused_only_while_nothing_in_scope_changed(services: Services) -> None:
    composer = services.composer
    ask(composer, "monthly net revenue")
    assert ask(composer, "monthly net revenue").report.cache == {"scope": True, "retrieval": True}
    # A change outside the scope moves the revision (scope re-resolved) but not the scope's freshness.
    outside = composer.catalogue.get_assets(["col:raw.stripe_charges.amount"])
    if outside:
        composer.catalogue.put_assets(
            [Asset(**outside["col:raw.stripe_charges.amount"].model_dump(exclude={"change_seq"}))]
        )
        assert ask(composer, "monthly net revenue").report.cache == {"scope": False, "retrieval": True}
    inside = composer.catalogue.get_assets(["note:data-team.test-orders"])["note:data-team.test-orders"]
    changed = inside.model_dump(exclude={"change_seq"}) | {"body": "Test orders are flagged with is_test."}
    composer.catalogue.put_assets([Asset(**changed)])
    assert ask(composer, "monthly net revenue").report.cache == {"scope": False, "retrieval": False}


class OnlyMetrics:
    """A relevance model that keeps only wiki metric pages and ranks them as shown."""

    def relevant(self, question: str, documents: Sequence[tuple[str, str]]) -> list[str]:
        return [i for i, _ in documents if i.startswith(("wiki:metrics", "wikisec:metrics"))]

    def rank(self, question: str, documents: Sequence[tuple[str, str]]) -> list[str]:
        return [i for i, _ in documents]


def test_hundreds_of_candidates_go_through_the_llm_filter_when_configured(services: Services) -> None:
    from agentmem.compose.ranking import Rankers

    composer = rebuilt(services, rankers=Rankers(llm=OnlyMetrics(), llm_rank=True))
    report = ask(composer, "How do we compute monthly net revenue?").report
    assert report.route == "llm_filter"
    kept = {i for s in report.sections for i in s.items}
    assert kept and all(i.startswith(("wiki:metrics", "wikisec:metrics")) for i in kept)
    assert "llm" in report.rankers
    assert any(d.reason == "the LLM relevance filter judged it off topic" for d in report.dropped)
