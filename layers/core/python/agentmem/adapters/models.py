"""The model adapters a tenant picks in Settings, whatever its storage backend: embedder, LLM
(extraction, verdicts, key resolution), skill reviewer, reranker and relevance model. Each
backend's factory calls these with its own default (the local rules and MiniLM, or Bedrock); any
OpenAI-compatible server (Ollama, vLLM, llama.cpp, LM Studio, LiteLLM, OpenAI) may be picked
instead (docs/openai-compatible.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from agentmem.settings import Settings

if TYPE_CHECKING:
    from agentmem.adapters.aws.bedrock_llm import BedrockLLM
    from agentmem.ports.embedding import Embedder
    from agentmem.ports.procedural import SkillReviewer
    from agentmem.ports.ranking import RelevanceModel, Reranker
    from agentmem.ports.semantic import LLM

EmbedderChoice = Literal["minilm", "bedrock", "openai"]
LlmChoice = Literal["rules", "bedrock", "openai"]


def embedder(settings: Settings, default: EmbedderChoice) -> Embedder:
    choice = settings.embedder or default
    if choice == "openai":
        from agentmem.adapters.openai_compat.factory import openai_embedder

        return openai_embedder(settings)
    if choice == "bedrock":
        from agentmem.adapters.aws.bedrock_embedder import BedrockEmbedder

        return BedrockEmbedder(settings.bedrock_embedding_model)
    from agentmem.adapters.local.minilm_embedder import MiniLmEmbedder

    return MiniLmEmbedder()


def _bedrock_llm(settings: Settings) -> BedrockLLM:
    from agentmem.adapters.aws.bedrock_llm import BedrockLLM

    return BedrockLLM(settings.bedrock_llm_model) if settings.bedrock_llm_model else BedrockLLM()


def llm(settings: Settings, default: LlmChoice) -> LLM:
    choice = settings.llm or default
    if choice == "openai":
        from agentmem.adapters.openai_compat.factory import openai_llm

        return openai_llm(settings)
    if choice == "bedrock":
        return _bedrock_llm(settings)
    from agentmem.adapters.local.rules_llm import RulesLLM

    return RulesLLM()


def reviewer(settings: Settings, default: LlmChoice) -> SkillReviewer:
    """The LLM port's review duty, from the same choice of LLM as extraction."""
    choice = settings.llm or default
    if choice == "openai":
        from agentmem.adapters.openai_compat.factory import openai_reviewer

        return openai_reviewer(settings)
    if choice == "bedrock":
        from agentmem.adapters.aws.bedrock_reviewer import BedrockSkillReviewer

        return BedrockSkillReviewer(_bedrock_llm(settings))
    from agentmem.adapters.local.rules_reviewer import RulesSkillReviewer

    return RulesSkillReviewer()


def reranker(settings: Settings) -> Reranker | None:
    """Bedrock Rerank when a model is configured; else None, and the composer ranks by fusion."""
    if not settings.bedrock_rerank_model:
        return None
    from agentmem.adapters.aws.bedrock_reranker import BedrockReranker

    return BedrockReranker(settings.bedrock_rerank_model, region=settings.aws_region)


def relevance(settings: Settings, default: LlmChoice) -> RelevanceModel | None:
    """The LLM port's relevance steps need a model that can judge: Bedrock or an OpenAI-compatible
    server. The local rules LLM cannot, so with it they stay off whatever `composer_llm` says."""
    choice = settings.llm or default
    if settings.composer_llm == "off" or choice == "rules":
        return None
    if choice == "openai":
        from agentmem.adapters.openai_compat.factory import openai_relevance

        return openai_relevance(settings)
    from agentmem.adapters.aws.bedrock_relevance import BedrockRelevance

    return BedrockRelevance(_bedrock_llm(settings))
