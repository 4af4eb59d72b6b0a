"""Procedural tier benchmark: search of the skill library, by meaning, by keyword and fused.

    .venv/bin/python bench/skills.py [--quick]

(1) A seeded synthetic library (bench/synthetic_skills.py): 5,000 functions over 25 business
    domains (quick: 500) with signatures, docstrings, tags and acyclic `depends_on` chains, and
    1,000 guidance (quick: 100) each linking 1-5 of them; all approved, written through the local
    SqliteSkillLibrary. 300 task queries (quick: 50), four in five written for a function and the
    rest for a guidance, use only paraphrases of the library's wording. Their relevant items are
    fixed when they are written: the target and the items it is linked with (a function's guidance,
    a guidance's functions). The mean word overlap between each query and its target's text is
    printed, to show the queries are not the docstrings.
(2) The index is built by one `SkillSearch.sync()` (every item embedded by the MiniLM embedder),
    timed apart. Then, on the warm index, each query goes through the whole `SkillSearch.search`
    (its sync check, the query embedding, both rankers, fusion, loading each hit and its closure),
    k=5 as the API's default, and its trace gives the three rankings:
    - vector: `SqliteSkillIndex.vector_search` (cosine over all items), best first;
    - BM25: `SqliteSkillIndex.keyword_search` (FTS5 rank);
    - fused: reciprocal rank fusion (k=60) of both lists, each `max(30, 3k)` deep.
    recall@5 and recall@10 = share of a query's relevant items in the top 5 / 10 of a ranking
    (functions and guidance together), averaged over queries.
(3) Latency p50/p99 of the full search, and of its parts alone: the sync check on an unchanged
    library, the query embedding, each ranker. Same-run baseline: a numpy brute-force cosine
    (matrix @ query, argpartition) over the very vectors the index holds, read back from SQLite;
    its top 10 must agree with `vector_search` (the search is exact).
(i) For information: fused recall@10 when each ranker's list is cut at other depths (rankers
    called directly), with the keyword ranker weighted down (the shared weighted RRF), and what
    fusion did to each top 10 against vector alone.
(ii) For information: the same targets queried with the object named in the library's own words
    (verb and qualifier still paraphrased), to show how the three rankings move with word overlap.
    The bars are judged on the paraphrased queries only.

Bars: search p50 <= 50 ms (the full call, warm index); fused recall@10 >= the better of vector
and BM25 alone. Prints tables and PASS/FAIL per bar, writes bench/results/skills.json, and always
exits 0."""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt
from report import Latency, bar, environment, lat_row, package_version, print_table, timed_map, usable_cpus
from synthetic_skills import Library, Query, generate, word_overlap

from agentmem.adapters.local.sqlite_db import open_database
from agentmem.adapters.local.sqlite_skill_index import SqliteSkillIndex
from agentmem.packing.fusion import RRF_K, reciprocal_rank_fusion
from agentmem.ports.procedural import SkillKey
from agentmem.procedural.search import SEARCH_K, fuse
from agentmem.procedural.search_models import SkillSearchRequest, SkillSearchResponse
from agentmem.procedural.search_render import item_id
from agentmem.settings import Settings
from agentmem.wiring import bootstrap

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "skills.json"
SEED = 20261201
K_SEARCH = 5  # the API's default k: at most 5 functions and 5 guidance per answer
RANKER_DEPTH = max(SEARCH_K, 3 * K_SEARCH)  # what SkillSearch.search asks of each ranker
SWEEP_DEPTHS = (10, 20, 30, 50, 100)
KEYWORD_WEIGHTS = (1.0, 0.5, 0.25)

# Bars.
SEARCH_P50_MS_MAX = 50.0

T = TypeVar("T")
A = TypeVar("A")
Matrix = npt.NDArray[np.float32]


def key_id(key: SkillKey) -> str:
    return item_id(key)


def recall(ranked: Sequence[str], relevant: frozenset[str], k: int) -> float:
    return len(set(ranked[:k]) & relevant) / len(relevant)


def brute_force(matrix: Matrix, query: Matrix, k: int) -> list[int]:
    scores = matrix @ query
    top = np.argpartition(-scores, k - 1)[:k]
    return [int(i) for i in top[np.argsort(-scores[top], kind="stable")]]


# -- the library -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Overlap:
    mean_vs_indexed_text: float
    mean_vs_docstring: float
    mean_function_queries: float
    mean_guidance_queries: float
    max_vs_indexed_text: float
    share_over_half: float


