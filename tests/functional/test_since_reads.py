"""Reads since a watermark over real HTTP, as a team of agents uses them: one agent reads, another
changes a belief (in its own session) and appends to the first one's session, and the first one
reads again with `since`: what changed comes first, and only what changed is marked new."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from agentmem.adapters.local.sqlite_log import SqliteCheckpoints, SqliteEventLog
from agentmem.api.app import build_resolver
from agentmem.client import MemoryApiError, MemoryClient
from agentmem.entrypoints.server import LocalServer
from agentmem.semantic.worker import ProjectorWorker
from agentmem.settings import Settings
from agentmem.wiring import Services, bootstrap

QUERY = "does the recommendation fit her risk tolerance?"
HEADING = "## Changed since your last read"


class Team:
    def __init__(self, client: MemoryClient, services: Services) -> None:
        self.client, self.services = client, services

    def say(self, session: str, agent: str, content: str, subject: str = "priya") -> None:
        self.client.append_event(
            session, subject_id=subject, round=0, agent=agent, kind="note", content=content
        )

    def project(self) -> None:
        log = self.services.event_log
        assert isinstance(log, SqliteEventLog)
        ProjectorWorker(log, self.services.semantic, SqliteCheckpoints(log.database, "local")).run_once()

    def read(self, **overrides: Any) -> dict[str, Any]:
        body = {"subject_id": "priya", "session_id": "S2", "agent": "compliance", "query": QUERY,
                "budget_tokens": 600, **overrides}  # fmt: skip
        result: dict[str, Any] = self.client.request("POST", "/v1/context", body)
        return result


@pytest.fixture
def team(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Team]:
    services = bootstrap(Settings(data_dir=tmp_path_factory.mktemp("since") / "data"))
    with LocalServer(lambda: build_resolver(services), port=0) as server:
        team = Team(MemoryClient(server.url), services)
        team.say("S1", "intake", "Her risk tolerance is cautious. She dislikes individual stocks.")
        team.say("S1", "goal-planning", "Her goal is a house down payment of 90,000 USD within five years.")
        team.say(
            "S2", "market", "Tech valuations are stretched; rates are expected to stay high through 2027."
        )
        team.project()
        yield team


def sections(markdown: str) -> list[str]:
    return [part.split("\n", 1)[0] for part in markdown.split("\n\n") if part.startswith("## ")]


def section(markdown: str, heading: str) -> list[str]:
    part = next(p for p in markdown.split("\n\n") if p.startswith(heading))
    return part.splitlines()[1:]


def another_agent_changes_things(team: Team) -> None:
    team.say(
        "S3", "intake", "She now wants to be aggressive in tech stocks. Her risk tolerance is aggressive."
    )
    team.say("S2", "recommendation", "Recommend a 60/40 index mix, rebalanced yearly.")
    team.project()


def test_a_re_read_since_leads_with_exactly_what_changed(team: Team) -> None:
    first = team.read()
    assert first["trace"]["since"] is None and first["trace"]["new_since"] is None
    assert HEADING not in first["markdown"]

    another_agent_changes_things(team)
    again = team.read(since=first["trace"]["watermark"])

    markdown, trace = again["markdown"], again["trace"]
    assert sections(markdown)[0] == HEADING  # the change leads the document
    assert section(markdown, HEADING) == [
        "- **risk_tolerance**: Priya's risk tolerance is aggressive. (v2; stated in S3)"
        " ⚠ changed from cautious (S1) to aggressive (S3).",
        "- 2026-" + section(markdown, HEADING)[1][len("- 2026-") :],  # the date is the log's
        "- [S2 #2 r0 recommendation/note] Recommend a 60/40 index mix, rebalanced yearly.",
    ]
    # A passage newly labelled leads as its place and its label: its text was read before.
    assert section(markdown, HEADING)[1].endswith(
        "(S1 #1): ⚠ superseded: risk_tolerance is aggressive since S3."
    )
    assert trace["new_since"] == ["belief:risk_tolerance", "passage:S1:1:0-63", "event:S2:2"]
    assert trace["since"] == {
        "session_id": "S2", "seq": 1, "new_events": 1, "changed_beliefs": 1, "new_beliefs": 0,
        "retired_beliefs": 0, "gone_beliefs": 0, "superseded_passages": 1, "left_out": [], "needed_tokens": 0,
    }  # fmt: skip
    kinds = {i["item_id"]: (i["source"], i["ref"]["since"]) for i in again["items"] if "since" in i["ref"]}
    assert kinds == {
        "belief:risk_tolerance": ("semantic", "changed"),
        "passage:S1:1:0-63": ("history", "superseded"),
        "event:S2:2": ("episodic", "event"),
    }
    # Unchanged things fill the rest of the budget as before, and are not marked.
    assert "Tech valuations are stretched" in markdown
    assert trace["belief_versions"]["risk_tolerance"] == 2
    assert trace["used_tokens"] <= trace["budget_tokens"]


def test_a_re_read_with_nothing_changed_is_the_read_without_since(team: Team) -> None:
    first = team.read()
    again = team.read(since=first["trace"]["watermark"])
    assert again["markdown"] == team.read()["markdown"]
    assert again["trace"]["new_since"] == []
    assert again["trace"]["since"]["changed_beliefs"] == again["trace"]["since"]["new_events"] == 0


STATEMENT = "date,description,category,amount_usd\n" + "\n".join(
    f"2026-03-{d % 28 + 1:02d},BLUE BOTTLE COFFEE,dining,-{d}.25" for d in range(90)
)


def test_a_new_document_leads_as_where_to_fetch_it_and_a_statement_leads_whole(team: Team) -> None:
    first = team.read()
    team.client.append_event("S2", subject_id="priya", round=1, agent="intake", kind="statement",
                             content=STATEMENT, media_type="text/csv")  # fmt: skip
    team.say("S2", "recommendation", "Recommend a 60/40 index mix, rebalanced yearly.")
    team.project()
    again = team.read(since=first["trace"]["watermark"])

    lead = sorted(section(again["markdown"], HEADING))  # in the session ranking's order
    assert lead == [
        "- [S2 #2 r1 intake/statement] text/csv, begins: date,description,category,amount_usd;"
        f" its full text ({len(STATEMENT):,} characters): GET /v1/sessions/S2/events?after=1&limit=1",
        "- [S2 #3 r0 recommendation/note] Recommend a 60/40 index mix, rebalanced yearly.",
    ]
    assert "BLUE BOTTLE" not in again["markdown"]  # 90 rows of CSV are not the change a re-read needs
    assert sorted(again["trace"]["new_since"]) == ["event:S2:2", "event:S2:3"]
    # The reference is the events API's read of that event, whole.
    path, _, query = lead[0].rsplit(": GET ", 1)[1].partition("?")
    params = dict(part.split("=") for part in query.split("&"))
    page = team.client.request("GET", path, query=params)
    assert [(e["seq"], e["content"]) for e in page["items"]] == [(2, STATEMENT)]
    # A read without since ranks the event as it always did, whole when it fits.
    plain = team.read(budget_tokens=4000)
    assert HEADING not in plain["markdown"] and STATEMENT.split("\n")[1] in plain["markdown"]


def test_a_belief_projected_after_the_read_still_counts_as_new(team: Team) -> None:
    # The change is in the log before the first read, but projection has not applied it yet:
    # the first read cannot see it, so the next one must lead with it.
    team.say("S3", "intake", "Her risk tolerance is aggressive now.")
    first = team.read(include=["semantic"])
    assert "aggressive" not in first["markdown"]
    team.project()
    again = team.read(include=["semantic"], since=first["trace"]["watermark"])
    assert again["trace"]["new_since"] == ["belief:risk_tolerance"]
    lead = section(again["markdown"], HEADING)[0]
    assert (
        lead.startswith("- **risk_tolerance**:") and "changed from cautious (S1) to aggressive (S3)" in lead
    )


def test_a_watermark_from_an_earlier_session_reads_this_sessions_events_as_new(team: Team) -> None:
    first = team.read()  # in S2
    team.say("S4", "intake", "Her risk tolerance is aggressive.")
    team.say("S4", "market", "Rates were cut by half a point.")
    team.project()
    again = team.read(session_id="S4", since=first["trace"]["watermark"])
    assert again["trace"]["since"]["session_id"] == "S2"
    assert {"event:S4:2", "belief:risk_tolerance"} <= set(again["trace"]["new_since"])


def test_changes_are_never_dropped_for_budget_before_unchanged_items(team: Team) -> None:
    first = team.read()
    another_agent_changes_things(team)
    for budget in (40, 70, 100, 150, 250):
        read = team.read(budget_tokens=budget, since=first["trace"]["watermark"])
        placed = [i for i in read["items"]]
        left_out = read["trace"]["since"]["left_out"]
        unchanged = [i for i in placed if "since" not in i["ref"]]
        assert not (left_out and unchanged), (budget, left_out, unchanged)
        assert read["trace"]["used_tokens"] <= budget
        if left_out:  # the trace says what a re-read needs, and a re-read at it leaves none out
            needed = read["trace"]["since"]["needed_tokens"]
            assert needed > budget
            whole = team.read(budget_tokens=needed, since=first["trace"]["watermark"])
            assert whole["trace"]["since"]["left_out"] == []
    roomy = team.read(budget_tokens=250, since=first["trace"]["watermark"])
    assert roomy["trace"]["since"]["left_out"] == [] and len(roomy["trace"]["new_since"]) == 3


def forged(token: str, **changes: Any) -> str:
    body = token[3:]
    raw = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    raw.update(changes)
    return "w1." + base64.urlsafe_b64encode(json.dumps(raw).encode()).decode().rstrip("=")


@pytest.mark.parametrize(
    ("since", "message"),
    [
        (lambda w: "yesterday", "should match pattern"),
        (lambda w: "w1." + "A" * 5000, "at most 4096"),
        (lambda w: "w1.bm90IGpzb24", "not a watermark this server issued"),
        (lambda w: forged(w, q=-1), "not a watermark this server issued"),
        (lambda w: forged(w, b="last tuesday"), "not a watermark this server issued"),
        (lambda w: forged(w, s="quinn"), "taken for subject quinn, not priya"),
        (lambda w: forged(w, q=99), "ahead of session S2: seq 99 > its last seq 1"),
    ],
)
def test_a_bad_since_is_a_422_naming_the_field(team: Team, since: Callable[[str], str], message: str) -> None:
    watermark = team.read()["trace"]["watermark"]
    with pytest.raises(MemoryApiError) as raised:
        team.read(since=since(watermark))
    assert (raised.value.status, raised.value.field) == (422, "since")
    assert message in str(raised.value)


def test_the_sdk_takes_since(team: Team) -> None:
    first = team.client.context(subject_id="priya", session_id="S2", agent="compliance", query=QUERY)
    another_agent_changes_things(team)
    again = team.client.context(
        subject_id="priya", session_id="S2", agent="compliance", query=QUERY, since=first.trace.watermark
    )
    assert again.trace.since is not None and again.trace.since.changed_beliefs == 1
    assert again.trace.new_since is not None and "belief:risk_tolerance" in again.trace.new_since
