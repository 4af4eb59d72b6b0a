"""Translate the `openai` SDK's exceptions into domain errors, in one place for both adapters.

- Throttling (429), a busy or timed-out server (408, 409, 5xx) and transport failures become
  BackendUnavailableError: the same request can succeed later, so the API answers 503 with
  Retry-After (the server's own, when it sends one) and the stream retries.
- Everything else (a bad key, an unknown model, a request the server refuses) becomes the plain
  AgentMemError, answered with 500: it fails the same way on every retry. The message names the
  setting to check; the server's own message is only logged, since servers quote the key they
  were given ("Incorrect API key provided: sk-...") and this message reaches API callers.
- An answer that does not parse as the SDK's response model is a ModelOutputError.

The SDK exception stays attached as `__cause__` for the logs."""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

import openai

from agentmem.adapters.llm_prompts.answers import ModelOutputError
from agentmem.errors import AgentMemError, BackendUnavailableError

logger = logging.getLogger(__name__)

RETRYABLE_STATUSES = frozenset({408, 409, 429})
MAX_RETRY_AFTER_SECONDS = 300


@dataclass(frozen=True)
class Target:
    """Which server and model an adapter talks to, and the settings that name them (for errors
    that tell an operator what to change)."""

    base_url: str
    model: str
    settings: str  # the settings' prefix: AGENTMEM_LLM or AGENTMEM_EMBEDDER


def translate_openai_error(exc: openai.OpenAIError, action: str, target: Target) -> AgentMemError:
    """The domain error for an SDK failure raised while doing `action`; raise it `from exc`."""
    where = {"action": action, "base_url": target.base_url, "model": target.model}
    if isinstance(exc, openai.APIConnectionError):  # also APITimeoutError
        logger.warning("openai-compatible server unreachable", extra={**where, "error": type(exc).__name__})
        return BackendUnavailableError(
            f"{action}: the model server is unreachable ({type(exc).__name__}); "
            f"check {target.settings}_BASE_URL"
        )
    if isinstance(exc, openai.APIResponseValidationError):
        return ModelOutputError(f"{action}: the server's answer is not a valid OpenAI response")
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        said = {"status": status, "type": exc.type, "code": exc.code, "server_message": exc.message}
        logger.warning("openai-compatible request failed", extra={**where, **said})
        if status in RETRYABLE_STATUSES or status >= 500:
            return BackendUnavailableError(
                f"{action}: the model server is throttling or unavailable (HTTP {status})",
                retry_after_seconds=_retry_after(exc),
            )
        return AgentMemError(f"{action} failed: HTTP {status} from the model server{_hint(status, target)}")
    logger.error("openai client failure", extra={**where, "error": type(exc).__name__})
    return AgentMemError(f"{action} failed ({type(exc).__name__})")


def _hint(status: int, target: Target) -> str:
    if status in (401, 403):
        return f"; check {target.settings}_API_KEY"
    if status == 404:
        return f"; check {target.settings}_MODEL ({target.model}) and {target.settings}_BASE_URL"
    return ""


def _retry_after(exc: openai.APIStatusError) -> int:
    """The server's Retry-After in whole seconds (at least 1, at most 5 minutes), else 1."""
    header = exc.response.headers.get("retry-after")
    try:
        seconds = float(header) if header is not None else 1.0
    except ValueError:  # an HTTP date: rare from these servers, and a second is a fair wait
        seconds = 1.0
    if not math.isfinite(seconds):
        seconds = 1.0
    return max(1, min(MAX_RETRY_AFTER_SECONDS, math.ceil(seconds)))
