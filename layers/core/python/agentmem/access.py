"""Who may read and write what: the one authorization rule every route answers to (docs/access.md).

A caller is its principals (from the auth context, never the request body; everyone also holds
`everyone`) and a role, `reader` or `writer`.

- Reading an asset needs one of its principals, and one of each of its ancestors' principals: an
  asset's ancestors are the assets at the proper prefixes of its path
  (`warehouse/analytics/customers_v2` is above `warehouse/analytics/customers_v2/columns/id`).
  What a caller may not read is answered as absent (404), never as forbidden, so it does not leak.
- An asset is deprecated when it, or any ancestor, is. Readers never see a deprecated asset; a
  writer still may (to edit or restore it), and compose never does.
- Appending events to the episodic log is open to every caller the tenant admits, on every
  transport (`may_append_events`): it is what every agent does with its own output.
- Writing authored knowledge (assets, composer skills, functions, guidance), reviewing a session
  into drafts and erasing need the writer role. A writer may replace or delete only an asset it
  may read, and may write an asset only as one it can still read afterwards: so a writer cannot
  widen the readers of something it cannot see, nor lose it.

Pure: no Powertools, no adapters; the API resolves the Caller, the domain applies these rules."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, Literal, Protocol, TypeVar

from agentmem.errors import ForbiddenError

EVERYONE = "everyone"
Role = Literal["reader", "writer"]
READER: Role = "reader"
WRITER: Role = "writer"


@dataclass(frozen=True)
class Caller:
    principals: frozenset[str]
    role: Role = READER

    @classmethod
    def of(cls, principals: Iterable[str], role: Role = READER) -> Caller:
        return cls(frozenset(principals) | {EVERYONE}, role)

    @property
    def is_writer(self) -> bool:
        return self.role == WRITER

    def shares(self, principals: Collection[str]) -> bool:
        return not self.principals.isdisjoint(principals)


class Governed(Protocol):
    """What the rule reads of an asset: its header fields (AssetHeader and Asset both have them)."""

    @property
    def asset_id(self) -> str: ...
    @property
    def path(self) -> str: ...
    @property
    def principals(self) -> Collection[str]: ...
    @property
    def deprecated(self) -> bool: ...


def ancestor_paths(path: str) -> list[str]:
    """The proper prefixes of `path`, segment by segment, nearest first."""
    segments = path.split("/")
    return ["/".join(segments[:cut]) for cut in range(len(segments) - 1, 0, -1)]


def may_read(caller: Caller, asset: Governed, ancestors: Iterable[Governed]) -> bool:
    """One of the asset's principals, and one of every ancestor's: deprecation aside."""
    return caller.shares(asset.principals) and all(caller.shares(a.principals) for a in ancestors)


def deprecated_by(asset: Governed, ancestors: Iterable[Governed]) -> Governed | None:
    """The asset itself if deprecated, else its nearest deprecated ancestor, else None."""
    if asset.deprecated:
        return asset
    return next((a for a in ancestors if a.deprecated), None)


def may_see(caller: Caller, asset: Governed, ancestors: Sequence[Governed]) -> bool:
    """What `GET /v1/assets/{id}` answers: readable, and not deprecated unless the caller writes."""
    return may_read(caller, asset, ancestors) and (
        caller.is_writer or deprecated_by(asset, ancestors) is None
    )


def may_append_events(caller: Caller) -> bool:
    """Who may append to the episodic log: every caller the tenant admits, whatever its role. The
    HTTP route and the MCP server (its tool list and its calls) both answer with this, so one
    caller gets one answer on every transport. An agent appends its own output on every step,
    and the log is raw evidence that only the projector distils; the writer role guards what is
    authored instead (assets, composer skills, functions, guidance), which a run never writes.
    An identity that must not append is kept out before it reaches the tenant (IAM, or no API
    key) or given an MCP server started --read-only (docs/access.md)."""
    return True


def require_may_append_events(caller: Caller) -> None:
    """ForbiddenError unless `may_append_events` lets the caller append."""
    if not may_append_events(caller):
        principals = ", ".join(sorted(caller.principals))
        raise ForbiddenError(
            f"appending events is not open to this caller (principals: {principals}); see docs/access.md"
        )


def require_writer(caller: Caller, action: str) -> None:
    """ForbiddenError unless the caller holds the writer role."""
    if not caller.is_writer:
        raise ForbiddenError(
            f"{action} needs the writer role; this caller is a reader (principals: "
            f"{', '.join(sorted(caller.principals))}). A caller is a writer when its authorizer says "
            "role=writer or it holds one of AGENTMEM_WRITER_PRINCIPALS (see docs/access.md)"
        )


G = TypeVar("G", bound=Governed)
Readers = frozenset[frozenset[str]]
"""The principal sets along an asset's lineage, its own included: a caller may read the asset when
it shares a principal with each. Few distinct values exist in a catalogue, so they are interned."""


def may_read_all(caller: Caller, readers: Readers) -> bool:
    return all(caller.shares(principals) for principals in readers)


class Lineage(Generic[G]):
    """The hierarchy of one catalogue revision, indexed by path: every asset's ancestors, its
    Readers, and the ids a caller may read or that are deprecated, over the whole catalogue.
    Two assets may share a path; each then governs the other's descendants (fail closed)."""

    def __init__(self, headers: Iterable[G]) -> None:
        self._at: dict[str, list[G]] = {}
        for header in headers:
            self._at.setdefault(header.path, []).append(header)
        # Depth order, so the nearest path above that holds an asset is always done first.
        by_depth: dict[int, list[str]] = {}
        for path in self._at:
            by_depth.setdefault(path.count("/"), []).append(path)
        paths = [p for depth in sorted(by_depth) for p in by_depth[depth]]
        # Built once per catalogue revision over every asset: each distinct principal set, prefix
        # and (inherited, own) pair is computed once, so the cost stays a dict lookup per asset.
        nearest: dict[str, str | None] = {}  # a prefix -> the nearest path at or above it with assets

        def at_or_above(prefix: str) -> str | None:
            if prefix in self._at:
                return prefix
            if prefix not in nearest:
                nearest[prefix] = at_or_above(prefix.rsplit("/", 1)[0]) if "/" in prefix else None
            return nearest[prefix]

        self._above = {p: at_or_above(p.rsplit("/", 1)[0]) if "/" in p else None for p in paths}
        sets: dict[tuple[str, ...], frozenset[str]] = {}
        joined: dict[tuple[Readers, frozenset[str]], Readers] = {}

        def join(inherited: Readers, principals: frozenset[str]) -> Readers:
            key = (inherited, principals)
            found = joined.get(key)
            if found is None:
                found = joined[key] = inherited | {principals}
            return found

        below: dict[str, Readers] = {}  # path -> the readers every descendant of it inherits
        dead: dict[str, bool] = {}  # path -> an asset at it or above it is deprecated
        self._readers: dict[str, Readers] = {}
        deprecated: set[str] = set()
        for path in paths:
            up = self._above[path]
            inherited = below[up] if up is not None else frozenset()
            dead_above = up is not None and dead[up]
            below_here = inherited
            dying = dead_above
            for asset in self._at[path]:
                key = tuple(asset.principals)
                principals = sets.get(key)
                if principals is None:
                    principals = sets[key] = frozenset(key)
                self._readers[asset.asset_id] = join(inherited, principals)
                below_here = join(below_here, principals)
                dying = dying or asset.deprecated
                if asset.deprecated or dead_above:
                    deprecated.add(asset.asset_id)
            below[path], dead[path] = below_here, dying
        self._deprecated = frozenset(deprecated)

    def ancestors(self, path: str) -> list[G]:
        """The assets above `path`, nearest first."""
        return [a for p in ancestor_paths(path) for a in self._at.get(p, ())]

    def readers(self, asset_id: str) -> Readers:
        """The asset's Readers; an unknown id has none that any caller could satisfy."""
        return self._readers.get(asset_id, frozenset({frozenset()}))

    def readable(self, caller: Caller) -> frozenset[str]:
        """Every asset id the caller may read, deprecation aside."""
        verdicts: dict[Readers, bool] = {}
        readable: list[str] = []
        for asset_id, readers in self._readers.items():
            verdict = verdicts.get(readers)
            if verdict is None:
                verdict = verdicts[readers] = may_read_all(caller, readers)
            if verdict:
                readable.append(asset_id)
        return frozenset(readable)

    def deprecated(self) -> frozenset[str]:
        """Every asset id deprecated itself or under a deprecated ancestor."""
        return self._deprecated


