"""BeliefIndex and BeliefStore on OpenSearch: k-NN (`knn_vector`) plus BM25 over current beliefs.

Generation N is two indices, `{prefix}-beliefs-gN` and `{prefix}-observations-gN`; the aliases
`{prefix}-beliefs` and `{prefix}-observations` name the active one and move together.

Only writers create anything: the projector calls `ensure_ready` when it starts, and a replay
creates its own generation. Readers may hold only read and search rights on the domain, so
before the first `ensure_ready` they read generation 1 as it stands, and a missing index reads as
empty. A write to a missing index still fails.

Compare-and-set: each (tenant, subject, key, member) has one chain document, written with
`op_type=create` when new and `if_seq_no`/`if_primary_term` after that. Its (seq_no, primary
term) pair, packed into one int, is the revision the port hands out, so nothing is kept between
`chain()` and `replace_chain()`. `get` is real-time: compare-and-set never waits for a refresh.

Needs client-chosen document ids, so a managed (or self-managed) OpenSearch 2.x/3.x domain:
OpenSearch Serverless vector search collections assign their own ids."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from opensearchpy.exceptions import NotFoundError as OpenSearchNotFound
from opensearchpy.exceptions import OpenSearchException

from agentmem.adapters.aws.opensearch_belief_changes import SOURCE_ORDER, changed_query, frontier_query
from agentmem.adapters.aws.opensearch_mappings import (
    MAX_HITS,
    Body,
    ChainRef,
    Refresh,
    cas_position,
    coverage_queries,
    current_query,
    history_query,
    index_missing,
    index_names,
    keyword_query,
    knn_query,
    observation_doc,
    observations_query,
    revision_of,
    subjects_query,
    translate,
    translated,
)
from agentmem.errors import AgentMemError, VersionConflictError
from agentmem.model.beliefs import Belief, BeliefHit, Observation

if TYPE_CHECKING:
    from opensearchpy import OpenSearch

logger = logging.getLogger(__name__)


class OpenSearchBeliefIndex:
    """One generation. Searches are near-real-time (visible after the next refresh, 1 s by default)
    unless `refresh="wait_for"`; projection never depends on that, see `observations`.

    Every read of a generation whose indices do not exist yet answers empty; write errors are
    never swallowed. (A domain that auto-creates indices would take a write to a missing one with
    a dynamic mapping, so writers create the generation first: `ensure_ready`, `new_generation`.)"""

    def __init__(
        self, client: OpenSearch, tenant_id: str, generation: int, *, prefix: str, refresh: Refresh = "false"
    ) -> None:
        self._client = client
        self._tenant = tenant_id
        self.generation = generation
        self._beliefs, self._observations = index_names(prefix, generation)
        self._write: dict[str, str] = {} if refresh == "false" else {"refresh": refresh}

    def _ref(self, subject_id: str, key: str, member: str) -> ChainRef:
        return ChainRef(self._tenant, subject_id, key, member)

    # -- observations and chains --------------------------------------------------------------

    def add_observation(self, obs: Observation) -> None:
        obs_id, doc = observation_doc(self._tenant, obs)
        try:
            with translated("record observation"):
                self._client.index(
                    index=self._observations, id=obs_id, body=doc, op_type="create", **self._write
                )
        except VersionConflictError:
            return  # already recorded: a redelivered event

    def observations(self, subject_id: str, key: str, member: str) -> list[Observation]:
        body = observations_query(self._tenant, subject_id, key, member)
        try:
            # A search sees only refreshed writes, and the projector refolds from here right after
            # adding an observation; refreshing first makes every acknowledged one visible. Only
            # out-of-order deliveries come here, so the extra refresh is rare.
            self._client.indices.refresh(index=self._observations)
            found = self._client.search(index=self._observations, body=body)
        except OpenSearchException as exc:
            if index_missing(exc):
                return []
            raise translate(exc, "read observations") from exc
        total = int(found["hits"]["total"]["value"])
        if total > MAX_HITS:
            raise AgentMemError(f"{key}: {total} observations is over {MAX_HITS}; refusing a partial fold")
        return [Observation.model_validate(hit["_source"]["observation"]) for hit in found["hits"]["hits"]]

    def _get_chain(self, chain_id: str, field: str) -> dict[str, Any] | None:
        try:
            found: dict[str, Any] = self._client.get(index=self._beliefs, id=chain_id, _source_includes=field)
        except OpenSearchNotFound as exc:
            if index_missing(exc) or (isinstance(exc.info, dict) and exc.info.get("found") is False):
                return None  # no such chain, or no such generation yet
            raise translate(exc, "read belief chain") from exc
        except OpenSearchException as exc:
            raise translate(exc, "read belief chain") from exc
        return found

    def chain(self, subject_id: str, key: str, member: str) -> tuple[int, list[Belief]]:
        found = self._get_chain(self._ref(subject_id, key, member).id, "chain")
        if found is None:
            return 0, []
        revision = revision_of(found["_seq_no"], found["_primary_term"])
        return revision, [Belief.model_validate(b) for b in found["_source"]["chain"]]

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
        if not chain:
            raise ValueError("a belief chain has at least one version")
        ref = self._ref(subject_id, key, member)
        cas: dict[str, Any] = {"op_type": "create"}  # put-if-absent: a concurrent first write gets 409
        if expected_revision:
            seq_no, primary_term = cas_position(expected_revision)
            cas = {"if_seq_no": seq_no, "if_primary_term": primary_term}
            if vector is None:
                vector = self._kept_vector(ref.id, expected_revision)
        with translated(f"write belief chain {key}"):
            written = self._client.index(
                index=self._beliefs, id=ref.id, body=ref.chain_doc(chain, vector), **cas, **self._write
            )
        self._archive(ref, chain, int(written["_version"]))

    def _kept_vector(self, chain_id: str, expected_revision: int) -> list[float] | None:
        """The stored vector, read at the caller's revision; the write that follows is
        conditional on that same revision, so the vector cannot change in between."""
        found = self._get_chain(chain_id, "vector")
        if found is None or revision_of(found["_seq_no"], found["_primary_term"]) != expected_revision:
            raise VersionConflictError(f"chain {chain_id} is no longer at revision {expected_revision}")
        kept = found["_source"].get("vector")
        return [float(x) for x in kept] if kept is not None else None

    def _archive(self, ref: ChainRef, chain: list[Belief], chain_version: int) -> None:
        """Past versions are copied to their own documents for people and tools browsing the
        index. Nothing reads them back (history reads the chain document), so a failure is
        logged, not raised: the chain is already written, and a retry would find the observation
        applied and never come back here. A refold that shortens a chain leaves the old tail
        until a replay builds a fresh generation."""
        actions = ref.archive_actions(chain, chain_version)
        if not actions:
            return
        try:
            result = self._client.bulk(body=actions, index=self._beliefs, **self._write)
        except OpenSearchException as exc:
            logger.warning("archived versions not written", extra={"chain": ref.id, "fault": repr(exc)})
            return
        failed = [
            outcome
            for item in result.get("items", [])
            for outcome in item.values()
            if outcome.get("status", 200) >= 300 and outcome.get("status") != 409  # 409: a newer chain won
        ]
        if failed:
            logger.warning("archived versions not written", extra={"chain": ref.id, "failed": len(failed)})

    # -- reads --------------------------------------------------------------------------------

    def _search(self, body: Body, action: str) -> dict[str, Any] | None:
        """The search response, or None when the generation's index does not exist yet."""
        try:
            found: dict[str, Any] = self._client.search(index=self._beliefs, body=body)
        except OpenSearchException as exc:
            if index_missing(exc):
                return None
            raise translate(exc, action) from exc
        return found

    def _count(self, body: Body, action: str) -> int:
        try:
            return int(self._client.count(index=self._beliefs, body=body)["count"])
        except OpenSearchException as exc:
            if index_missing(exc):
                return 0
            raise translate(exc, action) from exc

    def _hits(self, body: Body, action: str) -> list[dict[str, Any]]:
        found = self._search(body, action)
        return list(found["hits"]["hits"]) if found is not None else []

    def current(self, subject_id: str, key: str | None = None) -> list[Belief]:
        hits = self._hits(current_query(self._tenant, subject_id, key), "read current beliefs")
        return [Belief.model_validate(hit["_source"]["belief"]) for hit in hits]

    def history(self, subject_id: str, key: str) -> list[Belief]:
        hits = self._hits(history_query(self._tenant, subject_id, key), "read belief history")
        return [Belief.model_validate(b) for hit in hits for b in hit["_source"]["chain"]]

    def _ranked(self, body: dict[str, Any], source: Literal["vector", "keyword"]) -> list[BeliefHit]:
        found = [
            BeliefHit(
                belief=Belief.model_validate(hit["_source"]["belief"]),
                # cosinesimil scores are (1 + cos) / 2: report the cosine, as the local index does
                score=2.0 * float(hit["_score"]) - 1.0 if source == "vector" else float(hit["_score"]),
                source=source,
            )
            for hit in self._hits(body, f"{source} search")
        ]
        return sorted(found, key=lambda h: (-h.score, h.belief.doc_id))

    def vector_search(self, subject_id: str, vector: Sequence[float], k: int) -> list[BeliefHit]:
        return self._ranked(knn_query(self._tenant, subject_id, vector, k), "vector") if k > 0 else []

    def keyword_search(self, subject_id: str, query: str, k: int) -> list[BeliefHit]:
        if k <= 0 or not query.strip():
            return []
        return self._ranked(keyword_query(self._tenant, subject_id, query, k), "keyword")

    def subjects(self) -> list[str]:
        subjects: list[str] = []
        after: dict[str, Any] | None = None
        while True:
            found = self._search(subjects_query(self._tenant, after), "list subjects")
            if found is None:
                return subjects
            page = found["aggregations"]["subjects"]
            subjects.extend(str(bucket["key"]["subject"]) for bucket in page["buckets"])
            after = page.get("after_key")
            if not page["buckets"] or after is None:
                return subjects

    def frontier(self, subject_id: str) -> str:
        hits = self._hits(frontier_query(self._tenant, subject_id), "read belief frontier")
        return str(hits[0]["_source"][SOURCE_ORDER]) if hits else ""

    def changed_since(self, subject_id: str, position: str, limit: int) -> list[Belief]:
        if limit <= 0:
            return []
        body = changed_query(self._tenant, subject_id, position, min(limit, MAX_HITS))
        hits = self._hits(body, "read belief changes")
        return [Belief.model_validate(hit["_source"]["belief"]) for hit in hits]

    def vector_coverage(self, subject_id: str) -> tuple[int, int]:
        every, with_vector = coverage_queries(self._tenant, subject_id)
        total = self._count(every, "count vector coverage")
        if total == 0:
            return 0, 0
        return total, self._count(with_vector, "count vector coverage")
