"""A shadow built with another embedder holds vectors of that embedder's width in its own belief
and passage generations, beside the live ones, and each generation is searched with its own."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from pathlib import Path

import pytest

from agentmem.adapters.local.vector_size import VectorSizeError
from agentmem.adapters.tokens import count_tokens
from agentmem.model.events import AppendEventRequest
from agentmem.semantic.service import SemanticService
from agentmem.semantic.shadow import diff_generations
from agentmem.semantic.shadow_build import build_shadow
from agentmem.semantic.shadow_recall import BeliefQuestion, recall
from agentmem.semantic.worker import drain
from agentmem.settings import Settings
from agentmem.wiring import bootstrap


class WordEmbedder:
    """Words hashed into `dimensions` buckets, L2-normalised: deterministic, any width."""

    def __init__(self, dimensions: int) -> None:
        self.dimensions = dimensions
        self.model_id = f"words-{dimensions}"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        out = []
        for text in texts:
            vector = [0.0] * self.dimensions
            for word in re.findall(r"\w+", text.lower()):
                vector[int(hashlib.sha256(word.encode()).hexdigest(), 16) % self.dimensions] += 1.0
            norm = sum(v * v for v in vector) ** 0.5 or 1.0
            out.append([v / norm for v in vector])
        return out


FACTS = [
    ("priya-s1", "risk_tolerance", "cautious", "Priya is cautious about investment risk."),
    ("priya-s1", "city", "Austin", "Priya lives in Austin."),
    ("priya-s2", "risk_tolerance", "aggressive", "Priya wants to be aggressive with her investments."),
]
QUESTIONS = [
    BeliefQuestion(question_id="risk", subject_id="priya", question="How much risk does Priya take?",
                   key="risk_tolerance", value="aggressive"),
    BeliefQuestion(question_id="city", subject_id="priya", question="Where does Priya live?", key="city",
                   value="Austin"),
]  # fmt: skip


def test_a_shadow_with_a_narrower_embedder_keeps_its_own_width(tmp_path: Path) -> None:
    live_embedder, shadow_embedder = WordEmbedder(32), WordEmbedder(8)
    services = bootstrap(Settings(data_dir=tmp_path), embedder=live_embedder)
    for session, key, value, text in FACTS:
        services.episodic.append(session, AppendEventRequest.model_validate(
            {"subject_id": "priya", "round": 0, "agent": "intake", "kind": "profile",
             "content": f"{text} " + "More detail about it. " * 40,  # long enough to cut passages
             "facts": [{"key": key, "value": value, "text": text}]}
        ))  # fmt: skip
    live = services.semantic
    log, checkpoints = services.ports.log_tail, services.ports.checkpoints
    drain(log, live, checkpoints, live.store.active())
    shadow = SemanticService(live.store, live.llm, shadow_embedder, live.fact_types, passages=live.passages)

    ledger = services.ports.shadow_ledger
    build = build_shadow(log, shadow, checkpoints, ledger, {"embedder": "words-8"}, {"embedder": "words-8"})
    assert (build.generation, build.live_generation, build.state) == (2, 1, "complete")
    live_index, shadow_index = live.store.generation(1), live.store.generation(2)
    assert live.store.active().generation == 1

    # Each generation answers its own embedder's queries, and refuses the other's width.
    query = "investment risk"
    for index, embedder in ((shadow_index, shadow_embedder), (live_index, live_embedder)):
        found = index.vector_search("priya", embedder.embed([query])[0], 5)
        assert {hit.belief.value for hit in found} == {"aggressive", "Austin"}
    with pytest.raises(VectorSizeError):
        shadow_index.vector_search("priya", live_embedder.embed([query])[0], 1)
    assert live.passages is not None
    shadow_passages = live.passages.generation(2)
    assert shadow_passages.count("priya") == live.passages.generation(1).count("priya") > 0
    # Complete means embedded too: the worker's vector lane serves only the active generation.
    assert shadow_passages.pending_count("priya") == 0
    assert shadow_passages.vector_search("priya", shadow_embedder.embed([query])[0], 1)
    with pytest.raises(VectorSizeError):
        shadow_passages.vector_search("priya", live_embedder.embed([query])[0], 1)

    # Same extractor, same log: nothing a reader sees changes, and both answer the labelled set.
    assert diff_generations(live_index, shadow_index).changes == []
    for index, embedder in ((live_index, live_embedder), (shadow_index, shadow_embedder)):
        result = recall(index, embedder, QUESTIONS, count=count_tokens, encoding="o200k_base", budgets=(250,))
        assert (result.generation, result.answered) == (index.generation, {250: 2})
