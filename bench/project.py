"""Semantic tier benchmark: how fast events become beliefs, and how fast beliefs are found again.

    .venv/bin/python bench/project.py [--quick]

(1) events/s through `Projector.project` on the local backend with the real MiniLM embedder, one
    fact per event, a realistic mix over many subjects (mostly new keys and set members, so most
    events embed; some restatements, SAME; some changes of mind, UPDATE/CONFLICT). The events are
    appended through `EpisodicService.append` and read back from the log, as the worker does. The
    time is split into embedding, index reads/writes and the rest (fold, verdicts, models). Same-run
    baselines: the embedder alone on the very texts the projection embedded, one text per call (as
    the projector calls it) and in one batched call.
(2) search latency on ONE subject holding 10k and 100k current beliefs (quick: 10k and 30k):
    `SemanticService.search` (embeds the query) with 50 natural-language queries, and
    `vector_search` alone with random unit vectors; the cold first search (builds the subject's
    matrix) and a search right after one write to the subject (the matrix is rebuilt) apart.
    The index is filled directly with `replace_chain` and seeded random unit vectors, not 100k runs
    of the embedder.
(3) recall@1 (and @5) of `vector_search` against a numpy brute force over the same vectors,
    computed here (the search is exact, so 1.0 is expected).
(4) keyword (FTS5, BM25) search p50/p99 at both sizes: natural-language queries, two topic words,
    one rare term, and the same natural-language queries on a 10-belief subject beside the big one.
(i) chain growth: the cost of one projection on a key restated (SAME) or revised (UPDATE) many
    times, with a constant stub embedder so only the index and fold are timed.

Prints a table and PASS/FAIL per bar, writes bench/results/project.json, and always exits 0."""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import random
import sqlite3
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TypeVar

import numpy as np
import numpy.typing as npt
from report import (
    Latency,
    bar,
    environment,
    lat_row,
    package_version,
    percentile,
    print_table,
    timed_map,
    usable_cpus,
)
from synthetic import synthetic_belief

from agentmem.adapters.local.sqlite_log import SqliteEventLog
from agentmem.model.beliefs import Belief, BeliefHit, FactInput, Observation, Verdict
from agentmem.model.events import AppendEventRequest, Event
from agentmem.ports.embedding import Embedder
from agentmem.ports.semantic import BeliefIndex
from agentmem.semantic.service import SemanticService
from agentmem.semantic.worker import BATCH
from agentmem.settings import Settings
from agentmem.wiring import bootstrap

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "project.json"
DIMENSIONS = 384
K = 5
SEED = 20261130

# Bars.
PROJECT_RATE_MIN = 200.0  # events/s
SEARCH_P50_MS_MAX = 20.0  # at the largest size
RECALL_AT_1_MIN = 1.0

A = TypeVar("A")
T = TypeVar("T")
Vector = npt.NDArray[np.float32]


# -- shared helpers --------------------------------------------------------------------------------


def unit_vectors(rng: np.random.Generator, n: int) -> Vector:
    raw = rng.standard_normal((n, DIMENSIONS), dtype=np.float32)
    unit: Vector = (raw / np.linalg.norm(raw, axis=1, keepdims=True)).astype(np.float32)
    return unit


def fresh_services(tmp: Path) -> SemanticService:
    return bootstrap(Settings(data_dir=tmp)).semantic


# -- wrappers that time the projector's calls -------------------------------------------------------


class TimedEmbedder:
    """An Embedder that times `embed` and keeps every text it was asked to embed."""

    def __init__(self, inner: Embedder) -> None:
        self._inner = inner
        self.seconds = 0.0
        self.calls = 0
        self.texts: list[str] = []

    @property
    def model_id(self) -> str:
        return self._inner.model_id

    @property
    def dimensions(self) -> int:
        return self._inner.dimensions

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        start = time.perf_counter()
        try:
            return self._inner.embed(texts)
        finally:
            self.seconds += time.perf_counter() - start
            self.calls += 1
            self.texts.extend(texts)


