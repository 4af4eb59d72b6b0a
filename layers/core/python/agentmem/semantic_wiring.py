"""Adapters of the semantic tier, picked from Settings. Kept apart from bootstrap so that the
write path imports none of them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentmem.adapters.openai_compat.factory import openai_embedder, openai_llm, openai_reviewer
from agentmem.ports import Embedder
from agentmem.procedural.review import SkillReviewer
from agentmem.semantic.fact_types import FactTypeCatalog
from agentmem.semantic.ports import LLM, BeliefStore, PassageStore
from agentmem.semantic.service import SemanticService
from agentmem.settings import Settings

if TYPE_CHECKING:
    from agentmem.adapters.aws.bedrock_llm import BedrockLLM
    from agentmem.semantic.verify import Extract


def build_embedder(settings: Settings) -> Embedder:
    choice = settings.embedder or ("bedrock" if settings.backend == "aws" else "minilm")
    if choice == "openai":
        return openai_embedder(settings)
    if choice == "bedrock":
        from agentmem.adapters.aws.bedrock_embedder import BedrockEmbedder

        return BedrockEmbedder(settings.bedrock_embedding_model)
    from agentmem.adapters.local.minilm_embedder import MiniLmEmbedder

    return MiniLmEmbedder()


def bedrock_llm(settings: Settings) -> BedrockLLM:
    from agentmem.adapters.aws.bedrock_llm import BedrockLLM

    return BedrockLLM(settings.bedrock_llm_model) if settings.bedrock_llm_model else BedrockLLM()


def build_llm(settings: Settings) -> LLM:
    if settings.llm_choice == "openai":
        return openai_llm(settings)
    if settings.llm_choice == "bedrock":
        return bedrock_llm(settings)
    from agentmem.adapters.local.rules_llm import RulesLLM

    return RulesLLM()


def build_reviewer(settings: Settings) -> SkillReviewer:
    """The LLM port's review duty, from the same choice of LLM as extraction."""
    if settings.llm_choice == "openai":
        return openai_reviewer(settings)
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


def build_passage_store(settings: Settings, embedder: Embedder) -> PassageStore:
    """The history source's index: SQLite + FTS5 + a vector matrix locally, OpenSearch on AWS."""
    if settings.backend == "aws":
        from agentmem.adapters.aws.opensearch_client import opensearch_client
        from agentmem.adapters.aws.opensearch_passage_store import OpenSearchPassageStore

        return OpenSearchPassageStore(
            opensearch_client(settings),
            settings.tenant_id,
            prefix=settings.opensearch_prefix,
            dimensions=embedder.dimensions,
        )
    from agentmem.adapters.local.sqlite_db import open_database
    from agentmem.adapters.local.sqlite_passage_store import SqlitePassageStore

    db = open_database(settings.data_dir / "agentmem.db", synchronous=settings.sqlite_synchronous)
    return SqlitePassageStore(db, settings.tenant_id)


def build_semantic(settings: Settings) -> SemanticService:
    embedder = build_embedder(settings)
    catalog = FactTypeCatalog(
        settings.declared_fact_types(), allow_undeclared=settings.allow_undeclared_facts
    )
    from agentmem.subjects_wiring import build_erasure_ledger, build_late_purge

    store = build_belief_store(settings, embedder)
    passages = build_passage_store(settings, embedder)
    return SemanticService(
        store,
        build_llm(settings),
        embedder,
        catalog,
        erasures=build_erasure_ledger(settings),  # every projection skips erased subjects
        purge=build_late_purge(settings, store, passages),
        passages=passages,
    )


def reproducible_extraction(semantic: SemanticService) -> Extract | None:
    """Extraction that a second run repeats exactly (the local rules), for verification to
    compare against; None for a model, whose second answer might not be its first."""
    from agentmem.adapters.local.rules_llm import RulesLLM

    llm = semantic.llm
    if not isinstance(llm, RulesLLM):
        return None
    declared = semantic.fact_types.declared()
    return lambda event: llm.extract_facts(event, declared)
