"""Composer benchmark: compose latency over a 10,000-asset catalogue, the retrieval cache, byte-for-
byte determinism, and recall at budget on the golden set against same-run baselines.

    .venv/bin/python bench/compose.py [--quick]

(1) A seeded synthetic catalogue (bench/synthetic_assets.py): 10,000 assets (quick: 1,000) in the
    sample catalogue's formats, over six integrations of ten selections each, 5 skills from a
    few hundred assets in scope (`finance-close`) to all of them (`org-wide`), and 50 questions
    (quick: 10) spread over the skills. Written through `catalogue.put_assets` in bulks of
    MAX_ASSETS_PER_PUT into a fresh local deployment, then indexed by one
    `composer.indexer.sync()` (every asset embedded by MiniLM), timed apart.
(2) Compose latency, no LLM (the local backend has none), at budgets of 5,000 and 15,000:
    - uncached: the composer's retrieval cache is emptied before every call, so no call reuses
      another's retrieval; the scope and catalogue-view caches stay warm, as on a serving
      instance between catalogue writes. The first compose of each skill after indexing (every
      cache cold) is reported apart;
    - cached: the same question again at 15,000, a retrieval-cache hit (checked in the report);
      the cache speed-up is uncached p50 / cached p50;
    - each phase's share (the report's own `ms`: scope, retrieve, rank, render), the question's
      embedding, and the index searches alone (vector and BM25, k=100, over the same readable
      scope) as a same-run baseline.
(3) Determinism: every question at both budgets composed again by a second `ComposerService`
    (a second bootstrap over the same data directory), and the cached composes checked against
    the uncached ones: the markdown must be byte-identical and the report identical except the
    timing (`ms`, each strategy's `ms`) and cache flags (`cache`, `scope.cached`).
(4) cProfile of one uncached compose at 15,000 (the broad `warehouse-discovery` skill) and of
    all the uncached composes at 15,000 together. Strategies run on a thread pool, which
    cProfile does not follow: their time shows as the main thread's wait in `_stage`, and
    each strategy's own time is in the report.
(5) Recall at 2,500 / 5,000 / 10,000 / 15,000 tokens on the golden set: the sample catalogue
    (agentmem/demo/catalogue) installed into another fresh deployment and scored by
    `evaluate()`, the same figures as `agentmem eval`. Same-run baselines on the same questions,
    budgets, renderer and token counter:
    - `vector top-100, full detail`: the skill's readable scope searched by vector alone (k=100),
      each hit rendered at full detail, placed first-fit until the budget is used;
    - `composer ranking, full detail`: the composer's own ranked candidates, placed the same way:
      what the strategy graph buys apart from the packing.
(i) Full run only: the golden set again with the sample catalogue installed into the 10,000-asset
    deployment, so every sample skill's scope also holds thousands of synthetic distractors.

Bars: compose p50 at 15,000 <= 300 ms (uncached, all questions); byte-identical output. Prints
tables and PASS/FAIL per bar, writes bench/results/compose.json (quick: compose-quick.json), and
always exits 0."""

from __future__ import annotations

import argparse
import cProfile
import json
import logging
import os
import platform
import pstats
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from report import Latency, bar, percentile, print_table
from synthetic_assets import SEED, Question, SyntheticCatalogue, generate

from agentmem.adapters.tokens import count_tokens
from agentmem.compose import authoring
from agentmem.compose.evaluate import (
    DEFAULT_BUDGETS,
    LabelledQuestion,
    evaluate,
    load_catalogue,
    load_dataset,
)
from agentmem.compose.layout import preamble
from agentmem.compose.model import MAX_ASSETS_PER_PUT, Asset, ComposeRequest, PutAssetsRequest
from agentmem.compose.render import AssetRenderer
from agentmem.compose.report import ComposeResponse
from agentmem.compose.service import EVERYONE, ComposerService
from agentmem.compose.templates import RenderEvents, TemplateRegistry
from agentmem.demo.eval_run import install, sample_folder
from agentmem.settings import Settings
from agentmem.wiring import Services, bootstrap

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
BUDGETS = (5_000, 15_000)
BAR_BUDGET = 15_000
CACHED_REPEATS = 3
SEARCH_K = 100
PROFILE_SKILL = "warehouse-discovery"
PROFILE_TOP = 25

