"""Erasure and export, built from the ports the backend's factory gives (docs/erasure.md). Kept
apart from the other services so that no other path imports them."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from agentmem.errors import BackendUnavailableError
from agentmem.subjects.erasure import ErasureService, Tier
from agentmem.subjects.export import SubjectExport
from agentmem.subjects.tiers import clear_caches, forget_conversations, forget_review_drafts

if TYPE_CHECKING:
    from agentmem.context.session_window import SessionWindows
    from agentmem.ports.semantic import BeliefStore, PassageStore
    from agentmem.ports.vectors import VectorCache
    from agentmem.semantic.service import SemanticService
    from agentmem.settings import Settings
    from agentmem.subjects.model import Footprint
    from agentmem.wiring.ports import Compaction, Ports

logger = logging.getLogger(__name__)


def late_purge(
    store: BeliefStore,
    passages: PassageStore | None,
    compaction: Compaction | None,
    vectors: VectorCache | None = None,
) -> Callable[[str], int]:
    """What projection runs on a subject erased while it was writing: the stores' forget, then a
    compaction where the backend has one, or the late write's bytes could outlive the erasure in
    the WAL. A compaction that finds the WAL busy is left to a repeat of the erasure."""

    def forget(subject_id: str) -> int:
        # The history passages hold the subject's words as much as the beliefs do.
        erased_passages = passages.erase_subject(subject_id) if passages is not None else 0
        # The batch may have cached vectors of the subject's words too (uncounted: no content).
        if vectors is not None:
            vectors.forget_subject(subject_id)
        removed = store.forget_subject(subject_id) + erased_passages
        if compaction is not None:
            try:
                compaction()
            except BackendUnavailableError:
                logger.warning("late purge could not compact; repeat the erasure to finish it")
        return removed

    return forget


def build_erasure(
    settings: Settings,
    ports: Ports,
    semantic: SemanticService,
    *,
    built_windows: Callable[[], SessionWindows | None],
) -> ErasureService:
    """Tiers in the order ErasureService runs them; `storage` (where the backend compacts) last.
    Takes the pieces rather than the Services that own them, so this module does not import
    services.py, which imports it."""
    dependents = ports.dependents

    def forget_beliefs(fp: Footprint) -> int:
        # What was built on the subject's beliefs goes stale in the same tier that removes them
        # (it holds ids and versions, no content); the count stays the beliefs' own.
        dependents.mark_erased(fp.subject_id)
        return semantic.store.forget_subject(fp.subject_id)

    derived: list[Tier] = [("beliefs", forget_beliefs)]
    if semantic.passages is not None:
        passages = semantic.passages
        derived.append(("history_passages", lambda fp: passages.erase_subject(fp.subject_id)))
    vectors = semantic.vector_cache
    if vectors is not None:
        # Vectors of the subject's words, kept so that replay need not embed them again.
        derived.append(("cached_vectors", lambda fp: vectors.forget_subject(fp.subject_id)))
    if settings.procedural_enabled:
        derived.append(("skill_drafts", lambda fp: forget_review_drafts(ports.skill_library, fp)))
    conversations = ports.conversation_memory
    derived.append(("conversations", lambda fp: forget_conversations(conversations, fp)))
    # Only a context service this process has built holds windows; building one here would not.
    cleanup: list[Tier] = [("caches", lambda fp: clear_caches(built_windows(), fp))]
    compaction = ports.compaction
    if compaction is not None:
        cleanup.append(("storage", lambda _: compaction()))
    return ErasureService(
        settings.tenant_id,
        ports.erasure_ledger,
        ports.subject_log,
        ports.blob_store,
        derived=derived,
        cleanup=cleanup,
        scheduler=ports.erasure_scheduler,
    )


def build_export(ports: Ports, semantic: Callable[[], SemanticService]) -> SubjectExport:
    """The export reads the active belief generation, building the tier only on first use."""
    return SubjectExport(
        ports.subject_log,
        ports.erasure_ledger,
        lambda: semantic().store.active(),  # noqa: PLW0108 - builds the tier on first use
        ports.blob_store,
    )
