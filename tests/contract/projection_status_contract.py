"""The ProjectionStatusStore contract: what the projector last said about itself, for every process
of the tenant to read. Every adapter's test class subclasses ProjectionStatusContract and provides
`make_status(tenant_id)`: stores over one backing store, so a new store is another process.

What any store guarantees: nothing saved reads as ok; the last save wins, field for field; tenants
are independent; another store on the same backing store reads what this one saved."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from agentmem.model.projection import ProjectionStatus
from agentmem.ports.projection import ProjectionStatusStore

StatusFactory = Callable[[str], ProjectionStatusStore]

FAILING = ProjectionStatus(
    state="failing",
    failing_since="2026-03-01T10:00:00.000Z",
    last_error="extract facts: the model server is unreachable (APIConnectionError)",
    failed_attempts=3,
    last_attempt_at="2026-03-01T10:00:07.000Z",
    next_attempt_at="2026-03-01T10:00:15.000Z",
    unprojected_events=12,
    oldest_unprojected_at="2026-03-01T09:59:58.000Z",
)


class ProjectionStatusContract:
    @pytest.fixture
    def make_status(self) -> StatusFactory:
        raise NotImplementedError

    def test_nothing_saved_reads_as_ok(self, make_status: StatusFactory) -> None:
        assert make_status("acme").load() == ProjectionStatus()

    def test_the_last_save_wins_and_reads_back_whole(self, make_status: StatusFactory) -> None:
        status = make_status("acme")
        status.save(FAILING)
        assert status.load() == FAILING
        status.save(ProjectionStatus())
        assert status.load() == ProjectionStatus()

    def test_another_process_reads_what_one_saved(self, make_status: StatusFactory) -> None:
        make_status("acme").save(FAILING)
        assert make_status("acme").load() == FAILING

    def test_tenants_are_independent(self, make_status: StatusFactory) -> None:
        make_status("acme").save(FAILING)
        assert make_status("globex").load() == ProjectionStatus()
