"""Versions of one statement found without extraction: one changed span, not at the start, most
words shared; look-alikes about another entity or another attribute are kept apart."""

from __future__ import annotations

import pytest

from agentmem.context.one_ranking import order_versions
from agentmem.context.versions import Statement, find_versions, version_of
from agentmem.packing.model import Candidate


@pytest.mark.parametrize(
    ("older", "newer", "old_value", "new_value"),
    [
        ("The population was 1,204 at the 2000 census.", "The population was 1,412 at the 2010 census.",
         "1,204 at the 2000", "1,412 at the 2010"),
        ("We are moving to Denver in the spring.", "We are moving to Austin in the spring.",
         "Denver", "Austin"),
        ("Mi hermana vive ahora en Sevilla con Juan.", "Mi hermana vive ahora en Valencia con Juan.",
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
        # another person holding the same name-valued fact
        ("My sister lives in Paris with her husband.", "My brother lives in Paris with her husband."),
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


def test_the_tail_of_a_sentence_cut_at_an_abbreviation_is_not_compared() -> None:
    """ "Joseph R. BIDEN Jr. (since 20 January 2021)" splits after "Jr.": the tail says nothing of
    whom it is about, so it is no version of another tail."""
    older = "United States — President Joseph R. BIDEN Jr. (since 20 January 2021)"
    newer = "Palau — President Surangel WHIPPS Jr. (since 21 January 2021)"
    assert version_of(older, newer) is None


def test_the_newer_version_takes_the_better_place_and_the_older_never_rises() -> None:
    def item(item_id: str, score: float, text: str, day: str) -> tuple[Candidate, Statement]:
        meta = {"session_id": "S", "seq": int(day[-1]), "event_id": item_id}
        candidate = Candidate(item_id, "history", score, (f"{day}: {text}", day), meta)
        return candidate, Statement(item_id, text, (day, int(day[-1])), item_id)

    old = item("old", 0.03, "Our office in Porto has 40 desks and a kitchen.", "2026-01-1")
    older = item("older", 0.001, "Our office in Porto has 35 desks and a kitchen.", "2026-01-0")
    new = item("new", 0.01, "Our office in Porto has 55 desks and a kitchen.", "2026-01-2")
    ranked, versions = order_versions(
        [old[0], older[0], new[0]], {s.item_id: s for _, s in (old, older, new)}
    )
    by_id = {c.item_id: c for c in ranked}
    assert by_id["new"].score == 0.03 > by_id["old"].score
    assert by_id["older"].score == 0.001  # pulled up by nothing
    assert "superseded by S #2" in by_id["old"].renders[0] and "55 desks" in by_id["old"].renders[0]
    assert by_id["old"].renders[-1] == "2026-01-1"  # the identity line says no value
    assert {(v.older, v.newer) for v in versions} == {("old", "new"), ("older", "new")}
