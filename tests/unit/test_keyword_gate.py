"""The keyword gate: BM25 counts in a fusion only as far as its best hits literally contain the
query, so a weak keyword ranker cannot outvote the vector one."""

from __future__ import annotations

from agentmem.packing.fusion import keyword_gate, term_coverage
from agentmem.procedural.search import fuse


def test_coverage_counts_content_terms_with_crude_stems() -> None:
    assert term_coverage("rotating the vendor credentials", "Rotate vendor API credential keys") == 1.0
    assert term_coverage("cycle feature toggles", "rotate feature flags") == 1 / 3
    assert term_coverage("the of and", "anything") == 0.0


def test_the_weight_is_zero_up_to_half_coverage_then_rises_to_one() -> None:
    assert keyword_gate("reconcile ledger entries close", ["ledger entries"])[0] == 0.0  # exactly half
    assert keyword_gate("reconcile ledger entries close", ["reconcile ledger entries"])[0] == 0.5
    weight, why = keyword_gate("parse_csv_rows", ["def parse_csv_rows(path)"])
    assert weight == 1.0 and "100%" in why
    assert keyword_gate("anything", [])[0] == 0.0


def test_a_closed_gate_leaves_the_vector_ranking_as_it_was() -> None:
    vector = [("function", "a"), ("function", "b"), ("function", "c")]
    keyword = [("function", "z"), ("function", "c")]
    fused = [
        key for key, _, _ in fuse({"vector": vector, "keyword": keyword}, {"vector": 1.0, "keyword": 0.0})
    ]
    assert fused == vector
    opened = [
        key for key, _, _ in fuse({"vector": vector, "keyword": keyword}, {"vector": 1.0, "keyword": 1.0})
    ]
    assert opened[0] == ("function", "c") and ("function", "z") in opened
