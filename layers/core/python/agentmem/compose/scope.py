"""A skill's scope, compiled once per call into one filter: the set of concrete asset ids it may see.

Globs match whole paths, segment by segment: `*` matches any run of characters inside one segment
(`dim_*`), `?` one character, and a segment that is exactly `**` matches zero or more whole
segments. Everything else is literal. Globs are expanded against the catalogue's real paths
before any fetch, so the filter every retrieval path shares is a closed list of ids:

- a rule that matches no real asset matches nothing: it fails closed, never open;
- a static id that names no asset adds nothing;
- exclusion wins over inclusion, static ids included (an author's exclude is a guardrail);
- deprecated assets drop out, and so does everything under a deprecated asset.
The same filter is applied again to results on the way out (`ScopeFilter.admits`), because
traversals such as orphan repair and relatives expansion pull in neighbours.

The filter is the same for every caller; what it reports is counted per caller: each match is
kept by the Readers of the asset it matched (access.Readers), so a report counts only the assets
the caller may read and never reveals how many hidden ones a rule matched."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from agentmem.access import Caller, Lineage, Readers, may_read_all
from agentmem.compose.model import AssetHeader, Scope
from agentmem.errors import InvalidInputError

GLOB_SEGMENT = re.compile(r"^[A-Za-z0-9_.\-*?]{1,128}$")


def _segment_regex(segment: str) -> str:
    if segment == "**":
        return "(?:[^/]+/)*"
    if "**" in segment:
        raise ValueError(f"`**` must be a whole segment, not part of {segment!r}")
    out = "".join("[^/]*" if ch == "*" else "[^/]" if ch == "?" else re.escape(ch) for ch in segment)
    return "(?=[^/])" + out + "/"  # a segment is never empty


@lru_cache(maxsize=4096)
def compile_glob(glob: str) -> re.Pattern[str]:
    """The regex of one glob; ValueError says what is malformed."""
    if not glob or glob.startswith("/") or glob.endswith("/"):
        raise ValueError("a glob is a relative path: no leading or trailing `/`, not empty")
    segments = glob.split("/")
    for segment in segments:
        if not GLOB_SEGMENT.match(segment):
            raise ValueError(f"segment {segment!r} may hold only letters, digits, `_.-` and `*`, `?`")
        if segment in (".", ".."):
            raise ValueError("`.` and `..` segments are not allowed")
    # Matched against `path + "/"`: each segment consumes its trailing `/`, so `a/**` matches `a`
    # and everything below it, and `**/x` matches `x` at any depth.
    return re.compile("^" + "".join(_segment_regex(s) for s in segments) + "$")


def _matches(pattern: re.Pattern[str], path: str) -> bool:
    return pattern.match(path + "/") is not None  # every segment pattern consumes its `/`


def validate_scope(scope: Scope) -> None:
    """Raise InvalidInputError naming the field for a malformed glob or a scope with no rules."""
    if not scope.include and not scope.static_ids:
        raise InvalidInputError(
            "a scope needs at least one include glob or static id; an empty scope would match nothing",
            field="scope",
        )
    for name, globs in (("include", scope.include), ("exclude", scope.exclude)):
        for i, glob in enumerate(globs):
            try:
                compile_glob(glob)
            except ValueError as exc:
                raise InvalidInputError(
                    f"malformed glob {glob!r}: {exc}", field=f"scope.{name}[{i}]"
                ) from exc


Tally = Mapping[Readers, int]
"""Assets counted by their Readers: the count one caller may see is a sum over a handful of keys."""


def visible_count(tally: Tally, caller: Caller) -> int:
    return sum(n for readers, n in tally.items() if may_read_all(caller, readers))


@dataclass(frozen=True)
class RuleMatch:
    rule: str
    tally: Tally

    @property
    def matched(self) -> int:
        return sum(self.tally.values())


@dataclass(frozen=True)
class ScopeFilter:
    """The compiled scope: the ids a skill may see now, and how each rule fared."""

    ids: frozenset[str]
    rules: tuple[RuleMatch, ...]
    excluded_tally: Tally
    deprecated_tally: Tally
    revision: int = field(compare=False)
    """The catalogue revision it was resolved at."""
    freshness: int = field(compare=False)
    """The highest change_seq among `ids`: moves whenever anything in the scope changes."""

    @property
    def key(self) -> str:
        """A short stable hash of the id set, for cache keys."""
        return hashlib.sha256("\n".join(sorted(self.ids)).encode()).hexdigest()[:16]

    def admits(self, asset_id: str) -> bool:
        return asset_id in self.ids

    @property
    def excluded(self) -> int:
        return sum(self.excluded_tally.values())

    @property
    def deprecated(self) -> int:
        return sum(self.deprecated_tally.values())

    @property
    def empty_rules(self) -> list[str]:
        """Rules that matched nothing in the whole catalogue."""
        return [r.rule for r in self.rules if r.matched == 0]

    def rules_seen_by(self, caller: Caller) -> dict[str, int]:
        """Each rule's matches among the assets the caller may read."""
        return {r.rule: visible_count(r.tally, caller) for r in self.rules}


def resolve_scope(
    scope: Scope,
    headers: Sequence[AssetHeader],
    revision: int,
    lineage: Lineage[AssetHeader] | None = None,
) -> ScopeFilter:
    """Expand the scope against the catalogue's headers (all of them: the hierarchy needs every
    ancestor) into a closed id set. `lineage` is those headers' Lineage, when already built."""
    validate_scope(scope)
    lineage = lineage or Lineage(headers)
    dead = lineage.deprecated()
    includes = [(g, compile_glob(g)) for g in scope.include]
    excludes = [compile_glob(g) for g in scope.exclude]
    counts: dict[str, Counter[Readers]] = {f"include:{g}": Counter() for g in scope.include}
    counts.update({f"static:{i}": Counter() for i in scope.static_ids})
    statics = set(scope.static_ids)
    ids: set[str] = set()
    excluded: Counter[Readers] = Counter()
    deprecated: Counter[Readers] = Counter()
    freshness = 0
    for header in headers:
        hits = [f"include:{glob}" for glob, pattern in includes if _matches(pattern, header.path)]
        if header.asset_id in statics:
            hits.append(f"static:{header.asset_id}")
        if not hits:
            continue
        readers = lineage.readers(header.asset_id)
        for rule in hits:
            counts[rule][readers] += 1
        if any(_matches(p, header.path) for p in excludes):
            excluded[readers] += 1
        elif header.asset_id in dead:
            deprecated[readers] += 1
        else:
            ids.add(header.asset_id)
            freshness = max(freshness, header.change_seq)
    return ScopeFilter(
        ids=frozenset(ids),
        rules=tuple(RuleMatch(rule, dict(tally)) for rule, tally in counts.items()),
        excluded_tally=dict(excluded),
        deprecated_tally=dict(deprecated),
        revision=revision,
        freshness=freshness,
    )
