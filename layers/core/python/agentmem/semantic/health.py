"""Deep health: the vector index is populated and answers a paraphrase correctly. It fails
loudly when embeddings are missing, so keyword matching can never pass for semantic search."""

from __future__ import annotations

from agentmem.model.api_beliefs import DeepHealth
from agentmem.model.beliefs import Observation, Verdict
from agentmem.semantic.fold import step
from agentmem.semantic.ports import BeliefIndex
from agentmem.semantic.service import SemanticService

PROBE_SUBJECT = "__agentmem_probe__"
# Two facts that share no content words with the query, so only meaning can pick the right one.
PROBE_FACTS = {
    "favourite_colour": "The probe's favourite colour is teal.",
    "home_city": "The probe lives in Lisbon, Portugal.",
}
PROBE_QUERY = "Which shade does it like best?"
PROBE_EXPECTED = "favourite_colour"
MAX_SUBJECTS = 200


def _ensure_probe(semantic: SemanticService, index: BeliefIndex) -> None:
    for key, text in PROBE_FACTS.items():
        revision, chain = index.chain(PROBE_SUBJECT, key, "")
        if chain and index.vector_coverage(PROBE_SUBJECT)[1] == len(PROBE_FACTS):
            continue
        obs = Observation(
            subject_id=PROBE_SUBJECT, key=key, text=text, value=text, order="0", event_id=f"probe-{key}",
            session_id="probe", seq=0, stated_at="1970-01-01T00:00:00.000Z",
        )  # fmt: skip
        new_chain, _ = step([], obs, lambda *_: Verdict.SAME)
        vector = semantic.embedder.embed([text])[0]
        index.replace_chain(
            PROBE_SUBJECT, key, "", expected_revision=revision, chain=new_chain, vector=vector
        )


def deep_health(semantic: SemanticService) -> DeepHealth:
    index = semantic.store.active()
    problems: list[str] = []
    subjects = [s for s in index.subjects() if s != PROBE_SUBJECT][:MAX_SUBJECTS]
    for subject in subjects:
        total, with_vector = index.vector_coverage(subject)
        if with_vector < total:
            problems.append(
                f"subject {subject}: {total - with_vector} of {total} current beliefs have no vector"
            )
    _ensure_probe(semantic, index)
    hits = index.vector_search(PROBE_SUBJECT, semantic.embedder.embed([PROBE_QUERY])[0], 1)
    if not hits:
        problems.append("paraphrase probe: vector search returned nothing")
    elif hits[0].belief.key != PROBE_EXPECTED:
        problems.append(f"paraphrase probe: expected {PROBE_EXPECTED}, got {hits[0].belief.key}")
    return DeepHealth(
        status="failing" if problems else "ok",
        embedder=semantic.embedder.model_id,
        generation=index.generation,
        subjects_checked=len(subjects),
        problems=problems,
    )
