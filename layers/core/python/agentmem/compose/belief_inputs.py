"""The beliefs a composition was built on: those its assets cite, at the versions the assets
were written against (so an asset already stale makes the document stale too).

- A compose report built on beliefs is kept in the dependents index, so `GET` on it later says
  what changed since; one built on none can never go stale and is not kept.
- A retrieval cache entry records its inputs under a name derived from its key, and is served
  only while the index holds exactly those inputs, unmarked: a mark by the projector, or another
  process recording the same key at newer versions, makes it miss.

Both are kept for `ttl` (the setting `compose_report_ttl_days`), so they do not pile up: a report
then answers 404, and an entry still in some process's cache misses once its record is gone
(the record's absence reads as inputs that moved), so expiry never serves a stale document."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterable
from datetime import timedelta

from agentmem.compose.model import AssetHeader
from agentmem.compose.report import ComposeReport
from agentmem.model.dependents import BeliefUse, Staleness
from agentmem.ports.dependents import DependentsIndex
from agentmem.semantic.citations import asset_dependent

REPORT_PREFIX = "report:"


def report_dependent(report_id: str) -> str:
    return f"{REPORT_PREFIX}{report_id}"


def cache_dependent(key: object) -> str:
    return "cache:" + hashlib.sha256(repr(key).encode("utf-8")).hexdigest()[:32]


DEFAULT_TTL = timedelta(days=7)  # as long as the composer's conversation memory


class BeliefInputs:
    def __init__(self, index: DependentsIndex, ttl: timedelta = DEFAULT_TTL) -> None:
        self._index = index
        self._ttl = ttl

    def uses(self, assets: Iterable[AssetHeader]) -> tuple[BeliefUse, ...]:
        """The uses of the citing assets among `assets`, one per belief: the oldest version seen
        (and its staleness), since the document is as stale as its stalest part."""
        by_belief: dict[tuple[str, str, str], BeliefUse] = {}
        for asset in sorted({a.asset_id: a for a in assets if a.cites}.values(), key=lambda a: a.asset_id):
            for use in self._index.uses_of(asset_dependent(asset.asset_id)):
                kept = by_belief.get(use.key())
                if kept is None or (use.version, use.stale is None) < (kept.version, kept.stale is None):
                    by_belief[use.key()] = use
        return tuple(by_belief[k] for k in sorted(by_belief))

    def fresh(self, cache_key: object, uses: tuple[BeliefUse, ...]) -> bool:
        """Whether a cache entry built on `uses` may still be served."""
        return not uses or tuple(self._index.uses_of(cache_dependent(cache_key))) == uses

    def cached(self, cache_key: object, uses: tuple[BeliefUse, ...]) -> None:
        if uses:
            self._index.record(cache_dependent(cache_key), uses, ttl=self._ttl)

    def keep(self, report: ComposeReport, uses: tuple[BeliefUse, ...]) -> str | None:
        """Keep a report built on beliefs; returns its id (None: built on none, not kept)."""
        if not uses:
            return None
        report_id = f"rep_{uuid.uuid4().hex}"
        self._index.record(report_dependent(report_id), uses, body=report.model_dump_json(), ttl=self._ttl)
        return report_id

    def report(self, report_id: str) -> ComposeReport | None:
        """A kept report, with what changed under it since (None: no such report)."""
        body = self._index.body_of(report_dependent(report_id))
        if body is None:
            return None
        report = ComposeReport.model_validate_json(body)
        return report.model_copy(update={"stale": self._index.stale_of(report_dependent(report_id))})


def stale_of(uses: Iterable[BeliefUse]) -> list[Staleness]:
    return sorted((u.stale for u in uses if u.stale is not None), key=lambda s: s.belief)