class TimedIndex:
    """A BeliefIndex that adds up the time spent in each of its methods."""

    def __init__(self, inner: BeliefIndex) -> None:
        self._inner = inner
        self.generation = inner.generation
        self.seconds: dict[str, float] = {}
        self.calls: dict[str, int] = {}

    def _time(self, name: str, call: Callable[[], T]) -> T:
        start = time.perf_counter()
        try:
            return call()
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - start
            self.calls[name] = self.calls.get(name, 0) + 1

    def add_observation(self, obs: Observation) -> None:
        self._time("add_observation", lambda: self._inner.add_observation(obs))

    def observations(self, subject_id: str, key: str, member: str) -> list[Observation]:
        return self._time("observations", lambda: self._inner.observations(subject_id, key, member))

    def chain(self, subject_id: str, key: str, member: str) -> tuple[int, list[Belief]]:
        return self._time("chain", lambda: self._inner.chain(subject_id, key, member))

    def replace_chain(
        self,
        subject_id: str,
        key: str,
        member: str,
        *,
        expected_revision: int,
        chain: list[Belief],
        vector: list[float] | None,
    ) -> None:
        self._time(
            "replace_chain",
            lambda: self._inner.replace_chain(
                subject_id, key, member, expected_revision=expected_revision, chain=chain, vector=vector
            ),
        )

    def current(self, subject_id: str, key: str | None = None) -> list[Belief]:
        return self._inner.current(subject_id, key)

    def history(self, subject_id: str, key: str) -> list[Belief]:
        return self._inner.history(subject_id, key)

    def vector_search(self, subject_id: str, vector: Sequence[float], k: int) -> list[BeliefHit]:
        return self._inner.vector_search(subject_id, vector, k)

    def keyword_search(self, subject_id: str, query: str, k: int) -> list[BeliefHit]:
        return self._inner.keyword_search(subject_id, query, k)

    def subjects(self) -> list[str]:
        return self._inner.subjects()

    def frontier(self, subject_id: str) -> str:
        return self._inner.frontier(subject_id)

    def changed_since(self, subject_id: str, position: str, limit: int) -> list[Belief]:
        return self._inner.changed_since(subject_id, position, limit)

    def vector_coverage(self, subject_id: str) -> tuple[int, int]:
        return self._inner.vector_coverage(subject_id)


class ConstantEmbedder:
    """A stub Embedder: one fixed unit vector for any text, so only the index and fold are timed."""

    def __init__(self) -> None:
        self._vector = [1.0 / DIMENSIONS**0.5] * DIMENSIONS

    @property
    def model_id(self) -> str:
        return "constant-stub"

    @property
    def dimensions(self) -> int:
        return DIMENSIONS

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [list(self._vector) for _ in texts]


# -- (1) projection --------------------------------------------------------------------------------

NAMES = ("Priya", "Marcus", "Elena", "Tom", "Aisha", "Kenji", "Sofia", "Liam", "Noor", "Diego")
# Single-valued keys (declared ones, then keys nobody declared: projected as single-valued) and
# the values a subject may state; a change of mind picks another value of the same key.
SINGLE_VALUES: dict[str, tuple[str, ...]] = {
    "city": ("Austin", "Denver", "Seattle", "Chicago", "Boston", "Atlanta", "Portland", "Miami"),
    "income": ("$85,000 a year", "$92,000 a year", "$120,000 a year", "$135,000 a year", "$64,000 a year"),
    "employer": ("Acme Corp", "Globex", "Initech", "Umbrella Health", "the city school district"),
    "risk_tolerance": ("cautious", "balanced", "aggressive"),
    "dependents": ("1 child", "2 kids", "3 kids", "an elderly parent"),
    "retirement_age": ("60", "62", "65", "67"),
    "monthly_rent": ("$1,800", "$2,150", "$2,600"),
    "marital_status": ("single", "married", "divorced"),
    "bank": ("Chase", "Ally", "a local credit union"),
    "health_insurance": ("an employer PPO plan", "a marketplace HMO plan", "none"),
    "emergency_fund": ("3 months of expenses", "6 months of expenses", "nothing set aside yet"),
    "debt": ("$12,000 in student loans", "$4,500 on credit cards", "a $310,000 mortgage"),
}
SET_VALUES: dict[str, tuple[str, ...]] = {
    "goal": (
        "a house down payment",
        "retiring at 60",
        "a college fund for the kids",
        "paying off the car loan",
        "a sabbatical year",
        "starting a bakery",
        "a wedding next summer",
        "an emergency fund of six months",
        "helping her parents with care costs",
        "a trip to Japan",
    ),
    "investment_preference": (
        "dislikes individual stocks",
        "likes low-cost index funds",
        "wants no crypto",
        "prefers municipal bonds",
        "likes dividend stocks",
        "avoids fossil fuel companies",
        "wants international exposure",
        "prefers target-date funds",
        "likes real estate",
        "dislikes high fees",
    ),
}


def fact_text(name: str, key: str, value: str) -> str:
    noun = key.replace("_", " ")
    if key in SET_VALUES:
        plural = "goals" if key == "goal" else "investment preferences"
        return f"{name}'s {plural} include {value}."
    return f"{name}'s {noun} is {value}."


