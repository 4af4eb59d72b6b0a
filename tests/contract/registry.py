"""Which contract suite pins each Protocol of the package, and which adapters pass it.

test_every_port_has_a_suite.py reads this: a new Protocol fails the build until it is listed here
with its suite (or as not a port, with the reason), and so does an adapter of a port that no
suite's test class constructs. Names, not imports, on the Protocol side: the ports are moving into
one package (`agentmem/ports/`) and the check finds them wherever they live."""

from __future__ import annotations

from dataclasses import dataclass

from tests.contract.asset_index_contract import AssetIndexContract
from tests.contract.belief_index_contract import BeliefIndexContract
from tests.contract.blob_store_contract import BlobStoreContract
from tests.contract.catalogue_contract import CatalogueContract, ConversationMemoryContract
from tests.contract.checkpoint_store_contract import CheckpointStoreContract
from tests.contract.dependents_index_contract import DependentsIndexContract
from tests.contract.embedder_contract import EmbedderContract
from tests.contract.erasure_scheduler_contract import ErasureSchedulerContract
from tests.contract.event_log_contract import EventLogContract
from tests.contract.inspector_transport_contract import TransportContract
from tests.contract.llm_contract import LLMContract
from tests.contract.log_tail_contract import LogTailContract
from tests.contract.passage_index_contract import PassageIndexContract
from tests.contract.projection_status_contract import ProjectionStatusContract
from tests.contract.relevance_contract import RelevanceContract
from tests.contract.reranker_contract import RerankerContract
from tests.contract.retention_contract import ObservationSnapshotContract, RetentionSweeperContract
from tests.contract.shadow_ledger_contract import ShadowLedgerContract
from tests.contract.skill_index_contract import SkillIndexContract
from tests.contract.skill_library_contract import SkillLibraryContract
from tests.contract.skill_reviewer_contract import SkillReviewerContract
from tests.contract.stamped_library_contract import StampedLibraryContract
from tests.contract.subject_erasure_contract import (
    ErasedSubjectsContract,
    ErasureLedgerContract,
    SubjectLogContract,
)
from tests.contract.vector_cache_contract import VectorCacheContract


@dataclass(frozen=True)
class Suite:
    contract: type
    adapters: tuple[str, ...]  # classes (adapters and tests/fakes.py fakes) its test classes build


