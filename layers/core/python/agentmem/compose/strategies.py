"""The retrieval graph: strategies that each declare when they fire and add candidates only then.

Stages run in order; the strategies of one stage run in parallel, each under its own timeout and
cap. A strategy that times out is reported and the others go on (its thread cannot be killed, so
its late result is discarded). Every strategy ranks only ids the compiled scope admits, and the
graph applies the scope again to what comes out, because traversals pull in neighbours.

1. `entities`: names in the question (identifiers, quoted phrases, 1-3 word n-grams) looked up
   against asset names (the last path segment) and titles. Its entities feed stage 2's queries.
2. `keyword` (BM25) and `vector` (cosine) over the scope; `hierarchy` walks down from selection
   to object to detail, in batches, when the scope is large and deep.
3. `orphans` fetches the parent of a matched child whose parent did not match; `relatives` adds
   the objects a top candidate's payload names (a saved query's tables, a page's metrics)."""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field

from agentmem.compose.catalogue_view import CatalogueView
from agentmem.compose.indexing import searchable_text
from agentmem.compose.model import StoredAsset
from agentmem.compose.scope import ScopeFilter
from agentmem.packing.fusion import STOP_WORDS
from agentmem.ports.catalogue import AssetIndex

OBJECT_DEPTH = 3

logger = logging.getLogger(__name__)

WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
# Straight and curly quotes and backticks; curly ones written as escapes to keep the source ASCII.
QUOTED = re.compile("[\"'`\u201c\u2018]([^\"'`\u201d\u2019]{2,80})[\"'`\u201d\u2019]")
STOP = STOP_WORDS


@dataclass(frozen=True)
class StrategyRun:
    name: str
    fired: bool
    why: str
    candidates: int = 0
    ms: float = 0.0
    timed_out: bool = False


@dataclass
class Retrieval:
    """What one composition's strategies share: the question, the scope, and ranked lists."""

    question: str
    scope: ScopeFilter
    allowed: frozenset[str]
    view: CatalogueView
    query_vector: Callable[[], Sequence[float]]
    fetch: Callable[[Sequence[str]], Mapping[str, StoredAsset]]
    """Assets by id from the primary store (memoised for the call); unknown ids are absent."""
    entities: list[str] = field(default_factory=list)
    lists: dict[str, list[str]] = field(default_factory=dict)

    def pool(self) -> list[str]:
        """Every candidate so far, in first-found order."""
        return list(dict.fromkeys(i for ids in self.lists.values() for i in ids))


@dataclass(frozen=True)
class Limits:
    cap: int = 100
    timeout_s: float = 2.0
    hierarchy_min_scope: int = 100
    hierarchy_batch: int = 64


def extract_entities(question: str) -> list[str]:
    """Candidate names, most specific first: quoted phrases, identifiers, then n-grams of words."""
    quoted = [q.strip().lower() for q in QUOTED.findall(question)]
    words = [w.lower().strip(".-") for w in WORD.findall(question)]
    identifiers = [w for w in words if "_" in w or "." in w or any(c.isdigit() for c in w)]
    plain = [w for w in words if w and w not in STOP]
    grams = ["_".join(plain[i : i + n]) for n in (3, 2, 1) for i in range(len(plain) - n + 1)]
    return list(dict.fromkeys(e for e in [*quoted, *identifiers, *grams] if len(e) > 2))


def _entities(r: Retrieval, limits: Limits) -> list[str]:
    r.entities = extract_entities(r.question)
    found: list[str] = []
    for entity in r.entities:
        found += [i for i in r.view.named(entity) if i in r.allowed]
    return list(dict.fromkeys(found))[: limits.cap]


def _keyword(r: Retrieval, index: AssetIndex, limits: Limits) -> list[str]:
    text = " ".join([r.question, *(e.replace("_", " ") for e in r.entities if "_" in e)])
    return [i for i, _ in index.keyword_search(text, r.allowed, limits.cap)]


def _vector(r: Retrieval, index: AssetIndex, limits: Limits) -> list[str]:
    return [i for i, _ in index.vector_search(r.query_vector(), r.allowed, limits.cap)]


