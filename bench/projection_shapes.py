"""MiniLM alone on a projection's passages, for bench/project_passages.py: the ceiling (one call on
every passage, the best the model does on them), and the batch shapes tried for the vector lane
(passages a lane round x padded tokens a model call x how the calls use the two cores)."""

from __future__ import annotations

import statistics
import time
from typing import Any

from agentmem.adapters.local.minilm_embedder import MiniLmEmbedder

LANE_BATCHES = (32, 64, 128, 256)
BATCH_TOKENS = (128, 256, 512, 1024)
CONFIGS = {
    "2 intra-op threads, 1 call at a time": {"intra_op_threads": 2, "workers": 1},
    "1 thread, 2 calls side by side": {"intra_op_threads": 1, "workers": 2},
}
REPEATS = 3


def ceiling(texts: list[str], embedder: MiniLmEmbedder) -> dict[str, Any]:
    """`embedder` alone on `texts` in one call: what projection's passages cost the model."""
    tokens = sum(len(ids) for ids in embedder._get_runtime().encode(texts))
    start = time.perf_counter()
    embedder.embed(texts)
    seconds = time.perf_counter() - start
    return {
        "texts": len(texts),
        "tokens": tokens,
        "seconds": round(seconds, 3),
        "tokens_per_s": round(tokens / seconds),
    }


def shapes(texts: list[str]) -> list[dict[str, Any]]:
    """Each shape's best of REPEATS, the shapes interleaved so load falls on all alike; the
    vectors are checked equal to the first shape's (batching is only speed)."""
    distinct = list(dict.fromkeys(texts))
    embedders = {
        (name, tokens): MiniLmEmbedder(batch_tokens=tokens, **config)  # type: ignore[arg-type]
        for name, config in CONFIGS.items()
        for tokens in BATCH_TOKENS
    }
    reference = next(iter(embedders.values())).embed(distinct)
    times: dict[tuple[int, str, int], list[float]] = {}
    for _ in range(REPEATS):
        for lane in LANE_BATCHES:
            for (name, tokens), embedder in embedders.items():
                start = time.perf_counter()
                vectors = [
                    v for i in range(0, len(distinct), lane) for v in embedder.embed(distinct[i : i + lane])
                ]
                times.setdefault((lane, name, tokens), []).append(time.perf_counter() - start)
                assert vectors == reference, (lane, name, tokens)
    return sorted(
        (
            {
                "lane_batch": lane,
                "batch_tokens": tokens,
                "config": name,
                "passages_per_s": round(len(distinct) / min(seconds), 1),
                "median_seconds": round(statistics.median(seconds), 3),
            }
            for (lane, name, tokens), seconds in times.items()
        ),
        key=lambda row: -float(row["passages_per_s"]),
    )
