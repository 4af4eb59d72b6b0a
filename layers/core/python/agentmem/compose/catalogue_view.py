"""The catalogue's shape at one revision, built from its headers once and cached by revision:
paths, the hierarchy (each asset's nearest existing ancestor, and its lineage for the access
rule), and a name table that maps a name as people write it (`net revenue`, `dim_customers`,
`fct_orders`) to asset ids."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from agentmem.access import Caller, Lineage
from agentmem.compose.cache import Lru
from agentmem.compose.model import AssetHeader

VERSION_SUFFIX = re.compile(r"_v\d+$")
NON_WORD = re.compile(r"[^a-z0-9]+")
WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_]*")


def name_key(text: str) -> str:
    """`Net Revenue`, `net-revenue` and `net_revenue` all become `net_revenue`."""
    return NON_WORD.sub("_", text.lower()).strip("_")


class CatalogueView:
    def __init__(self, headers: Sequence[AssetHeader], revision: int) -> None:
        self.revision = revision
        self.by_id = {h.asset_id: h for h in headers}
        by_path = {h.path: h.asset_id for h in headers}
        self.by_path = {h.path: h for h in headers}
        self._parent: dict[str, str] = {}
        self._children: dict[str, list[str]] = {}
        self._depth: dict[str, int] = {}
        self._names: dict[str, list[str]] = {}
        self._object_names: dict[str, list[str]] = {}
        self.lineage: Lineage[AssetHeader] = Lineage(headers)
        self._readable: Lru[frozenset[str]] = Lru(16)
        for h in headers:
            segments = h.path.split("/")
            self._depth[h.asset_id] = len(segments)
            for cut in range(len(segments) - 1, 0, -1):
                ancestor = by_path.get("/".join(segments[:cut]))
                if ancestor is not None:
                    self._parent[h.asset_id] = ancestor
                    self._children.setdefault(ancestor, []).append(h.asset_id)
                    break
            names = {name_key(segments[-1]), name_key(h.title)}
            names |= {VERSION_SUFFIX.sub("", n) for n in names}
            for name in sorted(n for n in names if n):
                self._names.setdefault(name, []).append(h.asset_id)
                if len(segments) == 3 and "_" in name:  # objects with compound names: tables, metrics
                    self._object_names.setdefault(name, []).append(h.asset_id)

    def ancestors(self, path: str) -> list[AssetHeader]:
        """The assets above `path`, nearest first (the access rule's lineage)."""
        return self.lineage.ancestors(path)

    def readable(self, caller: Caller) -> frozenset[str]:
        """Ids the caller may read along the hierarchy, deprecation aside; kept per principal set."""
        key = tuple(sorted(caller.principals))
        found = self._readable.get(key)
        if found is None:
            found = self.lineage.readable(caller)
            self._readable.put(key, found)
        return found

    def deprecated(self) -> frozenset[str]:
        """Ids deprecated themselves or under a deprecated ancestor."""
        return self.lineage.deprecated()

    def named(self, entity: str) -> list[str]:
        return self._names.get(name_key(entity), [])

    def parent(self, asset_id: str) -> str | None:
        return self._parent.get(asset_id)

    def children(self, asset_id: str) -> list[str]:
        return self._children.get(asset_id, [])

    def depth(self, asset_id: str) -> int:
        return self._depth.get(asset_id, 0)

    def selection(self, asset_id: str) -> str:
        """The first two levels of its path (integration/selection), whether or not an asset."""
        return "/".join(self.by_id[asset_id].path.split("/")[:2])

    def objects_named_in(self, texts: Iterable[str]) -> list[str]:
        """Object-level assets whose compound name appears as a word in any of `texts`."""
        found: list[str] = []
        for text in texts:
            for word in WORD.findall(text):
                key = word.lower()
                found += self._object_names.get(key, [])
                if (bare := VERSION_SUFFIX.sub("", key)) != key:
                    found += self._object_names.get(bare, [])
        return list(dict.fromkeys(found))
