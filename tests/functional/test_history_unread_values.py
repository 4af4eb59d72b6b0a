"""History labels an old value said in words the extractor did not read (issue 12: history never
contradicts a current belief unlabelled), and only a passage said before the change."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from agentmem.model.events import AppendEventRequest
from agentmem.settings import Settings
from agentmem.wiring import Services, bootstrap
from tests.history_fixtures import daily_writer, project_all, read_context

WINTERS = "The winters in Porto are mild, so I never pack the heavy coat."
BROTHER = "My brother still rents a flat in Porto near the river."
TEAM = "The Harrowgate Foods canteen does a decent curry on Fridays."  # read by no rule


@pytest.fixture(scope="module")
def services(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Services]:
    services = bootstrap(Settings(data_dir=tmp_path_factory.mktemp("unread") / "data"))
    episodic = daily_writer(services)  # "said before the change" must not rest on the wall clock

    def say(session: str, text: str) -> None:
        request = AppendEventRequest(subject_id="maya", round=0, agent="user", kind="message", content=text)
        episodic.append(session, request)

    say("S1", "I live in Porto.")
    say("S1", WINTERS)
    say("S1", TEAM)
    say("S2", "The forecast says light rain on Tuesday.")
    say("S3", "We moved from Porto to Lisbon last month.")
    say("S3", "I left Harrowgate Foods and started at Palisade Media.")
    say("S4", BROTHER)
    project_all(services)
    yield services


def read(services: Services, query: str) -> dict[str, Any]:
    return read_context(services, "maya", query)


def test_the_extractor_read_the_move_but_not_the_winters(services: Services) -> None:
    (city,) = [b for b in services.semantic.current("maya") if b.key == "city"]
    assert city.value == "Lisbon" and city.version == 2
    assert not any("winter" in b.text.lower() for b in services.semantic.current("maya"))


def test_an_old_value_in_unread_words_is_labelled_with_the_current_one(services: Services) -> None:
    result = read(services, "Which city does Maya live in, and what are the winters like in Porto?")
    (line,) = [line for line in result["markdown"].splitlines() if WINTERS in line]
    assert "⚠ superseded: city is Lisbon since S3." in line
    (item,) = [i for i in result["items"] if i["source"] == "history" and i["ref"]["session_id"] == "S1"
               and i["ref"]["seq"] == 2]  # fmt: skip
    assert item["ref"]["superseded"] is True


def test_a_passage_said_after_the_change_is_not_labelled(services: Services) -> None:
    result = read(services, "Who lives in Porto near the river?")
    (line,) = [line for line in result["markdown"].splitlines() if BROTHER in line]
    assert "superseded" not in line


def test_an_old_value_only_the_change_named_is_labelled_too(services: Services) -> None:
    # The first statement was never read: the chain starts at the new employer, and only the
    # change's own words ("I left Harrowgate Foods") say what it replaced.
    (employer,) = [b for b in services.semantic.current("maya") if b.key == "employer"]
    assert (employer.value, employer.version) == ("Palisade Media", 1)
    assert [p.replaces for p in employer.provenance] == ["Harrowgate Foods"]
    result = read(services, "Which company does Maya work for, and how is its canteen?")
    (line,) = [line for line in result["markdown"].splitlines() if TEAM in line]
    assert "⚠ superseded: employer is Palisade Media since S3." in line
