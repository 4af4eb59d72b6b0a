"""Domain errors. Adapters translate driver faults into these; the API maps them to HTTP in one place."""

from __future__ import annotations


class AgentMemError(Exception):
    """Base of every error the domain raises on purpose."""

    code = "internal_error"

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class InvalidInputError(AgentMemError):
    """The request is well formed but a value breaks a rule (HTTP 422)."""

    code = "invalid_input"


class NotFoundError(AgentMemError):
    """The named resource does not exist (HTTP 404)."""

    code = "not_found"


class ForbiddenError(AgentMemError):
    """The caller is known but its role or principals do not allow this (HTTP 403). Never raised
    for reading something the caller may not see: that is a NotFoundError, so nothing leaks."""

    code = "forbidden"


class TierDisabledError(NotFoundError):
    """A tier this deployment switched off (HTTP 404, code `tier_disabled`)."""

    code = "tier_disabled"


class ConflictError(AgentMemError):
    """The write contradicts stored state, e.g. an idempotency key reused for another body (HTTP 409)."""

    code = "conflict"


class SubjectErasedError(AgentMemError):
    """The subject was erased; its id stays closed, so nothing new can be written about it (HTTP
    410). A returning person is a new subject with a new id."""

    code = "subject_erased"

    def __init__(self, message: str, *, field: str | None = "subject_id") -> None:
        super().__init__(message, field=field)


class PayloadTooLargeError(AgentMemError):
    """A payload is over a configured ceiling (HTTP 413). The message names the limit."""

    code = "payload_too_large"

    def __init__(self, message: str, *, field: str | None = None, limit_bytes: int) -> None:
        super().__init__(message, field=field)
        self.limit_bytes = limit_bytes


class BackendUnavailableError(AgentMemError):
    """A backend is throttling or down. Retryable (HTTP 503 with Retry-After); nothing was written."""

    code = "backend_unavailable"

    def __init__(self, message: str, *, retry_after_seconds: int = 1) -> None:
        super().__init__(message)
        self.retry_after_seconds = retry_after_seconds


class ContentionError(BackendUnavailableError):
    """Optimistic concurrency kept losing the race; the caller may retry the whole request."""

    code = "contention"


class VersionConflictError(AgentMemError):
    """A compare-and-set write lost to a concurrent writer; re-read and retry."""

    code = "version_conflict"


class UnsupportedOnBackendError(AgentMemError):
    """The configured backend has no such port: e.g. tailing the log, which on AWS is the
    DynamoDB stream's job, not a process's."""

    code = "unsupported_on_backend"
