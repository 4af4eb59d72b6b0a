"""`agentmem eval` on part of the shipped golden set: deterministic figures, and a non-zero exit when
recall falls below a pinned baseline by more than the tolerance."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentmem.compose.evaluate import regressions
from agentmem.demo.eval_run import sample_folder
from agentmem.entrypoints.cli import main


@pytest.fixture
def small_dataset(tmp_path: Path) -> Path:
    lines = (sample_folder() / "golden.jsonl").read_text().splitlines()[:3]
    path = tmp_path / "golden.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def run(dataset: Path, tmp_path: Path, *extra: str) -> tuple[int, dict[str, object]]:
    out = tmp_path / "result.json"
    code = main(["eval", "--dataset", str(dataset), "--catalogue", str(sample_folder()),
                 "--budgets", "1500,6000", "--out", str(out), *extra])  # fmt: skip
    return code, json.loads(out.read_text())


def test_eval_passes_its_own_baseline_and_exits_one_on_a_regression(
    small_dataset: Path, tmp_path: Path
) -> None:
    pinned = tmp_path / "pinned.json"
    code, first = run(small_dataset, tmp_path, "--pin", str(pinned))
    assert code == 0
    recall = first["recall"]
    assert isinstance(recall, dict) and recall["1500"] <= recall["6000"]
    code, second = run(small_dataset, tmp_path, "--baseline", str(pinned))
    assert (code, second) == (0, first)  # deterministic: the same figures, so no regression
    inflated = tmp_path / "inflated.json"
    inflated.write_text(json.dumps({"recall": {"1500": 1.01, "6000": 1.01}}))
    assert run(small_dataset, tmp_path, "--baseline", str(inflated))[0] == 1


def test_regressions_respect_the_tolerance() -> None:
    current = {"recall": {"2500": 0.80, "5000": 0.90}, "retrieval": 0.95}
    assert regressions(current, {"recall": {"2500": 0.81, "5000": 0.90}, "retrieval": 0.95}, 0.02) == []
    assert regressions(current, {"recall": {"2500": 0.83}, "retrieval": 0.99}, 0.02) == [
        "recall at 2500 tokens fell from 0.8300 to 0.8000",
        "retrieval recall fell from 0.9900 to 0.9500",
    ]


def test_reindex_rebuilds_the_asset_and_skill_indexes_from_their_stores(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from agentmem.compose.model import Asset
    from agentmem.settings import Settings
    from agentmem.wiring import bootstrap

    services = bootstrap(Settings(data_dir=tmp_path / "data"))
    asset = Asset.model_validate(json.loads((sample_folder() / "assets.jsonl").read_text().splitlines()[0]))
    services.composer.catalogue.put_assets([asset])
    stale = services.composer.index
    assert stale.stamps() == {}  # nothing indexed yet: the local index catches up at compose time
    assert main(["reindex", "--data-dir", str(tmp_path / "data")]) == 0
    assert "asset index: 1 assets indexed, 0 stale ones removed" in capsys.readouterr().out
    assert set(stale.stamps()) == {asset.asset_id}
