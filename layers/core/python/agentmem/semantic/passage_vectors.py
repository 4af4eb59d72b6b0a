"""The vector lane: embed history passages that projection indexed without a vector.

Projection writes each passage's text (its keywords) in the batch that projects its event, at
the beliefs' speed; this lane gives the passages their vectors behind it, oldest first, a
bounded batch at a time, so a round of the local worker never waits on the model for long.
Keyword search sees a passage at once, vector search once the lane has reached it; the read's
trace counts the passages still waiting (`ContextTrace.history_pending_vectors`)."""

from __future__ import annotations

import logging

from agentmem.ports.embedding import Embedder
from agentmem.ports.semantic import PassageIndex
from agentmem.ports.vectors import VectorCache
from agentmem.semantic.index_embeddings import IndexEmbeddings

logger = logging.getLogger(__name__)

LANE_BATCH = 128
"""Passages embedded per worker round: about 4,500 tokens, 0.7 s of MiniLM on the idle 2-core
machine and up to 1.5 s loaded, so new events wait at most that long for their beliefs. One call
on many events' passages sorts them by length into model calls that pad little, and gives both
cores work: MiniLM alone did 169 passages/s in calls of 64, 192 in 128 and 196 in 256
(bench/project_passages.py --shapes; docs/benchmarks.md has every shape tried)."""

CATCH_UP_BATCH = 256
"""Passages a call when nothing waits between calls (replay before its switch, a one-shot
projection): the best shape measured."""


def embed_pending(
    index: PassageIndex, embedder: Embedder, limit: int = LANE_BATCH, cache: VectorCache | None = None
) -> int:
    """Embed up to `limit` of the oldest passages without a vector; returns how many were stored.
    Each distinct text is embedded once, and not at all when `cache` holds it (a replay's new
    generation, the same words said again by anyone). A passage erased while the
    model ran stays erased: the index stores a vector only on a row still pending."""
    if not index.defers_vectors:
        return 0
    waiting = index.pending(limit)
    if not waiting:
        return 0
    vectors = IndexEmbeddings(embedder, cache).embed([(p.subject_id, p.text) for p in waiting])
    stored = index.store_vectors(waiting, vectors)
    logger.info("passage vectors stored", extra={"stored": stored, "generation": index.generation})
    return stored


def embed_all_pending(
    index: PassageIndex, embedder: Embedder, batch: int = CATCH_UP_BATCH, cache: VectorCache | None = None
) -> int:
    """Run the lane until no passage waits (replay, before readers switch; one-shot projection).
    Stops when a batch stores nothing, so passages erased under it cannot keep it looping."""
    total = 0
    while stored := embed_pending(index, embedder, batch, cache):
        total += stored
    return total
