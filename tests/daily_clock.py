"""An episodic writer whose events are one day apart: tests about what was said "earlier" must not
rest on the wall clock, which gives two quick appends the same millisecond."""

from __future__ import annotations

import itertools

from agentmem.episodic.service import EpisodicLimits, EpisodicService
from agentmem.wiring import Services


def daily_writer(services: Services, *, start_day: int = 1) -> EpisodicService:
    """Appends through the services' log and blobs, the n-th event dated 2026-01-(start_day + n)."""
    days = itertools.count(start_day)
    return EpisodicService(
        services.event_log,
        services.blobs,
        EpisodicLimits(inline_max_bytes=4096, max_request_bytes=1 << 20),
        clock=lambda: f"2026-01-{next(days):02d}T09:00:00.000Z",
    )
