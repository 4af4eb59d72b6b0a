"""The LogTail contract: reading a tenant's whole log in append order from a position, which the
local projector worker and replay use where AWS has the DynamoDB stream. Every adapter's test
class subclasses LogTailContract and provides `make_log(tenant_id)`: logs (EventLog and LogTail at
once) that share one backing store, so what one tenant appends is there for isolation to hide.

What any tail guarantees: positions rise strictly in append order; `read_since(p)` gives exactly
the tenant's events after p, at most `limit`, so paging from the last position read reaches every
event once; `head_position` is the last position (0 for an empty log); a deduplicated retry adds
no position; events read are the events stored."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import pytest

from agentmem.ports.log import EventLog, LogTail
from tests.contract.event_log_contract import draft


class TailedLog(EventLog, LogTail, Protocol):
    """What the local backend's log is: the same object appends and is tailed."""


TailedLogFactory = Callable[[str], TailedLog]


def read_all(tail: LogTail, *, page: int) -> list[tuple[int, object]]:
    out: list[tuple[int, object]] = []
    position = 0
    while batch := tail.read_since(position, page):
        assert len(batch) <= page
        out += batch
        position = batch[-1][0]
    return out


class LogTailContract:
    @pytest.fixture
    def make_log(self) -> TailedLogFactory:
        raise NotImplementedError

    @pytest.fixture
    def log(self, make_log: TailedLogFactory) -> TailedLog:
        return make_log("acme")

    def test_an_empty_log_has_head_0_and_nothing_to_read(self, log: TailedLog) -> None:
        assert log.head_position() == 0
        assert log.read_since(0) == []

    def test_events_come_in_append_order_across_sessions_with_rising_positions(self, log: TailedLog) -> None:
        appended = [log.append(draft(session)).event for session in ("a", "b", "a", "c", "b")]
        read = log.read_since(0)
        assert [event for _, event in read] == appended
        positions = [p for p, _ in read]
        assert positions == sorted(set(positions)) and positions[0] > 0
        assert log.head_position() == positions[-1]

    def test_read_since_gives_only_what_follows_the_position(self, log: TailedLog) -> None:
        for _ in range(5):
            log.append(draft())
        read = log.read_since(0)
        third = read[2][0]
        assert log.read_since(third) == read[3:]
        assert log.read_since(log.head_position()) == []
        assert log.read_since(0, limit=2) == read[:2]

    def test_paging_from_the_last_position_reads_every_event_once(self, log: TailedLog) -> None:
        for i in range(23):
            log.append(draft(f"s{i % 3}"))
        assert read_all(log, page=5) == log.read_since(0, limit=1000)
        assert len(read_all(log, page=5)) == 23

    def test_a_deduplicated_retry_adds_no_position(self, log: TailedLog) -> None:
        log.append(draft(idem="k"))
        head = log.head_position()
        assert log.append(draft(idem="k")).created is False
        assert log.head_position() == head
        assert len(log.read_since(0)) == 1

    def test_appends_after_a_read_are_read_next(self, log: TailedLog) -> None:
        log.append(draft())
        ((position, _),) = log.read_since(0)
        later = log.append(draft()).event
        assert [event for _, event in log.read_since(position)] == [later]

    def test_a_tenant_reads_only_its_own_log(self, make_log: TailedLogFactory) -> None:
        acme, globex = make_log("acme"), make_log("globex")
        acme.append(draft("shared"))
        mine = globex.append(draft("shared")).event
        acme.append(draft("shared"))
        assert [event for _, event in globex.read_since(0)] == [mine]
        assert globex.head_position() == globex.read_since(0)[0][0]
        assert len(acme.read_since(0)) == 2