SUITES: dict[str, Suite] = {
    "EventLog": Suite(EventLogContract, ("SqliteEventLog", "DynamoDbEventLog", "InMemoryEventLog")),
    "LogTail": Suite(LogTailContract, ("SqliteEventLog", "InMemoryEventLog")),
    "CheckpointStore": Suite(CheckpointStoreContract, ("SqliteCheckpoints", "InMemoryCheckpoints")),
    "ProjectionStatusStore": Suite(
        ProjectionStatusContract, ("SqliteProjectionStatus", "DynamoDbProjectionStatus")
    ),
    "DependentsIndex": Suite(DependentsIndexContract, ("SqliteDependentsIndex", "DynamoDbDependentsIndex")),
    "BlobStore": Suite(BlobStoreContract, ("FolderBlobStore", "S3BlobStore")),
    "Embedder": Suite(EmbedderContract, ("MiniLmEmbedder", "BedrockEmbedder", "OpenAICompatEmbedder")),
    "LLM": Suite(LLMContract, ("RulesLLM", "BedrockLLM", "OpenAICompatLLM")),
    # The belief index generations are built by their stores; the one suite drives both ports.
    "BeliefIndex": Suite(BeliefIndexContract, ("SqliteBeliefStore", "OpenSearchBeliefStore")),
    "BeliefStore": Suite(BeliefIndexContract, ("SqliteBeliefStore", "OpenSearchBeliefStore")),
    # Like the belief index, passage generations are built by their stores; one suite drives both.
    "PassageIndex": Suite(PassageIndexContract, ("SqlitePassageStore", "OpenSearchPassageStore")),
    "PassageStore": Suite(PassageIndexContract, ("SqlitePassageStore", "OpenSearchPassageStore")),
    "SkillLibrary": Suite(SkillLibraryContract, ("SqliteSkillLibrary", "DynamoDbSkillLibrary")),
    "StampedLibrary": Suite(StampedLibraryContract, ("SqliteSkillLibrary", "DynamoDbSkillLibrary")),
    "SkillIndex": Suite(SkillIndexContract, ("SqliteSkillIndex", "OpenSearchSkillIndex")),
    "SkillReviewer": Suite(
        SkillReviewerContract, ("RulesSkillReviewer", "BedrockSkillReviewer", "OpenAICompatSkillReviewer")
    ),
    "Catalogue": Suite(CatalogueContract, ("SqliteCatalogue", "DynamoDbCatalogue")),
    "ConversationMemory": Suite(
        ConversationMemoryContract, ("SqliteConversationMemory", "DynamoDbConversationMemory")
    ),
    "AssetIndex": Suite(AssetIndexContract, ("SqliteAssetIndex", "OpenSearchAssetIndex")),
    "Reranker": Suite(RerankerContract, ("BedrockReranker",)),
    "RelevanceModel": Suite(RelevanceContract, ("BedrockRelevance", "OpenAICompatRelevance")),
    # Erasure: the ledger is also what projection reads the tombstones from (ErasedSubjects).
    "ErasureLedger": Suite(ErasureLedgerContract, ("SqliteErasureLedger", "DynamoDbErasureLedger")),
    "ErasedSubjects": Suite(ErasedSubjectsContract, ("SqliteErasureLedger", "DynamoDbErasureLedger")),
    "SubjectLog": Suite(SubjectLogContract, ("SqliteSubjectLog", "DynamoDbSubjectLog")),
    # Locally there is no scheduler: ErasureService runs an accepted erasure in the request.
    "ErasureScheduler": Suite(ErasureSchedulerContract, ("SqsErasureScheduler",)),
    # Local only: on AWS, DynamoDB TTL and S3 lifecycle expire, and the observation index keeps.
    "RetentionSweeper": Suite(RetentionSweeperContract, ("SqliteRetention",)),
    "ObservationSnapshot": Suite(ObservationSnapshotContract, ("SqliteObservationSnapshot",)),
    # Local only, like replay itself: AWS has no shadow build yet (docs/shadow-replay.md).
    "ShadowLedger": Suite(ShadowLedgerContract, ("SqliteShadowLedger",)),
    "VectorCache": Suite(VectorCacheContract, ("SqliteVectorCache", "DynamoDbVectorCache")),
    # The inspector's two ways to reach the API: in process through the resolver, or over HTTP.
    "Transport": Suite(TransportContract, ("ResolverTransport", "ClientTransport")),
}

# Adapters a suite reaches through another adapter rather than by constructing them.
BUILT_BY: dict[str, str] = {
    "SqliteBeliefIndex": "SqliteBeliefStore",
    "OpenSearchBeliefIndex": "OpenSearchBeliefStore",
    "SqlitePassageIndex": "SqlitePassageStore",
    "OpenSearchPassageIndex": "OpenSearchPassageStore",
}

NOT_PORTS: dict[str, str] = {
    "Governed": "the header fields the access rule reads (AssetHeader and Asset have them): a "
    "structural type of the domain's own models, with no adapter",
    "_Resolver": "the private type of a name-to-id callable inside the review service",
    "MemoryBackend": "the MCP server's view of the API, not a port of the domain: its local and remote "
    "implementations answer the same MCP tool tests (tests/functional/test_mcp_transports.py drives "
    "RemoteBackend against a real local server)",
    "Identity": "how the MCP server learns its caller (an API key, or the process's fixed identity): "
    "an entry point's concern, pinned by the MCP transport tests",
    "BackendFactory": "the composition root's view of a backend's factory (wiring/ports.py): what it "
    "builds are the ports; tests/unit/test_wiring.py pins that both factories build each one",
}

# Every Bedrock adapter also passes the fault contract (tests/contract/backend_faults_contract.py).
FAULT_CONTRACTED: tuple[str, ...] = (
    "BedrockLLM",
    "BedrockSkillReviewer",
    "BedrockRelevance",
    "BedrockReranker",
    "BedrockEmbedder",
)

# Every OpenAI-compatible adapter also passes its fault contract (tests/contract/openai_faults_contract.py).
OPENAI_FAULT_CONTRACTED: tuple[str, ...] = (
    "OpenAICompatLLM",
    "OpenAICompatSkillReviewer",
    "OpenAICompatRelevance",
    "OpenAICompatEmbedder",
)