# Bars.
COMPOSE_P50_MS_MAX = 300.0


# -- shared helpers --------------------------------------------------------------------------------


class TimedEmbed:
    """Wraps an embedder's `embed` in place: total seconds and calls, reset at will."""

    def __init__(self, embedder: Any) -> None:
        self._embedder = embedder
        self._inner: Callable[[Sequence[str]], list[list[float]]] = embedder.embed
        self.seconds = 0.0
        self.calls = 0
        embedder.embed = self

    def __call__(self, texts: Sequence[str]) -> list[list[float]]:
        start = time.perf_counter()
        try:
            return self._inner(texts)
        finally:
            self.seconds += time.perf_counter() - start
            self.calls += 1

    def reset(self) -> None:
        self.seconds, self.calls = 0.0, 0


def clear_retrievals(composer: ComposerService) -> None:
    """Empty the retrieval cache (the scope cache stays warm): the next compose retrieves anew."""
    composer.clear_caches(scopes=False)


def normalised(response: ComposeResponse) -> dict[str, Any]:
    """The report without what may differ between identical requests: timings and cache flags."""
    report = response.report.model_dump(mode="json")
    report.pop("ms")
    report.pop("cache")
    report["scope"].pop("cached")
    for strategy in report["strategies"]:
        strategy.pop("ms")
    return report


def readable_scope(composer: ComposerService, skill_id: str, principals: Sequence[str]) -> frozenset[str]:
    """The skill's compiled scope cut to what the caller may read: what the strategies search."""
    view = composer.view()
    scope, _ = composer.scope_of(composer.skill(skill_id), view)
    caller = {*principals, EVERYONE}
    return frozenset(i for i in scope.ids if not caller.isdisjoint(view.by_id[i].principals))


def load(services: Services, assets: Sequence[Asset]) -> float:
    start = time.perf_counter()
    for first in range(0, len(assets), MAX_ASSETS_PER_PUT):
        bulk = PutAssetsRequest(assets=list(assets[first : first + MAX_ASSETS_PER_PUT]))
        services.composer.catalogue.put_assets(bulk.assets)  # in process: no API caller, no access rule
    return time.perf_counter() - start


# -- (1) + (2) latency -----------------------------------------------------------------------------


@dataclass
class Setup:
    assets: int
    skills: int
    questions: int
    load_seconds: float
    model_load_seconds: float
    index_seconds: float
    index_embed_seconds: float
    indexed: int
    scope_sizes: dict[str, int]
    first_compose_ms: dict[str, float]


@dataclass
class LatencyRun:
    uncached: dict[str, Latency]  # by budget
    cached: Latency  # at BAR_BUDGET
    speedup: float
    phases_uncached_ms: dict[str, float]  # median of each phase at BAR_BUDGET
    phases_cached_ms: dict[str, float]
    query_embed: Latency
    per_skill_p50_ms: dict[str, float]  # uncached, at BAR_BUDGET
    used_tokens_mean: dict[str, float]
    candidates_mean: float
    routes: dict[str, int]
    template_misses: int
    timed_out_strategies: int
    vector_search: Latency
    keyword_search: Latency