def overlap_stats(queries: list[Query]) -> Overlap:
    indexed = [word_overlap(q.text, q.target_text) for q in queries]
    doc = [word_overlap(q.text, q.target_docstring) for q in queries]
    by_kind = {
        kind: [o for o, q in zip(indexed, queries, strict=True) if q.target[0] == kind] or [0.0]
        for kind in ("function", "guidance")
    }
    return Overlap(
        mean_vs_indexed_text=round(statistics.mean(indexed), 3),
        mean_vs_docstring=round(statistics.mean(doc), 3),
        mean_function_queries=round(statistics.mean(by_kind["function"]), 3),
        mean_guidance_queries=round(statistics.mean(by_kind["guidance"]), 3),
        max_vs_indexed_text=round(max(indexed), 3),
        share_over_half=round(sum(o > 0.5 for o in indexed) / len(indexed), 3),
    )


# -- the run ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RankerResult:
    name: str
    recall_at_5: float
    recall_at_10: float
    target_hit_at_10: float  # the item the query was written for is in the top 10


@dataclass
class Run:
    functions: int
    guidance: int
    queries: int
    links: int
    dependencies: int
    write_seconds: float
    model_load_seconds: float
    initial_sync_seconds: float
    initial_sync_indexed: int
    cold_first_search_ms: float
    search: Latency
    search_k10: Latency
    sync_check: Latency
    library_stamps: Latency
    index_stamps: Latency
    query_embed: Latency
    vector_search: Latency
    keyword_search: Latency
    brute_force_numpy: Latency
    brute_force_agreement_at_10: float
    trace_matches_direct_vector_at_10: float
    rankers: list[RankerResult]
    named_rankers: list[RankerResult]  # (ii): the queries with the object in the library's words
    response_recall_k5: float  # relevant items among the answer's functions and guidance (5 + 5)
    depth_sweep: dict[str, float]
    keyword_weight_sweep: dict[str, float]
    fusion_effect: FusionEffect
    mean_ranker_list_lengths: dict[str, float]


def ranking_results(rankings: dict[str, list[list[str]]], queries: list[Query]) -> list[RankerResult]:
    out = []
    for name, lists in rankings.items():
        r5 = [recall(ranked, relevant_ids(q), 5) for ranked, q in zip(lists, queries, strict=True)]
        r10 = [recall(ranked, relevant_ids(q), 10) for ranked, q in zip(lists, queries, strict=True)]
        hit = [key_id(q.target) in ranked[:10] for ranked, q in zip(lists, queries, strict=True)]
        out.append(
            RankerResult(
                name=name,
                recall_at_5=round(statistics.mean(r5), 4),
                recall_at_10=round(statistics.mean(r10), 4),
                target_hit_at_10=round(sum(hit) / len(hit), 4),
            )
        )
    return out


def relevant_ids(query: Query) -> frozenset[str]:
    return frozenset(key_id(k) for k in query.relevant)


