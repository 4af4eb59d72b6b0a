"""The port of the projection status: one small record per tenant, written by the projector and
read by the read path and the deep health check, which may run in other processes."""

from __future__ import annotations

from typing import Protocol

from agentmem.model.projection import ProjectionStatus


class ProjectionStatusStore(Protocol):
    """The projector's status for one tenant, shared by every process of its deployment."""

    def load(self) -> ProjectionStatus:
        """The last status saved; an `ok` status with nothing else set when none was."""
        ...

    def save(self, status: ProjectionStatus) -> None:
        """Replace the status: the last save wins."""
        ...
