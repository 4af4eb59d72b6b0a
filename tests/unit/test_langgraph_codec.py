"""The LangGraph store's mapping onto agentmem, without a server: fact keys, statements, and
the record of writes not projected yet."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from langgraph.store.base import InvalidNamespaceError

from agentmem.integrations.langgraph._codec import address, statement
from agentmem.integrations.langgraph._pending import PendingWrite, PendingWrites
from agentmem.model.beliefs import FactInput

AT = datetime(2026, 11, 1, tzinfo=UTC)


def test_fact_keys_are_valid_readable_and_distinct_for_lookalike_items() -> None:
    lookalikes = [
        (("maya", "a_b"), "c"),
        (("maya", "a"), "b_c"),
        (("maya", "A"), "b_c"),
        (("maya",), "a_b_c"),
    ]
    keys = [address(ns, key).fact_key for ns, key in lookalikes]
    assert len(set(keys)) == len(keys)
    assert all(re.fullmatch(r"[a-z][a-z0-9_]{0,63}", k) for k in keys)
    assert keys[1].startswith("a_b_c_")
    long = address(("maya", "x" * 300), "1" * 300).fact_key
    assert len(long) <= 64 and FactInput(key=long, text="t").key == long
    assert address(("maya",), "42").fact_key.startswith("k_42_")


def test_event_kinds_are_identifiers() -> None:
    assert address(("maya", "notes", "work"), "k").event_kind == "notes:work"
    assert address(("maya",), "k").event_kind == "memory"
    assert re.fullmatch(r"[A-Za-z0-9._:-]{1,128}", address(("maya", "a b", "ç"), "k").event_kind)


def test_the_subject_label_must_be_a_subject_id() -> None:
    for bad in [(), ("two words",), ("maya\n",), ("x" * 129,)]:
        with pytest.raises(InvalidNamespaceError):
            address(bad, "k")


def test_a_put_and_a_delete_state_one_fact_each() -> None:
    item = address(("maya", "prefs"), "food")
    put = statement(item, {"likes": "pizza", "n": 1})
    assert put.content == {"namespace": ["maya", "prefs"], "key": "food", "value": {"likes": "pizza", "n": 1}}
    assert put.fact.text == '{"likes":"pizza","n":1}' and put.fact.key == item.fact_key
    changed = statement(item, {"likes": "pizza", "n": 2})
    assert changed.fact.value != put.fact.value  # a new value is never "the same value"
    gone = statement(item, None)
    assert gone.content["deleted"] is True and gone.fact.text == "(deleted)"


def test_pending_writes_are_settled_by_their_event_and_bounded() -> None:
    pending = PendingWrites(limit=2)
    pending.record((("foo",), "k"), PendingWrite("e1", {"v": 1}, AT))
    pending.record((("foobar",), "k"), PendingWrite("e2", {"v": 2}, AT))
    assert list(pending.under(("foo",))) == [(("foo",), "k")]  # segment by segment, not by text
    assert pending.settle((("foo",), "k"), {"e0"}) is not None  # another event: still pending
    assert pending.settle((("foo",), "k"), {"e0", "e1"}) is None
    assert pending.under(("foo",)) == {}
    pending.record((("a",), "k"), PendingWrite("e3", None, AT))
    pending.record((("b",), "k"), PendingWrite("e4", None, AT))
    assert list(pending.under(())) == [(("a",), "k"), (("b",), "k")]  # the oldest went
