"""Ports: the Protocols every backend adapter implements; the domain depends only on these. One
module per concern:

- log: EventLog (append, gap-free seq), LogTail and CheckpointStore (the projector worker's view)
- blobs: BlobStore;  embedding: Embedder;  vectors: VectorCache (what was embedded already)
- tokens: the encodings budgets are counted in
- semantic: LLM (extract, decide, resolve keys), BeliefIndex, BeliefStore (generations), the
  history source's PassageIndex and PassageStore, and what erasure and retention need of the tier
  (ErasedSubjects, ObservationSnapshot, RetentionSweeper)
- subjects: ErasureLedger (tombstones), SubjectLog (one subject's events), ErasureScheduler
- procedural: SkillLibrary, StampedLibrary, SkillIndex, SkillReviewer
- catalogue: Catalogue, AssetIndex, ConversationMemory;  ranking: Reranker, RelevanceModel

Adapters live in agentmem.adapters.{local,aws}; each backend's factory builds all of them."""