def _hierarchy(r: Retrieval, index: AssetIndex, limits: Limits) -> list[str]:
    """Walk down the hierarchy in batches: score every scoped object (grouped by selection, the
    first two path levels) by similarity, keep the best 8, then score those objects' details and
    keep the best 16. Details are only ever scored under an object that earned its place."""
    vector = r.query_vector()

    def best(ids: list[str], beam: int) -> list[str]:
        scored: dict[str, float] = {}
        for start in range(0, len(ids), limits.hierarchy_batch):
            scored.update(index.similarities(vector, ids[start : start + limits.hierarchy_batch]))
        return sorted(scored, key=lambda i: (-scored[i], i))[:beam]

    by_selection: dict[str, list[str]] = {}
    for asset_id in sorted(r.allowed):
        if r.view.depth(asset_id) == OBJECT_DEPTH:
            by_selection.setdefault(r.view.selection(asset_id), []).append(asset_id)
    objects = best([o for _, members in sorted(by_selection.items()) for o in members], 8)
    details = best([c for o in objects for c in r.view.children(o) if c in r.allowed], 16)
    return [*objects, *details][: limits.cap]


def _orphans(r: Retrieval, limits: Limits) -> list[str]:
    pool = r.pool()
    present = set(pool)
    parents: list[str] = []
    for asset_id in pool:
        parent = r.view.parent(asset_id)
        while parent is not None and parent not in present and r.view.depth(parent) >= 3:
            parents.append(parent)
            present.add(parent)
            parent = r.view.parent(parent)
    return [p for p in parents if p in r.allowed][: limits.cap]


def _relatives(r: Retrieval, limits: Limits, top: int = 10) -> list[str]:
    pool = r.pool()
    present = set(pool)
    named = r.view.objects_named_in(searchable_text(a) for a in r.fetch(pool[:top]).values())
    return [i for i in named if i in r.allowed and i not in present][: limits.cap]


class StrategyGraph:
    def __init__(self, index: AssetIndex, limits: Limits | None = None) -> None:
        self._index = index
        self._limits = limits or Limits()
        self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="agentmem-compose")

    def _stage(
        self, r: Retrieval, stage: Sequence[tuple[str, str | None, Callable[[], list[str]]]]
    ) -> list[StrategyRun]:
        """Run the stage's strategies that fire (why is None when one does not) in parallel."""
        started: list[tuple[str, str, float, Future[list[str]]]] = []
        runs: list[StrategyRun] = []
        for name, why, run in stage:
            if why is None:
                runs.append(StrategyRun(name, False, "predicate false"))
                continue
            started.append((name, why, time.perf_counter(), self._pool.submit(run)))
        deadline = time.perf_counter() + self._limits.timeout_s
        found: dict[str, list[str]] = {}
        for name, why, t0, future in started:
            try:
                ids = future.result(timeout=max(0.0, deadline - time.perf_counter()))
            except FutureTimeout:
                runs.append(StrategyRun(name, True, why, 0, (time.perf_counter() - t0) * 1000, True))
                logger.warning("strategy timed out", extra={"strategy": name})
                continue
            # The compiled filter again, on the way out: scope and the caller's readable set.
            found[name] = [i for i in ids if i in r.allowed][: self._limits.cap]
            runs.append(StrategyRun(name, True, why, len(found[name]), (time.perf_counter() - t0) * 1000))
        # Published only once the whole stage is done: a strategy still running (or timed out and
        # still running) reads the lists of earlier stages only, so results never depend on timing.
        r.lists.update(found)
        return runs

    def run(self, r: Retrieval) -> list[StrategyRun]:
        limits, index = self._limits, self._index
        runs = self._stage(r, [("entities", "always: names feed the searches", lambda: _entities(r, limits))])
        # Embedded here, once, so no strategy's timeout pays for loading or calling the embedder.
        if r.allowed:
            r.query_vector()
        words = r.question.strip()
        deep = sum(1 for i in r.allowed if r.view.depth(i) >= OBJECT_DEPTH)
        runs += self._stage(
            r,
            [
                ("keyword", "the question has words" if words else None, lambda: _keyword(r, index, limits)),
                (
                    "vector",
                    "the scope is not empty" if r.allowed else None,
                    lambda: _vector(r, index, limits),
                ),
                (
                    "hierarchy",
                    f"{deep} scoped assets at object level or deeper"
                    if deep >= limits.hierarchy_min_scope
                    else None,
                    lambda: _hierarchy(r, index, limits),
                ),
            ],
        )
        pool = r.pool()
        present = set(pool)
        orphaned = any(
            (p := r.view.parent(i)) is not None and p not in present and r.view.depth(p) >= 3 for i in pool
        )
        texts = [searchable_text(a) for a in r.fetch(pool[:10]).values()]
        mentions = any(i not in present and i in r.allowed for i in r.view.objects_named_in(texts))
        runs += self._stage(
            r,
            [
                (
                    "orphans",
                    "a matched child's parent did not match" if orphaned else None,
                    lambda: _orphans(r, limits),
                ),
                (
                    "relatives",
                    "top candidates name other assets" if mentions else None,
                    lambda: _relatives(r, limits),
                ),
            ],
        )
        return runs
