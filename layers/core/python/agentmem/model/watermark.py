"""A read's watermark: where one read of a subject stood, so a later read (`since`) can lead with
what changed after it.

The token is opaque to callers (pass back `trace.watermark` as it came) but documented, for
debugging: `w1.` then the unpadded base64url of a compact JSON object:

- `s`, `n`: the subject and the session the read was for;
- `q`: the last seq of that session the read saw (`trace.log_watermark_seq`);
- `e`: the log position (`created_at|session|seq`) of that event, "" when the session was empty;
- `b`: the newest log position applied to any belief of the subject when the read ran: the
  projection's frontier for this subject, so a belief projected after the read from an event
  written before it still counts as new (a watermark taken from the read's clock would lose it);
- `k`: the doc ids of the beliefs the read placed, so a later read can say which are gone.

Beliefs record the position of the last event applied to them (`source_order`) and the time of
the statement that made their current version (`valid_from`), and a replay reproduces both, so
the watermark holds across belief generations."""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from agentmem.errors import InvalidInputError
from agentmem.model.common import Identifier

PREFIX = "w1."
MAX_TOKEN_CHARS = 4096
MAX_SHOWN = 64  # doc ids kept: a read places a few dozen beliefs at most at the ceiling budget
TOKEN_PATTERN = r"^w1\.[A-Za-z0-9_-]+$"  # noqa: S105 (a format, not a secret)
DocId = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]{0,63}(#[A-Za-z0-9._:%$-]{1,128})?$")]
POSITION = re.compile(r"^$|^[0-9T:.+Z-]{10,40}\|[A-Za-z0-9._:-]{1,128}\|\d{12}$")


class Watermark(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    subject_id: Identifier = Field(alias="s")
    session_id: Identifier = Field(alias="n")
    seq: int = Field(alias="q", ge=0)
    events_at: str = Field(alias="e", pattern=POSITION.pattern)
    beliefs_at: str = Field(alias="b", pattern=POSITION.pattern)
    shown: tuple[DocId, ...] = Field(default=(), alias="k", max_length=MAX_SHOWN)

    @property
    def read_at(self) -> str:
        """The newest log position the read saw, of its session's events or of the beliefs."""
        return max(self.events_at, self.beliefs_at)

    def token(self) -> str:
        body = json.dumps(self.model_dump(by_alias=True), separators=(",", ":"), ensure_ascii=True)
        return PREFIX + base64.urlsafe_b64encode(body.encode()).decode().rstrip("=")

    @classmethod
    def parse(cls, token: str) -> Watermark:
        """The watermark a token carries; InvalidInputError naming `since` for anything else."""
        if not token.startswith(PREFIX):
            raise InvalidInputError(
                "since must be a watermark from an earlier read's trace (w1.…)", field="since"
            )
        encoded = token[len(PREFIX) :]
        try:
            raw: Any = json.loads(base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)))
            return cls.model_validate(raw)
        except (binascii.Error, ValueError, ValidationError) as exc:  # JSONDecodeError is a ValueError
            raise InvalidInputError(
                "since is not a watermark this server issued (copy trace.watermark as it came)", field="since"
            ) from exc


class SinceReport(BaseModel):
    """What a read with `since` found changed after the watermark, and what of it was placed.
    Every count is of what the read's sources (`include`) cover."""

    model_config = ConfigDict(frozen=True)

    session_id: str = Field(description="The session the watermark was taken in.")
    seq: int = Field(description="The last seq of that session the earlier read saw.")
    new_events: int = Field(description="This session's events written after the watermark.")
    changed_beliefs: int = Field(description="Beliefs whose version moved after it (old -> new value).")
    new_beliefs: int = Field(description="Beliefs first stated after it.")
    retired_beliefs: int = Field(description="Beliefs a statement after it says are over.")
    gone_beliefs: int = Field(description="Beliefs the earlier read placed that are no longer held.")
    superseded_passages: int = Field(description="History passages labelled superseded by a change after it.")
    left_out: list[str] = Field(
        description="Item ids of changes the budget could not place; then no unchanged item is placed."
    )
    needed_tokens: int = Field(
        default=0,
        description="The budget that places every change at full detail (title and heading counted):"
        " a read at it leaves none out. Set when `left_out` is not empty, else 0.",
    )
