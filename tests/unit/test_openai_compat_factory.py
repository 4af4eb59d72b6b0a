"""`AGENTMEM_LLM=openai` and `AGENTMEM_EMBEDDER=openai`: the settings they need (refused at startup
when incomplete, naming what is missing), and the adapters the wiring then builds for every
use of the LLM port (extraction, verdicts and keys, review, relevance) and for embeddings."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest

from agentmem.adapters.local.factory import LocalFactory
from agentmem.adapters.openai_compat import factory
from agentmem.adapters.openai_compat.chat import OpenAICompatLLM
from agentmem.adapters.openai_compat.duties import OpenAICompatRelevance, OpenAICompatSkillReviewer
from agentmem.adapters.openai_compat.embedder import OpenAICompatEmbedder
from agentmem.settings import Settings, SettingsError

OLLAMA = "http://localhost:11434/v1"
LLM_ENV = {"AGENTMEM_LLM": "openai", "AGENTMEM_LLM_BASE_URL": OLLAMA, "AGENTMEM_LLM_MODEL": "qwen2.5:7b"}
EMBEDDER_ENV = {
    "AGENTMEM_EMBEDDER": "openai",
    "AGENTMEM_EMBEDDER_MODEL": "nomic-embed-text",
    "AGENTMEM_EMBEDDER_DIMENSIONS": "768",
}


@pytest.fixture(autouse=True)
def fresh_clients() -> Iterator[None]:
    factory.openai_llm.cache_clear()
    yield
    factory.openai_llm.cache_clear()


@pytest.mark.parametrize(
    ("environ", "named"),
    [
        ({"AGENTMEM_LLM": "openai"}, ["AGENTMEM_LLM_BASE_URL", "AGENTMEM_LLM_MODEL"]),
        ({**LLM_ENV, "AGENTMEM_LLM_MODEL": ""}, ["AGENTMEM_LLM_MODEL"]),
        ({"AGENTMEM_EMBEDDER": "openai"}, ["AGENTMEM_EMBEDDER_BASE_URL", "AGENTMEM_EMBEDDER_MODEL"]),
        ({**LLM_ENV, **EMBEDDER_ENV, "AGENTMEM_EMBEDDER_DIMENSIONS": ""}, ["AGENTMEM_EMBEDDER_DIMENSIONS"]),
    ],
)
def test_an_incomplete_server_setting_is_refused_at_startup_naming_what_is_missing(
    environ: dict[str, str], named: list[str]
) -> None:
    environ = {k: v for k, v in environ.items() if v}
    with pytest.raises(SettingsError) as raised:
        Settings.from_env(environ)
    for name in named:
        assert name in str(raised.value)


def test_a_base_url_must_be_http() -> None:
    with pytest.raises(SettingsError, match="AGENTMEM_LLM_BASE_URL"):
        Settings.from_env({**LLM_ENV, "AGENTMEM_LLM_BASE_URL": "localhost:11434/v1"})


def test_the_embedder_uses_the_llms_server_and_key_unless_it_has_its_own() -> None:
    settings = Settings.from_env({**LLM_ENV, **EMBEDDER_ENV, "AGENTMEM_LLM_API_KEY": "sk-llm"})
    embedder = LocalFactory(settings).embedder()
    assert isinstance(embedder, OpenAICompatEmbedder)
    assert embedder.dimensions == 768
    assert str(embedder._client.base_url).rstrip("/") == OLLAMA
    assert embedder._client.api_key == "sk-llm"
    own = Settings.from_env(
        {
            **EMBEDDER_ENV,
            "AGENTMEM_EMBEDDER_BASE_URL": "http://gpu:8000/v1",
            "AGENTMEM_EMBEDDER_API_KEY": "k2",
        }
    )
    embedder = LocalFactory(own).embedder()
    assert isinstance(embedder, OpenAICompatEmbedder)
    assert str(embedder._client.base_url).rstrip("/") == "http://gpu:8000/v1"
    assert embedder._client.api_key == "k2"


def test_every_use_of_the_llm_port_gets_the_openai_compatible_adapter_on_one_client() -> None:
    settings = Settings.from_env({**LLM_ENV, "AGENTMEM_COMPOSER_LLM": "rank"})
    backend = LocalFactory(settings)
    llm = backend.llm()
    assert isinstance(llm, OpenAICompatLLM)
    assert llm.model == "qwen2.5:7b"
    reviewer = backend.reviewer()
    relevance = backend.relevance()
    assert isinstance(reviewer, OpenAICompatSkillReviewer)
    assert isinstance(relevance, OpenAICompatRelevance)
    # One adapter (one client, one learnt output mode) behind all three duties.
    assert reviewer._llm is llm and relevance._llm is llm


def test_the_composer_llm_steps_stay_off_unless_asked_for() -> None:
    assert LocalFactory(Settings.from_env(LLM_ENV)).relevance() is None


def test_no_key_set_sends_a_placeholder_never_the_environments_openai_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-real-openai-key")
    assert factory.client(OLLAMA, None, 30.0).api_key == factory.NO_KEY


def test_the_default_stays_the_rules_and_minilm() -> None:
    settings = Settings.from_env({})
    assert type(LocalFactory(settings).llm()).__name__ == "RulesLLM"
    assert type(LocalFactory(settings).embedder()).__name__ == "MiniLmEmbedder"


def test_wiring_the_factory_in_imports_no_sdk() -> None:
    # The SDK takes about a second to import: it comes with the first build, not with the wiring.
    code = (
        "import sys, agentmem.wiring, agentmem.adapters.models, agentmem.adapters.local.factory;"
        " print('openai' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
