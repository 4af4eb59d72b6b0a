"""`make inspect`'s story as it is served: on the story's dates, its reads shown as they were,
with what the agents wrote after each listed apart."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
import urllib3

from agentmem.demo.script import session_plan
from agentmem.inspector.demo import fresh_dir, serving

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(fresh_dir(tmp_path_factory.mktemp("inspect") / "data"), 0) as (served, _worker):
        yield served


def page(url: str, path: str) -> str:
    answer = urllib3.request("GET", url + path, timeout=60)
    assert answer.status == 200, (path, answer.status)
    return answer.data.decode()


def test_events_and_beliefs_carry_the_storys_dates(url: str) -> None:
    for number in (1, 2, 3):
        session = page(url, f"/ui/sessions/priya-s{number}")
        stamps = set(re.findall(r"\b(\d{4}-\d{2}-\d{2})T\d{2}:\d{2}", session))
        assert stamps == {session_plan(number).date}, (number, stamps)
    beliefs = page(url, "/ui/subjects/priya")
    assert "until 2026-04-13" in beliefs  # the flag: cautious held until session 2's date


def test_what_compliance_read_is_shown_as_it_was_with_its_review_after_it(url: str) -> None:
    html = page(url, "/ui/explain?saved=0")
    read, _, after = html.partition('<section class="after-read">')
    assert "priya-s3 · compliance" in read and "as it was" in read
    assert "event:priya-s3:7" not in read  # the review compliance wrote after reading
    assert "priya-s3 #7</a> compliance / review" in after and session_plan(3).date in after


def test_a_first_session_read_lists_what_later_sessions_changed(url: str) -> None:
    home = page(url, "/ui/")
    number = re.search(r"<td>priya-s1 · compliance.*?saved=(\d+)", home, re.S)
    assert number is not None
    after = page(url, f"/ui/explain?saved={number.group(1)}").partition('<section class="after-read">')[2]
    # The change is badged stale (the read used a version that moved), then says which it used.
    changed = (
        r"risk_tolerance</a>: aggressive v2 \(CONFLICT, since 2026-04-13\):"
        r' <span class="badge stale">stale</span> this read used v1'
    )
    assert re.search(changed, after), after