def run(library: Library, passes: int) -> Run:
    queries = library.queries
    texts = [q.text for q in queries]
    with tempfile.TemporaryDirectory(prefix="agentmem-bench-skills-") as tmp:
        settings = Settings(data_dir=Path(tmp))
        services = bootstrap(settings)
        skills = services.skills
        start = time.perf_counter()
        for f in library.functions:
            skills.put_function(f.spec)
        for g in library.guidance:
            skills.put_guidance(g.spec)
        write_seconds = time.perf_counter() - start
        print(
            f"  wrote {len(library.functions):,} functions and {len(library.guidance):,} guidance"
            f" in {write_seconds:.1f} s",
            flush=True,
        )

        embedder = services.semantic.embedder
        start = time.perf_counter()
        embedder.embed(["warm up: load the model and run it once."])
        model_load = time.perf_counter() - start

        search = services.skill_search
        start = time.perf_counter()
        indexed, _ = search.sync()
        initial_sync = time.perf_counter() - start
        print(f"  indexed {indexed:,} items (embedding included) in {initial_sync:.1f} s", flush=True)

        # The index the search uses, for its rankers alone; the vectors it holds, for the baseline.
        index = services.skill_index
        if not isinstance(index, SqliteSkillIndex):
            raise TypeError("the local backend should give a SqliteSkillIndex")
        db = open_database(settings.data_dir / "agentmem.db", synchronous=settings.sqlite_synchronous)
        rows = (
            db.connection()
            .execute(
                "SELECT kind, skill_id, vector FROM skill_index WHERE tenant_id=? ORDER BY kind, skill_id",
                (settings.tenant_id,),
            )
            .fetchall()
        )
        keys: list[SkillKey] = [(kind, skill_id) for kind, skill_id, _ in rows]
        matrix: Matrix = np.vstack([np.frombuffer(blob, dtype=np.float32) for _, _, blob in rows])
        raw = np.asarray(embedder.embed(texts), dtype=np.float32)
        qvecs: Matrix = raw / np.linalg.norm(raw, axis=1, keepdims=True)
        qlists = [q.tolist() for q in qvecs]

        # Cold: the first search after the index was written loads its vectors into a matrix.
        start = time.perf_counter()
        search.search(SkillSearchRequest(task=texts[0], k=K_SEARCH))
        cold = time.perf_counter() - start

        requests = [SkillSearchRequest(task=t, k=K_SEARCH) for t in texts]
        search_lat: list[float] = []
        responses: list[SkillSearchResponse] = []
        for _ in range(passes):
            lat, responses = timed_map(search.search, requests)
            search_lat += lat
        k10_lat, _ = timed_map(search.search, [SkillSearchRequest(task=t, k=10) for t in texts])

        sync_lat, sync_results = timed_map(lambda _: search.sync(), texts)
        if any(r != (0, 0) for r in sync_results):
            raise AssertionError("the library did not change, yet a sync re-indexed something")
        library_stamps_lat, _ = timed_map(lambda _: skills.stamps(), texts)
        index_stamps_lat, _ = timed_map(lambda _: index.stamps(), texts)
        embed_lat, _ = timed_map(lambda t: embedder.embed([t]), texts)
        vec_lat, vec_direct = timed_map(lambda v: index.vector_search(v, RANKER_DEPTH), qlists)
        kw_lat, _ = timed_map(lambda t: index.keyword_search(t, RANKER_DEPTH), texts)
        brute_lat, brute = timed_map(lambda v: brute_force(matrix, v, RANKER_DEPTH), list(qvecs))

        # The three rankings of each query, from the trace of the real search call.
        vector_lists = [r.trace.candidates["vector"] for r in responses]
        keyword_lists = [r.trace.candidates["keyword"] for r in responses]
        fused_lists = [[f.item_id for f in r.trace.fused] for r in responses]
        rankers = ranking_results(
            {"vector": vector_lists, "bm25": keyword_lists, "fused": fused_lists}, queries
        )
        brute_ids = [[key_id(keys[i]) for i in top] for top in brute]
        rankers.append(ranking_results({"numpy brute force (vector)": brute_ids}, queries)[0])
        agreement = statistics.mean(
            len(set(map(key_id, d[:10])) & set(b[:10])) / 10
            for d, b in zip(vec_direct, brute_ids, strict=True)
        )
        trace_match = statistics.mean(
            len(set(map(key_id, d[:10])) & set(t[:10])) / 10
            for d, t in zip(vec_direct, vector_lists, strict=True)
        )
        answered = [
            recall(
                [f"function:{f.function_id}" for f in r.functions]
                + [f"guidance:{g.guidance_id}" for g in r.guidance],
                relevant_ids(q),
                2 * K_SEARCH,
            )
            for r, q in zip(responses, queries, strict=True)
        ]

        # (ii) the same targets, the object named in the library's words (information only).
        named = [search.search(SkillSearchRequest(task=q.text_named, k=K_SEARCH)) for q in queries]
        named_rankers = ranking_results(
            {
                "vector": [r.trace.candidates["vector"] for r in named],
                "bm25": [r.trace.candidates["keyword"] for r in named],
                "fused": [[f.item_id for f in r.trace.fused] for r in named],
            },
            queries,
        )

        # (i) depth of each ranker's list before fusion: direct calls at the deepest depth, cut.
        deepest = max(SWEEP_DEPTHS)
        vec_deep = [[key_id(k) for k in index.vector_search(v, deepest)] for v in qlists]
        kw_deep = [[key_id(k) for k in index.keyword_search(t, deepest)] for t in texts]
        sweep = {}
        for depth in SWEEP_DEPTHS:
            fused = [
                [key_id(k) for k, _, _ in fuse_ids(v[:depth], w[:depth])]
                for v, w in zip(vec_deep, kw_deep, strict=True)
            ]
            sweep[f"fused_recall_at_10_depth_{depth}"] = ranking_results({"f": fused}, queries)[
                0
            ].recall_at_10
        sweep["vector_recall_at_10_direct"] = ranking_results({"v": vec_deep}, queries)[0].recall_at_10
        sweep["bm25_recall_at_10_direct"] = ranking_results({"k": kw_deep}, queries)[0].recall_at_10
        weighted = {}
        for weight in KEYWORD_WEIGHTS:
            fused = [
                [key_id(k) for k, _, _ in fuse_ids(v[:RANKER_DEPTH], w[:RANKER_DEPTH], weight)]
                for v, w in zip(vec_deep, kw_deep, strict=True)
            ]
            weighted[f"keyword_weight_{weight}"] = ranking_results({"f": fused}, queries)[0].recall_at_10

        functions = library.functions
        return Run(
            functions=len(functions),
            guidance=len(library.guidance),
            queries=len(queries),
            links=sum(len(g.spec.function_ids) for g in library.guidance),
            dependencies=sum(len(f.spec.depends_on) for f in functions),
            write_seconds=round(write_seconds, 2),
            model_load_seconds=round(model_load, 2),
            initial_sync_seconds=round(initial_sync, 2),
            initial_sync_indexed=indexed,
            cold_first_search_ms=round(cold * 1e3, 2),
            search=Latency.of(search_lat),
            search_k10=Latency.of(k10_lat),
            sync_check=Latency.of(sync_lat),
            library_stamps=Latency.of(library_stamps_lat),
            index_stamps=Latency.of(index_stamps_lat),
            query_embed=Latency.of(embed_lat),
            vector_search=Latency.of(vec_lat),
            keyword_search=Latency.of(kw_lat),
            brute_force_numpy=Latency.of(brute_lat),
            brute_force_agreement_at_10=round(agreement, 4),
            trace_matches_direct_vector_at_10=round(trace_match, 4),
            rankers=rankers,
            named_rankers=named_rankers,
            response_recall_k5=round(statistics.mean(answered), 4),
            depth_sweep=sweep,
            keyword_weight_sweep=weighted,
            fusion_effect=fusion_effect(vector_lists, keyword_lists, fused_lists, queries),
            mean_ranker_list_lengths={
                "vector": round(statistics.mean(len(v) for v in vector_lists), 1),
                "bm25": round(statistics.mean(len(k) for k in keyword_lists), 1),
            },
        )


