"""How MiniLM groups texts into model calls: bounded by padded tokens, shortest first, and
without changing any vector. The speed this buys is measured in bench/project_passages.py; here
only what must hold whatever the speed."""

from __future__ import annotations

import numpy as np
import pytest
from tokenizers import Tokenizer

from agentmem.adapters.local import minilm_embedder
from agentmem.adapters.local.minilm_embedder import MiniLmEmbedder, plan_batches

pytestmark = pytest.mark.xdist_group("minilm")

# Mixed lengths, a repeat and one text past the model's window, as a projection batch has them.
TEXTS = [
    "Sure. Tell me a bit about what you have in mind.",
    "Maya moved to Lisbon last spring and now works for Northwind Labs as a data engineer.",
    "ok",
    "Sure. Tell me a bit about what you have in mind.",
    "Her risk tolerance changed: she is now comfortable with an aggressive portfolio. " * 3,
    "portfolio rebalancing " * 300,
    "The team meets every Tuesday.",
]


@pytest.fixture(scope="module")
def minilm() -> MiniLmEmbedder:
    embedder = MiniLmEmbedder()
    embedder.load()
    return embedder


def test_every_text_is_in_exactly_one_batch_within_both_limits() -> None:
    lengths = [5, 40, 3, 40, 120, 256, 9, 17, 2, 64]
    batches = plan_batches(lengths, max_texts=3, max_tokens=100)
    assert sorted(i for batch in batches for i in batch) == list(range(len(lengths)))
    for batch in batches:
        assert len(batch) <= 3
        if len(batch) > 1:  # a text longer than the budget goes alone
            assert len(batch) * max(lengths[i] for i in batch) <= 100
    assert [256] in [[lengths[i] for i in batch] for batch in batches]


def test_batches_go_shortest_first_so_each_pads_little() -> None:
    lengths = [30, 4, 12, 4, 50, 8]
    batches = plan_batches(lengths, max_texts=64, max_tokens=32)
    flat = [lengths[i] for batch in batches for i in batch]
    assert flat == sorted(lengths)
    assert batches == [[1, 3, 5], [2], [0], [4]]  # 3 x 8 fits 32; 4 x 12 would not


def test_no_texts_no_batches() -> None:
    assert plan_batches([], max_texts=8, max_tokens=256) == []


def test_padding_batches_itself_feeds_the_model_what_the_tokenizer_padding_did(
    minilm: MiniLmEmbedder,
) -> None:
    # The old path let the tokenizer pad each batch; the new one pads in numpy. Same batch, same
    # model inputs: the vectors must be equal to the bit.
    runtime = minilm._get_runtime()
    padded = Tokenizer.from_str(
        minilm_embedder._read_package_file(
            minilm_embedder.TOKENIZER_PACKAGE, *minilm_embedder.TOKENIZER_FILE
        ).decode("utf-8")
    )
    padded.enable_truncation(max_length=minilm_embedder.MAX_TOKENS)
    padded.enable_padding(pad_id=0, pad_token="[PAD]")
    encodings = padded.encode_batch(TEXTS)
    ids = np.array([e.ids for e in encodings], dtype=np.int64)
    mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
    feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
    (hidden,) = runtime.session.run(
        ["last_hidden_state"], {k: v for k, v in feeds.items() if k in runtime.input_names}
    )
    weights = mask[:, :, None].astype(np.float32)
    pooled = (np.asarray(hidden, dtype=np.float32) * weights).sum(axis=1) / weights.sum(axis=1)
    expected = pooled / np.linalg.norm(pooled, axis=1, keepdims=True)

    ours = runtime.embed_ids(runtime.encode(TEXTS))
    np.testing.assert_array_equal(ours, expected.astype(np.float32))


def test_the_batch_budget_changes_no_vector(minilm: MiniLmEmbedder) -> None:
    budgeted = minilm.embed(TEXTS)  # the default: at most 256 padded tokens a call
    one_call = MiniLmEmbedder(batch_size=64, batch_tokens=1_000_000).embed(TEXTS)
    one_by_one = MiniLmEmbedder(batch_tokens=1).embed(TEXTS)  # a budget of 1: each text alone
    for a, b, c in zip(budgeted, one_call, one_by_one, strict=True):
        assert max(abs(x - y) for x, y in zip(a, b, strict=True)) < 1e-6
        assert max(abs(x - y) for x, y in zip(a, c, strict=True)) < 1e-6
    assert budgeted[0] == budgeted[3]  # a repeated text, the same vector


def test_a_batch_budget_below_one_token_is_refused() -> None:
    with pytest.raises(ValueError, match="batch_tokens"):
        MiniLmEmbedder(batch_tokens=0)


def test_calls_side_by_side_give_the_very_vectors_of_one_call_on_two_threads(minilm: MiniLmEmbedder) -> None:
    """How the calls share the cores is speed only: an index built one way and queried the other
    must agree to the bit, or the vector cache would hand out vectors a query never matches."""
    texts = [*TEXTS, *(f"fact number {i} " + "detail " * (i % 9) for i in range(120))]
    side_by_side = minilm.embed(texts)  # the default: one thread a call, calls in parallel
    two_threads = MiniLmEmbedder(intra_op_threads=2, workers=1).embed(texts)
    alone = MiniLmEmbedder(workers=1).embed(texts)
    assert side_by_side == two_threads == alone
    assert [minilm.embed([t])[0] for t in texts[:8]] == side_by_side[:8]


def test_no_thread_and_no_worker_are_refused() -> None:
    for bad in ({"intra_op_threads": 0}, {"workers": 0}):
        with pytest.raises(ValueError, match="at least 1"):
            MiniLmEmbedder(**bad)
