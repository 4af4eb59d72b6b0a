"""The memory inspector over HTTP: every view renders from the API's answers, everything stored is
escaped, access follows the API's keys and principals, and nothing it does can write."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from urllib.parse import quote

import pytest
import urllib3
import uvicorn

from agentmem.client import MemoryClient
from agentmem.entrypoints.server import ApiKeys
from agentmem.inspector.reader import MemoryReader, Viewer, is_read_route
from agentmem.inspector.saved_reads import SAVED_READS_FILE, SavedContextRead, load_saved_reads
from agentmem.inspector.serve import remote_inspector
from agentmem.model.context import ContextResponse
from tests.functional.serve_process import free_port
from tests.inspector_fixtures import (
    ANALYST_KEY,
    COMPLIANCE_READ,
    FINANCE_KEY,
    KEPT,
    KEYS,
    LOST,
    LOST_MARK,
    QUESTION,
    SCRIPT,
    SKILL,
    Story,
    story_server,
)

pytestmark = pytest.mark.slow


def get(url: str, **headers: str) -> urllib3.BaseHTTPResponse:
    return urllib3.request("GET", url, headers=headers, redirect=False, retries=False, timeout=60)


@pytest.fixture(scope="module")
def story(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Story]:
    with story_server(tmp_path_factory.mktemp("inspector") / "data") as running:
        yield running


@pytest.fixture(scope="module")
def keyed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Story]:
    keys = ApiKeys.from_setting(json.dumps(KEYS))
    with story_server(tmp_path_factory.mktemp("keyed") / "data", keys=keys) as running:
        yield running


def page(story: Story, path: str, **headers: str) -> str:
    answer = get(story.url + path, **headers)
    assert answer.status == 200, (path, answer.status, answer.data[:500])
    return answer.data.decode("utf-8")


@pytest.mark.parametrize(
    "path",
    [
        "/ui/",
        "/ui/subjects/priya",
        "/ui/subjects/priya/beliefs/risk_tolerance",
        "/ui/sessions/priya-s1",
        "/ui/sessions/priya-s1?agent=intake&kind=statement",
        "/ui/skills",
        "/ui/skills/functions/monthly_saving",
        "/ui/skills/guidance/draft-notes",
        "/ui/explain",
        "/ui/explain?saved=0&compare=300",
        "/ui/explain?saved=1",
        "/ui/history?saved=0",
        "/ui/explain?saved=2",
        "/ui/explain?saved=2&now=1&compare=300",
        "/ui/history?saved=2",
    ],
)
def test_every_view_renders_with_headers_that_forbid_scripts(story: Story, path: str) -> None:
    answer = get(story.url + path)
    assert answer.status == 200, answer.data[:400]
    assert answer.headers["Content-Type"].startswith("text/html")
    assert "default-src 'none'" in answer.headers["Content-Security-Policy"]
    assert "<script" not in answer.data.decode("utf-8")


@pytest.mark.parametrize(
    "path",
    [
        "/ui/sessions/priya-s1",
        "/ui/subjects/priya",
        "/ui/subjects/priya/beliefs/city",
        "/ui/skills",
        "/ui/skills/guidance/draft-notes",
    ],
)
def test_a_stored_script_renders_as_text(story: Story, path: str) -> None:
    html = page(story, path)
    assert "&lt;script&gt;window.__pwned = 1&lt;/script&gt;" in html
    assert SCRIPT not in html


def test_the_flagged_belief_links_to_the_event_that_changed_it(story: Story) -> None:
    html = page(story, "/ui/subjects/priya")
    row = re.search(r'<tr class="flagged" id="belief-risk_tolerance">(.*?)</tr>', html, re.S)
    assert row is not None, "risk_tolerance is not highlighted as flagged"
    assert "CONFLICT" in row.group(1) and "cautious" in row.group(1)
    assert f'href="/ui/sessions/priya-s2#event-{story.flagged_event_seq}"' in row.group(1)
    session = page(story, "/ui/sessions/priya-s2")
    assert f'id="event-{story.flagged_event_seq}"' in session


def test_a_blob_is_shown_by_reference_and_fetched_as_plain_text(story: Story) -> None:
    html = page(story, "/ui/sessions/priya-s1")
    assert "stored by reference" in html
    link = re.search(r'href="(/ui/sessions/priya-s1/events/(\d+)/content)">fetch', html)
    assert link is not None
    blob = get(story.url + link.group(1))
    assert blob.status == 200 and blob.headers["Content-Type"].startswith("text/plain")
    assert blob.data.decode().count("COFFEE") == 4000


def test_the_chain_shows_both_versions_with_their_verdicts(story: Story) -> None:
    html = page(story, "/ui/subjects/priya/beliefs/risk_tolerance")
    assert html.index("cautious") < html.index("aggressive")
    assert "v-new" in html and "v-conflict" in html and "⚠ contradiction" in html


def test_the_skill_graph_marks_review_links_and_keeps_drafts_apart(story: Story) -> None:
    html = page(story, "/ui/skills")
    assert html.count('class="edge review"') == 1  # plan-a-goal -> monthly_saving, rewritten
    drafts = html[html.index('class="drafts"') :]
    assert "draft_helper" in drafts and "annuity_factor" not in drafts
    closure = page(story, "/ui/skills/functions/monthly_saving")
    assert closure.index("annuity_factor") < closure.rindex("monthly_saving")


def test_explain_at_two_budgets_lists_what_moved_across_the_cut(story: Story) -> None:
    html = page(story, "/ui/explain?saved=0&compare=120")
    assert "What moved across the cut: 1,200 → 120 tokens" in html
    assert html.count('class="result"') == 2
    assert re.search(r'<tr class="move-out">', html), "nothing was lost at the smaller budget"


def test_the_explained_read_matches_the_api_answer(story: Story) -> None:
    client = MemoryClient(story.url)
    answer = client.context(
        subject_id="priya",
        session_id="priya-s2",
        agent="compliance",
        query="risk tolerance changes and suitability",
        budget_tokens=1200,
    )
    html = page(story, "/ui/explain?saved=0")
    assert f"used {answer.trace.used_tokens:,} tokens" in html
    for dropped in answer.trace.dropped:
        assert dropped.item_id in html
    assert f"priya-s2 #{answer.trace.log_watermark_seq}" in html


def _kept_answer(story: Story) -> ContextResponse:
    saved = load_saved_reads(story.services.settings.data_dir / SAVED_READS_FILE)[KEPT]
    assert isinstance(saved, SavedContextRead) and saved.response is not None
    return saved.response


def test_a_kept_read_is_shown_as_it_was_and_what_came_after_it_apart(story: Story) -> None:
    kept = _kept_answer(story)
    now = MemoryClient(story.url).context(**COMPLIANCE_READ.model_dump())
    # The premise: s2's compliance review (#2) came after the read, and a read now holds it.
    assert kept.trace.log_watermark_seq == 1 and now.trace.log_watermark_seq == 2
    assert "event:priya-s2:2" in {i.item_id for i in now.items}
    html = page(story, f"/ui/explain?saved={KEPT}")
    read, _, after = html.partition('<section class="after-read">')
    assert f"used {kept.trace.used_tokens:,} tokens" in read and "as it was" in read
    assert "event:priya-s2:2" not in read
    assert after, "nothing is listed as written after the read"
    assert 'href="/ui/sessions/priya-s2#event-2">priya-s2 #2</a> compliance / review' in after


def test_a_saved_read_run_now_marks_what_was_written_after_it(story: Story) -> None:
    html = page(story, f"/ui/explain?saved={KEPT}&now=1")
    row = re.search(r'<a href="/ui/sessions/priya-s2#event-2">event:priya-s2:2</a>(.*?)</td>', html, re.S)
    assert row is not None and "written after this read" in row.group(1)
    assert '<section class="after-read">' not in html  # run now: the marks say it, in the read


def test_a_kept_answer_is_not_shown_once_the_log_lost_what_it_saw(story: Story) -> None:
    answer = get(f"{story.url}/ui/explain?saved={LOST}")
    assert answer.status == 404
    html = answer.data.decode()
    assert "no longer holds priya-s1 #99" in html and LOST_MARK not in html


def test_the_saved_read_shown_stays_picked_in_the_list(story: Story) -> None:
    for number in (KEPT, 1):
        html = page(story, f"/ui/explain?saved={number}")
        picked = re.findall(r'<option value="(\d+)" selected>', html)
        assert picked == [str(number)], picked


def test_each_event_says_what_extraction_read_from_it(story: Story) -> None:
    html = page(story, "/ui/sessions/priya-s1")
    events = dict(re.findall(r'<article class="event" id="event-(\d+)">(.*?)</article>', html, re.S))
    assert 'class="extracted"' in events["1"] and "risk_tolerance</a> = cautious v1" in events["1"]
    assert "since replaced" in events["1"]  # v2 aggressive replaced what this event gave
    assert "no fact read" in events["3"] and 'class="extracted"' not in events["3"]  # the prose review
    later = page(story, "/ui/sessions/priya-s2")
    flagged = later[later.index(f'id="event-{story.flagged_event_seq}"') :]
    assert "risk_tolerance</a> = aggressive v2" in flagged.split("</article>")[0]


def test_a_pasted_request_that_does_not_validate_names_the_field(story: Story) -> None:
    paste = quote(
        json.dumps({"subject_id": "priya", "session_id": "s", "agent": "a", "query": "q", "budget_tokens": 0})
    )
    answer = get(f"{story.url}/ui/explain?paste={paste}")
    assert answer.status == 422
    assert "budget_tokens" in answer.data.decode()


def test_an_id_with_a_slash_never_reaches_the_api(story: Story) -> None:
    answer = get(f"{story.url}/ui/subjects?subject_id={quote('priya/../x')}")
    assert answer.status == 422


def test_only_read_routes_can_be_sent() -> None:
    assert is_read_route("GET", "/v1/subjects/priya/beliefs")
    assert is_read_route("POST", "/v1/context")
    assert not is_read_route("POST", "/v1/sessions/s1/events")
    assert not is_read_route("DELETE", "/v1/subjects/priya")
    assert not is_read_route("PUT", "/v1/functions/f")
    assert not is_read_route("GET", "/v1/subjects/priya/export")  # everything about a subject: writers only
    sent: list[str] = []

    class Recorder:
        def call(self, method: str, path: str, viewer: Viewer, **_: object) -> None:
            sent.append(path)

    reader = MemoryReader(Recorder(), Viewer())
    with pytest.raises(AssertionError):
        reader._call("POST", "/v1/sessions/s1/events")
    assert sent == []


def test_with_keys_the_ui_asks_for_a_login_and_then_reads_as_the_key(keyed: Story) -> None:
    refused = get(keyed.url + "/ui/subjects/priya")
    assert refused.status == 303 and refused.headers["Location"] == "/ui/login"
    assert get(keyed.url + "/ui/login").status == 200
    login = urllib3.request(
        "POST",
        keyed.url + "/ui/login",
        body=f"key={ANALYST_KEY}",
        redirect=False,
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert login.status == 303
    cookie = login.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/ui" in cookie
    html = page(keyed, "/ui/subjects/priya", Cookie=cookie.split(";")[0])
    assert "API key: analyst (reader)" in html
    wrong = urllib3.request(
        "POST",
        keyed.url + "/ui/login",
        body="key=not-a-key-at-all-0000",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert wrong.status == 401


def test_the_ui_cookie_is_no_key_for_the_api(keyed: Story) -> None:
    answer = get(keyed.url + "/v1/subjects/priya/beliefs", Cookie=f"agentmem_key={ANALYST_KEY}")
    assert answer.status == 401


def test_a_composition_shows_and_counts_only_what_the_key_may_read(keyed: Story) -> None:
    reports = {}
    for key in (ANALYST_KEY, FINANCE_KEY):
        client = MemoryClient(keyed.url, api_key=key)
        reports[key] = client.compose(SKILL, QUESTION, budget_tokens=2500).report
    analyst, finance = reports[ANALYST_KEY], reports[FINANCE_KEY]
    mentioned = lambda r: {d.asset_id for d in r.dropped} | {a for s in r.sections for a in s.items}  # noqa: E731
    hidden = mentioned(finance) - mentioned(analyst)
    assert hidden, "the sample catalogue should hold assets only finance may read"
    body = f"kind=compose&skill_id={SKILL}&question={quote(QUESTION)}&budget_tokens=2500"
    html = page(keyed, f"/ui/explain?{body}", Authorization=f"Bearer {ANALYST_KEY}")
    assert f"{analyst.scope.assets} assets in scope that this caller may read" in html
    assert not any(asset in html for asset in hidden)


def test_remote_mode_reads_a_server_through_the_client(story: Story) -> None:
    """The app `agentmem inspect` serves, on its own loopback server, reading over HTTP."""
    app = remote_inspector(story.url, sigv4_region=None, api_key=None, saved_reads=None)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_config=None, lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        for _ in range(200):
            if server.started:
                break
            threading.Event().wait(0.05)
        html = get(f"http://127.0.0.1:{port}/ui/subjects/priya").data.decode()
        assert "risk_tolerance" in html and story.url in html
    finally:
        server.should_exit = True
        thread.join(timeout=10)