def fuse_ids(
    vector: list[str], keyword: list[str], keyword_weight: float = 1.0
) -> list[tuple[SkillKey, float, dict[str, int]]]:
    """`procedural.search.fuse` over ids written `kind:id`, as the search fuses its two lists; with
    a keyword weight other than 1, the shared weighted RRF instead (information only)."""

    def split(ids: list[str]) -> list[SkillKey]:
        return [(i.split(":", 1)[0], i.split(":", 1)[1]) for i in ids]

    lists = {"vector": split(vector), "keyword": split(keyword)}
    if keyword_weight == 1.0:
        return fuse(lists)
    return reciprocal_rank_fusion(lists, weights={"vector": 1.0, "keyword": keyword_weight}, k=RRF_K)


@dataclass(frozen=True)
class FusionEffect:
    """What fusion did to each query's top 10, against vector alone (from the search traces)."""

    relevant_lost: int  # relevant items in vector's top 10 pushed out of the fused top 10
    relevant_gained: int  # relevant items in the fused top 10 that vector's top 10 missed
    lost_mean_vector_rank: float
    intruders: int  # irrelevant items in the fused top 10 that were not in vector's top 10
    intruders_keyword_only: int  # ... found by BM25 alone (no vector rank within the depth)
    intruders_mean_keyword_rank: float


