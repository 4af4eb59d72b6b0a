"""The composer part of `make demo`: the sample catalogue goes in over HTTP, a skill composes one
question under a small budget, and the report says what ran, what made the cut, and why.

Loading is a writer's job (docs/access.md): the publisher holds `writer` and every group it
publishes for, since a writer may write only what it can read; the question is asked as an analyst."""

from __future__ import annotations

import logging
from collections.abc import Callable

from agentmem.client import MemoryClient
from agentmem.compose.evaluate import load_catalogue, load_dataset
from agentmem.compose.layout import CONTENT_LEVELS
from agentmem.compose.model import ComposerSkillSpec
from agentmem.demo.eval_run import sample_folder

BUDGET = 2500
QUESTION_ID = "q01"
LEVELS = ("full", "abridged", "key facts", "body", "sentence", "title+path", "title", "id")


def load(client: MemoryClient) -> tuple[int, int]:
    """PUT the sample's assets (in bulks) and skills; returns (assets, skills)."""
    catalogue = load_catalogue(sample_folder())
    written = client.put_assets(catalogue.assets).written
    for skill in catalogue.skills:
        client.put_skill(
            skill.skill_id, ComposerSkillSpec.model_validate(skill.model_dump(exclude={"skill_id"}))
        )
    return written, len(catalogue.skills)


PUBLISHER_PRINCIPALS = "writer,analyst,finance"
"""The catalogue loader's principals: the writer role, and every group of the sample catalogue."""
ANALYST_PRINCIPALS = "analyst"


def show(base_url: str, catch_up: Callable[[], object]) -> None:
    """`catch_up` runs one round of the projector worker: the demo steps it by hand, as it does for
    the beliefs between sessions, so the asset index holds the catalogue before the question."""
    # The guardrail's warning line is described below instead of interleaved with the output.
    logging.getLogger("agentmem.compose").setLevel(logging.ERROR)
    assets, skills = load(MemoryClient(base_url, local_principals=PUBLISHER_PRINCIPALS))
    catch_up()
    client = MemoryClient(base_url, local_principals=ANALYST_PRINCIPALS)
    question = next(q for q in load_dataset(sample_folder() / "golden.jsonl") if q.question_id == QUESTION_ID)
    print(f"{assets} assets and {skills} skills loaded; skill {question.skill_id}, {BUDGET:,} tokens:")
    print(f'"{question.question}"')
    answer = client.request(
        "POST",
        f"/v1/skills/{question.skill_id}/compose",
        {"question": question.question, "budget_tokens": BUDGET},
    )
    report = answer["report"]
    print(f"\nstrategies (route: {report['route']}, {report['candidates']} candidates):")
    for s in report["strategies"]:
        state = (
            "timed out" if s["timed_out"] else f"{s['candidates']:>3} candidates" if s["fired"] else "skipped"
        )
        print(f"  {s['name']:<10} {state:<16} {s['why']}")
    print(f"\nsections, best first (cut line after rank {report['cut_line']}):")
    for section in report["sections"][:8]:
        levels = sorted({LEVELS[level] for level in section["levels"].values()}, key=LEVELS.index)
        print(f"  {section['rank']:>2}. {section['path']:<52} {', '.join(levels) or 'dropped'}")
    needed = set(question.needed)
    placed = {i for s in report["sections"] for i, level in s["levels"].items() if level < CONTENT_LEVELS}
    print(f"\n{report['used_tokens']:,} of {BUDGET:,} tokens used.")
    print(f"{len(needed & placed)} of the {len(needed)} assets the golden set needs are in it, with bodies.")
    print(
        f"{report['scope']['assets']} assets in scope the analyst may read; those it may not are "
        "neither named nor counted."
    )
    print(f"{len(report['dropped'])} candidates dropped, each with its reason in the report.")
    if report["truncated"]:
        print("The cut emitted the guardrail event composer_final_summary_truncated (log line and metric).")
