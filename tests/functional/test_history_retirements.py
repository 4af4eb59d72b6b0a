"""A later statement that something is over labels what said it earlier, in history and in the
beliefs, even when no extraction read the later statement (issue 12: history never contradicts
the current state unlabelled)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentmem.model.events import AppendEventRequest
from agentmem.settings import Settings
from agentmem.wiring import Services, bootstrap
from tests.history_fixtures import daily_writer, project_all, read_context

# None of these three is read by the rules: only the last says what changed.
FOREVER = "We had Oaxacan food three nights in a row last week."
OVER = "Honestly I'm over Oaxacan now."
WEEKENDS = "On weekends I go fly fishing with my uncle."
GAVE_UP = "I gave up fly fishing last spring; my knees complained."
AFTER = "My uncle still goes fly fishing every Sunday."


@pytest.fixture(scope="module")
def services(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Services]:
    services = bootstrap(Settings(data_dir=tmp_path_factory.mktemp("retired") / "data"))
    episodic = daily_writer(services)

    def say(session: str, text: str) -> None:
        request = AppendEventRequest(
            subject_id="ottilie", round=0, agent="user", kind="message", content=text
        )
        episodic.append(session, request)

    say("S1", FOREVER)
    say("S1", "My favourite food is Oaxacan.")
    say("S1", WEEKENDS)
    say("S2", "The forecast says light rain on Tuesday.")
    say("S3", OVER)
    say("S4", GAVE_UP)
    say("S5", AFTER)
    project_all(services)
    yield services


def read(services: Services, query: str) -> dict[str, Any]:
    return read_context(services, "ottilie", query)


def line_with(markdown: str, text: str) -> str:
    (line,) = [line for line in markdown.splitlines() if text in line]
    return line


def test_nothing_extracted_the_change_of_cuisine(services: Services) -> None:
    (food,) = [b for b in services.semantic.current("ottilie") if b.key == "favorite_food"]
    assert (food.value, food.version, [p.session_id for p in food.provenance]) == ("Oaxacan", 1, ["S1"])


def test_an_earlier_passage_quotes_the_later_sentence(services: Services) -> None:
    markdown = read(services, "Which cuisine does Ottilie like best?")["markdown"]
    assert f"⚠ later in S3: “{OVER[:-1]}”. {FOREVER}" in line_with(markdown, FOREVER)
    assert "⚠" not in line_with(markdown, OVER)  # the sentence that says it is not labelled by itself
    assert "My favourite food is Oaxacan" not in markdown  # it stands as the belief, labelled there


def test_a_belief_still_holding_the_old_value_quotes_it_too(services: Services) -> None:
    markdown = read(services, "Which cuisine does Ottilie like best?")["markdown"]
    assert f"⚠ later in S3: “{OVER[:-1]}”." in line_with(markdown, "**favorite_food**")


def test_what_was_said_after_the_retirement_is_not_labelled(services: Services) -> None:
    markdown = read(services, "Does Ottilie still go fly fishing on weekends?")["markdown"]
    # "On weekends I go fly fishing" stands as the hobby belief, which the later words label.
    hobby = line_with(markdown, "**hobby**")
    # once, in the event's own words, though the activity belief's sentence says it too
    assert hobby.count("⚠ later in S4") == 1 and f"“{GAVE_UP[:-1]}”" in hobby
    assert "⚠" not in line_with(markdown, AFTER)


def test_what_the_readers_own_session_says_is_over_labels_history_and_beliefs(tmp_path: Path) -> None:
    services = bootstrap(Settings(data_dir=tmp_path / "data"))
    episodic = daily_writer(services)
    for session, text in [("S1", FOREVER), ("S1", "My favourite food is Oaxacan."), ("LIVE", OVER)]:
        request = AppendEventRequest(subject_id="ines", round=0, agent="user", kind="message", content=text)
        episodic.append(session, request)
    project_all(services)
    markdown = read_context(services, "ines", "Which food does Ines like?", session_id="LIVE")["markdown"]
    label = f"⚠ later in LIVE: “{OVER[:-1]}”."
    assert label in line_with(markdown, FOREVER)
    assert label in line_with(markdown, "**favorite_food**")
