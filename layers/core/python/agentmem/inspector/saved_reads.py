"""Saved reads: reads worth looking at again from the Explain page in one click, such as what each
agent of a run asked for.

A saved context read may keep the answer it got (`response`): the page then shows the read as it
was, and lists apart what was written after it, since a read re-run now would silently include
newer events. Without an answer the page re-runs the request now, through the API as whoever is
looking, and marks the events past the watermark. A composition is always re-run: its answer
depends on who asks (the page reads as the viewer, and a stored report could name assets the
viewer may not read). A stored answer is the subject's text: the page shows it only while the log
still holds the last event it saw, so an erased subject's read is never shown again, and deleting
the file removes the copy.

The file is JSON, a list of objects with a `kind`:
- `{"kind": "context", "label": ..., "request": {<POST /v1/context body>}, "watermark": <seq>,
  "read_at": <ISO time>, "response": {<its answer>}}`, where `watermark` (optional) is the log seq
  the read saw, `read_at` (optional) when it ran by the log's clock, and `response` (optional) the
  answer;
- `{"kind": "compose", "label": ..., "skill_id": ..., "request": {"question": ..., "budget_tokens": ...},
  "principals": "analyst"}`, where `principals` (optional) is whom to ask as in loopback
  development mode (with API keys, the key decides)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from agentmem.compose.model import ComposeRequest
from agentmem.model.common import Identifier
from agentmem.model.context import ContextRequest, ContextResponse

SAVED_READS_FILE = "saved-reads.json"
"""Looked for in the data dir by `agentmem serve`; `agentmem inspect --saved-reads` names one."""


class SavedContextRead(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["context"] = "context"
    label: str = Field(min_length=1, max_length=200)
    request: ContextRequest
    watermark: int | None = Field(default=None, ge=0)
    read_at: str | None = Field(default=None, max_length=40)
    response: ContextResponse | None = None

    @property
    def seen_seq(self) -> int | None:
        """The last seq of the session the read saw: the watermark, else its kept answer's."""
        if self.watermark is not None:
            return self.watermark
        return self.response.trace.log_watermark_seq if self.response is not None else None


class SavedCompose(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["compose"] = "compose"
    label: str = Field(min_length=1, max_length=200)
    skill_id: Identifier
    request: ComposeRequest
    principals: str | None = Field(default=None, max_length=1000)


SavedRead = Annotated[SavedContextRead | SavedCompose, Field(discriminator="kind")]
_SAVED = TypeAdapter(list[SavedRead])


class SavedReadsError(ValueError):
    """The saved reads file does not parse; the message names the file and the problem."""


def load_saved_reads(path: Path | None) -> list[SavedContextRead | SavedCompose]:
    """The reads in `path`; none when there is no such file."""
    if path is None or not path.is_file():
        return []
    try:
        return _SAVED.validate_python(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, ValidationError) as exc:
        raise SavedReadsError(f"{path}: not a list of saved reads ({str(exc).splitlines()[0]})") from None


def write_saved_reads(path: Path, reads: list[SavedContextRead | SavedCompose]) -> None:
    path.write_text(json.dumps(_SAVED.dump_python(reads, mode="json"), indent=2) + "\n", encoding="utf-8")
