"""Everything held about one subject, as NDJSON, for portability.

Lines, each a JSON object with a `type`:
- `subject`: the first line: subject id, export format, time;
- `event`: one log event as stored (a blob pointer, not its content);
- `blob`: right after its event, the blob's reference (and its content with `inline_blobs`);
- `belief`: one version chain of one (key, member): every version oldest first, the last current;
- `end`: the export is complete; or `continue` with a `cursor`: ask again with it for the rest.

The export is cut into responses of at most `max_bytes` (a Lambda response is capped at 6 MB),
and read in pages, so memory stays bounded by one response whatever the subject holds."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from agentmem.episodic.service import decode_blob, utc_now_iso
from agentmem.errors import InvalidInputError, SubjectErasedError
from agentmem.model.beliefs import Belief
from agentmem.model.events import Event
from agentmem.ports.blobs import BlobStore
from agentmem.ports.semantic import BeliefIndex
from agentmem.ports.subjects import ErasureLedger, SubjectLog

EXPORT_FORMAT = "agentmem-export/1"
MEDIA_TYPE = "application/x-ndjson"
PAGE = 200
MAX_BYTES = 4 * 1024 * 1024
Line = dict[str, Any]


@dataclass(frozen=True)
class Position:
    """Where the next response resumes: in which phase, after what (an opaque key of it)."""

    phase: str = "start"
    after: str | None = None

    def encode(self) -> str:
        raw = json.dumps({"phase": self.phase, "after": self.after}).encode()
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    @classmethod
    def decode(cls, cursor: str | None) -> Position:
        if not cursor:
            return cls()
        try:
            raw = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
            position = cls(phase=str(raw["phase"]), after=raw["after"])
        except (ValueError, KeyError, TypeError, binascii.Error) as exc:
            raise InvalidInputError("cursor is not one this export handed out", field="cursor") from exc
        if position.phase not in ("start", "events", "beliefs") or not isinstance(position.after, str | None):
            raise InvalidInputError("cursor is not one this export handed out", field="cursor")
        return position


@dataclass(frozen=True)
class ExportPage:
    body: str
    next_cursor: str | None


class SubjectExport:
    def __init__(
        self,
        log: SubjectLog,
        ledger: ErasureLedger,
        beliefs: Callable[[], BeliefIndex],
        blobs: BlobStore,
        *,
        clock: Callable[[], str] = utc_now_iso,
        max_bytes: int = MAX_BYTES,
    ) -> None:
        self._max_bytes = max_bytes
        self._log = log
        self._ledger = ledger
        self._beliefs = beliefs  # the active generation, looked up on use
        self._blobs = blobs
        self._clock = clock

    def page(
        self,
        subject_id: str,
        cursor: str | None = None,
        *,
        inline_blobs: bool = False,
        max_bytes: int | None = None,
    ) -> ExportPage:
        """One response: whole units of lines up to `max_bytes` (at least one unit), then `end`
        or `continue`. An erased subject has nothing to export (SubjectErasedError)."""
        start = Position.decode(cursor)
        if self._ledger.erased([subject_id]):
            raise SubjectErasedError(f"subject {subject_id} was erased; nothing is held about it")
        out: list[str] = []
        size = 0
        for lines, resume in self._units(subject_id, start, inline_blobs):
            text = "".join(
                json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n" for line in lines
            )
            if out and size + len(text.encode()) > (max_bytes or self._max_bytes):
                out.append(json.dumps({"type": "continue", "cursor": start.encode()}) + "\n")
                return ExportPage("".join(out), start.encode())
            out.append(text)
            size += len(text.encode())
            start = resume
        out.append(json.dumps({"type": "end"}) + "\n")
        return ExportPage("".join(out), None)

    def _units(
        self, subject_id: str, start: Position, inline_blobs: bool
    ) -> Iterator[tuple[list[Line], Position]]:
        """(lines that belong together, where to resume after them), from `start` on."""
        if start.phase == "start":
            header = {
                "type": "subject",
                "subject_id": subject_id,
                "format": EXPORT_FORMAT,
                "exported_at": self._clock(),
            }
            yield [header], Position("events")
            start = Position("events")
        if start.phase == "events":
            after = start.after
            while True:
                page = self._log.events(subject_id, after, PAGE)
                for resume, event in page:
                    yield self._event_lines(event, inline_blobs), Position("events", resume)
                    after = resume
                if len(page) < PAGE:
                    break
            start = Position("beliefs")
        index = self._beliefs()
        keys = sorted({b.key for b in index.current(subject_id)})
        for key in (k for k in keys if start.after is None or k > start.after):
            yield self._belief_lines(index.history(subject_id, key)), Position("beliefs", key)

    def _event_lines(self, event: Event, inline_blobs: bool) -> list[Line]:
        lines: list[Line] = [{"type": "event", "event": event.model_dump(mode="json")}]
        if event.blob is not None:
            blob: Line = {"type": "blob", "event_id": event.event_id, **event.blob.model_dump(mode="json")}
            if inline_blobs:
                blob["content"] = decode_blob(self._blobs.get(event.blob.uri), event.blob.media_type)
            lines.append(blob)
        return lines

    @staticmethod
    def _belief_lines(versions: list[Belief]) -> list[Line]:
        chains: dict[str, list[Belief]] = {}
        for belief in versions:
            chains.setdefault(belief.member, []).append(belief)
        return [
            {
                "type": "belief",
                "key": chain[-1].key,
                "member": member,
                "versions": [b.model_dump(mode="json") for b in sorted(chain, key=lambda b: b.version)],
            }
            for member, chain in sorted(chains.items())
        ]
