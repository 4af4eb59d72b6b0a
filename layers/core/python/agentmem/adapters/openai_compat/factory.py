"""The OpenAI-compatible adapters, built from Settings: what the wiring calls when
`AGENTMEM_LLM=openai` or `AGENTMEM_EMBEDDER=openai`.

Importing this module is cheap: the SDK (about a second to import) comes with the first build.
The chat adapter is built once per distinct settings, so extraction, review and relevance share
one client and one connection pool, and the server's refusal of JSON-schema output (see
`chat.py`) is learnt once per process rather than once per duty."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from pydantic import SecretStr

from agentmem.settings import Settings

if TYPE_CHECKING:
    import openai

    from agentmem.adapters.openai_compat.chat import OpenAICompatLLM
    from agentmem.adapters.openai_compat.duties import OpenAICompatRelevance, OpenAICompatSkillReviewer
    from agentmem.adapters.openai_compat.embedder import OpenAICompatEmbedder

# Sent when no key is set. Local servers ignore it; passing one stops the SDK from reading
# OPENAI_API_KEY from the environment and sending that key to whatever the base URL names.
NO_KEY = "unused"
MAX_RETRIES = 2  # the SDK's own backoff for 408/409/429/5xx and dropped connections


def client(base_url: str, api_key: SecretStr | None, timeout_seconds: float) -> openai.OpenAI:
    import openai

    return openai.OpenAI(
        base_url=base_url,
        api_key=api_key.get_secret_value() if api_key is not None else NO_KEY,
        timeout=timeout_seconds,
        max_retries=MAX_RETRIES,
    )


@cache
def openai_llm(settings: Settings) -> OpenAICompatLLM:
    from agentmem.adapters.openai_compat.chat import OpenAICompatLLM

    base_url, model = _required(settings.llm_base_url, settings.llm_model, "AGENTMEM_LLM")
    return OpenAICompatLLM(model, client=client(base_url, settings.llm_api_key, settings.llm_timeout_seconds))


def openai_reviewer(settings: Settings) -> OpenAICompatSkillReviewer:
    from agentmem.adapters.openai_compat.duties import OpenAICompatSkillReviewer

    return OpenAICompatSkillReviewer(openai_llm(settings))


def openai_relevance(settings: Settings) -> OpenAICompatRelevance:
    from agentmem.adapters.openai_compat.duties import OpenAICompatRelevance

    return OpenAICompatRelevance(openai_llm(settings))


def openai_embedder(settings: Settings) -> OpenAICompatEmbedder:
    """The embedder on its own server, or on the LLM's when only AGENTMEM_LLM_BASE_URL is set
    (one Ollama serving both), with the LLM's key unless it has its own."""
    from agentmem.adapters.openai_compat.embedder import OpenAICompatEmbedder

    base_url, model = _required(
        settings.embedder_base_url or settings.llm_base_url, settings.embedder_model, "AGENTMEM_EMBEDDER"
    )
    if settings.embedder_dimensions is None:
        raise ValueError("AGENTMEM_EMBEDDER=openai needs AGENTMEM_EMBEDDER_DIMENSIONS")
    key = settings.embedder_api_key or settings.llm_api_key
    return OpenAICompatEmbedder(
        model, settings.embedder_dimensions, client=client(base_url, key, settings.llm_timeout_seconds)
    )


def _required(base_url: str | None, model: str | None, prefix: str) -> tuple[str, str]:
    # Settings refuses these combinations at startup; this keeps a hand-built Settings honest.
    if not base_url or not model:
        raise ValueError(f"{prefix}=openai needs {prefix}_BASE_URL and {prefix}_MODEL")
    return base_url, model
