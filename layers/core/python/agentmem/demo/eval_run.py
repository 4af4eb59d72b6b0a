"""`agentmem eval`: load a catalogue into a fresh local deployment, compose every labelled question
at every budget, print a table, write JSON, and fail on a regression against a pinned baseline."""

from __future__ import annotations

import json
import logging
import tempfile
from collections.abc import Callable, Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentmem.compose.evaluate import (
    SampleCatalogue,
    evaluate,
    load_catalogue,
    load_dataset,
    regressions,
)
from agentmem.compose.model import MAX_ASSETS_PER_PUT, ComposerSkillSpec, PutAssetsRequest

if TYPE_CHECKING:
    from agentmem.wiring import Services

SAMPLE = "catalogue"


def sample_folder() -> Path:
    """The shipped sample catalogue (agentmem/demo/catalogue)."""
    return Path(str(resources.files("agentmem.demo") / SAMPLE))


def install(
    services: Services, catalogue: SampleCatalogue, on_bulk: Callable[[int], None] | None = None
) -> None:
    """Write the catalogue's assets (in bulks of the API's size) and skills through the domain.
    The operator's own loader, run in process: no API caller is involved, so no access rule is."""
    from agentmem.compose import authoring

    for start in range(0, len(catalogue.assets), MAX_ASSETS_PER_PUT):
        bulk = PutAssetsRequest(assets=catalogue.assets[start : start + MAX_ASSETS_PER_PUT])
        revision = services.composer.catalogue.put_assets(bulk.assets)
        for asset in bulk.assets:  # what they cite, as PUT /v1/assets records it
            services.citations.cite_asset(asset.asset_id, asset.cites, revision)
        if on_bulk is not None:
            on_bulk(len(bulk.assets))
    for skill in catalogue.skills:
        spec = ComposerSkillSpec.model_validate(skill.model_dump(exclude={"skill_id"}))
        authoring.put_skill(services.composer.catalogue, skill.skill_id, spec)


def table(result: dict[str, Any]) -> str:
    rows = [f"{'budget':>8}  {'recall':>7}"]
    rows += [f"{budget:>8}  {value:>7.3f}" for budget, value in result["recall"].items()]
    rows.append(f"{'uncut':>8}  {result['retrieval']:>7.3f}   (ranked candidates, before the budget cut)")
    return "\n".join(rows)


def run_eval(
    dataset: Path,
    budgets: Sequence[int],
    *,
    catalogue: Path | None = None,
    baseline: Path | None = None,
    out: Path | None = None,
    pin: Path | None = None,
    tolerance: float,
) -> int:
    from agentmem.settings import Settings
    from agentmem.wiring import bootstrap

    # Truncation is expected at small budgets: the guardrail's warning line would drown the table.
    logging.getLogger("agentmem.compose").setLevel(logging.ERROR)
    questions = load_dataset(dataset)
    sample = load_catalogue(catalogue or dataset.parent)
    with tempfile.TemporaryDirectory(prefix="agentmem-eval-") as data_dir:
        services = bootstrap(Settings(data_dir=Path(data_dir), tenant_id="eval"))
        from agentmem.progress import counted, progress

        with progress("load", len(sample.assets), unit="assets") as step:
            install(services, sample, on_bulk=step)
        services.composer.indexer.sync()  # the projector worker's job when serving
        with progress("eval", len(questions) * len(budgets), unit="composes") as step:
            result = evaluate(questions, budgets, counted(services.composer.compose, step))
    print(f"{len(questions)} questions, {len(sample.assets)} assets, {len(sample.skills)} skills")
    print(table(result))
    if out is not None:
        out.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
    if pin is not None:
        summary = {k: result[k] for k in ("questions", "budgets", "recall", "retrieval")}
        pin.write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n")
    if baseline is None:
        return 0
    problems = regressions(result, json.loads(baseline.read_text()), tolerance)
    for problem in problems:
        print(f"REGRESSION: {problem} (tolerance {tolerance})")
    if not problems:
        print(f"no regression against {baseline} (tolerance {tolerance})")
    return 1 if problems else 0
