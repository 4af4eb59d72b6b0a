"""The local projector worker keeps the skill and asset indexes current, as the stream projector
does on AWS: a write is searchable after the worker's next round, and a search or a compose
embeds only its query, never the items written since."""

from __future__ import annotations

from collections.abc import Sequence

from agentmem.compose.evaluate import load_catalogue
from agentmem.compose.model import ComposeRequest
from agentmem.demo.eval_run import install, sample_folder
from agentmem.procedural.model import FunctionSpec
from agentmem.procedural.search_models import SkillSearchRequest
from agentmem.settings import Settings
from agentmem.wiring import Services, bootstrap


class CountingEmbedder:
    """The real embedder, counting how many texts each call embeds."""

    def __init__(self, services: Services) -> None:
        self._inner = bootstrap(services.settings).ports.embedder
        self.calls: list[int] = []

    @property
    def model_id(self) -> str:
        return self._inner.model_id

    @property
    def dimensions(self) -> int:
        return self._inner.dimensions

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.append(len(texts))
        return self._inner.embed(texts)


def _counted(settings: Settings) -> tuple[Services, CountingEmbedder]:
    plain = bootstrap(settings)
    embedder = CountingEmbedder(plain)
    return bootstrap(settings, embedder=embedder), embedder


def test_the_worker_indexes_library_writes_and_a_search_embeds_only_its_query(settings: Settings) -> None:
    services, embedder = _counted(settings)
    for i in range(40):
        spec = FunctionSpec(
            function_id=f"f{i}", name=f"ledger_step_{i}", docstring=f"Ledger reconciliation step {i}.",
            implementation=f"def ledger_step_{i}(x): return x", status="approved",
        )  # fmt: skip
        services.skills.put_function(spec)
    task = SkillSearchRequest(task="reconcile the ledger")
    assert services.skill_search.search(task).functions == []  # nothing indexed yet: a search never indexes
    assert embedder.calls in ([], [1])

    services.projector_worker().run_once()
    assert sum(embedder.calls) >= 40  # the worker embedded the library
    embedder.calls.clear()
    found = services.skill_search.search(task)
    assert len(found.functions) > 0
    assert embedder.calls == [1]  # the query, and nothing else


def test_the_worker_indexes_the_catalogue_and_a_compose_embeds_only_its_question(settings: Settings) -> None:
    services, embedder = _counted(settings)
    install(services, load_catalogue(sample_folder()))
    services.projector_worker().run_once()
    embedder.calls.clear()
    request = ComposeRequest(question="How is net revenue defined?", budget_tokens=3000)
    composed = services.composer.compose("metric-answering", request, ["analyst"])
    assert "wiki:metrics.net_revenue" in composed.markdown
    assert embedder.calls == [1]
