"""The recall-at-budget eval harness: score what the composer selected, deterministically.

Each labelled question names the asset ids needed to answer it. An asset counts as selected when
the document carries its body (render levels 0-3): an id alone tells the model nothing. For each
budget checkpoint the figure is the mean, over questions, of the share of needed ids selected.
`retrieval` is the same share before the budget cut (among the ranked candidates): the ceiling any
budget could reach, which tells a ranking miss from a budget miss."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from agentmem.compose.layout import CONTENT_LEVELS
from agentmem.compose.model import Asset, ComposeRequest, ComposerSkillSpec
from agentmem.compose.report import ComposeResponse
from agentmem.model.common import Identifier

DEFAULT_BUDGETS = (2500, 5000, 10000, 15000)
DEFAULT_TOLERANCE = 0.02


class LabelledQuestion(BaseModel):
    question_id: str
    skill_id: Identifier
    question: str
    needed: list[str] = Field(min_length=1)
    principals: list[str] = Field(default_factory=list)
    notes: str = ""


class SampleSkill(ComposerSkillSpec):
    skill_id: Identifier


@dataclass(frozen=True)
class SampleCatalogue:
    assets: list[Asset]
    skills: list[SampleSkill]


def load_catalogue(folder: Path) -> SampleCatalogue:
    """`assets.jsonl` (one asset per line) and `skills.json` (a list of skills) from `folder`."""
    lines = (folder / "assets.jsonl").read_text(encoding="utf-8").splitlines()
    assets = [Asset.model_validate_json(line) for line in lines if line.strip()]
    raw = json.loads((folder / "skills.json").read_text(encoding="utf-8"))
    return SampleCatalogue(assets, [SampleSkill.model_validate(s) for s in raw])


def load_dataset(path: Path) -> list[LabelledQuestion]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [LabelledQuestion.model_validate_json(line) for line in lines if line.strip()]


def selected(response: ComposeResponse) -> set[str]:
    return {
        asset_id
        for section in response.report.sections
        for asset_id, level in section.levels.items()
        if level < CONTENT_LEVELS
    }


def _recall(needed: Sequence[str], found: set[str]) -> float:
    return sum(1 for n in needed if n in found) / len(needed)


Compose = Callable[[str, ComposeRequest, Sequence[str]], ComposeResponse]


def evaluate(dataset: Sequence[LabelledQuestion], budgets: Sequence[int], compose: Compose) -> dict[str, Any]:
    """Recall at each budget and before the cut, overall and per question."""
    per_question: list[dict[str, Any]] = []
    for q in dataset:
        row: dict[str, Any] = {"question_id": q.question_id, "recall": {}, "missed": {}}
        for budget in budgets:
            response = compose(
                q.skill_id, ComposeRequest(question=q.question, budget_tokens=budget), q.principals
            )
            found = selected(response)
            row["recall"][str(budget)] = _recall(q.needed, found)
            row["missed"][str(budget)] = [n for n in q.needed if n not in found]
            candidates = {i for s in response.report.sections for i in s.items}
            candidates |= {d.asset_id for d in response.report.dropped if d.stage in ("budget", "routing")}
            row["retrieval"] = _recall(q.needed, candidates)
        per_question.append(row)
    n = len(per_question) or 1
    return {
        "questions": len(per_question),
        "budgets": list(budgets),
        "recall": {str(b): round(sum(r["recall"][str(b)] for r in per_question) / n, 4) for b in budgets},
        "retrieval": round(sum(r["retrieval"] for r in per_question) / n, 4),
        "per_question": per_question,
    }


def regressions(current: dict[str, Any], baseline: dict[str, Any], tolerance: float) -> list[str]:
    """Every figure that fell more than `tolerance` below the baseline, as a sentence."""
    problems: list[str] = []
    for budget, value in baseline.get("recall", {}).items():
        now = current["recall"].get(budget)
        if now is None:
            continue
        if now < value - tolerance:
            problems.append(f"recall at {budget} tokens fell from {value:.4f} to {now:.4f}")
    if "retrieval" in baseline and current["retrieval"] < baseline["retrieval"] - tolerance:
        problems.append(
            f"retrieval recall fell from {baseline['retrieval']:.4f} to {current['retrieval']:.4f}"
        )
    return problems
