"""Deep health: the vector index is populated and answers a paraphrase correctly, and projection
is not failing. It fails loudly when embeddings are missing, so keyword matching can never pass
for semantic search, and while the projector cannot extract, so stale beliefs never pass for
current ones.

Writers and readers are split: `seed_probe` writes the probe beliefs (the projector calls it
when it starts, and projection into a new generation does before its first event), and
`deep_health` only reads, so the read function needs no write access to the belief index."""

from __future__ import annotations

import contextlib
import logging
import random
import threading
import weakref

from agentmem.errors import VersionConflictError
from agentmem.model.api_beliefs import ConsistencySample, DeepHealth
from agentmem.model.beliefs import Observation, Verdict
from agentmem.ports.log import EventLog
from agentmem.ports.semantic import BeliefIndex
from agentmem.semantic.fold import step
from agentmem.semantic.index_embeddings import TENANT, IndexEmbeddings
from agentmem.semantic.service import SemanticService
from agentmem.semantic.verify import Extract, sample

logger = logging.getLogger(__name__)

PROBE_SUBJECT = "__agentmem_probe__"
# Two facts that share no content words with the query, so only meaning can pick the right one.
PROBE_FACTS = {
    "favourite_colour": "The probe's favourite colour is teal.",
    "home_city": "The probe lives in Lisbon, Portugal.",
}
PROBE_QUERY = "Which shade does it like best?"
PROBE_EXPECTED = "favourite_colour"
PROBE_MISSING = "paraphrase probe not seeded yet: the projector seeds it when it starts"
MAX_SUBJECTS = 200
MAX_DIVERGENCES_LISTED = 10

# Index objects already seeded by this process: the stores cache one object per generation, so a
# worker that drains every 0.2 s checks the probe once, not on every round.
_seeded: weakref.WeakSet[BeliefIndex] = weakref.WeakSet()
_seeding = threading.Lock()


def _probe_observation(key: str, text: str) -> Observation:
    return Observation(
        subject_id=PROBE_SUBJECT, key=key, text=text, value=text, order="0", event_id=f"probe-{key}",
        session_id="probe", seq=0, stated_at="1970-01-01T00:00:00.000Z",
    )  # fmt: skip


def seed_probe(semantic: SemanticService, index: BeliefIndex | None = None) -> None:
    """Write the probe's beliefs, with vectors, into `index` (default: the active generation)
    where they are missing. Idempotent; needs write access. Each index object is checked once
    per process."""
    target = index if index is not None else semantic.store.active()
    with _seeding:
        if target in _seeded:
            return
        covered = target.vector_coverage(PROBE_SUBJECT)[1] == len(PROBE_FACTS)
        for key, text in PROBE_FACTS.items():
            revision, chain = target.chain(PROBE_SUBJECT, key, "")
            if chain and covered:
                continue
            new_chain, _ = step([], _probe_observation(key, text), lambda *_: Verdict.SAME)
            # The probe's sentences are the product's own, nobody's words: the tenant's to keep.
            vector = IndexEmbeddings(semantic.embedder, semantic.vector_cache).embed([(TENANT, text)])[0]
            with contextlib.suppress(VersionConflictError):  # another writer seeded it first
                target.replace_chain(
                    PROBE_SUBJECT, key, "", expected_revision=revision, chain=new_chain, vector=vector
                )
        logger.info("paraphrase probe ready", extra={"generation": target.generation})
        _seeded.add(target)


def prepare_for_writes(semantic: SemanticService) -> None:
    """What a writer does once when it starts: create the first generation if there is none,
    then seed the probe into the active one."""
    semantic.store.ensure_ready()
    seed_probe(semantic)


def deep_health(
    semantic: SemanticService,
    log: EventLog | None = None,
    *,
    extract: Extract | None = None,
    rng: random.Random | None = None,
) -> DeepHealth:
    """Read-only: a probe that is not seeded yet is a problem to report, never something to fix.
    With `log`, a bounded sample of beliefs is also reconciled with the log (`verify.sample`)."""
    index = semantic.store.active()
    problems: list[str] = []
    lag = semantic.projection_lag()
    if lag is not None:
        # Reads still answer from the log, but beliefs stop growing: an operator must hear of it.
        behind = f"; {lag.unprojected_events} events not projected" if lag.unprojected_events else ""
        problems.append(
            f"projection failing since {lag.failing_since} ({lag.failed_attempts} attempts):"
            f" {lag.last_error}{behind}"
        )
    subjects = [s for s in index.subjects() if s != PROBE_SUBJECT][:MAX_SUBJECTS]
    for subject in subjects:
        total, with_vector = index.vector_coverage(subject)
        if with_vector < total:
            problems.append(
                f"subject {subject}: {total - with_vector} of {total} current beliefs have no vector"
            )
    if not all(index.chain(PROBE_SUBJECT, key, "")[1] for key in PROBE_FACTS):
        problems.append(PROBE_MISSING)
    else:
        hits = index.vector_search(PROBE_SUBJECT, semantic.embedder.embed([PROBE_QUERY])[0], 1)
        if not hits:
            problems.append("paraphrase probe: vector search returned nothing")
        elif hits[0].belief.key != PROBE_EXPECTED:
            problems.append(f"paraphrase probe: expected {PROBE_EXPECTED}, got {hits[0].belief.key}")
    consistency = None
    if log is not None:
        report = sample(
            index,
            log,
            fact_types=semantic.fact_types,
            extract=extract,
            skip_subjects={PROBE_SUBJECT},
            rng=rng,
        )
        consistency = ConsistencySample(
            chains_checked=report.chains_checked,
            citations_checked=report.citations_checked,
            facts_checked=report.facts_checked,
            divergences=len(report.divergences),
        )
        for d in report.divergences[:MAX_DIVERGENCES_LISTED]:
            problems.append(
                f"{d.kind}: {d.subject_id}/{d.key}{'#' + d.member if d.member else ''}: {d.detail}"
            )
        if len(report.divergences) > MAX_DIVERGENCES_LISTED:
            problems.append(f"... and {len(report.divergences) - MAX_DIVERGENCES_LISTED} more divergences")
    return DeepHealth(
        status="failing" if problems else "ok",
        embedder=semantic.embedder.model_id,
        generation=index.generation,
        subjects_checked=len(subjects),
        problems=problems,
        consistency=consistency,
        projection=lag,
    )