def fusion_effect(
    vector_lists: list[list[str]],
    keyword_lists: list[list[str]],
    fused_lists: list[list[str]],
    queries: list[Query],
) -> FusionEffect:
    lost_ranks: list[int] = []
    gained = 0
    intruder_kw_ranks: list[int] = []
    keyword_only = 0
    for vec, kw, fused, q in zip(vector_lists, keyword_lists, fused_lists, queries, strict=True):
        relevant = relevant_ids(q)
        lost_ranks += [vec.index(i) + 1 for i in vec[:10] if i in relevant and i not in fused[:10]]
        gained += sum(1 for i in fused[:10] if i in relevant and i not in vec[:10])
        for i in fused[:10]:
            if i not in relevant and i not in vec[:10]:
                intruder_kw_ranks.append(kw.index(i) + 1 if i in kw else 0)
                keyword_only += i not in vec
    ranked = [r for r in intruder_kw_ranks if r]
    return FusionEffect(
        relevant_lost=len(lost_ranks),
        relevant_gained=gained,
        lost_mean_vector_rank=round(statistics.mean(lost_ranks), 2) if lost_ranks else 0.0,
        intruders=len(intruder_kw_ranks),
        intruders_keyword_only=keyword_only,
        intruders_mean_keyword_rank=round(statistics.mean(ranked), 2) if ranked else 0.0,
    )


