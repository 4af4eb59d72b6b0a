"""The composer's adapters, picked from Settings. Kept apart from bootstrap so that no other path
imports them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentmem.adapters.openai_compat.factory import openai_relevance
from agentmem.compose.layout import Layout
from agentmem.compose.llm_ranking import RelevanceModel
from agentmem.compose.ports import AssetIndex, Catalogue, ConversationMemory, Reranker
from agentmem.compose.ranking import Rankers
from agentmem.compose.render import AssetRenderer
from agentmem.compose.service import ComposerService
from agentmem.compose.templates import TemplateRegistry
from agentmem.tokens import DEFAULT_ENCODING, count_tokens

if TYPE_CHECKING:
    from agentmem.bootstrap import Services


def build_composer(services: Services) -> ComposerService:
    settings = services.settings
    aws = settings.backend == "aws"
    catalogue, memory, index = _aws(services) if aws else _local(services)
    return ComposerService(
        catalogue,
        index,
        lambda: services.semantic.embedder,
        Layout(
            AssetRenderer(TemplateRegistry(), services.blobs, count_tokens), count_tokens, DEFAULT_ENCODING
        ),
        memory,
        rankers=Rankers(
            reranker=_reranker(services),
            llm=_relevance(services),
            llm_rank=settings.composer_llm == "rank",
            count=count_tokens,
        ),
        sync_on_compose=not aws,
        metric=services.metric,
    )


def _local(services: Services) -> tuple[Catalogue, ConversationMemory, AssetIndex]:
    from agentmem.adapters.local.sqlite_asset_index import SqliteAssetIndex
    from agentmem.adapters.local.sqlite_catalogue import SqliteCatalogue, SqliteConversationMemory

    db, tenant = services.database(), services.settings.tenant_id
    return SqliteCatalogue(db, tenant), SqliteConversationMemory(db, tenant), SqliteAssetIndex(db, tenant)


def _aws(services: Services) -> tuple[Catalogue, ConversationMemory, AssetIndex]:
    from agentmem.adapters.aws.dynamodb_catalogue import DynamoDbCatalogue, DynamoDbConversationMemory
    from agentmem.adapters.aws.opensearch_asset_index import OpenSearchAssetIndex
    from agentmem.adapters.aws.opensearch_client import opensearch_client

    settings, dynamodb = services.settings, services.aws_client("dynamodb")
    index = OpenSearchAssetIndex(
        opensearch_client(settings),
        settings.tenant_id,
        prefix=settings.opensearch_prefix,
        dimension=services.semantic.embedder.dimensions,
    )
    return (
        DynamoDbCatalogue(settings.table_name, settings.tenant_id, client=dynamodb),
        DynamoDbConversationMemory(settings.table_name, settings.tenant_id, client=dynamodb),
        index,
    )


def _reranker(services: Services) -> Reranker | None:
    if not services.settings.bedrock_rerank_model:
        return None
    from agentmem.adapters.aws.bedrock_reranker import BedrockReranker

    return BedrockReranker(services.settings.bedrock_rerank_model, region=services.settings.aws_region)


def _relevance(services: Services) -> RelevanceModel | None:
    """The LLM port's relevance steps need a model that can judge: Bedrock or an OpenAI-compatible
    server. The local rules LLM cannot, so with it they stay off whatever the setting says."""
    settings = services.settings
    if settings.composer_llm == "off" or settings.llm_choice == "rules":
        return None
    if settings.llm_choice == "openai":
        return openai_relevance(settings)
    from agentmem.adapters.aws.bedrock_llm import BedrockLLM
    from agentmem.adapters.aws.bedrock_relevance import BedrockRelevance

    llm = BedrockLLM(settings.bedrock_llm_model) if settings.bedrock_llm_model else BedrockLLM()
    return BedrockRelevance(llm)