@dataclass
class SubjectState:
    name: str
    single: dict[str, str] = field(default_factory=dict)  # key -> current value
    members: dict[str, set[str]] = field(default_factory=dict)  # set key -> stated values


def workload(events: int, subjects: int, rng: random.Random) -> list[AppendEventRequest]:
    """`events` one-fact events over `subjects`: about 70% new keys or set members, 15%
    restatements of a current value (other casing), 15% changes of a single-valued key."""
    states = {
        f"{NAMES[i % len(NAMES)].lower()}-{i:04d}": SubjectState(NAMES[i % len(NAMES)])
        for i in range(subjects)
    }
    ids = list(states)
    out: list[AppendEventRequest] = []
    for _ in range(events):
        subject = rng.choice(ids)
        state = states[subject]
        roll = rng.random()
        unstated_single = [k for k in SINGLE_VALUES if k not in state.single]
        unstated_members = [
            (k, v) for k, values in SET_VALUES.items() for v in values if v not in state.members.get(k, set())
        ]
        action = "new" if roll < 0.70 else "same" if roll < 0.85 else "change"
        if action != "new" and not state.single:
            action = "new"
        if action == "new" and not (unstated_single or unstated_members):
            action = "change"
        if action == "new":
            pick = rng.randrange(len(unstated_single) + len(unstated_members))
            if pick < len(unstated_single):
                key = unstated_single[pick]
                value = rng.choice(SINGLE_VALUES[key])
                state.single[key] = value
            else:
                key, value = unstated_members[pick - len(unstated_single)]
                state.members.setdefault(key, set()).add(value)
            text = fact_text(state.name, key, value)
        elif action == "same":
            key = rng.choice(sorted(state.single))
            value = state.single[key]
            text = fact_text(state.name, key, value)
            value = value.upper() if rng.random() < 0.5 else value  # same once normalised
        else:
            key = rng.choice(sorted(state.single))
            value = rng.choice([v for v in SINGLE_VALUES[key] if v != state.single[key]])
            state.single[key] = value
            text = fact_text(state.name, key, value)
        out.append(
            AppendEventRequest(
                subject_id=subject,
                round=0,
                agent="intake",
                kind="profile",
                content=text,
                facts=[FactInput(key=key, text=text, value=value)],
            )
        )
    return out


@dataclass(frozen=True)
class ProjectionResult:
    events: int
    subjects: int
    facts_applied: int
    verdicts: dict[str, int]
    seconds: float
    events_per_s: float
    embed_calls: int
    embedded_texts: int
    embed_seconds: float
    index_seconds: dict[str, float]
    index_calls: dict[str, int]
    rest_seconds: float
    embed_share: float
    index_share: float
    rest_share: float
    per_batch_ms: Latency
    append_seconds: float
    model_load_seconds: float
    current_beliefs: int
    current_beliefs_with_vector: int
    # same-run baselines: the embedder alone on the texts the projection embedded
    baseline_single_texts: int
    baseline_single_per_s: float
    baseline_single_p50_ms: float
    baseline_batched_texts: int
    baseline_batched_per_s: float


