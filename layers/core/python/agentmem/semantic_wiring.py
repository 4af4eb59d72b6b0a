"""Adapters of the semantic tier, picked from Settings. Kept apart from bootstrap so that the
write path imports none of them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentmem.ports.embedding import Embedder
from agentmem.ports.semantic import LLM, BeliefStore
from agentmem.procedural.review import SkillReviewer
from agentmem.semantic.fact_types import FactTypeCatalog
from agentmem.semantic.service import SemanticService
from agentmem.settings import Settings

if TYPE_CHECKING:
    from agentmem.adapters.aws.bedrock_llm import BedrockLLM
    from agentmem.semantic.verify import Extract


def build_embedder(settings: Settings) -> Embedder:
    choice = settings.embedder or ("bedrock" if settings.backend == "aws" else "minilm")
    if choice == "bedrock":
        from agentmem.adapters.aws.bedrock_embedder import BedrockEmbedder

        return BedrockEmbedder(settings.bedrock_embedding_model)
    from agentmem.adapters.local.minilm_embedder import MiniLmEmbedder

    return MiniLmEmbedder()


def bedrock_llm(settings: Settings) -> BedrockLLM:
    from agentmem.adapters.aws.bedrock_llm import BedrockLLM

    return BedrockLLM(settings.bedrock_llm_model) if settings.bedrock_llm_model else BedrockLLM()


def build_llm(settings: Settings) -> LLM:
    if settings.llm_choice == "bedrock":
        return bedrock_llm(settings)
    from agentmem.adapters.local.rules_llm import RulesLLM

    return RulesLLM()


def build_reviewer(settings: Settings) -> SkillReviewer:
    """The LLM port's review duty, from the same choice of LLM as extraction."""
    if settings.llm_choice == "bedrock":
        from agentmem.adapters.aws.bedrock_reviewer import BedrockSkillReviewer

        return BedrockSkillReviewer(bedrock_llm(settings))
    from agentmem.adapters.local.rules_reviewer import RulesSkillReviewer

    return RulesSkillReviewer()


def build_belief_store(settings: Settings, embedder: Embedder) -> BeliefStore:
    if settings.backend == "aws":
        from agentmem.adapters.aws.opensearch_belief_store import OpenSearchBeliefStore
        from agentmem.adapters.aws.opensearch_client import opensearch_client

        return OpenSearchBeliefStore(
            opensearch_client(settings),
            settings.tenant_id,
            prefix=settings.opensearch_prefix,
            dimensions=embedder.dimensions,
        )
    from agentmem.adapters.local.sqlite_belief_store import SqliteBeliefStore
    from agentmem.adapters.local.sqlite_db import open_database

    db = open_database(settings.data_dir / "agentmem.db", synchronous=settings.sqlite_synchronous)
    return SqliteBeliefStore(db, settings.tenant_id)


def build_semantic(settings: Settings) -> SemanticService:
    embedder = build_embedder(settings)
    catalog = FactTypeCatalog(
        settings.declared_fact_types(), allow_undeclared=settings.allow_undeclared_facts
    )
    return SemanticService(build_belief_store(settings, embedder), build_llm(settings), embedder, catalog)


def reproducible_extraction(semantic: SemanticService) -> Extract | None:
    """Extraction that a second run repeats exactly (the local rules), for verification to
    compare against; None for a model, whose second answer might not be its first."""
    from agentmem.adapters.local.rules_llm import RulesLLM

    llm = semantic.llm
    if not isinstance(llm, RulesLLM):
        return None
    declared = semantic.fact_types.declared()
    return lambda event: llm.extract_facts(event, declared)
