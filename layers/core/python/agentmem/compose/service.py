"""Compose: a skill's question, answered with a document built for this one call.

scope (compiled once, cached per skill version and catalogue revision)
  -> strategy graph (entities, keyword, vector, hierarchy, orphans, relatives)
  -> route by candidate count -> rank (RRF k=60) -> primary-store check (permission, deprecation,
  scope again) -> sections -> one packing engine under the budget -> markdown + report.

Permissions and deprecation follow the hierarchy (agentmem.access): an asset under one the caller
may not read, or under a deprecated one, is out; the report counts only what the caller may read."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Collection, Sequence

from agentmem.access import EVERYONE, Caller, deprecated_by, may_read, may_see
from agentmem.compose.belief_inputs import BeliefInputs, stale_of
from agentmem.compose.cache import Lru
from agentmem.compose.catalogue_view import CatalogueView
from agentmem.compose.indexing import AssetIndexer
from agentmem.compose.layout import Layout
from agentmem.compose.model import AssetHeader, ComposeRequest, ComposerSkill, StoredAsset
from agentmem.compose.ranking import Ranked, Rankers, rank_candidates
from agentmem.compose.report import ComposeReport, ComposeResponse, DroppedAsset, ScopeReport, StrategyReport
from agentmem.compose.scope import ScopeFilter, resolve_scope, visible_count
from agentmem.compose.strategies import Limits, Retrieval, StrategyGraph, StrategyRun
from agentmem.errors import NotFoundError
from agentmem.model.dependents import BeliefUse
from agentmem.ports.catalogue import AssetIndex, Catalogue, ConversationMemory
from agentmem.ports.embedding import Embedder

logger = logging.getLogger(__name__)

__all__ = ["EVERYONE", "GUARDRAIL_TRUNCATED", "ComposerService"]
GUARDRAIL_TRUNCATED = "composer_final_summary_truncated"
MetricSink = Callable[[str, float], None]
Uses = tuple[BeliefUse, ...]


class ComposerService:
    def __init__(
        self,
        catalogue: Catalogue,
        index: AssetIndex,
        embedder: Callable[[], Embedder],
        layout: Layout,
        conversations: ConversationMemory,
        *,
        rankers: Rankers | None = None,
        limits: Limits | None = None,
        metric: MetricSink | None = None,
        inputs: BeliefInputs | None = None,
    ) -> None:
        self.catalogue = catalogue
        self.index = index
        self._embedder = embedder
        self.layout = layout
        self.conversations = conversations
        self._rankers = rankers or Rankers()
        self._graph = StrategyGraph(index, limits)
        self.indexer = AssetIndexer(catalogue, index, embedder)
        self._metric = metric or (lambda name, value: None)
        self.inputs = inputs  # the beliefs cited assets are built on; None: not tracked
        self._views: Lru[CatalogueView] = Lru(2)
        self._scopes: Lru[ScopeFilter] = Lru(256)
        self._retrievals: Lru[tuple[int, frozenset[str], list[StrategyRun], Ranked, Uses]] = Lru(512)

    # -- reading the catalogue ---------------------------------------------------------------

    def view(self) -> CatalogueView:
        revision = self.catalogue.revision()
        view = self._views.get(revision)
        if view is None:
            view = CatalogueView(self.catalogue.headers(), revision)
            self._views.put(revision, view)
        return view

    def skill(self, skill_id: str) -> ComposerSkill:
        try:
            return self.catalogue.get_skill(skill_id)
        except NotFoundError as exc:
            raise NotFoundError(f"no skill {skill_id!r}", field="skill_id") from exc

    def asset(self, asset_id: str, caller: Caller) -> tuple[StoredAsset, AssetHeader | None]:
        """The stored asset, if the caller may see it (access.may_see), and the deprecated asset
        it sits under, if any (only a writer gets that far). NotFoundError alike for an asset that
        does not exist and one the caller may not see."""
        found = self.catalogue.get_assets([asset_id]).get(asset_id)
        ancestors = self.view().ancestors(found.path) if found is not None else []
        if found is None or not may_see(caller, found, ancestors):
            raise NotFoundError(f"no asset {asset_id!r}", field="asset_id")
        dead = next((a for a in ancestors if a.deprecated), None)
        return found, dead

    def scope_of(self, skill: ComposerSkill, view: CatalogueView) -> tuple[ScopeFilter, bool]:
        key = (skill.skill_id, skill.version, view.revision)
        cached = self._scopes.get(key)
        if cached is not None:
            return cached, True
        resolved = resolve_scope(skill.scope, list(view.by_id.values()), view.revision, view.lineage)
        self._scopes.put(key, resolved)
        return resolved, False

    # -- compose -----------------------------------------------------------------------------

    def compose(self, skill_id: str, request: ComposeRequest, principals: Collection[str]) -> ComposeResponse:
        return self.compose_kept(skill_id, request, principals)[0]

    def compose_kept(
        self, skill_id: str, request: ComposeRequest, principals: Collection[str]
    ) -> tuple[ComposeResponse, str | None]:
        """The composition, and the id its report is kept under when it was built on beliefs
        (`GET /v1/compose/reports/{id}` then says what changed since); None otherwise."""
        started = time.perf_counter()
        timings: dict[str, float] = {}
        skill = self.skill(skill_id)
        budget = request.budget_tokens or skill.budget_tokens
        caller = Caller.of(principals)
        view = self.view()
        scope, scope_cached = self.scope_of(skill, view)
        visible = view.readable(caller)  # along the hierarchy; deprecated ones are out of scope
        readable = scope.ids & visible
        timings["scope"] = _ms(started)

        vector_cache: list[Sequence[float]] = []

        def query_vector() -> Sequence[float]:
            if not vector_cache:
                vector_cache.append(self._embedder().embed([request.question])[0])
            return vector_cache[0]

        fetched: dict[str, StoredAsset] = {}

        def fetch(ids: Sequence[str]) -> dict[str, StoredAsset]:
            missing = [i for i in ids if i not in fetched]
            if missing:
                fetched.update(self.catalogue.get_assets(missing))
            return {i: fetched[i] for i in ids if i in fetched}

        retrieval = Retrieval(
            request.question,
            scope,
            readable,
            view,
            query_vector,
            fetch,
        )
        # Retrieval and ranking are reused only while nothing in the scope changed; the primary
        # store is read again below either way, so permissions and deprecation are always fresh.
        # An ancestor outside the scope may change who reads what without moving its freshness.
        cache_key = (scope.key, " ".join(request.question.lower().split()), tuple(sorted(caller.principals)))
        hit = self._cached_retrieval(cache_key, scope.freshness, readable)
        if hit is not None:
            _, _, runs, ranked, _ = hit
        else:
            runs = self._graph.run(retrieval)
            ranked = rank_candidates(retrieval, self.index, self._rankers, query_vector)
            used = self._uses(view, ranked.ids)
            if self.inputs is not None:
                self.inputs.cached(cache_key, used)
            self._retrievals.put(cache_key, (scope.freshness, readable, runs, ranked, used))
        timings["retrieve"] = _ms(started) - timings["scope"]

        assets = fetch(ranked.ids)
        kept, dropped = self._check_primary(ranked, assets, scope, caller, view)
        timings["check"] = _ms(started) - timings["retrieve"] - timings["scope"]

        sent = self.conversations.sent(request.conversation_id) if request.conversation_id else {}
        composed = self.layout.compose(
            skill,
            request.question,
            budget,
            kept,
            ranked.scores,
            assets,
            view,
            sent,
            may_show=lambda i: i in visible and i not in view.deprecated(),
        )
        if request.conversation_id and composed.delivered:
            self.conversations.record(request.conversation_id, composed.delivered)
        if composed.truncated:
            logger.warning(
                GUARDRAIL_TRUNCATED,
                extra={"skill_id": skill.skill_id, "budget": budget, "cut": len(composed.dropped)},
            )
            self._metric(GUARDRAIL_TRUNCATED, 1.0)
        timings["render"] = _ms(started) - sum(timings.values())
        timings["total"] = _ms(started)

        rules = scope.rules_seen_by(caller)
        report = ComposeReport(
            skill_id=skill.skill_id,
            skill_version=skill.version,
            budget_tokens=budget,
            used_tokens=composed.tokens,
            encoding=composed.encoding,
            principals=sorted(caller.principals),
            scope=ScopeReport(
                revision=scope.revision,
                assets=len(readable),
                rules=rules,
                empty_rules=[rule for rule, n in rules.items() if n == 0],
                excluded=visible_count(scope.excluded_tally, caller),
                deprecated=visible_count(scope.deprecated_tally, caller),
                cached=scope_cached,
            ),
            strategies=[StrategyReport(**run.__dict__) for run in runs],
            route=ranked.route,
            candidates=sum(1 for i in ranked.ids if i in readable),
            rankers={name: [i for i in ids if i in readable][:20] for name, ids in ranked.lists.items()},
            sections=composed.sections,
            cut_line=composed.cut_line,
            dropped=[*dropped, *ranked.dropped, *composed.dropped],
            offloaded=composed.offloaded,
            template_misses=composed.events.misses,
            shadow_mismatches=composed.events.shadow_mismatches,
            already_sent=composed.already_sent,
            truncated=composed.truncated,
            cache={"scope": scope_cached, "retrieval": hit is not None},
            ms={k: round(v, 2) for k, v in timings.items()},
        )
        placed = self._uses(view, [i for section in composed.sections for i in section.items])
        report = report.model_copy(update={"stale": stale_of(placed)}) if placed else report
        report_id = self.inputs.keep(report, placed) if self.inputs is not None else None
        return ComposeResponse(markdown=composed.markdown, report=report), report_id

    def _cached_retrieval(
        self, cache_key: object, freshness: int, readable: frozenset[str]
    ) -> tuple[int, frozenset[str], list[StrategyRun], Ranked, Uses] | None:
        hit = self._retrievals.get(cache_key, lambda v: v[0] == freshness and v[1] == readable)
        if hit is not None and self.inputs is not None and not self.inputs.fresh(cache_key, hit[4]):
            return None  # built on a belief version that has moved on: never served again
        return hit

    def _uses(self, view: CatalogueView, asset_ids: Sequence[str]) -> Uses:
        """The beliefs the citing assets among `asset_ids` are built on (the view's headers
        carry what each cites, so assets citing nothing cost no read)."""
        if self.inputs is None:
            return ()
        return self.inputs.uses(view.by_id[i] for i in asset_ids if i in view.by_id)

    def clear_caches(self, *, scopes: bool = True) -> None:
        """Forget retrievals, and resolved scopes unless `scopes` is False (benchmarks measure
        uncached calls this way)."""
        if scopes:
            self._scopes.clear()
        self._retrievals.clear()

    def _check_primary(
        self,
        ranked: Ranked,
        assets: dict[str, StoredAsset],
        scope: ScopeFilter,
        caller: Caller,
        view: CatalogueView,
    ) -> tuple[list[str], list[DroppedAsset]]:
        """The primary store decides, not the index: permission and deprecation along the
        hierarchy, and scope again. What the caller may not read is neither named nor counted."""
        kept: list[str] = []
        dropped: list[DroppedAsset] = []
        for asset_id in ranked.ids:
            asset = assets.get(asset_id)
            ancestors = view.ancestors(asset.path) if asset is not None else []
            if asset is None:
                dropped.append(
                    DroppedAsset(asset_id=asset_id, reason="deleted from the catalogue", stage="primary")
                )
            elif not may_read(caller, asset, ancestors):
                continue
            elif (dead := deprecated_by(asset, ancestors)) is not None:
                reason = "deprecated" if dead is asset else "under a deprecated asset"
                dropped.append(DroppedAsset(asset_id=asset_id, reason=reason, stage="primary"))
            elif not scope.admits(asset_id):
                dropped.append(
                    DroppedAsset(asset_id=asset_id, reason="outside the skill's scope", stage="scope")
                )
            else:
                kept.append(asset_id)
        return kept, dropped


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000
