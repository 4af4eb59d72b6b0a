"""Generations of the OpenSearch belief index: aliases point readers at the active one, a replay
builds the next beside it, and `activate` moves both aliases in one call."""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from opensearchpy.exceptions import OpenSearchException, RequestError

from agentmem.adapters.aws.opensearch_belief_changes import MAPPING_UPDATE
from agentmem.adapters.aws.opensearch_beliefs import OpenSearchBeliefIndex
from agentmem.adapters.aws.opensearch_mappings import (
    Body,
    Refresh,
    belief_index_body,
    index_names,
    observation_index_body,
    terms,
    translate,
    translated,
)
from agentmem.errors import BackendUnavailableError

if TYPE_CHECKING:
    from opensearchpy import OpenSearch

logger = logging.getLogger(__name__)


def erasure_patterns(prefix: str) -> tuple[str, str]:
    """Every generation's indices, active or left behind by a replay."""
    return f"{prefix}-beliefs-g*", f"{prefix}-observations-g*"


def erasure_query(tenant_id: str, subject_id: str) -> Body:
    """Everything of one subject: chain and archived documents alike carry both fields."""
    return {"query": {"bool": {"filter": terms(tenant_id=tenant_id, subject_id=subject_id)}}}


class OpenSearchBeliefStore:
    """Generations as index pairs behind two aliases. `activate` moves both aliases in one
    `_aliases` call, which OpenSearch applies atomically, so readers never see a half-built tier."""

    def __init__(
        self,
        client: OpenSearch,
        tenant_id: str,
        *,
        prefix: str = "agentmem",
        dimensions: int,
        engine: str = "faiss",
        refresh: Refresh = "false",
    ) -> None:
        self._client = client
        self._tenant = tenant_id
        self._prefix = prefix
        self._index_body = belief_index_body(dimensions, engine)  # also refuses an unknown engine
        self._refresh: Refresh = refresh
        self._aliases = (f"{prefix}-beliefs", f"{prefix}-observations")
        self._generation_name = re.compile(re.escape(prefix) + r"-beliefs-g(\d+)")
        self._indexes: dict[int, OpenSearchBeliefIndex] = {}
        self._lock = threading.Lock()

    def _index(self, generation: int) -> OpenSearchBeliefIndex:
        with self._lock:
            index = self._indexes.get(generation)
            if index is None:
                index = OpenSearchBeliefIndex(
                    self._client, self._tenant, generation, prefix=self._prefix, refresh=self._refresh
                )
                self._indexes[generation] = index
            return index

    def _generations(self, names: Iterable[str]) -> list[int]:
        return [int(m.group(1)) for name in names if (m := self._generation_name.fullmatch(name))]

    def _alias_targets(self) -> dict[str, list[str]]:
        """alias -> the indices it names now; an alias that does not exist yet is absent."""
        with translated("resolve belief aliases"):
            found = self._client.indices.get_alias(name=",".join(self._aliases), ignore=404)
        targets: dict[str, list[str]] = {}
        for index_name, entry in found.items():
            if isinstance(entry, dict):  # a 404 body also carries "error" and "status" keys
                for alias in entry.get("aliases", {}):
                    targets.setdefault(alias, []).append(index_name)
        return targets

    def _create_generation(self, generation: int) -> None:
        beliefs, observations = index_names(self._prefix, generation)
        for name, body in ((beliefs, self._index_body), (observations, observation_index_body())):
            try:
                self._client.indices.create(index=name, body=body)
            except RequestError as exc:
                if exc.error != "resource_already_exists_exception":  # idempotent: another process won
                    raise translate(exc, f"create index {name}") from exc
            except OpenSearchException as exc:
                raise translate(exc, f"create index {name}") from exc

    def active(self) -> OpenSearchBeliefIndex:
        """The generation the alias names. Before `ensure_ready` there is none: generation 1,
        which reads as empty until a writer creates it. Never writes."""
        generations = self._generations(self._alias_targets().get(self._aliases[0], []))
        return self._index(max(generations, default=1))

    def ensure_ready(self) -> None:
        """A new deployment: create generation 1 and point both aliases at it. Idempotent, and
        safe for two writers at once (index creation and alias adds both are)."""
        targets = self._alias_targets()
        if self._generations(targets.get(self._aliases[0], [])):
            # A generation created before `source_order` was mapped: adding a field to a strict
            # mapping is allowed and idempotent, and the writer must do it before its first write.
            with translated("map source_order"):
                self._client.indices.put_mapping(index=self._aliases[0], body=MAPPING_UPDATE)
            return
        self._create_generation(1)
        self._point_aliases(1, targets)

    def new_generation(self) -> OpenSearchBeliefIndex:
        """Two replays started together get the same new generation; projection is idempotent,
        so they build the same state into it."""
        with translated("list belief generations"):
            existing = self._client.indices.get(index=f"{self._prefix}-beliefs-g*")
        generation = max(self._generations(list(existing)), default=0) + 1
        self._create_generation(generation)
        return self._index(generation)

    def generation(self, generation: int) -> OpenSearchBeliefIndex:
        return self._index(generation)

    def activate(self, generation: int) -> None:
        self._point_aliases(generation, self._alias_targets())

    def forget_subject(self, subject_id: str) -> int:
        """Delete the subject's documents from every generation's indices (chains, archived
        versions, observations), whichever the aliases name. A refresh first makes every
        acknowledged write visible to the delete; a document a concurrent writer changed
        meanwhile is a failure, so the erasure tier is retried rather than left half done."""
        removed = 0
        for pattern in erasure_patterns(self._prefix):
            with translated("erase subject"):
                self._client.indices.refresh(index=pattern, allow_no_indices=True, ignore_unavailable=True)
                found = self._client.delete_by_query(
                    index=pattern,
                    body=erasure_query(self._tenant, subject_id),
                    conflicts="proceed",
                    refresh=True,
                    allow_no_indices=True,
                    ignore_unavailable=True,
                )
            if found.get("failures") or found.get("version_conflicts"):
                raise BackendUnavailableError(
                    "erase subject: documents changed under the delete; run it again"
                )
            removed += int(found.get("deleted", 0))
        logger.info("subject erased from belief indices", extra={"prefix": self._prefix, "removed": removed})
        return removed

    def _point_aliases(self, generation: int, targets: dict[str, list[str]]) -> None:
        actions: list[dict[str, Any]] = []
        for alias, name in zip(self._aliases, index_names(self._prefix, generation), strict=True):
            actions += [
                {"remove": {"index": old, "alias": alias}} for old in targets.get(alias, []) if old != name
            ]
            actions.append({"add": {"index": name, "alias": alias}})
        with translated(f"activate belief generation {generation}"):
            self._client.indices.update_aliases(body={"actions": actions})
        logger.info("belief generation activated", extra={"generation": generation, "prefix": self._prefix})