def measure_latency(
    services: Services, catalogue: SyntheticCatalogue, timer: TimedEmbed
) -> tuple[LatencyRun, dict[tuple[int, int], ComposeResponse], list[ComposeResponse]]:
    composer = services.composer
    questions = catalogue.questions
    uncached: dict[int, list[float]] = {b: [] for b in BUDGETS}
    cached: list[float] = []
    phases: dict[str, list[list[float]]] = {"uncached": [], "cached": []}
    per_skill: dict[str, list[float]] = {}
    embed_seconds: list[float] = []
    responses: dict[tuple[int, int], ComposeResponse] = {}
    hits: list[ComposeResponse] = []
    for n, q in enumerate(questions):
        # Interleaved per question, so a busy spell on the machine hits every series alike.
        for budget in BUDGETS:
            request = ComposeRequest(question=q.text, budget_tokens=budget)
            clear_retrievals(composer)
            timer.reset()
            start = time.perf_counter()
            response = composer.compose(q.skill_id, request, q.principals)
            elapsed = time.perf_counter() - start
            if response.report.cache.get("retrieval"):
                raise AssertionError("an uncached compose hit the retrieval cache")
            uncached[budget].append(elapsed)
            responses[(n, budget)] = response
            if budget == BAR_BUDGET:
                per_skill.setdefault(q.skill_id, []).append(elapsed)
                phases["uncached"].append([response.report.ms[k] for k in PHASES])
                embed_seconds.append(timer.seconds)
        request = ComposeRequest(question=q.text, budget_tokens=BAR_BUDGET)
        for _ in range(CACHED_REPEATS):
            start = time.perf_counter()
            response = composer.compose(q.skill_id, request, q.principals)
            cached.append(time.perf_counter() - start)
            if not response.report.cache.get("retrieval"):
                raise AssertionError("a repeated question missed the retrieval cache")
            phases["cached"].append([response.report.ms[k] for k in PHASES])
        hits.append(response)

    # The index searches alone, over the same readable scopes, with the questions' vectors.
    vector_lat: list[float] = []
    keyword_lat: list[float] = []
    index = composer.index
    for q in questions:
        allowed = readable_scope(composer, q.skill_id, q.principals)
        vector = services.semantic.embedder.embed([q.text])[0]
        index.vector_search(vector, allowed, SEARCH_K)  # the scope's rows, cached as in a compose
        start = time.perf_counter()
        index.vector_search(vector, allowed, SEARCH_K)
        vector_lat.append(time.perf_counter() - start)
        start = time.perf_counter()
        index.keyword_search(q.text, allowed, SEARCH_K)
        keyword_lat.append(time.perf_counter() - start)

    all_responses = list(responses.values())
    run = LatencyRun(
        uncached={str(b): Latency.of(v) for b, v in uncached.items()},
        cached=Latency.of(cached),
        speedup=round(percentile(sorted(uncached[BAR_BUDGET]), 50) / percentile(sorted(cached), 50), 2),
        phases_uncached_ms=_phase_medians(phases["uncached"]),
        phases_cached_ms=_phase_medians(phases["cached"]),
        query_embed=Latency.of(embed_seconds),
        per_skill_p50_ms={s: round(percentile(sorted(v), 50) * 1e3, 2) for s, v in sorted(per_skill.items())},
        used_tokens_mean={
            str(b): round(
                statistics.mean(r.report.used_tokens for (_, rb), r in responses.items() if rb == b)
            )
            for b in BUDGETS
        },
        candidates_mean=round(statistics.mean(r.report.candidates for r in all_responses), 1),
        routes=dict(sorted(_count(r.report.route for r in all_responses).items())),
        template_misses=sum(len(r.report.template_misses) for r in all_responses),
        timed_out_strategies=sum(s.timed_out for r in all_responses for s in r.report.strategies),
        vector_search=Latency.of(vector_lat),
        keyword_search=Latency.of(keyword_lat),
    )
    return run, responses, hits


PHASES = ("scope", "retrieve", "check", "render", "total")


def _phase_medians(rows: list[list[float]]) -> dict[str, float]:
    return {name: round(statistics.median(r[i] for r in rows), 2) for i, name in enumerate(PHASES)}


