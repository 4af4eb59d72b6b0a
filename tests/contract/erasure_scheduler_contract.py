"""The ErasureScheduler contract: an accepted erasure is handed to what runs it (on AWS, the
erasure function through its queue), so the API can answer at once. Each adapter's test class
provides `scheduling`: the scheduler, and `ran()`, the (erasure_id, subject_id) pairs its runner
was handed since the last call, read by the runner itself; and `unreachable`: a scheduler whose
runner cannot be reached.

What any scheduler guarantees: the runner gets exactly the erasure and subject it was given,
whatever the subject id holds; every schedule is handed over, a repeat too (a repeated DELETE runs
the erasure again); and a failure to hand over is a domain error that quotes no subject id."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest

from agentmem.errors import AgentMemError
from agentmem.ports.subjects import ErasureScheduler


@dataclass
class Scheduling:
    scheduler: ErasureScheduler
    ran: Callable[[], list[tuple[str, str]]]


class ErasureSchedulerContract:
    @pytest.fixture
    def scheduling(self) -> Scheduling:
        raise NotImplementedError

    @pytest.fixture
    def unreachable(self) -> ErasureScheduler:
        raise NotImplementedError

    def test_the_runner_is_handed_the_erasure_and_its_subject(self, scheduling: Scheduling) -> None:
        scheduling.scheduler.schedule("er_1", "alice")

        assert scheduling.ran() == [("er_1", "alice")]

    def test_any_subject_id_arrives_unchanged(self, scheduling: Scheduling) -> None:
        subject = 'Zoë "O\'Brien" / 山田 {"subject_id": 1}\n\t😀'
        scheduling.scheduler.schedule("er_1", subject)

        assert scheduling.ran() == [("er_1", subject)]

    def test_a_repeat_is_handed_over_again(self, scheduling: Scheduling) -> None:
        scheduling.scheduler.schedule("er_1", "alice")
        scheduling.scheduler.schedule("er_1", "alice")

        assert scheduling.ran() == [("er_1", "alice"), ("er_1", "alice")]

    def test_every_erasure_scheduled_is_handed_over(self, scheduling: Scheduling) -> None:
        jobs = [(f"er_{n}", f"subject-{n}") for n in range(12)]
        for erasure_id, subject_id in jobs:
            scheduling.scheduler.schedule(erasure_id, subject_id)

        assert sorted(scheduling.ran()) == sorted(jobs)  # a queue need not keep the order

    def test_a_runner_out_of_reach_is_a_domain_error_quoting_no_subject(
        self, unreachable: ErasureScheduler
    ) -> None:
        with pytest.raises(AgentMemError) as failed:
            unreachable.schedule("er_1", "alice-the-subject")

        assert "alice-the-subject" not in str(failed.value)