def run_projection(events: int, subjects: int, baseline_single: int) -> ProjectionResult:
    rng = random.Random(SEED)
    requests = workload(events, subjects, rng)
    with tempfile.TemporaryDirectory(prefix="agentmem-bench-project-") as tmp:
        services = bootstrap(Settings(data_dir=Path(tmp)))
        log = services.event_log
        if not isinstance(log, SqliteEventLog):
            raise TypeError("the local backend should give a SqliteEventLog")
        start = time.perf_counter()
        for request in requests:
            services.episodic.append(f"sess-{request.subject_id}", request)
        append_seconds = time.perf_counter() - start
        stored: list[Event] = []
        position = 0
        while batch := log.read_since(position, 500):
            stored.extend(event for _, event in batch)
            position = batch[-1][0]
        if len(stored) != events:
            raise AssertionError(f"read back {len(stored)} events, appended {events}")

        semantic = services.semantic
        start = time.perf_counter()
        semantic.embedder.embed(["warm up: load the model and run it once."])
        model_load = time.perf_counter() - start
        embedder = TimedEmbedder(semantic.embedder)
        index = TimedIndex(semantic.store.active())
        projector = SemanticService(semantic.store, semantic.llm, embedder, semantic.fact_types).projector(
            index
        )

        verdicts: Counter[str] = Counter()
        per_batch: list[float] = []
        applied = 0
        start = time.perf_counter()
        # As the worker drains the log (and as a stream batch arrives): BATCH events at a time,
        # so the sentences that need vectors are embedded in one call per batch.
        for first in range(0, len(stored), BATCH):
            t0 = time.perf_counter()
            results = projector.project_many(stored[first : first + BATCH])
            per_batch.append(time.perf_counter() - t0)
            applied += len(results)
            verdicts.update(r.verdict.value for r in results)
        wall = time.perf_counter() - start

        active = semantic.store.active()
        coverage = [active.vector_coverage(s) for s in active.subjects()]
        total, with_vector = sum(c[0] for c in coverage), sum(c[1] for c in coverage)

        # Baselines: the embedder alone on the same texts, as the projector calls it and batched.
        texts = embedder.texts
        singles = texts[:baseline_single]
        single_lat, _ = timed_map(lambda t: semantic.embedder.embed([t]), singles)
        start = time.perf_counter()
        semantic.embedder.embed(texts)
        batched = time.perf_counter() - start

    index_seconds = {name: round(s, 3) for name, s in sorted(index.seconds.items())}
    index_total = sum(index.seconds.values())
    rest = wall - embedder.seconds - index_total
    return ProjectionResult(
        events=events,
        subjects=subjects,
        facts_applied=applied,
        verdicts=dict(sorted(verdicts.items())),
        seconds=round(wall, 3),
        events_per_s=round(events / wall, 1),
        embed_calls=embedder.calls,
        embedded_texts=len(texts),
        embed_seconds=round(embedder.seconds, 3),
        index_seconds=index_seconds,
        index_calls=dict(sorted(index.calls.items())),
        rest_seconds=round(rest, 3),
        embed_share=round(embedder.seconds / wall, 3),
        index_share=round(index_total / wall, 3),
        rest_share=round(rest / wall, 3),
        per_batch_ms=Latency.of(per_batch),
        append_seconds=round(append_seconds, 3),
        model_load_seconds=round(model_load, 3),
        current_beliefs=total,
        current_beliefs_with_vector=with_vector,
        baseline_single_texts=len(singles),
        baseline_single_per_s=round(len(singles) / sum(single_lat), 1),
        baseline_single_p50_ms=round(percentile(sorted(single_lat), 50) * 1e3, 3),
        baseline_batched_texts=len(texts),
        baseline_batched_per_s=round(len(texts) / batched, 1),
    )


# -- (2-4) search ------------------------------------------------------------------------------------

BIG = "bench-big"
SMALL = "bench-small"
# Natural-language queries a reader might send; embedded for the end-to-end figures, and sent as
# they are to the keyword search (which ORs their words, stop words included).
QUERIES = (
    "what is her risk tolerance",
    "where does the client live",
    "how much does he earn",
    "who is her employer",
    "does she have children",
    "saving for a house",
    "retirement plans",
    "opinion on individual stocks",
    "likes index funds",
    "bond allocation",
    "emergency fund",
    "college savings for the kids",
    "monthly rent",
    "mortgage rate",
    "crypto exposure",
    "real estate investments",
    "tax-advantaged accounts",
    "how aggressive should the portfolio be",
    "dislikes high fees",
    "wants to retire early",
    "planning a wedding",
    "car loan",
    "student debt",
    "health insurance coverage",
    "life insurance",
    "travel budget",
    "charitable giving",
    "pension from a previous job",
    "stock options at work",
    "cash reserves",
    "inheritance",
    "moving to another city",
    "job change",
    "side business income",
    "spending habits",
    "budget for groceries",
    "dividend stocks",
    "ESG preferences",
    "gold and commodities",
    "international equities",
    "time horizon for investing",
    "liquidity needs",
    "caring for elderly parents",
    "divorce settlement",
    "home renovation",
    "credit card debt",
    "savings rate per month",
    "annual bonus",
    "worried about losing money",
    "preferred bank",
)
WHO = ("The client", "Priya", "Marcus", "Elena", "Tom", "Aisha", "Kenji", "Sofia")
VERBS = (
    "prefers",
    "avoids",
    "holds",
    "wants more",
    "is worried about",
    "asked about",
    "plans to sell",
    "recently bought",
)
THINGS = (
    "low-cost index funds",
    "municipal bonds",
    "individual tech stocks",
    "rental real estate",
    "a high-yield savings account",
    "bitcoin",
    "gold",
    "dividend stocks",
    "target-date funds",
    "treasury bills",
    "emerging market equities",
    "a 529 college plan",
)
TAILS = (
    "for retirement",
    "before the house purchase",
    "because of high fees",
    "after the annual bonus",
    "to cover the kids' tuition",
    "while rates are high",
    "for the emergency fund",
    "ahead of the job change",
)


