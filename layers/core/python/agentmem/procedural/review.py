"""Review: an explicit, human-triggered write-up of a session into draft skills.

Skills are never harvested from runs: nothing here runs on its own, and everything it writes is a
draft, which search never returns until someone approves it (`POST /v1/functions/{id}/approve`).

The reviewer (the LLM port: rules locally, Bedrock on AWS) only proposes *named* procedures from the
session's events. This service turns names into ids and writes them, so the two adapters share
every rule about ids, links and what may be written:

- ids are `{slug of the name or title}.{session}`; the same session reviewed twice proposes the same
  ids, and an id already in the library is never overwritten (a second review changes nothing);
- functions are written first, in dependency order, then guidance that points at them by id;
- a function's `calls` and a guidance's `uses` name functions of the same proposal, or existing
  library functions by id; any other name is dropped, and the response says so;
- a call that would close a dependency cycle is dropped, for the same reason."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from typing import Protocol

from pydantic import BaseModel, Field

from agentmem.episodic.service import EpisodicService
from agentmem.errors import InvalidInputError, NotFoundError
from agentmem.model.common import Identifier
from agentmem.model.events import Event
from agentmem.ports.procedural import SkillLibrary, SkillReviewer
from agentmem.procedural.model import (
    Function,
    FunctionSpec,
    Guidance,
    GuidanceSpec,
    ProposedFunction,
    ProposedGuidance,
    SkillStatus,
)

REVIEWED_KINDS = frozenset({"code", "procedure"})
MAX_EVENTS = 2000
ID_MAX = 128
_SLUG = re.compile(r"[^A-Za-z0-9_]+")


class ReviewRequest(BaseModel):
    session_id: Identifier


class ReviewNote(BaseModel):
    item: str = Field(description="What the note is about: an id, or a name the proposal used.")
    reason: str


class ReviewResponse(BaseModel):
    """The drafts this review wrote (functions first), and what it left out and why."""

    session_id: str
    events_read: int
    functions: list[Function]
    guidance: list[Guidance]
    notes: list[ReviewNote] = Field(default_factory=list)


def proposal_id(label: str, session_id: str) -> str:
    """`{slug}.{session}`, kept within the id limit by hashing the session when it must."""
    slug = _SLUG.sub("_", label).strip("_")[:60] or "skill"
    suffix = session_id
    if len(slug) + 1 + len(suffix) > ID_MAX:
        suffix = hashlib.sha256(session_id.encode()).hexdigest()[:16]
    return f"{slug}.{suffix}"


class ReviewService:
    def __init__(self, episodic: EpisodicService, library: SkillLibrary, reviewer: SkillReviewer) -> None:
        self._episodic = episodic
        self._library = library
        self._reviewer = reviewer

    def _events(self, session_id: str) -> list[Event]:
        events: list[Event] = []
        after = 0
        while len(events) < MAX_EVENTS:
            page = self._episodic.list_events(session_id, after=after, limit=500)
            # Blobs are read only for the kinds a reviewer reads: code may well be offloaded.
            events += [self._episodic.resolve_blob(e) if e.kind in REVIEWED_KINDS else e for e in page.items]
            if page.next is None:
                break
            after = int(page.next)
        if not events:
            raise NotFoundError(f"session {session_id!r} has no events to review", field="session_id")
        return events

    def _exists(self, function_id: str) -> bool:
        try:
            self._library.get_function(function_id)
        except NotFoundError:
            return False
        return True

    def review(self, request: ReviewRequest) -> ReviewResponse:
        session_id = request.session_id
        events = self._events(session_id)
        proposals = self._reviewer.propose_skills(events)
        notes: list[ReviewNote] = []
        # The last write-up of a name in the session is the one proposed: later code is a rewrite.
        by_name = {p.name: p for p in proposals.functions}
        ids = {name: proposal_id(name, session_id) for name in by_name}

        def resolve(name: str) -> str | None:
            if name in ids:
                return ids[name]
            if self._exists(name):
                return name
            notes.append(ReviewNote(item=name, reason="names no function of this session or the library"))
            return None

        depends = {name: _present(resolve(c) for c in p.calls if c != name) for name, p in by_name.items()}
        written: list[Function] = []
        for name in _dependency_order(by_name, ids, depends, notes):
            proposal, function_id = by_name[name], ids[name]
            if self._exists(function_id):
                notes.append(ReviewNote(item=function_id, reason="already in the library; left as it is"))
                continue
            spec = FunctionSpec(
                function_id=function_id,
                name=proposal.name,
                signature=proposal.signature[:2000],
                docstring=proposal.docstring[:20_000],
                implementation=proposal.implementation,
                language=proposal.language[:40] or "python",
                depends_on=[d for d in depends[name] if self._exists(d)],
                tags=proposal.tags,
                status=SkillStatus.DRAFT,
                author=f"review:{session_id}",
            )
            try:
                spec.check_size()
            except InvalidInputError as exc:
                notes.append(ReviewNote(item=function_id, reason=str(exc)))
                continue
            written.append(self._library.put_function(spec))
        guidance = [g for g in self._write_guidance(proposals.guidance, session_id, resolve, notes) if g]
        return ReviewResponse(
            session_id=session_id,
            events_read=len(events),
            functions=written,
            guidance=guidance,
            notes=notes,
        )

    def _write_guidance(
        self,
        proposed: Sequence[ProposedGuidance],
        session_id: str,
        resolve: _Resolver,
        notes: list[ReviewNote],
    ) -> list[Guidance | None]:
        out: list[Guidance | None] = []
        for proposal in proposed:
            guidance_id = proposal_id(proposal.title, session_id)
            try:
                self._library.get_guidance(guidance_id)
                notes.append(ReviewNote(item=guidance_id, reason="already in the library; left as it is"))
                continue
            except NotFoundError:
                pass
            function_ids = [f for f in _present(resolve(u) for u in proposal.uses) if self._exists(f)]
            out.append(
                self._library.put_guidance(
                    GuidanceSpec(
                        guidance_id=guidance_id,
                        title=proposal.title,
                        content=proposal.content[:200_000],
                        function_ids=function_ids,
                        tags=proposal.tags,
                        status=SkillStatus.DRAFT,
                        author=f"review:{session_id}",
                    )
                )
            )
        return out


class _Resolver(Protocol):
    def __call__(self, name: str) -> str | None: ...


def _present(ids: Iterable[str | None]) -> list[str]:
    """The resolved ids, unresolved ones left out, each once in first-seen order."""
    return list(dict.fromkeys(i for i in ids if i is not None))


def _dependency_order(
    by_name: dict[str, ProposedFunction],
    ids: dict[str, str],
    depends: dict[str, list[str]],
    notes: list[ReviewNote],
) -> list[str]:
    """Names in an order where every in-proposal dependency comes first (depth-first, in the
    order proposed). An edge back onto the current path would close a cycle: it is dropped."""
    name_of = {function_id: name for name, function_id in ids.items()}
    order: list[str] = []
    done: set[str] = set()

    def visit(name: str, path: list[str]) -> None:
        if name in done:
            return
        for dep_id in list(depends[name]):
            dep = name_of.get(dep_id)
            if dep is None:
                continue
            if dep in path or dep == name:
                depends[name].remove(dep_id)
                notes.append(ReviewNote(item=ids[name], reason=f"call to {dep} dropped: it closes a cycle"))
                continue
            visit(dep, [*path, name])
        done.add(name)
        order.append(name)

    for name in by_name:
        visit(name, [])
    return order