# -- report ----------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="500 functions, 100 guidance, 50 queries")
    args = parser.parse_args()
    quick: bool = args.quick
    n_functions, n_guidance, n_queries = (500, 100, 50) if quick else (5000, 1000, 300)
    passes = 1 if quick else 2

    logging.getLogger("agentmem").setLevel(logging.WARNING)
    print(
        f"agentmem skill search bench ({'quick' if quick else 'full'}): {n_functions:,} functions,"
        f" {n_guidance:,} guidance, {n_queries} paraphrased task queries"
    )
    print(
        f"python {platform.python_version()}, sqlite {sqlite3.sqlite_version}, numpy {np.__version__}, "
        f"onnxruntime {package_version('onnxruntime')}, {os.cpu_count()} CPUs ({usable_cpus()} usable),"
    )
    print(f"{platform.platform()}, temp dir {tempfile.gettempdir()}\n", flush=True)
    wall_start = time.perf_counter()

    library = generate(n_functions, n_guidance, n_queries, SEED)
    overlap = overlap_stats(library.queries)
    by_kind = {k: sum(q.target[0] == k for q in library.queries) for k in ("function", "guidance")}
    relevant = statistics.mean(len(q.relevant) for q in library.queries)
    print(
        f"(1) queries: {by_kind['function']} written for a function, {by_kind['guidance']} for a guidance;"
        f" {relevant:.2f} relevant items per query on average"
    )
    print("word overlap, share of a query's content words found in its target (stop words out, crude stems):")
    print_table(
        ["against", "mean", "max", "queries > 0.5"],
        [
            [
                "target's indexed text (name, signature, docstring, tags / title, content, tags)",
                f"{overlap.mean_vs_indexed_text:.3f}",
                f"{overlap.max_vs_indexed_text:.3f}",
                f"{overlap.share_over_half:.1%}",
            ],
            [
                "target's docstring (function) or content (guidance)",
                f"{overlap.mean_vs_docstring:.3f}",
                "",
                "",
            ],
            ["  function queries, vs indexed text", f"{overlap.mean_function_queries:.3f}", "", ""],
            ["  guidance queries, vs indexed text", f"{overlap.mean_guidance_queries:.3f}", "", ""],
        ],
    )
    for q in library.queries[:3]:
        print(f"  e.g. {q.text!r} -> {q.target[0]} {q.target[1]}")
    print(flush=True)

    print("(2) building and searching the index", flush=True)
    result = run(library, passes)
    print(
        f"\nlibrary: {result.functions:,} functions ({result.dependencies:,} dependencies),"
        f" {result.guidance:,} guidance ({result.links:,} links), written in {result.write_seconds:.1f} s;"
        f" model load {result.model_load_seconds:.2f} s; first sync embedded"
        f" {result.initial_sync_indexed:,} items in {result.initial_sync_seconds:.1f} s"
    )
    print(f"rankers return up to {RANKER_DEPTH} items each (mean lengths {result.mean_ranker_list_lengths})")
    print_table(
        ["ranking", "recall@5", "recall@10", "target in top 10"],
        [
            [r.name, f"{r.recall_at_5:.3f}", f"{r.recall_at_10:.3f}", f"{r.target_hit_at_10:.3f}"]
            for r in result.rankers
        ],
    )
    print(
        f"answer of the search (k={K_SEARCH}: up to {K_SEARCH} functions + {K_SEARCH} guidance):"
        f" recall {result.response_recall_k5:.3f}"
    )
    print(
        f"numpy brute force vs vector_search, top-10 agreement: {result.brute_force_agreement_at_10:.3f};"
        f" search trace vs vector_search called alone (batched query embedding):"
        f" {result.trace_matches_direct_vector_at_10:.3f}\n"
    )
    print("(3) latency, warm index")
    print_table(
        ["call", "n", "p50 ms", "p99 ms", "max ms"],
        [
            [
                "cold first SkillSearch.search (loads the matrix)",
                "1",
                f"{result.cold_first_search_ms:.3f}",
                "",
                "",
            ],
            lat_row(f"SkillSearch.search, k={K_SEARCH} (everything)", result.search),
            lat_row("SkillSearch.search, k=10", result.search_k10),
            lat_row("  sync check alone (library unchanged)", result.sync_check),
            lat_row("    of which SqliteSkillLibrary.stamps()", result.library_stamps),
            lat_row("    of which SqliteSkillIndex.stamps()", result.index_stamps),
            lat_row("  query embedding alone", result.query_embed),
            lat_row(f"  vector_search alone, depth {RANKER_DEPTH}", result.vector_search),
            lat_row(f"  keyword_search alone, depth {RANKER_DEPTH}", result.keyword_search),
            lat_row(f"baseline: numpy brute force, top {RANKER_DEPTH}", result.brute_force_numpy),
        ],
    )
    print("\n(i) fused recall@10 by the depth of each ranker's list (rankers called directly)")
    print_table(["measure", "recall@10"], [[k, f"{v:.3f}"] for k, v in result.depth_sweep.items()])
    print(
        f"weighted RRF, depth {RANKER_DEPTH}, vector weight 1 (information only: judged on the very"
        " queries it is reported for)"
    )
    print_table(
        ["keyword weight", "fused recall@10"],
        [[k, f"{v:.3f}"] for k, v in result.keyword_weight_sweep.items()],
    )
    e = result.fusion_effect
    print(
        f"fusion against vector alone, top 10 over all queries: {e.relevant_lost} relevant items lost"
        f" (their mean vector rank {e.lost_mean_vector_rank}), {e.relevant_gained} gained;"
        f" {e.intruders} irrelevant items came in, {e.intruders_keyword_only} of them found by BM25 only"
        f" (mean BM25 rank {e.intruders_mean_keyword_rank})"
    )

    named_overlap = statistics.mean(word_overlap(q.text_named, q.target_text) for q in library.queries)
    print(
        "\n(ii) information, not a bar: the same targets, the object (or the domain) named in the"
        " library's own words,\nverb and qualifier still paraphrased"
        f" (mean word overlap {named_overlap:.3f}), e.g. {library.queries[2].text_named!r}"
    )
    print_table(
        ["ranking", "recall@5", "recall@10", "target in top 10"],
        [
            [r.name, f"{r.recall_at_5:.3f}", f"{r.recall_at_10:.3f}", f"{r.target_hit_at_10:.3f}"]
            for r in result.named_rankers
        ],
    )

    by_name = {r.name: r for r in result.rankers}
    best_single = max(by_name["vector"].recall_at_10, by_name["bm25"].recall_at_10)
    bars = {
        f"search_p50_ms_at_{result.functions}_functions_{result.guidance}_guidance": bar(
            result.search.p50_ms, SEARCH_P50_MS_MAX, "<=", "ms"
        ),
        "fused_recall_at_10_vs_best_single_ranker": bar(
            by_name["fused"].recall_at_10, best_single, ">=", "recall@10"
        ),
    }
    print("\nbars")
    for name, b in bars.items():
        verdict = "PASS" if b["pass"] else "FAIL"
        print(f"  {verdict}  {name}: {b['value']} {b['op']} {b['limit']} {b['unit']}")

    total = time.perf_counter() - wall_start
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    document: dict[str, Any] = {
        "meta": {
            "quick": quick,
            "seed": SEED,
            "functions": n_functions,
            "guidance": n_guidance,
            "queries": n_queries,
            "search_k": K_SEARCH,
            "ranker_depth": RANKER_DEPTH,
            "passes": passes,
            **environment(total),
        },
        "query_overlap": asdict(overlap),
        "named_query_overlap": round(named_overlap, 3),
        "example_queries": [
            {"text": q.text, "target": key_id(q.target), "relevant": sorted(relevant_ids(q))}
            for q in library.queries[:10]
        ],
        "run": asdict(result),
        "bars": bars,
    }
    RESULTS.write_text(json.dumps(document, indent=2) + "\n")
    print(f"\nwrote {RESULTS.relative_to(ROOT)} in {total:.0f} s")


if __name__ == "__main__":
    main()