def _count(values: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for v in values:
        out[v] = out.get(v, 0) + 1
    return out


# -- (3) determinism -------------------------------------------------------------------------------


@dataclass
class Determinism:
    compared: int
    markdown_identical: int
    report_identical: int
    passed: bool
    first_difference: str | None


def check_determinism(
    data_dir: Path,
    questions: Sequence[Question],
    responses: dict[tuple[int, int], ComposeResponse],
    hits: Sequence[ComposeResponse],
) -> Determinism:
    """Each question at each budget on a second, fresh ComposerService over the same data, and
    the cached composes against the uncached ones."""
    other = bootstrap(Settings(data_dir=data_dir)).composer
    pairs: list[tuple[str, ComposeResponse, ComposeResponse]] = []
    for (n, budget), response in sorted(responses.items()):
        q = questions[n]
        again = other.compose(q.skill_id, ComposeRequest(question=q.text, budget_tokens=budget), q.principals)
        pairs.append((f"q{n} at {budget} on a second instance", response, again))
    for n, hit in enumerate(hits):
        pairs.append((f"q{n} at {BAR_BUDGET} cached vs uncached", responses[(n, BAR_BUDGET)], hit))
    same_markdown = same_report = 0
    first: str | None = None
    for label, a, b in pairs:
        md = a.markdown.encode() == b.markdown.encode()
        rep = normalised(a) == normalised(b)
        same_markdown += md
        same_report += rep
        if first is None and not (md and rep):
            first = f"{label}: markdown {'same' if md else 'differs'}, report {'same' if rep else 'differs'}"
    return Determinism(len(pairs), same_markdown, same_report, first is None, first)


# -- (4) profile -----------------------------------------------------------------------------------


def _where(key: tuple[str, int, str]) -> str:
    path, line, name = key
    marker = "/agentmem/"
    if marker in path:
        path = "agentmem/" + path.rsplit(marker, 1)[1]
    elif "site-packages/" in path:
        path = path.rsplit("site-packages/", 1)[1]
    return f"{path}:{line}({name})" if line else name


def top_entries(profiler: cProfile.Profile, order: str, limit: int) -> list[dict[str, Any]]:
    stats = pstats.Stats(profiler)
    raw: dict[tuple[str, int, str], tuple[int, int, float, float, Any]] = stats.stats  # type: ignore[attr-defined]
    index = 2 if order == "tottime" else 3
    rows = sorted(raw.items(), key=lambda kv: -kv[1][index])[:limit]
    return [
        {
            "function": _where(key),
            "calls": nc,
            "tottime_ms": round(tt * 1e3, 2),
            "cumtime_ms": round(ct * 1e3, 2),
        }
        for key, (_, nc, tt, ct, _) in rows
    ]


def profile(composer: ComposerService, questions: Sequence[Question]) -> dict[str, Any]:
    one = next((q for q in questions if q.skill_id == PROFILE_SKILL), questions[0])
    request = ComposeRequest(question=one.text, budget_tokens=BAR_BUDGET)
    clear_retrievals(composer)
    single = cProfile.Profile()
    start = time.perf_counter()
    single.enable()
    response = composer.compose(one.skill_id, request, one.principals)
    single.disable()
    single_ms = (time.perf_counter() - start) * 1e3
    together = cProfile.Profile()
    for q in questions:
        clear_retrievals(composer)
        together.enable()
        composer.compose(q.skill_id, ComposeRequest(question=q.text, budget_tokens=BAR_BUDGET), q.principals)
        together.disable()
    return {
        "one": {
            "skill_id": one.skill_id,
            "question": one.text,
            "wall_ms_under_profiler": round(single_ms, 1),
            "report_ms": response.report.ms,
            "strategies_ms": {s.name: s.ms for s in response.report.strategies if s.fired},
            "by_cumtime": top_entries(single, "cumtime", PROFILE_TOP),
            "by_tottime": top_entries(single, "tottime", 15),
        },
        "all": {
            "composes": len(questions),
            "by_cumtime": top_entries(together, "cumtime", PROFILE_TOP),
            "by_tottime": top_entries(together, "tottime", 15),
        },
    }


# -- (5) recall ------------------------------------------------------------------------------------


def first_fit(
    order: Sequence[str],
    assets: dict[str, Any],
    renderer: AssetRenderer,
    budget: int,
    overhead: int,
) -> set[str]:
    """Each asset at full detail, in `order`, placed whenever it still fits in the budget."""
    used, placed = overhead, set()
    for asset_id in order:
        asset = assets.get(asset_id)
        if asset is None:
            continue
        (full, *_), _, _ = renderer.levels(asset, budget=budget, events=RenderEvents(), offloads=[])
        tokens = count_tokens(full) + 1  # and its line break
        if used + tokens <= budget:
            placed.add(asset_id)
            used += tokens
    return placed


def recall_of(needed: Sequence[str], found: set[str]) -> float:
    return sum(n in found for n in needed) / len(needed)


def golden_recall(
    services: Services, questions: Sequence[LabelledQuestion], budgets: Sequence[int]
) -> dict[str, Any]:
    """`evaluate()` on `questions`, and the two full-detail baselines on the same questions."""
    composer = services.composer
    captured: dict[tuple[str, str, int], ComposeResponse] = {}

    def compose(skill_id: str, request: ComposeRequest, principals: Sequence[str]) -> ComposeResponse:
        response = composer.compose(skill_id, request, principals)
        captured[(skill_id, request.question, request.budget_tokens or 0)] = response
        return response

    start = time.perf_counter()
    result = evaluate(questions, budgets, compose)
    eval_seconds = time.perf_counter() - start
    renderer = AssetRenderer(TemplateRegistry(), services.blobs, count_tokens)
    embedder = services.semantic.embedder
    vector_recall: dict[int, list[float]] = {b: [] for b in budgets}
    ranking_recall: dict[int, list[float]] = {b: [] for b in budgets}
    vector_uncut: list[float] = []
    for q in questions:
        skill = composer.skill(q.skill_id)
        allowed = readable_scope(composer, q.skill_id, q.principals)
        hits = composer.index.vector_search(embedder.embed([q.question])[0], allowed, SEARCH_K)
        vector_order = [i for i, _ in hits]
        vector_uncut.append(recall_of(q.needed, set(vector_order)))
        for budget in budgets:
            response = captured[(q.skill_id, q.question, budget)]
            ranking = [m for s in response.report.sections for m in s.items]
            assets = composer.catalogue.get_assets([*vector_order, *ranking])
            title = f"# {skill.skill_id}: {' '.join(q.question.split())[:160]}"
            overhead = count_tokens(f"{title}\n\n{preamble(skill)}\n\n## Knowledge\n")
            placed = first_fit(vector_order, assets, renderer, budget, overhead)
            vector_recall[budget].append(recall_of(q.needed, placed))
            placed = first_fit(ranking, assets, renderer, budget, overhead)
            ranking_recall[budget].append(recall_of(q.needed, placed))

    def mean(values: list[float]) -> float:
        return round(statistics.mean(values), 4)

    return {
        "questions": result["questions"],
        "eval_seconds": round(eval_seconds, 2),
        "composer": result["recall"],
        "composer_uncut": result["retrieval"],
        "baseline_composer_ranking_full_detail": {str(b): mean(v) for b, v in ranking_recall.items()},
        "baseline_vector_top100_full_detail": {str(b): mean(v) for b, v in vector_recall.items()},
        "baseline_vector_top100_uncut": mean(vector_uncut),
        "per_question": result["per_question"],
    }


def sample_recall(budgets: Sequence[int]) -> dict[str, Any]:
    folder = sample_folder()
    questions = load_dataset(folder / "golden.jsonl")
    with tempfile.TemporaryDirectory(prefix="agentmem-bench-compose-golden-") as tmp:
        services = bootstrap(Settings(data_dir=Path(tmp), tenant_id="eval"))
        install(services, load_catalogue(folder))
        services.composer.indexer.sync()  # the projector worker's job when serving
        return golden_recall(services, questions, budgets)


def at_scale_recall(services: Services, budgets: Sequence[int]) -> dict[str, Any]:
    """The sample catalogue installed beside the synthetic one, then the golden set."""
    folder = sample_folder()
    install(services, load_catalogue(folder))
    start = time.perf_counter()
    embedded, _ = services.composer.indexer.sync()
    print(
        f"  installed the sample beside it, indexed {embedded} assets in {time.perf_counter() - start:.1f} s"
    )
    result = golden_recall(services, load_dataset(folder / "golden.jsonl"), budgets)
    result["scope_sizes"] = {
        s.skill_id: len(readable_scope(services.composer, s.skill_id, ["analyst", "finance"]))
        for s in load_catalogue(folder).skills
    }
    return result


# -- the run ---------------------------------------------------------------------------------------


def build(tmp: Path, catalogue: SyntheticCatalogue) -> tuple[Services, TimedEmbed, Setup]:
    services = bootstrap(Settings(data_dir=tmp))
    composer = services.composer
    load_seconds = load(services, catalogue.assets)
    for skill_id, spec in catalogue.skills.items():
        authoring.put_skill(composer.catalogue, skill_id, spec)
    print(f"  wrote {len(catalogue.assets):,} assets in {load_seconds:.1f} s", flush=True)

    embedder = services.semantic.embedder
    start = time.perf_counter()
    embedder.embed(["warm up: load the model and run it once."])
    model_load = time.perf_counter() - start
    timer = TimedEmbed(embedder)
    start = time.perf_counter()
    indexed, _ = composer.indexer.sync()
    index_seconds = time.perf_counter() - start
    print(
        f"  indexed {indexed:,} assets in {index_seconds:.1f} s ({timer.seconds:.1f} s of it embedding)",
        flush=True,
    )
    index_embed = timer.seconds

    # The first compose of each skill: catalogue view, scope and the index's scope rows all cold.
    first: dict[str, float] = {}
    for skill_id in catalogue.skills:
        start = time.perf_counter()
        composer.compose(skill_id, ComposeRequest(question="Where do I start?"), ["analyst"])
        first[skill_id] = round((time.perf_counter() - start) * 1e3, 1)
    sizes = {s: len(readable_scope(composer, s, ["analyst"])) for s in catalogue.skills}
    setup = Setup(
        assets=len(catalogue.assets),
        skills=len(catalogue.skills),
        questions=len(catalogue.questions),
        load_seconds=round(load_seconds, 2),
        model_load_seconds=round(model_load, 2),
        index_seconds=round(index_seconds, 2),
        index_embed_seconds=round(index_embed, 2),
        indexed=indexed,
        scope_sizes=sizes,
        first_compose_ms=first,
    )
    return services, timer, setup


def print_recall(label: str, result: dict[str, Any]) -> None:
    rows = [
        [
            f"{int(key):,}",
            f"{result['composer'][key]:.3f}",
            f"{result['baseline_composer_ranking_full_detail'][key]:.3f}",
            f"{result['baseline_vector_top100_full_detail'][key]:.3f}",
        ]
        for key in map(str, DEFAULT_BUDGETS)
    ]
    rows.append(
        ["uncut", f"{result['composer_uncut']:.3f}", "", f"{result['baseline_vector_top100_uncut']:.3f}"]
    )
    print_table([label, "composer", "composer ranking, full detail", "vector top-100, full detail"], rows)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="1,000 assets and 10 questions (a smoke run)")
    args = parser.parse_args()
    quick: bool = args.quick
    n_assets, n_questions = (1_000, 10) if quick else (10_000, 50)
    logging.getLogger("agentmem").setLevel(logging.ERROR)  # the truncation guardrail fires on most
    os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
    load_start = os.getloadavg()
    wall = time.perf_counter()

    print(
        f"agentmem composer bench ({'quick' if quick else 'full'}): {n_assets:,} synthetic assets, "
        f"{n_questions} questions, budgets {', '.join(f'{b:,}' for b in BUDGETS)}, no LLM"
    )
    print(
        f"python {platform.python_version()}, {os.cpu_count()} CPUs, load average "
        f"{load_start[0]:.1f} at start; {platform.platform()}\n",
        flush=True,
    )
    sample = load_catalogue(sample_folder())
    catalogue = generate(n_assets, n_questions, SEED, reserved_paths=[a.path for a in sample.assets])
    if {a.asset_id for a in catalogue.assets} & {a.asset_id for a in sample.assets}:
        raise AssertionError("a synthetic asset id collides with the sample catalogue")
    stats = catalogue.stats()
    print(
        f"(1) catalogue: {stats['by_kind']}\n    {stats['objects']:,} objects in {stats['selections']} "
        f"selections; deprecated {stats['deprecated_share']:.1%}, finance-only "
        f"{stats['finance_only_share']:.1%}, everyone {stats['everyone_share']:.1%}",
        flush=True,
    )

    with tempfile.TemporaryDirectory(prefix="agentmem-bench-compose-") as tmp:
        services, timer, setup = build(Path(tmp), catalogue)
        print_table(
            ["skill", "readable by analyst", "first compose ms (all caches cold)"],
            [[s, f"{setup.scope_sizes[s]:,}", f"{setup.first_compose_ms[s]:,.1f}"] for s in catalogue.skills],
        )
        print("\n(2) compose latency", flush=True)
        latency, responses, hits = measure_latency(services, catalogue, timer)
        print("(3) determinism: a second ComposerService over the same data", flush=True)
        determinism = check_determinism(Path(tmp), catalogue.questions, responses, hits)
        print("(4) cProfile", flush=True)
        profiled = profile(services.composer, catalogue.questions)
        at_scale: dict[str, Any] | None = None
        if not quick:
            print("(i) golden set inside the synthetic catalogue", flush=True)
            at_scale = at_scale_recall(services, DEFAULT_BUDGETS)
    print("(5) golden set on the sample catalogue", flush=True)
    recall = sample_recall(DEFAULT_BUDGETS)
    load_end = os.getloadavg()

    # -- tables ----------------------------------------------------------------------------------
    print(
        f"\nsetup: wrote {setup.assets:,} assets in {setup.load_seconds} s (bulks of {MAX_ASSETS_PER_PUT}); "
        f"model load {setup.model_load_seconds} s; first sync indexed {setup.indexed:,} in "
        f"{setup.index_seconds} s, {setup.index_embed_seconds} s of it MiniLM embedding"
    )
    print(f"\ncompose latency over {setup.questions} questions x 5 skills ({setup.assets:,} assets), ms")
    rows: list[tuple[str, Latency]] = [
        (f"compose, uncached, {int(b):,}", x) for b, x in latency.uncached.items()
    ]
    rows += [
        (f"compose, cached (same question), {BAR_BUDGET:,}", latency.cached),
        ("  question embedding inside an uncached compose", latency.query_embed),
        (f"  index vector_search alone (k={SEARCH_K})", latency.vector_search),
        (f"  index keyword_search alone (k={SEARCH_K})", latency.keyword_search),
    ]
    print_table(
        ["call", "samples", "p50", "p99", "max"],
        [
            [name, str(x.samples), f"{x.p50_ms:,.1f}", f"{x.p99_ms:,.1f}", f"{x.max_ms:,.1f}"]
            for name, x in rows
        ],
    )
    print(
        f"cache speed-up on a repeated question (uncached p50 / cached p50 at {BAR_BUDGET:,}): "
        f"{latency.speedup:.2f}x"
    )
    print(
        "a hit skips the strategies and the ranking (no embedding either); the candidates are still\n"
        "checked against the primary store, rendered and packed under the budget."
    )
    print(f"\nphases at {BAR_BUDGET:,} (median of the report's own ms)")
    print_table(
        ["", *PHASES],
        [
            ["uncached", *(f"{latency.phases_uncached_ms[p]:.1f}" for p in PHASES)],
            ["cached", *(f"{latency.phases_cached_ms[p]:.1f}" for p in PHASES)],
        ],
    )
    print(f"\nuncached p50 at {BAR_BUDGET:,} by skill")
    print_table(
        ["skill", "readable assets", "p50 ms"],
        [[s, f"{setup.scope_sizes[s]:,}", f"{v:,.1f}"] for s, v in latency.per_skill_p50_ms.items()],
    )
    print(
        f"tokens used (mean): {latency.used_tokens_mean}; candidates (mean) {latency.candidates_mean}; "
        f"routes {latency.routes}; template misses {latency.template_misses}; "
        f"strategy timeouts {latency.timed_out_strategies}"
    )
    print(
        f"\ndeterminism: {determinism.compared} pairs, markdown byte-identical "
        f"{determinism.markdown_identical}, "
        f"report identical (less timings and cache flags) {determinism.report_identical}"
        + (f"; first difference: {determinism.first_difference}" if determinism.first_difference else "")
    )

    one = profiled["one"]
    print(
        f"\ncProfile, one uncached compose at {BAR_BUDGET:,} ({one['skill_id']}: {one['question']!r}), "
        f"{one['wall_ms_under_profiler']} ms under the profiler; report ms {one['report_ms']}; "
        f"strategies ms {one['strategies_ms']}"
    )
    print_table(
        ["function (by cumulative time)", "calls", "tottime ms", "cumtime ms"],
        [
            [e["function"], str(e["calls"]), f"{e['tottime_ms']:.1f}", f"{e['cumtime_ms']:.1f}"]
            for e in one["by_cumtime"]
        ],
    )
    print(f"\ncProfile, all {profiled['all']['composes']} uncached composes at {BAR_BUDGET:,}, by own time")
    print_table(
        ["function (by own time)", "calls", "tottime ms", "cumtime ms"],
        [
            [e["function"], str(e["calls"]), f"{e['tottime_ms']:.1f}", f"{e['cumtime_ms']:.1f}"]
            for e in profiled["all"]["by_tottime"]
        ],
    )

    print(
        f"\nrecall at budget, golden set ({recall['questions']} questions): share of needed assets whose "
        "body is in the document"
    )
    print_recall(f"sample catalogue ({recall['eval_seconds']} s)", recall)
    if at_scale is not None:
        sizes = ", ".join(f"{s} {n:,}" for s, n in at_scale["scope_sizes"].items())
        print(
            f"\n(i) the same, the sample installed beside the {setup.assets:,} synthetic assets; "
            f"readable scopes now {sizes}"
        )
        print_recall(f"sample + {setup.assets:,} synthetic ({at_scale['eval_seconds']} s)", at_scale)
    print(
        "uncut: among the composer's ranked candidates, or the 100 vector hits, before any budget. Full\n"
        "detail baselines: each asset's fullest rendering placed first-fit in their order (no section\n"
        "headings, no identity list); an asset counts when its body is in the document, as in evaluate()."
    )

    bars = {
        f"compose_p50_ms_uncached_{BAR_BUDGET}": bar(
            latency.uncached[str(BAR_BUDGET)].p50_ms, COMPOSE_P50_MS_MAX, "<=", "ms"
        ),
        "byte_identical_output": {
            "value": determinism.markdown_identical + determinism.report_identical,
            "limit": 2 * determinism.compared,
            "op": "==",
            "unit": "identical markdown + reports",
            "pass": determinism.passed,
        },
    }
    info_bars = {
        f"compose_p99_ms_uncached_{BAR_BUDGET}": bar(
            latency.uncached[str(BAR_BUDGET)].p99_ms, COMPOSE_P50_MS_MAX, "<=", "ms"
        ),
        "compose_p50_ms_uncached_5000": bar(latency.uncached["5000"].p50_ms, COMPOSE_P50_MS_MAX, "<=", "ms"),
    }
    print("\nbars")
    for name, verdict in {**bars, **{f"(info) {k}": v for k, v in info_bars.items()}}.items():
        print(
            f"  {'PASS' if verdict['pass'] else 'FAIL'}  {name}: {verdict['value']} {verdict['op']} "
            f"{verdict['limit']} {verdict['unit']}"
        )

    wall_seconds = time.perf_counter() - wall
    out = RESULTS / ("compose-quick.json" if quick else "compose.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    document = {
        "meta": {
            "quick": quick,
            "seed": SEED,
            "budgets": list(BUDGETS),
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
            "load_average_start": [round(x, 2) for x in load_start],
            "load_average_end": [round(x, 2) for x in load_end],
            "wall_seconds": round(wall_seconds, 1),
            "generated_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        },
        "catalogue": stats,
        "skills": {s: spec.scope.model_dump() for s, spec in catalogue.skills.items()},
        "questions": [asdict(q) for q in catalogue.questions],
        "setup": asdict(setup),
        "latency": asdict(latency),
        "determinism": asdict(determinism),
        "profile": profiled,
        "recall": recall,
        "recall_at_scale": at_scale,
        "bars": bars,
        "info_bars": info_bars,
    }
    out.write_text(json.dumps(document, indent=2) + "\n")
    print(f"\nwrote {out.relative_to(ROOT)} in {wall_seconds:.0f} s")


if __name__ == "__main__":
    main()
