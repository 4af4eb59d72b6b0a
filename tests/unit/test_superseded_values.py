"""The old values a current belief replaced, as history looks for them in unread passages."""

from __future__ import annotations

import pytest

from agentmem.context.superseded import distinctive, mentioned, replaced_values
from agentmem.model.beliefs import Belief, Provenance, Verdict
from agentmem.model.passages import Passage

pytestmark = pytest.mark.unit


def belief(value: str, olds: list[str], *, member: str = "", since: str = "2026-03-01T00:00:00Z") -> Belief:
    provenance = [
        Provenance(session_id=f"S{n}", event_id=f"e{n}", seq=n, value=v)
        for n, v in enumerate([*olds, value], start=1)
    ]
    return Belief(
        subject_id="maya", key="city", member=member, doc_id="city", text=f"Maya lives in {value}.",
        value=value, version=len(olds) + 1, current=True, flag=False, verdict=Verdict.UPDATE,
        provenance=provenance, valid_from=since, source_seq=len(provenance), source_order="x",
    )  # fmt: skip


def passage(text: str, at: str = "2026-01-01T00:00:00Z") -> Passage:
    return Passage(
        subject_id="maya", session_id="S1", seq=2, span=(0, len(text)), event_id="e9", agent="user",
        kind="message", stated_at=at, text=text,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("porto", True),
        ("4250", True),
        ("34", True),
        ("two", False),
        ("bob", False),
        ("7", False),
        ("no", False),
    ],
)
def test_only_values_that_name_the_fact_are_looked_for(value: str, expected: bool) -> None:
    assert distinctive(value) is expected


def test_an_old_value_said_before_the_change_and_without_the_new_one_is_mentioned() -> None:
    replaced = replaced_values([belief("Lisbon", ["Porto"])])
    city = replaced[0].belief
    assert mentioned(passage("The winters in Porto are mild."), replaced) == [city]
    assert mentioned(passage("the winters in PORTO, are mild"), replaced) == [city]


def test_a_passage_that_says_the_change_itself_or_comes_after_it_is_not() -> None:
    replaced = replaced_values([belief("Lisbon", ["Porto"])])
    assert mentioned(passage("We moved from Porto to Lisbon."), replaced) == []
    assert mentioned(passage("My brother lives in Porto.", at="2026-05-01T00:00:00Z"), replaced) == []
    assert mentioned(passage("Portofino was lovely."), replaced) == []  # a whole word only


def test_first_versions_set_members_and_common_words_give_nothing_to_look_for() -> None:
    assert replaced_values([belief("Lisbon", [])]) == []
    assert replaced_values([belief("Lisbon", ["Porto"], member="lisbon")]) == []
    assert replaced_values([belief("three", ["two"])]) == []
    restated = belief("Lisbon", ["Porto", "Lisbon", "Porto"])
    assert [r.old.pattern for r in replaced_values([restated])] == [r"(?<![a-z0-9])porto(?![a-z0-9])"]


def test_an_old_value_a_change_named_is_looked_for_even_on_a_first_version() -> None:
    first = belief("Palisade Media", []).model_copy(
        update={
            "provenance": [
                Provenance(
                    session_id="S3", event_id="e3", seq=3, value="Palisade Media", replaces="Harrowgate Foods"
                )
            ]
        }
    )
    replaced = replaced_values([first])
    assert mentioned(passage("I'm on the data team at Harrowgate Foods."), replaced) == [first]
