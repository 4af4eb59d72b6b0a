"""Generations of the OpenSearch events index: an alias points readers at the active one, the
projector writes the generation numbered like the belief generation it projects into, and replay
moves the alias in one `_aliases` call, which OpenSearch applies atomically."""

from __future__ import annotations

import logging
import re
import threading
from typing import TYPE_CHECKING, Any

from opensearchpy.exceptions import OpenSearchException, RequestError

from agentmem.adapters.aws.opensearch_mappings import Refresh, translate, translated
from agentmem.adapters.aws.opensearch_passages import (
    OpenSearchPassageIndex,
    erase,
    events_index_body,
    events_index_name,
)

if TYPE_CHECKING:
    from opensearchpy import OpenSearch

logger = logging.getLogger(__name__)


class OpenSearchPassageStore:
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
        self._body = events_index_body(dimensions, engine)
        self._refresh: Refresh = refresh
        self._alias = f"{prefix}-events"
        self._generation_name = re.compile(re.escape(prefix) + r"-events-g(\d+)")
        self._indexes: dict[int, OpenSearchPassageIndex] = {}
        self._created: set[int] = set()  # created (or found) by this process: a write never re-checks
        self._lock = threading.Lock()

    def _index(self, generation: int) -> OpenSearchPassageIndex:
        with self._lock:
            index = self._indexes.get(generation)
            if index is None:
                index = self._indexes[generation] = OpenSearchPassageIndex(
                    self._client, self._tenant, generation, prefix=self._prefix, refresh=self._refresh
                )
            return index

    def _alias_targets(self) -> list[str]:
        with translated("resolve the events alias"):
            found = self._client.indices.get_alias(name=self._alias, ignore=404)
        return [name for name, entry in found.items() if isinstance(entry, dict) and "aliases" in entry]

    def _generations(self, names: list[str]) -> list[int]:
        return [int(m.group(1)) for name in names if (m := self._generation_name.fullmatch(name))]

    def active(self) -> OpenSearchPassageIndex:
        """The generation the alias names; without one, generation 1 (empty until written)."""
        return self._index(max(self._generations(self._alias_targets()), default=1))

    def generation(self, generation: int) -> OpenSearchPassageIndex:
        """Create the generation's index once per process (idempotent across processes); on a new
        deployment, the first generation written also gets the alias."""
        if generation not in self._created:
            name = events_index_name(self._prefix, generation)
            try:
                self._client.indices.create(index=name, body=self._body)
            except RequestError as exc:
                if exc.error != "resource_already_exists_exception":
                    raise translate(exc, f"create index {name}") from exc
            except OpenSearchException as exc:
                raise translate(exc, f"create index {name}") from exc
            if not self._alias_targets():
                self.activate(generation)
            self._created.add(generation)
        return self._index(generation)

    def activate(self, generation: int) -> None:
        name = events_index_name(self._prefix, generation)
        actions: list[dict[str, Any]] = [
            {"remove": {"index": old, "alias": self._alias}} for old in self._alias_targets() if old != name
        ]
        actions.append({"add": {"index": name, "alias": self._alias}})
        with translated(f"activate passage generation {generation}"):
            self._client.indices.update_aliases(body={"actions": actions})
        logger.info("passage generation activated", extra={"generation": generation, "prefix": self._prefix})

    def copy_other_subjects(self, source: int, target: int, subject_id: str) -> None:
        self.generation(target)
        body = {
            "source": {
                "index": events_index_name(self._prefix, source),
                "query": {
                    "bool": {
                        "filter": [{"term": {"tenant_id": self._tenant}}],
                        "must_not": [{"term": {"subject_id": subject_id}}],
                    }
                },
            },
            "dest": {"index": events_index_name(self._prefix, target), "op_type": "create"},
            "conflicts": "proceed",
        }
        with translated("copy passages into a new generation"):
            self._client.reindex(body=body, refresh=True)

    def erase_subject(self, subject_id: str) -> int:
        """Every generation at once: the pattern names them all, created or not."""
        return erase(self._client, f"{self._prefix}-events-g*", self._tenant, subject_id)