def synthetic_text(i: int, rng: random.Random) -> str:
    """A belief sentence from a small vocabulary, plus a reference code only this belief has."""
    return (
        f"{rng.choice(WHO)} {rng.choice(VERBS)} {rng.choice(THINGS)} {rng.choice(TAILS)}"
        f" (account ref{i:07d})."
    )


@dataclass
class Population:
    """What the bench wrote into the big subject, kept for the brute-force baseline."""

    vectors: Vector
    doc_ids: list[str] = field(default_factory=list)
    seconds: float = 0.0


def populate(index: BeliefIndex, population: Population, upto: int, rng: random.Random) -> float:
    """Write one-version chains into the big subject until it holds `upto`; returns seconds."""
    start = time.perf_counter()
    for i in range(len(population.doc_ids), upto):
        belief = synthetic_belief(BIG, i, synthetic_text(i, rng))
        index.replace_chain(
            BIG,
            belief.key,
            "",
            expected_revision=0,
            chain=[belief],
            vector=population.vectors[i].tolist(),
        )
        population.doc_ids.append(belief.doc_id)
    took = time.perf_counter() - start
    population.seconds += took
    return took


@dataclass(frozen=True)
class SearchResult:
    beliefs: int
    populate_seconds: float  # this step only (from the previous size)
    populate_writes_per_s: float
    cold_first_search_ms: float
    index_only: Latency
    brute_force_numpy: Latency  # same-run baseline: matrix @ query + argpartition on bench-held vectors
    end_to_end: Latency
    query_embed: Latency
    after_one_write: Latency
    recall_queries: int
    recall_at_1: float
    recall_at_5: float
    keyword_natural: Latency
    keyword_two_topic_words: Latency
    keyword_rare_term: Latency
    keyword_natural_small_subject: Latency


def brute_force(matrix: Vector, query: Vector, k: int) -> list[int]:
    scores = matrix @ query
    top = np.argpartition(-scores, k - 1)[:k]
    return [int(i) for i in top[np.argsort(-scores[top], kind="stable")]]


def measure_search(
    semantic: SemanticService,
    index: BeliefIndex,
    population: Population,
    step_seconds: float,
    step_writes: int,
    *,
    index_queries: int,
    recall_queries: int,
    e2e_passes: int,
    rebuilds: int,
    rng: random.Random,
    qrng: np.random.Generator,
) -> SearchResult:
    n = len(population.doc_ids)
    total, with_vector = index.vector_coverage(BIG)
    if (total, with_vector) != (n, n):
        raise AssertionError(f"subject holds {total} beliefs, {with_vector} with vectors; wrote {n}")
    matrix = population.vectors[:n]
    queries = unit_vectors(qrng, max(index_queries, recall_queries))
    query_lists = [q.tolist() for q in queries]

    # Cold: the first search after the writes loads every vector of the subject into a matrix.
    start = time.perf_counter()
    index.vector_search(BIG, query_lists[0], K)
    cold = time.perf_counter() - start

    index_lat, hits = timed_map(lambda q: index.vector_search(BIG, q, K), query_lists[:index_queries])
    brute_lat, _ = timed_map(lambda q: brute_force(matrix, q, K), list(queries[:index_queries]))

    # Recall against the brute force over the very vectors the bench wrote.
    if recall_queries > index_queries:
        hits += [index.vector_search(BIG, q, K) for q in query_lists[index_queries:recall_queries]]
    at1 = at5 = 0
    for q, found in zip(queries[:recall_queries], hits[:recall_queries], strict=True):
        exact = [population.doc_ids[i] for i in brute_force(matrix, q, K)]
        got = [h.belief.doc_id for h in found]
        at1 += bool(got) and got[0] == exact[0]
        at5 += len(set(got) & set(exact))
    recall_at_1 = at1 / recall_queries
    recall_at_5 = at5 / (recall_queries * K)

    e2e_lat, _ = timed_map(lambda q: semantic.search(BIG, q, K), QUERIES * e2e_passes)
    embed_lat, _ = timed_map(lambda q: semantic.embedder.embed([q]), QUERIES)

    # A search right after one write to the subject: restate one belief (what a SAME verdict
    # writes: same chain, vector kept), which bumps the subject revision and drops the matrix.
    after_write: list[float] = []
    for r in range(rebuilds):
        key = f"fact_{rng.randrange(n):07d}"
        revision, chain = index.chain(BIG, key, "")
        index.replace_chain(BIG, key, "", expected_revision=revision, chain=chain, vector=None)
        start = time.perf_counter()
        index.vector_search(BIG, query_lists[r % len(query_lists)], K)
        after_write.append(time.perf_counter() - start)

    two_words = [f"{rng.choice(THINGS).split()[-1]} {rng.choice(TAILS).split()[-1]}" for _ in QUERIES]
    rare = [f"ref{rng.randrange(n):07d}" for _ in QUERIES]
    kw_natural, _ = timed_map(lambda q: index.keyword_search(BIG, q, K), QUERIES)
    kw_two, _ = timed_map(lambda q: index.keyword_search(BIG, q, K), two_words)
    kw_rare, rare_hits = timed_map(lambda q: index.keyword_search(BIG, q, K), rare)
    if any(
        not found or found[0].belief.key != f"fact_{q[3:]}" for q, found in zip(rare, rare_hits, strict=True)
    ):
        raise AssertionError("a rare-term keyword search missed its one belief")
    kw_small, _ = timed_map(lambda q: index.keyword_search(SMALL, q, K), QUERIES)

    return SearchResult(
        beliefs=n,
        populate_seconds=round(step_seconds, 2),
        populate_writes_per_s=round(step_writes / step_seconds, 1) if step_seconds else 0.0,
        cold_first_search_ms=round(cold * 1e3, 2),
        index_only=Latency.of(index_lat),
        brute_force_numpy=Latency.of(brute_lat),
        end_to_end=Latency.of(e2e_lat),
        query_embed=Latency.of(embed_lat),
        after_one_write=Latency.of(after_write),
        recall_queries=recall_queries,
        recall_at_1=recall_at_1,
        recall_at_5=recall_at_5,
        keyword_natural=Latency.of(kw_natural),
        keyword_two_topic_words=Latency.of(kw_two),
        keyword_rare_term=Latency.of(kw_rare),
        keyword_natural_small_subject=Latency.of(kw_small),
    )


