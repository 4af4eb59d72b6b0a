"""Small budgets on `ContextService.build` over real adapters: the best-ranked items arrive with
their text, and identity lines keep to their share, from an empty session and from the session
that holds the subject's whole log."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

import pytest

from agentmem.adapters.local.sqlite_log import SqliteCheckpoints, SqliteEventLog
from agentmem.adapters.tokens import count_tokens
from agentmem.model.beliefs import FactInput
from agentmem.model.context import ContextRequest, ContextResponse
from agentmem.model.events import AppendEventRequest
from agentmem.packing.engine import IDENTITY_SHARE
from agentmem.semantic.worker import ProjectorWorker
from agentmem.settings import Settings
from agentmem.wiring import Services, bootstrap

TOPICS = [
    "favourite colour", "home city", "employer", "preferred airline", "gym", "car model", "dentist",
    "bank", "phone carrier", "pet's name", "favourite restaurant", "coffee order", "running route",
    "yoga teacher", "hotel chain", "streaming service", "insurance provider", "accountant",
    "weekend hobby", "favourite band", "doctor", "landlord", "commute mode", "laptop brand",
    "chess opening", "language course", "savings goal", "holiday destination", "barber", "tea brand",
]  # fmt: skip
FIRST = [
    "teal", "Lisbon", "Northwind", "Aerolux", "Ironworks", "Corvette", "Okafor", "Monzo", "Vodafone",
    "Biscuit", "Nonna", "flatwhite", "riverloop", "Priyanka", "Marriott", "Criterion", "Aviva", "Hallam",
    "pottery", "Idles", "Ruiz", "Petrov", "tram", "Framework", "Sicilian", "Portuguese", "roofrepair",
    "Kyoto", "Tony", "Assam",
]  # fmt: skip
LATEST = [
    "magenta", "Porto", "Fabrikam", "Skyward", "PureGym", "Mustang", "Chen", "Starling", "Vodacom",
    "Pepper", "Dishoom", "cortado", "canalpath", "Marcus", "Hilton", "Mubi", "Directline", "Baxter",
    "woodturning", "Fontaines", "Haas", "Gray", "cycling", "ThinkPad", "CaroKann", "Japanese",
    "newboiler", "Hokkaido", "Sami", "Darjeeling",
]  # fmt: skip
NOTES = 340


def key_of(topic: str) -> str:
    return "k_" + hashlib.sha1(topic.encode()).hexdigest()[:12]  # opaque, as undeclared keys are


def latest(topic: str) -> str:
    return LATEST[TOPICS.index(topic)]


@pytest.fixture(scope="module")
def services(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Services]:
    """Subject dana: 30 beliefs, each stated once and later changed (flagged), in session `log`
    among 340 notes; session `new` has no events."""
    services = bootstrap(Settings(data_dir=tmp_path_factory.mktemp("budget") / "data"))
    statements = [*zip(TOPICS, FIRST, strict=True), *zip(TOPICS, LATEST, strict=True)]
    per_statement = NOTES // len(statements) + 1
    for n in range(NOTES + len(statements)):
        if n % per_statement == 0 and statements:
            topic, value = statements.pop(0)
            text = f"Dana's {topic} is {value}."
            facts = [FactInput(key=key_of(topic), text=text, value=value)]
            request = AppendEventRequest(subject_id="dana", round=n // 20, agent="intake", kind="note",
                                         content=text, facts=facts)  # fmt: skip
        else:
            content = f"Checked shipment batch {n} against the manifest; cartons {n % 13} were resealed."
            request = AppendEventRequest(
                subject_id="dana", round=n // 20, agent="ops", kind="note", content=content
            )
        services.episodic.append("log", request)
    assert not statements
    log = services.event_log
    assert isinstance(log, SqliteEventLog)
    # Settled (every passage vector in), so the reads do not depend on how many passages one
    # worker round's vector lane happens to take.
    ProjectorWorker(log, services.semantic, SqliteCheckpoints(log.database, "local")).settle()
    yield services


def read(
    services: Services, topic: str, session: str, budget: int, split: float | None = None
) -> ContextResponse:
    query = f"What is Dana's {topic} now?"
    request = ContextRequest(
        subject_id="dana", session_id=session, agent="qa", query=query, budget_tokens=budget, split=split
    )
    response = services.context.build(request)
    assert count_tokens(response.markdown) == response.trace.used_tokens <= budget
    return response


def identity_tokens(response: ContextResponse) -> int:
    return sum(i.tokens for i in response.items if i.level == "identity")


@pytest.mark.parametrize("session", ["new", "log"])
@pytest.mark.parametrize("topic", ["home city", "barber", "pet's name"])
def test_at_500_tokens_the_answer_ranked_first_renders_in_full(
    services: Services, session: str, topic: str
) -> None:
    """Was: every belief admitted at its id line first, so the answer showed as
    `**k_…** ⚠ contradicted` and its value nowhere."""
    response = read(services, topic, session, 500)
    beliefs = [i for i in response.items if i.source == "semantic"]
    assert (beliefs[0].ref["key"], beliefs[0].level) == (key_of(topic), "full")
    assert f"{latest(topic)}." in response.markdown
    assert identity_tokens(response) <= IDENTITY_SHARE * 500


def test_a_session_holding_the_log_shows_its_events_with_text_at_1000_tokens(services: Services) -> None:
    """Was: 150 event candidates admitted at their heads filled the episodic half with ids (with
    shares; in one ranking the session's events get only what the ranking gives them)."""
    response = read(services, "employer", "log", 1000, split=0.5)
    events = [i for i in response.items if i.source == "episodic"]
    assert sum(i.level != "identity" for i in events) >= 8
    assert identity_tokens(response) <= IDENTITY_SHARE * 1000


def test_in_one_ranking_the_answer_leads_and_the_session_log_takes_no_share(services: Services) -> None:
    """The session holding 370 notes is not owed half the budget: the current belief leads, the
    old statement follows it labelled, and the shipment notes (which match nothing) fill only
    what is left."""
    response = read(services, "employer", "log", 1000)
    first = response.items[0]
    assert (first.source, first.ref.get("key"), first.level) == ("semantic", key_of("employer"), "full")
    old = next(line for line in response.markdown.splitlines() if "employer is Northwind" in line)
    assert "superseded" in old
    # The notes fill what the ranking leaves: each ranks below the answer, and the answer's key
    # lost nothing to them.
    notes = [i for i in response.items if i.source == "episodic"]
    assert notes and all(i.score < first.score for i in notes)
    assert not [d for d in response.trace.dropped if d.item_id == first.item_id]


def test_what_did_not_fit_is_in_the_trace_with_its_reason(services: Services) -> None:
    response = read(services, "employer", "log", 500)
    reasons = {d.reason for d in response.trace.dropped if d.reason.startswith("budget")}
    assert reasons == {"budget: no room for its detail, and the identity list (5%) is full"}
    placed = {i.item_id for i in response.items}
    assert placed.isdisjoint(d.item_id for d in response.trace.dropped)
    total = sum(response.trace.candidates_by_source.values())
    stood = sum(
        d.reason.startswith(("stands as", "near-duplicate", "ranked below")) for d in response.trace.dropped
    )
    assert len(placed) + len(response.trace.dropped) - stood == total


def test_the_document_heading_does_not_repeat_the_query(services: Services) -> None:
    response = read(services, "employer", "new", 500)
    assert response.markdown.splitlines()[0] == "# Context for qa"
