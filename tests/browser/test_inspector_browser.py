"""The inspector in a real browser: each view loads, a flagged belief leads to the event that
changed it, a read re-runs at a second budget side by side, a saved read picked from the list
stays picked and shows as it was with what came after it apart, each event says what extraction
read from it, and a stored `<script>` never runs. Screenshots go to a temp dir
(AGENTMEM_SCREENSHOTS names another)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import SKIP_REASON, chromium_available
from tests.inspector_fixtures import KEPT, Story, story_server

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not chromium_available(), reason=SKIP_REASON),
]

VIEWS = {
    "home": "/ui/",
    "subject": "/ui/subjects/priya",
    "chain": "/ui/subjects/priya/beliefs/risk_tolerance",
    "session": "/ui/sessions/priya-s1",
    "skills": "/ui/skills",
    "function": "/ui/skills/functions/monthly_saving",
    "explain-context": "/ui/explain?saved=0",
    "explain-compose": "/ui/explain?saved=1",
    "history": "/ui/history?saved=0",
    "explain-as-it-was": f"/ui/explain?saved={KEPT}",
}


@pytest.fixture(scope="module")
def story(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Story]:
    with story_server(tmp_path_factory.mktemp("browser") / "data") as running:
        yield running


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = os.environ.get("AGENTMEM_SCREENSHOTS")
    path = Path(folder) if folder else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture
def page(browser_context: Any) -> Iterator[Any]:
    tab = browser_context.new_page()
    failures: list[str] = []
    tab.on("pageerror", lambda error: failures.append(str(error)))
    # Offline by construction: any request off this machine's loopback is a defect.
    tab.route(
        "**/*",
        lambda route: (
            route.continue_()
            if route.request.url.startswith("http://127.0.0.1")
            else (failures.append(route.request.url), route.abort())
        ),
    )
    yield tab
    tab.close()
    assert failures == [], failures


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_each_view_loads(story: Story, page: Any, shots: Path, name: str) -> None:
    answer = page.goto(story.url + VIEWS[name])
    assert answer is not None and answer.status == 200
    assert page.locator("h1").first.is_visible()
    assert page.title().endswith("agentmem")
    # The stylesheet shipped with the package applied (the header is dark): nothing came from a CDN.
    background = page.eval_on_selector("header.top", "e => getComputedStyle(e).backgroundColor")
    assert background == "rgb(29, 35, 48)"
    page.screenshot(path=str(shots / f"{name}.png"), full_page=True)


def test_from_a_flagged_belief_to_the_event_that_changed_it(story: Story, page: Any, shots: Path) -> None:
    page.goto(story.url + "/ui/subjects/priya")
    flagged = page.locator("tr.flagged#belief-risk_tolerance")
    assert "contradicts the earlier “cautious”" in flagged.inner_text()
    flagged.locator("a.event-link").click()
    page.wait_for_url(f"**/ui/sessions/priya-s2#event-{story.flagged_event_seq}")
    event = page.locator(f"#event-{story.flagged_event_seq}")
    assert event.evaluate("e => e.matches(':target')")
    assert "risk_tolerance" in event.inner_text() and "aggressive" in event.inner_text()
    page.screenshot(path=str(shots / "flagged-event.png"))


def test_rerun_a_read_at_a_second_budget(story: Story, page: Any, shots: Path) -> None:
    page.goto(story.url + "/ui/explain?saved=0")
    assert page.locator(".result").count() == 1
    page.fill("form.rerun input[name=compare]", "150")
    page.click("form.rerun button")
    page.wait_for_url("**compare=150**")
    assert page.locator(".side-by-side .result").count() == 2
    heading = page.locator("h2", has_text="What moved across the cut")
    assert "1,200 → 150 tokens" in heading.inner_text()
    assert page.locator("table.moves tr.move-out").count() >= 1
    page.screenshot(path=str(shots / "explain-compare.png"), full_page=True)


def test_a_saved_read_picked_from_the_list_stays_picked_and_shows_as_it_was(
    story: Story, page: Any, shots: Path
) -> None:
    page.goto(story.url + "/ui/explain")
    chooser = page.locator("form.saved select[name=saved]")
    chooser.select_option(str(KEPT))
    page.click("form.saved button")
    page.wait_for_url(f"**saved={KEPT}**")
    assert page.locator("form.saved select[name=saved]").input_value() == str(KEPT)
    assert "as it was" in page.locator("p.as-it-was").inner_text()
    after = page.locator("section.after-read")
    assert after.is_visible() and "priya-s2 #2" in after.inner_text()
    # What came after is outside the read: none of the read's own tables lists that event.
    assert page.locator(".result", has_text="event:priya-s2:2").count() == 0
    page.screenshot(path=str(shots / "explain-as-it-was.png"), full_page=True)
    page.click("p.as-it-was a")  # run it now: the later event is in, and marked
    page.wait_for_url("**now=1**")
    assert page.locator("form.saved select[name=saved]").input_value() == str(KEPT)
    assert page.locator("tr", has_text="event:priya-s2:2").locator(".badge.later").is_visible()


def test_each_event_says_what_extraction_read_from_it(story: Story, page: Any) -> None:
    page.goto(story.url + "/ui/sessions/priya-s1")
    assert "risk_tolerance = cautious v1" in page.locator("#event-1 ul.extracted").inner_text()
    assert page.locator("#event-3 p.no-fact").inner_text().startswith("no fact read")


def test_a_stored_script_never_runs(story: Story, page: Any) -> None:
    page.goto(story.url + "/ui/sessions/priya-s1")
    assert page.evaluate("() => window.__pwned") is None
    assert "<script>window.__pwned = 1</script>" in page.locator("article.event").nth(2).inner_text()
    assert page.locator("main script").count() == 0