def run_search(
    sizes: Sequence[int], *, index_queries: int, recall_queries: int, e2e_passes: int, rebuilds: int
) -> list[SearchResult]:
    rng = random.Random(SEED + 1)
    vrng = np.random.default_rng(SEED + 2)
    qrng = np.random.default_rng(SEED + 3)
    results: list[SearchResult] = []
    with tempfile.TemporaryDirectory(prefix="agentmem-bench-search-") as tmp:
        semantic = fresh_services(Path(tmp))
        semantic.embedder.embed(["warm up: load the model and run it once."])
        index = semantic.store.active()
        population = Population(vectors=unit_vectors(vrng, max(sizes)))
        # A small subject beside the big one: its keyword searches show whether they pay for it.
        small_vectors = unit_vectors(vrng, 10)
        for i in range(10):
            belief = synthetic_belief(SMALL, i, synthetic_text(i, rng))
            index.replace_chain(
                SMALL, belief.key, "", expected_revision=0, chain=[belief], vector=small_vectors[i].tolist()
            )
        for size in sizes:
            before = len(population.doc_ids)
            took = populate(index, population, size, rng)
            print(
                f"  populated {size:,} beliefs on one subject (+{size - before:,} in {took:.1f} s)",
                flush=True,
            )
            results.append(
                measure_search(
                    semantic,
                    index,
                    population,
                    took,
                    size - before,
                    index_queries=index_queries,
                    recall_queries=recall_queries,
                    e2e_passes=e2e_passes,
                    rebuilds=rebuilds,
                    rng=rng,
                    qrng=qrng,
                )
            )
    return results


# -- (i) chain growth ------------------------------------------------------------------------------


@dataclass(frozen=True)
class GrowthResult:
    verdict: str
    statements: int
    first_ms_p50: float  # projections 2..11
    last_ms_p50: float  # the last 10
    growth: float
    last_chain_versions: int
    last_chain_json_bytes: int
    seconds: float
    stopped_by_budget: bool


