"""`agentmem replay --shadow` and `--promote` on the demo's data: the demo's three sessions are run
through the HTTP API into a data dir once, then each test rebuilds a copy of it in a shadow
generation with a narrower schema (undeclared keys refused; investment_preference single-valued;
no city or employer) and reads what the command prints."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from agentmem.adapters.llm_prompts.facts import EXTRACT_TOOL, VERDICT_TOOL
from agentmem.adapters.llm_prompts.open_keys import OPEN_EXTRACT_TOOL
from agentmem.adapters.local.vector_size import VectorSizeError
from agentmem.adapters.openai_compat import factory
from agentmem.api.app import build_resolver
from agentmem.client import MemoryClient
from agentmem.demo.runner import run_sessions
from agentmem.entrypoints.cli import local_worker, main
from agentmem.entrypoints.server import LocalServer
from agentmem.entrypoints.shadow_command import SHADOW_SETTINGS
from agentmem.model.events import AppendEventRequest
from agentmem.settings import Settings
from agentmem.wiring import bootstrap
from tests.openai_fixtures import BASE_URL, FakeOpenAIServer, schema_name

NARROW = '[{"key":"risk_tolerance"},{"key":"goal","cardinality":"set"},{"key":"income"},{"key":"dependents"},{"key":"investment_preference"}]'  # noqa: E501
SHADOW = ["--set", "allow_undeclared_facts=false", "--set", f"fact_types={NARROW}"]


@pytest.fixture(scope="module")
def demo_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = tmp_path_factory.mktemp("demo")
    services = bootstrap(Settings(data_dir=data))
    worker = local_worker(services)
    with LocalServer(lambda: build_resolver(services), port=0) as server:
        run_sessions(MemoryClient(server.url), worker.run_once, 3)
    worker.run_once()
    return data


@pytest.fixture
def data_dir(demo_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in [n for n in os.environ if n.startswith("AGENTMEM_")]:
        monkeypatch.delenv(name)
    return Path(shutil.copytree(demo_data, tmp_path / "data"))


def replay(data_dir: Path, *args: str) -> int:
    return main(["replay", *args, "--data-dir", str(data_dir)])


def current(data_dir: Path) -> dict[tuple[str, str], str]:
    index = bootstrap(Settings(data_dir=data_dir)).semantic.store.active()
    return {(b.key, b.member): b.value for b in index.current("priya")}


def test_shadow_replay_prints_its_diff_on_the_demos_data(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = current(data_dir)
    assert replay(data_dir, "--shadow", *SHADOW) == 0
    out = capsys.readouterr().out
    assert "shadow generation 2 built from" in out and "readers stay on generation 1" in out
    rows = {tuple(line.split()[:4]) for line in out.splitlines()}
    assert ("priya", "city", "-", "lost") in rows
    assert ("priya", "employer", "-", "lost") in rows
    assert ("priya", "investment_preference", "index-funds", "lost") in rows
    # The set key became single-valued: its statements fold into one chain, and a later one
    # contradicts an earlier, so the shadow warns where the live generation has two members.
    assert ("priya", "investment_preference", "-", "added") in rows
    assert any(line.split()[:3] == ["priya", "investment_preference", "-"] and "flag raised" in line
               for line in out.splitlines())  # fmt: skip
    assert "nothing switched: `agentmem replay --promote 2` makes it live" in out
    assert current(data_dir) == before  # readers never moved


def test_the_json_report_holds_every_change_and_recall_side_by_side(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert replay(data_dir, "--shadow", "--json", *SHADOW) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["live_generation"], report["shadow_generation"]) == (1, 2)
    assert report["overrides"]["allow_undeclared_facts"] == "false"
    assert {"subject_id": "priya", "key": "city", "member": "", "kind": "lost", "live": "Austin",
            "shadow": None} in report["changes"]  # fmt: skip
    assert report["counts"]["lost"] == sum(c["kind"] == "lost" for c in report["changes"]) >= 3
    recall = report["recall"]
    assert recall["eval_set"].endswith("beliefs_golden.jsonl") and recall["questions"] == 9
    widest = recall["by_budget"][max(recall["by_budget"], key=int)]
    # What the shadow lost, a reader can no longer be given: the city and employer questions.
    assert {"priya-city", "priya-employer"} <= set(widest["shadow_missed"])
    assert "priya-city" not in widest["live_missed"]
    assert widest["shadow"] < widest["live"]


def test_promote_switches_readers_once_the_settings_match_and_refuses_what_is_not_there(
    data_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert replay(data_dir, "--promote", "2") == 2
    assert "generation 2 does not exist as a shadow build" in capsys.readouterr().err

    assert replay(data_dir, "--shadow", *SHADOW) == 0
    capsys.readouterr()
    # The live settings still allow undeclared keys: promoting would mix two schemas in one generation.
    assert replay(data_dir, "--promote", "2") == 2
    err = capsys.readouterr().err
    assert "AGENTMEM_ALLOW_UNDECLARED_FACTS=false" in err and "AGENTMEM_FACT_TYPES=" in err
    assert current(data_dir)[("city", "")] == "Austin"

    # An event logged after the build: promotion projects it into the shadow before the switch.
    services = bootstrap(Settings(data_dir=data_dir))
    services.episodic.append("priya-s4", AppendEventRequest.model_validate(
        {"subject_id": "priya", "round": 0, "agent": "intake", "kind": "profile", "content": "raise",
         "facts": [{"key": "income", "value": "$140,000 a year", "text": "Priya earns $140,000 a year."}]}
    ))  # fmt: skip
    monkeypatch.setenv("AGENTMEM_ALLOW_UNDECLARED_FACTS", "false")
    monkeypatch.setenv("AGENTMEM_FACT_TYPES", NARROW)
    # Every setting projection reads counts, not only those the shadow was given.
    monkeypatch.setenv("AGENTMEM_LLM", "openai")
    monkeypatch.setenv("AGENTMEM_LLM_BASE_URL", "http://127.0.0.1:11434/v1")
    monkeypatch.setenv("AGENTMEM_LLM_MODEL", "llama3.1")
    assert replay(data_dir, "--promote", "2") == 2
    err = capsys.readouterr().err
    assert "unset AGENTMEM_LLM; unset AGENTMEM_LLM_BASE_URL; unset AGENTMEM_LLM_MODEL" in err
    assert "FACT_TYPES" not in err and current(data_dir)[("city", "")] == "Austin"
    for name in ("AGENTMEM_LLM", "AGENTMEM_LLM_BASE_URL", "AGENTMEM_LLM_MODEL"):
        monkeypatch.delenv(name)
    assert replay(data_dir, "--promote", "2") == 0
    assert (
        "readers switched to generation 2 (was 1); 1 events logged since the build" in capsys.readouterr().out
    )
    after = current(data_dir)
    assert ("city", "") not in after and after[("income", "")] == "$140,000 a year"

    assert replay(data_dir, "--promote", "2") == 2
    assert "already the one readers use" in capsys.readouterr().err


def test_a_shadow_build_that_did_not_finish_is_refused(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    services = bootstrap(Settings(data_dir=data_dir))
    fresh = services.semantic.store.new_generation()
    services.ports.shadow_ledger.begin(fresh.generation, 1, {}, {})  # and then it died
    assert replay(data_dir, "--promote", str(fresh.generation)) == 2
    assert f"generation {fresh.generation} is not complete" in capsys.readouterr().err
    assert services.semantic.store.active().generation == 1


def test_the_shadow_settings_are_settings() -> None:
    assert set(SHADOW_SETTINGS) <= set(Settings.model_fields)


def test_shadow_flags_need_shadow(data_dir: Path) -> None:
    with pytest.raises(SystemExit, match="--llm only go with --shadow"):
        replay(data_dir, "--llm", "rules")
    with pytest.raises(SystemExit, match="NAME one of"):
        replay(data_dir, "--shadow", "--set", "api_keys=x")


def words(dimensions: int) -> Callable[[list[str]], list[list[float]]]:
    """A scripted embedding model: words hashed into `dimensions` buckets, L2-normalised."""

    def embed(texts: list[str]) -> list[list[float]]:
        out = []
        for text in texts:
            vector = [0.0] * dimensions
            for word in re.findall(r"\w+", text.lower()):
                vector[int(hashlib.sha256(word.encode()).hexdigest(), 16) % dimensions] += 1.0
            norm = sum(v * v for v in vector) ** 0.5 or 1.0
            out.append([v / norm for v in vector])
        return out

    return embed


# A model that finds no facts in prose and reads every new value as a revision, never a contradiction.
SCRIPTED = {
    EXTRACT_TOOL.name: {"facts": []},
    OPEN_EXTRACT_TOOL.name: {"facts": []},  # the tenant allows undeclared keys (the default)
    VERDICT_TOOL.name: {"reason": "The client revised it.", "verdict": "UPDATE"},
}


def test_a_shadow_through_an_openai_compatible_server_clears_the_flags_and_keeps_its_own_width(
    data_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    server = FakeOpenAIServer(chat=lambda body: SCRIPTED[schema_name(body)], embed=words(64))
    monkeypatch.setattr(factory, "client", lambda base_url, api_key, timeout: server.client())
    factory.openai_llm.cache_clear()
    try:
        code = replay(
            data_dir, "--shadow", "--json", "--llm", "openai", "--embedder", "openai",
            "--set", f"llm_base_url={BASE_URL}", "--set", "llm_model=qwen2.5:7b-instruct",
            "--set", "embedder_model=all-minilm", "--set", "embedder_dimensions=64",
        )  # fmt: skip
    finally:
        factory.openai_llm.cache_clear()
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    cleared = {(c["key"], c["member"]) for c in report["changes"] if c["kind"] == "flag_cleared"}
    # The rules call both of the demo's flips CONFLICT; the scripted model calls them UPDATE.
    assert cleared == {("risk_tolerance", ""), ("investment_preference", "single-stocks")}
    assert not [c for c in report["changes"] if c["kind"] == "changed"]  # same values, other verdicts
    assert any(r["response_format"]["json_schema"]["name"] == VERDICT_TOOL.name
               for r in server.requests if "messages" in r)  # fmt: skip
    # The shadow's vectors are the scripted embedder's 64, beside the live generation's 384.
    store = bootstrap(Settings(data_dir=data_dir)).semantic.store
    shadow, live = store.generation(report["shadow_generation"]), store.generation(1)
    assert shadow.vector_search("priya", words(64)(["risk"])[0], 1)
    with pytest.raises(VectorSizeError, match="384-dimension"):
        live.vector_search("priya", words(64)(["risk"])[0], 1)
    assert store.active().generation == 1
