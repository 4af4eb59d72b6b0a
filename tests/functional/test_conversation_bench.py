"""The conversation bench (bench/conversations.py) measures what it says it measures: its
labels are true of its conversations, its scoring reads documents the way its docs say, its
baseline finds what it should, and a tiny run writes its results. These pin the harness's own
invariants, never the product's figures."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

from conversation_gen import generate  # noqa: E402
from conversation_score import (  # noqa: E402
    EventRef,
    Reading,
    agentmem_reading,
    current_ranks_first,
    score,
    superseded_unlabelled,
)
from conversation_text import Value, says  # noqa: E402
from naive_retriever import Doc, NaiveRetriever  # noqa: E402

from agentmem.adapters.tokens import count_tokens  # noqa: E402

LISBON, PORTO = Value("Lisbon", ("Lisbon",)), Value("Porto", ("Porto",))


def test_generation_is_seeded_and_a_smaller_run_is_a_prefix_of_a_bigger_one() -> None:
    first = generate(7, 2, 3)
    assert generate(7, 2, 3) == first
    assert generate(8, 2, 3) != first
    assert generate(7, 3, 3)[:2] == first


@pytest.mark.parametrize("seed", [1, 2, 3, 20261212])
def test_the_turns_that_say_a_value_are_exactly_the_labelled_ones(seed: int) -> None:
    """No filler, distractor or other fact ever says a subject's labelled value: a value found in a
    document can only have come from a turn labelled as stating it."""
    for subject in generate(seed, 6, 10):
        turns = list(subject.turns())
        assert len(subject.questions) == 8
        for q in subject.questions:
            saying_current = {t.turn_id for t in turns if says(q.current.forms, t.content)}
            assert saying_current == set(q.evidence), q.question_id
            assert not says(q.current.forms, q.text)
            if q.superseded is not None:
                assert q.superseded_evidence
                saying_old = {t.turn_id for t in turns if says(q.superseded.forms, t.content)}
                assert saying_old <= set(q.superseded_evidence) | set(q.evidence), q.question_id
                assert set(q.superseded_evidence) <= saying_old
                # the old value was said before the new one
                assert min(q.superseded_evidence) < max(q.evidence)


def test_figures_are_matched_whole_and_never_inside_bigger_figures() -> None:
    budget = Value("$4,250", ("$4,250", "4,250", "4250"))
    age = Value("34", ("34",))
    assert says(budget.forms, "We can spend $4,250 on trips.")
    assert not says(budget.forms, "It was $14,250 in the end.")
    assert says(age.forms, "I'm 34.")
    assert not says(age.forms, "Standup at 09:34, rated 4.34, 34% off, v34")
    assert not says(("Porto",), "We love Portuguese food.")


def test_current_value_ranks_first_unless_an_unlabelled_old_line_comes_before_it() -> None:
    assert current_ranks_first("- I live in Lisbon\n- I live in Porto", LISBON, PORTO)
    assert not current_ranks_first("- I live in Porto\n- I live in Lisbon", LISBON, PORTO)
    # a line saying both labels the change itself; a labelled old line does not count against it
    assert current_ranks_first("- we moved from Porto to Lisbon\n- I live in Porto", LISBON, PORTO)
    assert current_ranks_first("- I live in Porto (superseded)\n- I live in Lisbon", LISBON, PORTO)
    assert not current_ranks_first("- I live in Porto", LISBON, PORTO)
    assert superseded_unlabelled("- I live in Lisbon\n- I live in Porto", LISBON, PORTO)
    assert not superseded_unlabelled("- moved from Porto to Lisbon", LISBON, PORTO)


def test_a_belief_reaches_the_events_that_stated_its_value_only_when_rendered_with_it() -> None:
    q = next(q for s in generate(7, 3, 4) for q in s.questions if q.slot == "city")
    belief = {
        "doc_id": "city",
        "value": q.current.text,
        "provenance": [
            {"event_id": "ev-new", "value": q.current.text},
            {"event_id": "ev-other", "value": "somewhere else"},
        ],
    }
    response: dict[str, Any] = {
        "markdown": f"- **city**: {q.current.text}\n",
        "items": [{"source": "semantic", "level": "short", "ref": {"doc_id": "city"}}],
        "trace": {"used_tokens": 12},
    }
    reached = agentmem_reading(response, q, {"city": belief}, {}, {}).reached
    assert reached == {"ev-new": "belief"}
    response["items"][0]["level"] = "identity"  # the bare key: the value is not in front of the reader
    assert agentmem_reading(response, q, {"city": belief}, {}, {}).reached == {}
    # an item with ids reaches its event; one without falls back to the stating sentence
    history = {
        "markdown": "- We moved here. I live in X.\n",
        "items": [
            {"source": "history", "level": "full", "ref": {"session_id": "s1", "seq": 4}},
            {"source": "other", "level": "full", "ref": {}},
        ],
        "trace": {"used_tokens": 9},
    }
    reading = agentmem_reading(history, q, {}, {("s1", 4): "ev-4"}, {"ev-9": "I live in X."})
    assert reading.reached == {"ev-4": "event_id", "ev-9": "substring"}
    evidence = [EventRef("s1", 4, "ev-4"), EventRef("s1", 5, "ev-5")]
    assert score(q, Reading("", 0, {"ev-4": "event_id"}), evidence).evidence_recall == 0.5


def test_the_naive_baseline_stays_in_its_budget_and_finds_a_planted_fact() -> None:
    texts = [f"Filler turn {i} about the weekend plans and the weather." for i in range(60)]
    texts[37] = "I work at Brightwell Labs as a project lead."

    def embed(batch: object) -> list[list[float]]:  # a stand-in: BM25 alone must find the fact
        return [[1.0, 0.0] for _ in batch]  # type: ignore[attr-defined]

    naive = NaiveRetriever(embed, count_tokens)
    naive.index("maya", [Doc(f"ev-{i}", t) for i, t in enumerate(texts)])
    ranked = naive.rank("maya", "Which company does Maya work at? Brightwell?")
    assert ranked[0].event_id == "ev-37"
    for budget in (40, 200, 5000):
        packed = naive.pack(ranked, budget)
        assert packed.tokens == count_tokens(packed.markdown) <= budget
    assert len(naive.pack(ranked, 5000).event_ids) == len(texts)  # everything fits: everything is in


@pytest.mark.slow
def test_a_tiny_run_writes_results_whose_invariants_hold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import conversations

    out, dataset = tmp_path / "conversations.json", tmp_path / "dataset.jsonl"
    argv = ["conversations.py", "--subjects", "2", "--sessions", "3", "--budgets", "300,1000,4000"]
    monkeypatch.setattr(sys, "argv", [*argv, "--out", str(out), "--dataset-out", str(dataset)])
    conversations.main()

    doc = json.loads(out.read_text(encoding="utf-8"))
    subjects = generate(conversations.SEED, 2, 3)
    labels = sum(len(q.evidence) + len(q.superseded_evidence) for s in subjects for q in s.questions)
    assert doc["dataset"]["labels_verified"] == labels
    assert doc["dataset"]["events"] == sum(len(list(s.turns())) for s in subjects)
    assert len(dataset.read_text(encoding="utf-8").splitlines()) == 2
    for q in doc["questions"]:
        assert {e["event_id"] for e in q["evidence"]}  # labels mapped to the log's ids
        for results in q["results"].values():
            for budget, r in results.items():
                assert r["tokens"] <= int(budget)
    rows = {(r["system"], r["budget"]): r for r in doc["rows"]}
    supported = doc["meta"]["history_supported"]
    assert {r["status"] for k, r in rows.items() if k[0] == "agentmem+history"} == (
        {"measured"} if supported else {"n/a"}
    )
    assert rows[("agentmem", 1000)]["status"] == "measured"
    assert rows[("naive", 300)]["evidence_recall"] > 0
    # the whole history fits in 4,000 tokens here, so the baseline must have pasted all of it
    assert doc["dataset"]["full_history_tokens"]["max"] <= 4000
    assert rows[("naive", 4000)]["evidence_recall"] == 1.0
    assert doc["projection"]["events"] == doc["dataset"]["events"]