def run_growth(statements: int, budget_seconds: float) -> list[GrowthResult]:
    out: list[GrowthResult] = []
    for verdict in ("SAME", "UPDATE"):
        with tempfile.TemporaryDirectory(prefix="agentmem-bench-growth-") as tmp:
            semantic = fresh_services(Path(tmp))
            index = semantic.store.active()
            projector = SemanticService(
                semantic.store, semantic.llm, ConstantEmbedder(), semantic.fact_types
            ).projector(index)
            lat: list[float] = []
            start = time.perf_counter()
            for n in range(statements):
                if time.perf_counter() - start > budget_seconds:
                    break
                value = "$85,000 a year" if verdict == "SAME" else f"${85_000 + 1_000 * n:,} a year"
                text = f"Priya's income is {value}."
                event = Event(
                    event_id=f"ev-{n:06d}",
                    session_id="growth",
                    seq=n + 1,
                    subject_id="priya",
                    round=0,
                    agent="intake",
                    kind="profile",
                    media_type="text/plain",
                    content=text,
                    facts=[FactInput(key="income", text=text, value=value)],
                    created_at=f"2026-11-30T{n // 3600 % 24:02d}:{n // 60 % 60:02d}:{n % 60:02d}.000Z",
                )
                t0 = time.perf_counter()
                (result,) = projector.project(event)
                lat.append(time.perf_counter() - t0)
                expected = Verdict.NEW if n == 0 else Verdict(verdict)
                if result.verdict is not expected:
                    raise AssertionError(f"statement {n}: {result.verdict}, expected {expected}")
            seconds = time.perf_counter() - start
            _, chain = index.chain("priya", "income", "")
            first = percentile(sorted(lat[1:11]), 50) * 1e3
            last = percentile(sorted(lat[-10:]), 50) * 1e3
            out.append(
                GrowthResult(
                    verdict=verdict,
                    statements=len(lat),
                    first_ms_p50=round(first, 3),
                    last_ms_p50=round(last, 3),
                    growth=round(last / first, 1),
                    last_chain_versions=len(chain),
                    last_chain_json_bytes=sum(len(b.model_dump_json()) for b in chain),
                    seconds=round(seconds, 2),
                    stopped_by_budget=len(lat) < statements,
                )
            )
    return out


