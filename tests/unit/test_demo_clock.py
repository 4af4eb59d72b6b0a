"""The demo's log clock: the story's dates, in the order the agents wrote."""

from __future__ import annotations

from agentmem.demo.clock import StoryClock
from agentmem.demo.script import session_plan


def test_stamps_fall_on_the_sessions_date_in_writing_order() -> None:
    clock = StoryClock()
    clock.begin(session_plan(2).date)
    first, second = clock(), clock()
    assert first == "2026-04-13T09:00:00.000Z" and second == "2026-04-13T09:00:01.000Z"
    clock.begin(session_plan(3).date)
    assert clock().startswith("2026-07-13T")


def test_now_is_after_every_stamp_given_and_before_the_next() -> None:
    clock = StoryClock("2026-01-13")
    given = clock()
    now = clock.now()
    assert given < now < clock()  # the log's ISO stamps compare as text
