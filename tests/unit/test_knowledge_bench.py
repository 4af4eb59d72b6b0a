"""The knowledge-update bench (bench/knowledge_updates.py) measures what it says: its generator is
seeded, varied and honest about its labels (every statement says its value about its pair, the
last value of a pair is its current one, values never repeat), and its scoring reads lines the
way conversation_score.py does. These pin the harness, never the product's figures."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

from knowledge_gen import RELATIONS, Pair, generate  # noqa: E402
from knowledge_updates import questions, says, superseded_unlabelled  # noqa: E402


def test_generation_is_seeded() -> None:
    assert generate(3, 120) == generate(3, 120)
    assert generate(4, 120) != generate(3, 120)


def test_the_dataset_has_the_size_asked_and_its_labels_are_true() -> None:
    data = generate(5, 600)
    assert len(data.statements) == 600
    for statement in data.statements:
        pair = data.pairs[statement.pair]
        assert says(statement.value, statement.text) and says(pair.entity, statement.text)
        assert pair.relation in statement.text
    for index, pair in enumerate(data.pairs):
        said = [s.value for s in data.statements if s.pair == index]
        assert said == pair.values  # in log order: the last one is current
    values = Counter(v for p in data.pairs for v in p.values)
    assert max(values.values()) == 1  # a value on a line names one pair


def test_relations_shapes_and_updates_are_varied() -> None:
    data = generate(6, 1000)
    assert len({r[0] for r in RELATIONS}) >= 30
    updated = [p for p in data.pairs if len(p.values) > 1]
    assert 0.25 <= len(updated) / len([p for p in data.pairs if p.values]) <= 0.55
    assert {len(p.values) for p in updated} == {2, 3, 4}
    restated_elsewise = 0
    for pair in updated:
        texts = [s.text.casefold() for s in data.statements if data.pairs[s.pair] is pair]
        opens = {t.split(pair.entity.casefold())[0][-4:] for t in texts}  # "the ", "of ", ...
        restated_elsewise += len(opens) > 1
    assert restated_elsewise / len(updated) > 0.5


def test_questions_are_a_seeded_half_updated_sample() -> None:
    data = generate(7, 800)
    asked = questions(data, 100, 1)
    assert asked == questions(data, 100, 1) and len(asked) == 100
    assert sum(len(p.values) > 1 for p in asked) == 50


def test_an_old_value_counts_only_on_a_line_of_its_own_without_a_label() -> None:
    pair = Pair("CEO", "Velmora", "Who is the CEO of Velmora?", "ceo_of_velmora", ["Dana Orr", "Raj Tam"])
    assert superseded_unlabelled("- The CEO of Velmora is Dana Orr.", pair)
    assert not superseded_unlabelled("- The CEO of Velmora is now Raj Tam (changed from Dana Orr).", pair)
    assert not superseded_unlabelled("- Dana Orr (superseded)", pair)
    assert not superseded_unlabelled("- Dana Orrin runs the bakery.", pair)  # whole words only
