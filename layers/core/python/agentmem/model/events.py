"""Episodic log models: what an agent appends, what the log stores, what a reader gets back."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
    StrictStr,
    StringConstraints,
    computed_field,
    field_validator,
)

from agentmem.model.beliefs import FactInput
from agentmem.model.common import Identifier, MediaType

MAX_ROUND = 1_000_000
MAX_SEQ = 10**12  # far past any real session, well inside SQLite's and DynamoDB's integer range

EventContent = (
    Annotated[StrictStr, StringConstraints(pattern=r"\S")]
    | Annotated[dict[str, Any], Field(min_length=1)]
    | Annotated[list[Any], Field(min_length=1)]
)
"""A non-blank string, or a non-empty JSON object or array. Other scalars are refused."""


def encode_content(content: EventContent) -> bytes:
    """Canonical UTF-8 bytes of a content value: what is measured, hashed and stored as a blob."""
    if isinstance(content, str):
        return content.encode("utf-8")
    # allow_nan=False: NaN and Infinity are not JSON, and would read back as null.
    return json.dumps(
        content, ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False
    ).encode("utf-8")


class AppendEventRequest(BaseModel):
    """Body of `POST /v1/sessions/{session_id}/events`. The tenant is the deployment's, never a field."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    subject_id: Identifier
    round: StrictInt = Field(ge=0, le=MAX_ROUND)
    agent: Identifier
    kind: Identifier
    content: EventContent
    media_type: MediaType | None = None
    idempotency_key: Identifier | None = None
    facts: list[FactInput] | None = Field(
        default=None,
        max_length=50,
        description="Facts stated explicitly; they skip extraction and go straight to search-then-decide.",
    )

    @field_validator("content")
    @classmethod
    def _content_is_nonempty_utf8(cls, content: EventContent) -> EventContent:
        if isinstance(content, str) and not content.strip():
            raise ValueError("content must not be empty or whitespace only")
        if not isinstance(content, str) and not content:
            raise ValueError("content must not be an empty JSON object or array")
        try:
            encode_content(content)
        except UnicodeEncodeError as exc:
            raise ValueError("content must be valid UTF-8 (it holds a lone surrogate)") from exc
        except ValueError as exc:
            raise ValueError("content must be plain JSON: NaN and Infinity are not allowed") from exc
        return content

    def default_media_type(self) -> str:
        if self.media_type:
            return self.media_type
        return "text/plain" if isinstance(self.content, str) else "application/json"


class BlobRef(BaseModel):
    """Pointer kept in the log when content was offloaded to the blob store."""

    model_config = ConfigDict(frozen=True)

    uri: str
    bytes: int
    sha256: str
    media_type: str
    preview: str


class EventDraft(BaseModel):
    """An event before the log assigns its seq. `request_hash` detects a reused idempotency key."""

    model_config = ConfigDict(frozen=True)

    event_id: str
    session_id: str
    subject_id: str
    round: int
    agent: str
    kind: str
    media_type: str
    content: EventContent | None
    blob: BlobRef | None
    idempotency_key: str | None
    facts: list[FactInput] | None = None
    request_hash: str
    created_at: str


class Event(BaseModel):
    """One durable entry of the episodic log."""

    model_config = ConfigDict(frozen=True)

    event_id: str
    session_id: str
    seq: int
    subject_id: str
    round: int
    agent: str
    kind: str
    media_type: str
    content: EventContent | None = Field(
        description="The content when stored inline, or when blobs were resolved; null for a blob reference."
    )
    blob: BlobRef | None = None
    idempotency_key: str | None = None
    facts: list[FactInput] | None = None
    created_at: str

    @computed_field  # type: ignore[prop-decorator]
    @property
    def stored(self) -> Literal["inline", "blob"]:
        return "blob" if self.blob is not None else "inline"

    @classmethod
    def from_draft(cls, draft: EventDraft, seq: int) -> Event:
        return cls(seq=seq, **draft.model_dump(exclude={"request_hash"}))


class AppendOutcome(BaseModel):
    """What the log answers to an append: the stored event, and whether this call created it."""

    model_config = ConfigDict(frozen=True)

    event: Event
    created: bool
    request_hash: str


class AppendEventResponse(BaseModel):
    event_id: str
    seq: int
    session_id: str
    stored: Literal["inline", "blob"]


class EventPage(BaseModel):
    items: list[Event]
    next: str | None = Field(description="Pass as `after` to get the next page; null at the end of the log.")
