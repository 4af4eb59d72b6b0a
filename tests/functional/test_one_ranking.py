"""A read as one ranking, over text no extraction rule reads: the reader sits in the subject's
last session, whose own chatter does not crowd out the earlier statement the question is about;
a later version of a statement leads and the earlier one carries its label; a statement said
again in the same words is shown as its last saying."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from agentmem.model.events import AppendEventRequest
from agentmem.settings import Settings
from agentmem.wiring import Services, bootstrap
from tests.history_fixtures import daily_writer, project_all, read_context

EARLIER = {
    "S1": [
        "Die Werkstatt in Leipzig hat jetzt 12 Mitarbeiter und zwei Lehrlinge.",
        "Our allotment is the third plot on the left past the water tap.",
        "Kazakhstan — Capital: Astana",
    ],
    "S2": [
        "Die Werkstatt in Leipzig hat jetzt 19 Mitarbeiter und zwei Lehrlinge.",
        "Kazakhstan — Capital: Nur-Sultan",
    ],
    "S3": ["Kazakhstan — Capital: Astana"],
}
CHATTER = [
    f"Round {n}: we went through the slide deck again and fixed the fonts on page {n}." for n in range(40)
]


@pytest.fixture(scope="module")
def services(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Services]:
    services = bootstrap(Settings(data_dir=tmp_path_factory.mktemp("one-ranking") / "data"))
    writer = daily_writer(services)
    for session, lines in [*EARLIER.items(), ("S4", CHATTER)]:
        for n, text in enumerate(lines):
            writer.append(
                session,
                AppendEventRequest(subject_id="ana", round=n, agent="ana", kind="message", content=text),
            )
    project_all(services)
    yield services


def lines_with(read: dict[str, Any], text: str) -> list[str]:
    return [line for line in read["markdown"].splitlines() if text in line]


def test_the_last_sessions_own_chatter_ranks_after_the_statement_asked_about(services: Services) -> None:
    """Forty recent turns that match nothing come after what the question is about; they fill
    only what room is left."""
    read = read_context(services, "ana", "Where is our allotment plot?", session_id="S4", budget=300)
    first = read["items"][0]
    assert first["source"] in ("semantic", "history") and first["level"] == "full"
    assert "third plot on the left" in read["markdown"].split("## This session")[0]
    assert all(i["score"] < first["score"] for i in read["items"] if i["source"] == "episodic")


def test_a_later_version_leads_and_the_earlier_is_labelled_with_it_in_any_language(
    services: Services,
) -> None:
    read = read_context(services, "ana", "Wie viele Mitarbeiter hat die Werkstatt?", session_id="S4")
    lines = read["markdown"].splitlines()
    newer = next(i for i, line in enumerate(lines) if "19 Mitarbeiter" in line and "superseded" not in line)
    older = next(i for i, line in enumerate(lines) if "12 Mitarbeiter" in line)
    assert newer < older
    assert "⚠ superseded by S2 #1" in lines[older] and "19 Mitarbeiter" in lines[older]


def test_a_statement_said_again_in_the_same_words_shows_as_its_last_saying(services: Services) -> None:
    read = read_context(services, "ana", "What is the capital of Kazakhstan?", session_id="S4")
    lines = read["markdown"].splitlines()
    astana = [n for n, line in enumerate(lines) if line.endswith("Capital: Astana")]
    assert len(astana) == 1 and lines[astana[0]].startswith("- #1 ")
    assert next(line for line in reversed(lines[: astana[0]]) if line.startswith("#")).startswith("### S3 (")
    reasons = {d["item_id"]: d["reason"] for d in read["trace"]["dropped"]}
    assert reasons["passage:S1:3:0-28"] == "said again as passage:S3:1:0-28"
    assert lines_with(read, "Nur-Sultan")
