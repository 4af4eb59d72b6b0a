"""History passages: pieces of logged events, indexed for search by meaning and by keyword."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class StatedFact(BaseModel):
    """A belief key the passage's event stated, with the value it stated then (recorded at
    projection, from the observations the event produced): what lets a read label a passage whose
    value has since been superseded, or skip one a current belief already says."""

    model_config = ConfigDict(frozen=True)

    key: str
    member: str = ""
    value: str


class Passage(BaseModel):
    """A whole-sentence piece of one event's text. It points back to the event by (session, seq)
    and to its characters by `span`, half open, in the event's one-line text (`event_text`)."""

    model_config = ConfigDict(frozen=True)

    subject_id: str
    session_id: str
    seq: int
    span: tuple[int, int]
    event_id: str
    agent: str
    kind: str
    stated_at: str = Field(description="The event's created_at: when it was said.")
    stored: Literal["inline", "blob"] = "inline"
    text: str
    stated: tuple[StatedFact, ...] = ()

    @property
    def passage_id(self) -> str:
        """Unique per subject and stable across replays: indexing is idempotent on it."""
        return f"{self.session_id}:{self.seq}:{self.span[0]}-{self.span[1]}"


class PassageHit(BaseModel):
    passage: Passage
    score: float
    source: Literal["vector", "keyword"]
