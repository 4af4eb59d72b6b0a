"""The domain services of one process, built from its ports on first use. Request handlers, the
CLI and tests reach the domain through these; none of them picks an adapter."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from functools import cached_property
from typing import TYPE_CHECKING

from agentmem.episodic.service import EpisodicLimits, EpisodicService, utc_now_iso
from agentmem.settings import Settings
from agentmem.wiring.ports import Ports

if TYPE_CHECKING:
    from agentmem.compose.service import ComposerService
    from agentmem.context.service import ContextService
    from agentmem.context.session_window import SessionWindows
    from agentmem.ports.blobs import BlobStore
    from agentmem.ports.log import EventLog
    from agentmem.ports.procedural import SkillIndex, StampedLibrary
    from agentmem.procedural.review import ReviewService
    from agentmem.procedural.search import SkillSearch
    from agentmem.semantic.citations import Citations
    from agentmem.semantic.foreground import Foreground
    from agentmem.semantic.service import SemanticService
    from agentmem.semantic.verify import Extract
    from agentmem.semantic.worker import ProjectorWorker
    from agentmem.subjects.erasure import ErasureService
    from agentmem.subjects.export import SubjectExport

MetricSink = Callable[[str, float], None]


@dataclass
class Services:
    """Everything a request handler may call. The semantic tier, the libraries and the composer are
    built on first use, so the write path never imports numpy, onnxruntime, tiktoken or
    opensearch-py."""

    settings: Settings
    ports: Ports
    metric: MetricSink = field(default=lambda name, value: None)
    """Where domain metrics go (the guardrail events); Lambda handlers point it at Powertools."""
    clock: Callable[[], str] = field(default=utc_now_iso)
    """When an appended event was written; the demo sets its story's dates before the first append."""

    @property
    def event_log(self) -> EventLog:
        return self.ports.event_log

    @property
    def blobs(self) -> BlobStore:
        return self.ports.blob_store

    @property
    def skills(self) -> StampedLibrary:
        """The procedural tier's library of functions and guidance."""
        return self.ports.skill_library

    @property
    def skill_index(self) -> SkillIndex:
        return self.ports.skill_index

    @cached_property
    def foreground(self) -> Foreground:
        """The requests this process is answering: the API counts them, and the background
        projector lets them go first (semantic/foreground.py)."""
        from agentmem.semantic.foreground import Foreground

        return Foreground()

    @cached_property
    def episodic(self) -> EpisodicService:
        limits = EpisodicLimits(
            inline_max_bytes=self.settings.inline_max_bytes,
            max_request_bytes=self.settings.max_request_bytes,
        )
        return EpisodicService(self.ports.event_log, self.ports.blob_store, limits, clock=self.clock)

    @cached_property
    def semantic(self) -> SemanticService:
        from agentmem.semantic.fact_types import FactTypeCatalog
        from agentmem.semantic.service import SemanticService

        settings = self.settings
        catalog = FactTypeCatalog(
            settings.declared_fact_types(), allow_undeclared=settings.allow_undeclared_facts
        )
        from agentmem.wiring.subjects import late_purge

        ports = self.ports
        return SemanticService(
            ports.belief_store,
            ports.llm,
            ports.embedder,
            catalog,
            erasures=ports.erasure_ledger,  # every projection skips erased subjects
            purge=late_purge(ports.belief_store, ports.passage_store, ports.compaction, ports.vector_cache),
            passages=ports.passage_store,
            status=ports.projection_status,
            dependents=ports.dependents,  # marked stale in the projection step that moves a belief
            vector_cache=ports.vector_cache,  # what was embedded already, across rounds and generations
        )

    @cached_property
    def context(self) -> ContextService:
        from agentmem.adapters.tokens import count_tokens
        from agentmem.context.service import ContextService
        from agentmem.context.session_window import SessionWindows

        available = self.settings.procedural_enabled
        return ContextService(
            self.event_log,
            self.episodic,
            lambda: self.semantic,
            count_tokens,
            skills=(lambda: self.skill_search) if available else None,
            windows=SessionWindows(self.event_log, size=self.settings.context_window_events),
            stale=lambda names: self.ports.dependents.stale_of_many(names),  # noqa: PLW0108 - builds the index on first need
        )

    @cached_property
    def skill_search(self) -> SkillSearch:
        """Search of the procedural tier, embedding only the query (loaded on first need). The
        index is kept current by the projector: the local worker, or the stream on AWS."""
        from agentmem.adapters.tokens import count_tokens
        from agentmem.procedural.search import SkillSearch

        return SkillSearch(self.skills, self.skill_index, lambda: self.ports.embedder, count_tokens)

    @cached_property
    def skill_review(self) -> ReviewService:
        """Review of a session into draft skills, through the LLM port's review duty."""
        from agentmem.procedural.review import ReviewService

        return ReviewService(self.episodic, self.skills, self.ports.reviewer)

    @cached_property
    def composer(self) -> ComposerService:
        """The composer over the tenant's catalogue; its asset index is kept current by the
        projector (the local worker, or the stream on AWS)."""
        from agentmem.adapters.tokens import count_tokens
        from agentmem.compose.belief_inputs import BeliefInputs
        from agentmem.compose.layout import Layout
        from agentmem.compose.ranking import Rankers
        from agentmem.compose.render import AssetRenderer
        from agentmem.compose.service import ComposerService
        from agentmem.compose.templates import TemplateRegistry
        from agentmem.ports.tokens import DEFAULT_ENCODING

        ports = self.ports
        renderer = AssetRenderer(TemplateRegistry(), ports.blob_store, count_tokens)
        return ComposerService(
            ports.catalogue,
            ports.asset_index,
            lambda: ports.embedder,
            Layout(renderer, count_tokens, DEFAULT_ENCODING),
            ports.conversation_memory,
            rankers=Rankers(
                reranker=ports.reranker,
                llm=ports.relevance,
                llm_rank=self.settings.composer_llm == "rank",
                count=count_tokens,
            ),
            metric=self.metric,  # read when first composing: a Lambda entry point has set it by then
            inputs=BeliefInputs(ports.dependents, timedelta(days=self.settings.compose_report_ttl_days)),
        )

    @cached_property
    def citations(self) -> Citations:
        """What guidance and assets cite, recorded at the versions current when they are written;
        the semantic tier is built only when a write cites something."""
        from agentmem.semantic.citations import Citations

        return Citations(self.ports.dependents, lambda ref: self.semantic.version_of(ref))  # noqa: PLW0108 - builds the tier on first use

    @cached_property
    def erasure(self) -> ErasureService:
        """Erasing a subject from every tier (docs/erasure.md)."""
        from agentmem.wiring.subjects import build_erasure

        return build_erasure(self.settings, self.ports, self.semantic, built_windows=self._built_windows)

    def _built_windows(self) -> SessionWindows | None:
        """The session windows of a context service this process has built, else None."""
        context: ContextService | None = self.__dict__.get("context")  # cached_property's slot
        return context.windows if context is not None else None

    @cached_property
    def subject_export(self) -> SubjectExport:
        """Everything held about a subject, as NDJSON."""
        from agentmem.wiring.subjects import build_export

        return build_export(self.ports, lambda: self.semantic)

    def index_syncs(self) -> list[Callable[[], tuple[int, int]]]:
        """What keeps the search indexes current beside the beliefs: each call compares the
        primary store's stamps with the index's and embeds what changed."""
        syncs = [self.composer.indexer.sync]
        return [self.skill_search.sync, *syncs] if self.settings.procedural_enabled else syncs

    def projector_worker(self) -> ProjectorWorker:
        """The local twin of the stream projector: tails the log into the beliefs, and keeps the
        skill and asset indexes current, so no request waits for indexing. It sweeps expired
        events when the tenant set a retention, and expired records of the dependents index.
        Raises UnsupportedOnBackendError on AWS, where the DynamoDB stream drives the projector."""
        from agentmem.adapters.local.thread_priority import work_in_background
        from agentmem.semantic.worker import ProjectorWorker

        ports = self.ports
        return ProjectorWorker(
            ports.log_tail,
            self.semantic,
            ports.checkpoints,
            indexes=self.index_syncs(),
            retention=ports.retention_sweeper,
            expiry=ports.dependents.expire,  # kept compose reports and cache entries' records
            background=work_in_background,
            foreground=self.foreground,
        )

    def reproducible_extraction(self) -> Extract | None:
        """Extraction that a second run repeats exactly (the local rules), for verification to
        compare against; None for a model, whose second answer might not be its first."""
        from agentmem.adapters.local.rules_llm import RulesLLM

        semantic = self.semantic
        llm = semantic.llm
        if not isinstance(llm, RulesLLM):
            return None
        declared = semantic.fact_types.declared()
        return lambda event: llm.extract_facts(event, declared)