# -- report ----------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="fewer events, 10k/30k beliefs (a smoke run)")
    args = parser.parse_args()
    quick: bool = args.quick
    events, subjects = (500, 50) if quick else (2000, 200)
    sizes = (10_000, 30_000) if quick else (10_000, 100_000)
    baseline_single = 200 if quick else 500
    index_queries = 100 if quick else 300
    recall_queries = 200
    e2e_passes = 1 if quick else 3
    rebuilds = 3 if quick else 5
    growth_statements, growth_budget = (150, 10.0) if quick else (300, 30.0)

    logging.getLogger("agentmem").setLevel(logging.WARNING)

    print(
        f"agentmem projection and belief search bench ({'quick' if quick else 'full'}): "
        f"{events} events over {subjects} subjects; one subject at "
        f"{' and '.join(f'{s:,}' for s in sizes)} beliefs"
    )
    print(
        f"python {platform.python_version()}, sqlite {sqlite3.sqlite_version}, numpy {np.__version__}, "
        f"onnxruntime {package_version('onnxruntime')}, {os.cpu_count()} CPUs ({usable_cpus()} usable),"
    )
    print(f"{platform.platform()}, temp dir {tempfile.gettempdir()}\n", flush=True)

    wall_start = time.perf_counter()

    # (1)
    proj = run_projection(events, subjects, baseline_single)
    print(
        f"(1) projection: {proj.events} events over {proj.subjects} subjects, one fact each, local backend,"
        f" MiniLM int8 (model load {proj.model_load_seconds:.2f} s, outside the timing)"
    )
    verdicts = ", ".join(f"{k} {v}" for k, v in proj.verdicts.items())
    print(f"verdicts: {verdicts}; {proj.embedded_texts} texts embedded in {proj.embed_calls} calls")
    rows = [
        ["projection, all events", f"{proj.seconds:.2f}", "100%", f"{proj.events_per_s:,.1f} events/s"],
        ["  embedding (embedder.embed)", f"{proj.embed_seconds:.2f}", f"{proj.embed_share:.0%}", ""],
        ["  index (SQLite)", f"{sum(proj.index_seconds.values()):.2f}", f"{proj.index_share:.0%}", ""],
        *[
            [f"    {name} x{proj.index_calls[name]}", f"{s:.2f}", f"{s / proj.seconds:.0%}", ""]
            for name, s in proj.index_seconds.items()
        ],
        [
            "  rest (fold, verdicts, models, logging)",
            f"{proj.rest_seconds:.2f}",
            f"{proj.rest_share:.0%}",
            "",
        ],
        [
            f"baseline: embed alone, 1 text per call ({proj.baseline_single_texts} texts)",
            "",
            "",
            f"{proj.baseline_single_per_s:,.1f} texts/s",
        ],
        [
            f"baseline: embed alone, 1 batched call ({proj.baseline_batched_texts} texts)",
            "",
            "",
            f"{proj.baseline_batched_per_s:,.1f} texts/s",
        ],
    ]
    print_table(["measure", "seconds", "share", "rate"], rows)
    print_table(
        ["per batch", "batches", "p50 ms", "p99 ms", "max ms"],
        [lat_row(f"project_many, {BATCH} events", proj.per_batch_ms)],
    )
    print(
        f"current beliefs after projection: {proj.current_beliefs}, with a vector:"
        f" {proj.current_beliefs_with_vector}; appending the events took {proj.append_seconds:.2f} s\n",
        flush=True,
    )

    # (2-4)
    print("(2-4) search on one subject", flush=True)
    searches = run_search(
        sizes,
        index_queries=index_queries,
        recall_queries=recall_queries,
        e2e_passes=e2e_passes,
        rebuilds=rebuilds,
    )
    rows = []
    for s in searches:
        size = f"{s.beliefs:,}"
        rows += [
            [
                size,
                "cold first vector_search (builds the matrix)",
                "1",
                f"{s.cold_first_search_ms:.3f}",
                "",
                "",
            ],
            [size, *lat_row("vector_search, index only (random unit vectors)", s.index_only)],
            [size, *lat_row("  baseline: numpy brute force in the bench", s.brute_force_numpy)],
            [size, *lat_row("vector_search right after one write to the subject", s.after_one_write)],
            [size, *lat_row("semantic.search end to end (50 real queries)", s.end_to_end)],
            [size, *lat_row("  of which query embedding (embedder alone)", s.query_embed)],
            [size, *lat_row("keyword_search, natural-language queries", s.keyword_natural)],
            [size, *lat_row("keyword_search, two topic words", s.keyword_two_topic_words)],
            [size, *lat_row("keyword_search, one rare term", s.keyword_rare_term)],
            [
                size,
                *lat_row("keyword_search, natural, on a 10-belief subject", s.keyword_natural_small_subject),
            ],
        ]
    print_table(["beliefs", "search", "n", "p50 ms", "p99 ms", "max ms"], rows)
    print_table(
        ["beliefs", "recall queries", "recall@1", "recall@5", "populate s", "writes/s"],
        [
            [
                f"{s.beliefs:,}",
                str(s.recall_queries),
                f"{s.recall_at_1:.3f}",
                f"{s.recall_at_5:.3f}",
                f"{s.populate_seconds:.1f}",
                f"{s.populate_writes_per_s:,.0f}",
            ]
            for s in searches
        ],
    )
    print(
        "populate: one replace_chain (one transaction) per belief, random unit vectors, synthetic texts;\n"
        "the s and writes/s are for the step from the previous size.\n",
        flush=True,
    )

    # (i)
    growth = run_growth(growth_statements, growth_budget)
    print("(i) one key stated over and over (stub embedder: index and fold only), ms per projection")
    print_table(
        [
            "verdict",
            "statements",
            "p50 ms, #2-11",
            "p50 ms, last 10",
            "growth x",
            "versions",
            "chain JSON bytes",
        ],
        [
            [
                g.verdict,
                str(g.statements),
                f"{g.first_ms_p50:.3f}",
                f"{g.last_ms_p50:.3f}",
                f"{g.growth:.1f}",
                str(g.last_chain_versions),
                f"{g.last_chain_json_bytes:,}",
            ]
            for g in growth
        ],
    )

    largest = searches[-1]
    bars = {
        "projection_events_per_s": bar(proj.events_per_s, PROJECT_RATE_MIN, ">=", "events/s"),
        f"search_end_to_end_p50_ms_at_{largest.beliefs}": bar(
            largest.end_to_end.p50_ms, SEARCH_P50_MS_MAX, "<=", "ms"
        ),
        f"vector_search_index_only_p50_ms_at_{largest.beliefs}": bar(
            largest.index_only.p50_ms, SEARCH_P50_MS_MAX, "<=", "ms"
        ),
        **{
            f"recall_at_1_at_{s.beliefs}": bar(s.recall_at_1, RECALL_AT_1_MIN, ">=", "fraction")
            for s in searches
        },
    }
    print("\nbars")
    for name, b in bars.items():
        verdict = "PASS" if b["pass"] else "FAIL"
        print(f"  {verdict}  {name}: {b['value']} {b['op']} {b['limit']} {b['unit']}")

    total = time.perf_counter() - wall_start
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    document = {
        "meta": {
            "quick": quick,
            "events": events,
            "subjects": subjects,
            "sizes": list(sizes),
            "k": K,
            "seed": SEED,
            **environment(total),
        },
        "projection": asdict(proj),
        "search": [asdict(s) for s in searches],
        "chain_growth": [asdict(g) for g in growth],
        "bars": bars,
    }
    RESULTS.write_text(json.dumps(document, indent=2) + "\n")
    print(f"\nwrote {RESULTS.relative_to(ROOT)} in {total:.0f} s")


if __name__ == "__main__":
    main()
