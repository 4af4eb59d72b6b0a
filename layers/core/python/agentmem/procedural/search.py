"""Search of the skill library: both libraries as peers, by meaning and by keyword, fused with
reciprocal rank fusion (k=60), and rendered through the one packing engine.

The index is a projection kept current by the projector, never by a search (a search embeds only
its query): on AWS the stream projector calls `sync_keys` with the items a record names; locally
the projector worker calls `sync` each round, which reads the library's cheap stamps (kind, id,
status, version and updated_at), compares them with the stamps the index stored, embeds the texts
of every approved item that is new or changed in one batch call, and removes the rows of items
that were deleted or are no longer approved. Drafts are therefore never indexed, so never found.

- A function is indexed as name + signature + docstring + tags; guidance as title + content + tags.
- Each ranker returns up to `max(SEARCH_K, 3k)` items of both kinds together; plain RRF (every
  ranker weighs 1) fuses them, and the best `k` functions and best `k` guidance are returned.
- A function arrives with its dependency closure (ids, dependencies first) and `guidance_ids`;
  guidance arrives with `function_ids`, so either result leads to the other by id.
- With `budget_tokens`, the found items are packed into a markdown document under the budget,
  each at its full, short or identity rendering (as `POST /v1/context` does)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

from agentmem.errors import NotFoundError
from agentmem.model.dependents import Staleness
from agentmem.packing.engine import pack
from agentmem.packing.fusion import KEYWORD_GATE_TOP, RRF_K, keyword_gate, reciprocal_rank_fusion
from agentmem.packing.model import Candidate, Dropped, Packed, Section
from agentmem.ports.embedding import Embedder
from agentmem.ports.procedural import IndexedSkill, SkillIndex, SkillKey, StampedLibrary
from agentmem.ports.tokens import DEFAULT_ENCODING
from agentmem.procedural.graph import dependency_order
from agentmem.procedural.model import Function, Guidance, SkillStatus
from agentmem.procedural.search_models import (
    FunctionHit,
    FusedRank,
    GuidanceHit,
    SearchDropped,
    SkillSearchRequest,
    SkillSearchResponse,
    SkillSearchTrace,
)
from agentmem.procedural.search_render import SOURCE, item_id, skill_candidate
from agentmem.semantic.citations import guidance_dependent

SEARCH_K = 30

StaleLookup = Callable[[Sequence[str]], Mapping[str, Sequence[Staleness]]]
"""The stale dependents among the names given (`DependentsIndex.stale_of_many`)."""


def index_text(item: Function | Guidance) -> str:
    if isinstance(item, Function):
        parts = [item.name, item.signature, item.docstring]
    else:
        parts = [item.title, item.content]
    return "\n".join(p for p in [*parts, " ".join(item.tags)] if p)


def fuse(
    result_lists: dict[str, list[SkillKey]], weights: dict[str, float] | None = None
) -> list[tuple[SkillKey, float, dict[str, int]]]:
    """Reciprocal rank fusion at k=60 (weighted when given); ties break on the key. A ranker
    of weight 0 adds nothing: its items enter only if another ranker found them too."""
    if weights is not None:
        result_lists = {name: keys for name, keys in result_lists.items() if weights.get(name, 1.0) > 0}
    return reciprocal_rank_fusion(result_lists, weights=weights, k=RRF_K)


def _normalised(vector: Sequence[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in vector)) or 1.0
    return [x / norm for x in vector]


class SkillSearch:
    def __init__(
        self,
        library: StampedLibrary,
        index: SkillIndex,
        embedder: Callable[[], Embedder],
        count_tokens: Callable[[str], int],
    ) -> None:
        self._library = library
        self._index = index
        self._embedder = embedder  # built on first use: a search of an empty library loads no model
        self._count = count_tokens
        # Set once the index was seen holding an item. Until then a search checks the index's
        # stamps first, so a search of an empty library embeds nothing (and loads no model);
        # after, the check is skipped: a vector search of an index emptied since finds nothing
        # anyway, and the check costs a read of every stamp (a scroll on OpenSearch).
        self._seen_items = False

    def _get(self, key: SkillKey) -> Function | Guidance | None:
        try:
            if key[0] == "function":
                return self._library.get_function(key[1])
            return self._library.get_guidance(key[1])
        except NotFoundError:
            return None

    def sync(self) -> tuple[int, int]:
        """Bring the index up to the library; returns (items embedded, items removed)."""
        approved_status = SkillStatus.APPROVED.value
        approved = {
            (kind, skill_id): stamp
            for kind, skill_id, status, stamp in self._library.stamps()
            if status == approved_status
        }
        indexed = self._index.stamps()
        if approved == indexed:  # the usual case, compared at C speed: nothing to embed or remove
            return self._write([], [])
        remove = [key for key in indexed if key not in approved]
        items: list[tuple[SkillKey, Function | Guidance]] = []
        # Only the changed keys are sorted: at thousands of items, sorting all of them on every
        # search cost more than the comparison itself.
        for key in sorted(key for key, stamp in approved.items() if indexed.get(key) != stamp):
            item = self._get(key)
            if item is not None and item.status is SkillStatus.APPROVED:
                items.append((key, item))
            elif key in indexed:
                remove.append(key)
        return self._write(items, remove)

    def rebuild(self) -> tuple[int, int]:
        """Replay: re-embed and rewrite every approved item of the library, and remove every
        other indexed item, in one index update, so readers never see a half-built index (the
        index is a projection; the library is the truth). Returns (items embedded, removed)."""
        approved: list[SkillKey] = [
            (kind, skill_id)
            for kind, skill_id, status, _ in self._library.stamps()
            if status == SkillStatus.APPROVED.value
        ]
        items = [(key, item) for key in sorted(approved) if (item := self._get(key)) is not None]
        kept = {key for key, _ in items}
        return self._write(items, [key for key in self._index.stamps() if key not in kept])

    def sync_keys(self, keys: Sequence[SkillKey]) -> tuple[int, int]:
        """Re-index exactly `keys` (the items a stream batch touched): each approved one is
        embedded and written, every other one (draft, deleted) removed. Idempotent, so
        redelivered records change nothing. Returns (items embedded, items removed)."""
        items: list[tuple[SkillKey, Function | Guidance]] = []
        remove: list[SkillKey] = []
        for key in sorted(set(keys)):
            item = self._get(key)
            if item is not None and item.status is SkillStatus.APPROVED:
                items.append((key, item))
            else:
                remove.append(key)
        return self._write(items, remove)

    def _closure(self, function: Function, bodies: dict[str, Function | None]) -> list[str]:
        """The ids `library.closure(function.function_id)` lists: the function and everything it
        depends on, dependencies first, by the walk the port defines (`dependency_order` over
        `depends_on` in the order written). Built from the bodies of the functions in the closure
        only, so its cost follows the closure's size, not the library's: `closure` on the SQLite
        adapter reads every dependency row of the tenant, 7 ms a call at 5,000 functions, once
        per function found. `bodies` keeps the functions one search has read, so hits that share
        dependencies read them once. A dependency deleted meanwhile is left out, as `closure`
        leaves it out."""
        bodies[function.function_id] = function
        graph: dict[str, list[str]] = {}
        todo = [function.function_id]
        while todo:
            fid = todo.pop()
            if fid in graph:
                continue
            if fid not in bodies:
                found = self._get(("function", fid))
                bodies[fid] = found if isinstance(found, Function) else None
            body = bodies[fid]
            graph[fid] = list(body.depends_on) if body is not None else []
            todo.extend(graph[fid])
        return [fid for fid in dependency_order(graph, function.function_id) if bodies[fid] is not None]

    def _write(
        self, items: list[tuple[SkillKey, Function | Guidance]], remove: list[SkillKey]
    ) -> tuple[int, int]:
        texts = [index_text(item) for _, item in items]
        vectors = self._embedder().embed(texts) if texts else []
        put = [
            IndexedSkill(key[0], key[1], f"{item.version}|{item.updated_at}", text, _normalised(vector))
            for (key, item), text, vector in zip(items, texts, vectors, strict=True)
        ]
        self._index.update(put, remove)
        return len(put), len(remove)

    def search(self, request: SkillSearchRequest) -> SkillSearchResponse:
        depth = max(SEARCH_K, 3 * request.k)
        self._seen_items = self._seen_items or bool(self._index.stamps())
        lists = {
            "vector": self._index.vector_search(_normalised(self._embedder().embed([request.task])[0]), depth)
            if self._seen_items
            else [],
            "keyword": self._index.keyword_search(request.task, depth),
        }
        keyword_texts = [
            index_text(item) for key in lists["keyword"][:KEYWORD_GATE_TOP] if (item := self._get(key))
        ]
        keyword_weight, gate = keyword_gate(request.task, keyword_texts)
        fused = fuse(lists, {"vector": 1.0, "keyword": keyword_weight})
        functions: list[FunctionHit] = []
        guidance: list[GuidanceHit] = []
        dropped: list[SearchDropped] = []
        bodies: dict[str, Function | None] = {}  # functions read by this search, for closures
        for key, score, _ in fused:
            kept = functions if key[0] == "function" else guidance
            if len(kept) >= request.k:
                dropped.append(
                    SearchDropped(item_id=item_id(key), reason=f"below the top {request.k} {key[0]}")
                )
                continue
            item = self._get(key)
            if item is None or item.status is not SkillStatus.APPROVED:
                dropped.append(
                    SearchDropped(item_id=item_id(key), reason="no longer approved in the library")
                )
            elif isinstance(item, Function):
                closure = self._closure(item, bodies)
                functions.append(FunctionHit(**item.model_dump(), score=score, closure=closure))
            else:
                guidance.append(GuidanceHit(**item.model_dump(), score=score))
        response = SkillSearchResponse(
            functions=functions,
            guidance=guidance,
            trace=SkillSearchTrace(
                candidates={name: [item_id(k) for k in keys] for name, keys in lists.items()},
                fused=[
                    FusedRank(item_id=item_id(key), rank=i, score=score, ranks=ranks)
                    for i, (key, score, ranks) in enumerate(fused, start=1)
                ],
                dropped=dropped,
                keyword_gate=gate,
            ),
        )
        if request.budget_tokens is None:
            return response
        packed = pack_hits([*response.functions, *response.guidance], request.budget_tokens, self._count)
        response.trace.dropped += [_dropped(d) for d in packed.dropped]
        response.markdown = packed.markdown
        response.used_tokens = packed.tokens
        return response

    @staticmethod
    def candidates_of(response: SkillSearchResponse, stale: StaleLookup | None = None) -> list[Candidate]:
        """The found items as candidates; with `stale`, guidance that cites beliefs is looked up in
        one call (guidance citing nothing is never looked up) and a stale entry says why."""
        cited = [g.guidance_id for g in response.guidance if g.cites]
        marks = stale([guidance_dependent(gid) for gid in cited]) if stale is not None and cited else {}
        return [skill_candidate(hit) for hit in response.functions] + [
            skill_candidate(hit, marks.get(guidance_dependent(hit.guidance_id), ()))
            for hit in response.guidance
        ]

    def candidates(self, task: str, k: int = 5, stale: StaleLookup | None = None) -> list[Candidate]:
        """The found items of `task` as packing candidates of source "skills" (for /v1/context)."""
        return self.candidates_of(self.search(SkillSearchRequest(task=task[:4000], k=k)), stale)


def pack_hits(
    hits: Sequence[FunctionHit | GuidanceHit], budget_tokens: int, count_tokens: Callable[[str], int]
) -> Packed:
    """Found items rendered into one markdown document within `budget_tokens`, each at its full,
    short or identity rendering. The MCP server renders one library's hits with it, so a search of
    either library alone keeps the budget the same way a search of both does."""
    return pack(
        [skill_candidate(hit) for hit in hits],
        budget=budget_tokens,
        shares={SOURCE: 1.0},
        sections=[Section(SOURCE, "Skills")],
        title="Skills for this task",  # the caller knows its task: repeating it costs tokens
        count=count_tokens,
        encoding=DEFAULT_ENCODING,
    )


def _dropped(d: Dropped) -> SearchDropped:
    return SearchDropped(item_id=d.item_id, reason=d.reason)
