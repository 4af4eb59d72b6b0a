"""Versions of one statement found without extraction: one changed span, not at the start, most
words shared; look-alikes about another entity or another attribute are kept apart."""

from __future__ import annotations

import pytest

from agentmem.context.versions import Statement, find_versions, version_of


@pytest.mark.parametrize(
    ("older", "newer", "old_value", "new_value"),
    [
        ("The population was 1,204 at the 2000 census.", "The population was 1,412 at the 2010 census.",
         "1,204 at the 2000", "1,412 at the 2010"),
        ("We are moving to Denver in the spring with the kids.", "We are moving to Austin in the spring with the kids.",
         "Denver", "Austin"),
        ("Mi hermana vive ahora en Sevilla con su marido.", "Mi hermana vive ahora en Valencia con su marido.",
         "Sevilla", "Valencia"),
        ("Die Firma hat jetzt 120 Mitarbeiter in Berlin.", "Die Firma hat jetzt 145 Mitarbeiter in Berlin.",
         "120", "145"),
    ],
)  # fmt: skip
def test_one_changed_span_is_a_new_version_in_any_language(
    older: str, newer: str, old_value: str, new_value: str
) -> None:
    found = version_of(older, newer)
    assert found is not None
    assert found[1:] == (old_value, new_value)


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        # another entity: the change is the sentence's topic
        ("Alice works at the bakery on Main Street.", "Bruno works at the bakery on Main Street."),
        # another entity holding the same figure
        ("The population of Ashby was 900 in 2010.", "The population of Barton was 900 in 2010."),
        # another attribute: more than one short span differs
        ("The population of Ashby was 900 in 2010.", "The total area of Ashby is 12 square miles."),
        # the same sentence: a restatement, not a change
        ("I like hiking with my dog on weekends.", "I like hiking with my dog on weekends."),
        # an addition, not a change of value
        ("I like hiking with my dog.", "I like hiking with my dog and my sister."),
        # too little in common to say
        ("Sure, sounds good.", "Sure, sounds great."),
    ],
)
def test_look_alikes_are_not_versions(older: str, newer: str) -> None:
    assert version_of(older, newer) is None


def test_the_older_statement_points_at_its_latest_version_and_one_event_is_never_its_own() -> None:
    said = [
        Statement("a", "Our team has 12 engineers in the Lisbon office.", ("2026-01-01", 1), "e1"),
        Statement("b", "Our team has 15 engineers in the Lisbon office.", ("2026-02-01", 2), "e2"),
        Statement("c", "Our team has 19 engineers in the Lisbon office.", ("2026-03-01", 3), "e3"),
        Statement("d", "Our team has 21 engineers in the Lisbon office.", ("2026-03-01", 3), "e3"),
    ]
    found = {v.older: (v.newer, v.new_value) for v in find_versions(said)}
    assert found["a"] == ("d", "21")  # the latest, and given in any order
    assert found["b"] == ("d", "21")
    assert "c" not in found  # d is said in the same event: a list, not a change
    assert find_versions(list(reversed(said))) == find_versions(said)