def check_asset_write(
    caller: Caller,
    written: Sequence[Governed],
    stored: Mapping[str, Governed],
    lineage: Lineage[G],
) -> None:
    """ForbiddenError naming the asset unless the caller may write every one of `written`:
    a writer, able to read each asset it replaces (`stored`, by id, as the catalogue holds them
    in `lineage`) and each asset as it will stand after the write, ancestors written in the same
    batch included."""
    require_writer(caller, "writing assets")
    replaced = {a.asset_id for a in written}
    for i, asset in enumerate(written):
        before = stored.get(asset.asset_id)
        if before is not None and not may_read(caller, before, lineage.ancestors(before.path)):
            raise ForbiddenError(
                f"asset_id {asset.asset_id!r} is taken by an asset this caller may not read; a writer "
                "may replace only assets it can read",
                field=f"assets[{i}].asset_id",
            )
        prefixes = set(ancestor_paths(asset.path))
        after: list[Governed] = [a for a in lineage.ancestors(asset.path) if a.asset_id not in replaced]
        after += [w for w in written if w.path in prefixes]
        if not may_read(caller, asset, after):
            raise ForbiddenError(
                f"asset {asset.asset_id!r} would not be readable by this caller once written: hold one "
                "of its principals and one of each ancestor's",
                field=f"assets[{i}].principals",
            )
