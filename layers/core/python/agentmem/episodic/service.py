"""Write and read the episodic log: blob offload, idempotent appends, paged reads."""

from __future__ import annotations

import hashlib
import json
import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from agentmem.errors import ConflictError, PayloadTooLargeError
from agentmem.model.events import (
    AppendEventRequest,
    AppendOutcome,
    BlobRef,
    Event,
    EventContent,
    EventDraft,
    EventPage,
    encode_content,
)
from agentmem.ports.blobs import BlobStore
from agentmem.ports.log import EventLog

logger = logging.getLogger(__name__)

PREVIEW_CHARS = 280
MAX_PAGE = 1000


def utc_now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def new_event_id() -> str:
    return f"ev_{uuid.uuid4().hex}"


def request_fingerprint(session_id: str, request: AppendEventRequest) -> str:
    """Hash of everything a retry must repeat; a reused idempotency key with another body is a conflict."""
    canonical = request.model_dump_json(exclude={"idempotency_key"}).encode("utf-8")
    return hashlib.sha256(session_id.encode("utf-8") + b"\x00" + canonical).hexdigest()


def make_preview(data: bytes) -> str:
    text = data[: PREVIEW_CHARS * 4].decode("utf-8", errors="ignore")
    return text[:PREVIEW_CHARS]


@dataclass(frozen=True)
class EpisodicLimits:
    inline_max_bytes: int
    max_request_bytes: int


class EpisodicService:
    """Appends go blob-first, then one atomic log write, so a failed append leaves no event behind
    (at worst an orphan content-addressed blob, which a later equal payload reuses)."""

    def __init__(
        self,
        log: EventLog,
        blobs: BlobStore,
        limits: EpisodicLimits,
        *,
        clock: Callable[[], str] = utc_now_iso,
        id_factory: Callable[[], str] = new_event_id,
    ) -> None:
        self._log = log
        self._blobs = blobs
        self._limits = limits
        self._clock = clock
        self._id_factory = id_factory

    def append(self, session_id: str, request: AppendEventRequest) -> AppendOutcome:
        data = encode_content(request.content)
        if len(data) > self._limits.max_request_bytes:
            raise PayloadTooLargeError(
                f"content is {len(data)} bytes; the limit is {self._limits.max_request_bytes} bytes",
                field="content",
                limit_bytes=self._limits.max_request_bytes,
            )
        media_type = request.default_media_type()
        fingerprint = request_fingerprint(session_id, request)
        blob: BlobRef | None = None
        content: EventContent | None = request.content
        if len(data) > self._limits.inline_max_bytes:
            digest = hashlib.sha256(data).hexdigest()
            uri = self._blobs.put(data, sha256=digest, media_type=media_type)
            blob = BlobRef(
                uri=uri, bytes=len(data), sha256=digest, media_type=media_type, preview=make_preview(data)
            )
            content = None
        draft = EventDraft(
            event_id=self._id_factory(),
            session_id=session_id,
            subject_id=request.subject_id,
            round=request.round,
            agent=request.agent,
            kind=request.kind,
            media_type=media_type,
            content=content,
            blob=blob,
            idempotency_key=request.idempotency_key,
            facts=request.facts,
            request_hash=fingerprint,
            created_at=self._clock(),
        )
        outcome = self._log.append(draft)
        if blob is not None and outcome.created and not self._blobs.exists(blob.sha256):
            # An erasure or retention sweep removed this content-addressed blob between our put
            # and the append, finding no event that pointed at it yet: now one does, so put it back.
            self._blobs.put(data, sha256=blob.sha256, media_type=media_type)
        if not outcome.created and outcome.request_hash != fingerprint:
            raise ConflictError(
                "idempotency_key was already used for a different request in this session",
                field="idempotency_key",
            )
        logger.info(
            "event appended" if outcome.created else "idempotent replay",
            extra={
                "session_id": session_id,
                "seq": outcome.event.seq,
                "event_id": outcome.event.event_id,
                "stored": outcome.event.stored,
            },
        )
        return outcome

    def list_events(
        self,
        session_id: str,
        *,
        after: int = 0,
        limit: int = 100,
        agent: str | None = None,
        round: int | None = None,
        resolve_blobs: bool = False,
    ) -> EventPage:
        limit = max(1, min(limit, MAX_PAGE))
        # One extra row tells whether another page exists without a second query.
        rows = self._log.list_events(session_id, after=after, limit=limit + 1, agent=agent, round=round)
        page, more = rows[:limit], len(rows) > limit
        if resolve_blobs:
            page = [self.resolve_blob(event) for event in page]
        return EventPage(items=page, next=str(page[-1].seq) if more else None)

    def resolve_blob(self, event: Event) -> Event:
        """The event with its blob content inlined (the pointer is kept so readers see provenance)."""
        if event.blob is None:
            return event
        data = self._blobs.get(event.blob.uri)
        return event.model_copy(update={"content": decode_blob(data, event.blob.media_type)})


def decode_blob(data: bytes, media_type: str) -> str | dict[str, object] | list[object]:
    """Blob bytes back as the event's content: JSON media types parse, everything else is text."""
    text = data.decode("utf-8")
    if media_type == "application/json" or media_type.endswith("+json"):
        try:
            value = json.loads(text)
        except ValueError:
            return text
        if isinstance(value, dict | list):
            return value
    return text
