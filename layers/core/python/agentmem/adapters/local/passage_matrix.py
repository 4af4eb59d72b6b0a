"""One subject's embedded passage vectors as an in-memory matrix, for exact cosine search.

Rows arrive in the order their vectors were stored (each stored vector takes the subject's next
stamp), not in passage order: the vector lane embeds passages after they were indexed, so a
matrix catches up by stamp, never by row id."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agentmem.adapters.local.quantised_scan import nearest_rows, quantise
from agentmem.adapters.local.vector_size import sized

HISTORY = "history passage index"


@dataclass
class PassageMatrix:
    epoch: int
    last_stamp: int = 0
    pids: list[int] = field(default_factory=list)
    codes: dict[str, int] = field(default_factory=dict)  # session id -> a small int, per matrix
    sessions: Any = None  # the code of each row's session: excluding one is a vector compare
    rows: Any = None  # capacity doubles, so a read after a few appends copies nothing
    quantised: Any = None  # the rows as int8 codes, one scale per row: what a search scans
    scales: Any = None

    def extend(self, rows: Sequence[tuple[int, str, bytes]], last_stamp: int) -> None:
        if not rows:
            return
        width = len(rows[0][2]) // 4 if self.rows is None else self.rows.shape[1]
        block = np.vstack(
            [sized(np.frombuffer(blob, dtype=np.float32), width, HISTORY) for _, _, blob in rows]
        )
        codes = np.fromiter(
            (self.codes.setdefault(s, len(self.codes)) for _, s, _ in rows), dtype=np.int32, count=len(rows)
        )
        used, need = len(self.pids), len(self.pids) + len(rows)
        if self.rows is None or need > len(self.rows):
            capacity = max(need, 2 * (0 if self.rows is None else len(self.rows)), 64)
            grown_rows = np.zeros((capacity, block.shape[1]), dtype=np.float32)
            grown_sessions = np.full(capacity, -1, dtype=np.int32)
            grown_quantised = np.zeros((capacity, block.shape[1]), dtype=np.int8)
            grown_scales = np.zeros(capacity, dtype=np.float32)
            if self.rows is not None:
                grown_rows[:used], grown_sessions[:used] = self.rows[:used], self.sessions[:used]
                grown_quantised[:used], grown_scales[:used] = self.quantised[:used], self.scales[:used]
            self.rows, self.sessions = grown_rows, grown_sessions
            self.quantised, self.scales = grown_quantised, grown_scales
        self.rows[used:need], self.sessions[used:need] = block, codes
        self.quantised[used:need], self.scales[used:need] = quantise(block)
        self.pids += [pid for pid, _, _ in rows]
        self.last_stamp = last_stamp

    def nearest(
        self, vector: Sequence[float], k: int, exclude_session: str | None
    ) -> list[tuple[float, int]]:
        """(score, pid) of the k nearest passages outside `exclude_session`, best first; exact."""
        if self.rows is None:
            return []
        used = len(self.pids)
        query = sized(vector, self.rows.shape[1], HISTORY)
        code = self.codes.get(exclude_session) if exclude_session is not None else None
        excluded = None if code is None else self.sessions[:used] == code
        found = nearest_rows(self.rows, self.quantised[:used], self.scales[:used], query, k, excluded)
        return [(score, self.pids[row]) for score, row in found]
