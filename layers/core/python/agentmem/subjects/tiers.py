"""Erasure tiers that need no backend of their own: review drafts, conversations, caches."""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import partial

from agentmem.context.session_window import SessionWindows
from agentmem.errors import ConflictError, NotFoundError
from agentmem.ports.catalogue import ConversationMemory
from agentmem.ports.procedural import StampedLibrary
from agentmem.procedural.model import Function, Guidance, SkillStatus
from agentmem.subjects.model import Footprint

logger = logging.getLogger(__name__)


def forget_review_drafts(library: StampedLibrary, footprint: Footprint) -> int:
    """Delete the drafts a review wrote from the subject's sessions (`author=review:<session>`):
    they quote its events. An approved skill is authored knowledge someone signed off, so it
    stays. Guidance goes first, then functions, a function only once nothing depends on it."""
    authors = {f"review:{session}" for session in footprint.sessions}
    if not authors:
        return 0
    drafts: list[Function | Guidance] = []
    for kind, skill_id, status, _ in library.stamps():
        if status != SkillStatus.DRAFT:
            continue
        try:
            item = library.get_function(skill_id) if kind == "function" else library.get_guidance(skill_id)
        except NotFoundError:
            continue  # deleted meanwhile
        if item.author in authors:
            drafts.append(item)
    removed = 0
    for guidance in [d for d in drafts if isinstance(d, Guidance)]:
        removed += _deleted(partial(library.delete_guidance, guidance.guidance_id))
    functions = [d for d in drafts if isinstance(d, Function)]
    while functions:
        # A draft another draft depends on goes in a later pass; one nothing lets go is left.
        left = [f for f in functions if not _deleted(partial(library.delete_function, f.function_id))]
        removed += len(functions) - len(left)
        if len(left) == len(functions):
            logger.warning("review drafts kept: other functions depend on them", extra={"kept": len(left)})
            raise ConflictError("review drafts are depended on by functions outside the erasure")
        functions = left
    return removed


def _deleted(delete: Callable[[], None]) -> bool:
    try:
        delete()
    except NotFoundError:
        return True  # gone already: a repeat
    except ConflictError:
        return False
    return True


def forget_conversations(memory: ConversationMemory, footprint: Footprint) -> int:
    """The composer's memory of what a conversation was sent holds asset ids and content hashes,
    never anything about a subject. A conversation named like one of the subject's sessions
    (agents often reuse the session id) is deleted all the same: its id links it to them."""
    return memory.forget(footprint.sessions)


def clear_caches(windows: SessionWindows | None, footprint: Footprint) -> int:
    """This process's caches that may hold a subject's words: the context reads' session windows
    (events with their term statistics). Belief vectors cached per subject are dropped by the
    belief store's own forget; other processes' windows age out (`MAX_AGE_SECONDS`) and re-read
    the log, which no longer holds the subject."""
    return windows.forget_subject(footprint.subject_id) if windows is not None else 0
