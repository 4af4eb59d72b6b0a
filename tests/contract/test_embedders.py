"""Embedder adapters against the port contract: MiniLM, and offline Bedrock Titan V2 and an
OpenAI-compatible `/v1/embeddings` server. The scripted Titan returns MiniLM's vectors zero-padded
to the requested size (padding keeps every cosine), and the scripted OpenAI-compatible server
returns them scaled off unit length and listed last first (as servers may), so the contract's
paraphrase test reads real meaning through each adapter. Request and response shapes are pinned
in tests/unit/test_bedrock_embedder.py and tests/unit/test_openai_compat_embedder.py."""

from __future__ import annotations

import hashlib
import sys
from typing import Any

import pytest

from agentmem.adapters.aws.bedrock_embedder import BedrockEmbedder
from agentmem.adapters.local import minilm_embedder
from agentmem.adapters.local.minilm_embedder import MiniLmEmbedder, ModelFilesError
from agentmem.adapters.openai_compat.embedder import OpenAICompatEmbedder
from agentmem.ports.embedding import Embedder
from tests.bedrock_fixtures import RecordedBedrock
from tests.contract.backend_faults_contract import BackendFaultsContract, Calls
from tests.contract.embedder_contract import EmbedderContract
from tests.contract.openai_faults_contract import OpenAIFaultsContract
from tests.openai_fixtures import FakeOpenAIServer, scaled

# One worker loads the model once for all of these.
pytestmark = pytest.mark.xdist_group("minilm")


@pytest.fixture(scope="session")
def minilm() -> MiniLmEmbedder:
    embedder = MiniLmEmbedder()
    embedder.load()
    return embedder


class TestMiniLmEmbedder(EmbedderContract):
    @pytest.fixture
    def embedder(self, minilm: MiniLmEmbedder) -> Embedder:
        return minilm

    def test_identity(self, minilm: MiniLmEmbedder) -> None:
        assert minilm.dimensions == 384
        assert minilm.model_id == "all-MiniLM-L6-v2-int8-onnx"

    def test_long_text_is_truncated_not_refused(self, minilm: MiniLmEmbedder) -> None:
        long_text = "portfolio rebalancing " * 400  # about 1,200 tokens, over the 256 kept
        prefix_only = "portfolio rebalancing " * 130
        a, b = minilm.embed([long_text, prefix_only])
        assert sum(x * y for x, y in zip(a, b, strict=True)) > 0.999

    def test_a_single_str_is_refused(self, minilm: MiniLmEmbedder) -> None:
        with pytest.raises(TypeError):
            minilm.embed("one text")


class TestBedrockEmbedder(EmbedderContract, BackendFaultsContract):
    @pytest.fixture
    def bedrock(self, minilm: MiniLmEmbedder) -> RecordedBedrock:
        def titan(request: dict[str, Any]) -> dict[str, Any]:
            vector = minilm.embed([request["inputText"]])[0]
            return {
                "embedding": vector + [0.0] * (request["dimensions"] - len(vector)),
                "inputTextTokenCount": 9,
            }

        return RecordedBedrock("bedrock-runtime", titan)

    @pytest.fixture
    def embedder(self, bedrock: RecordedBedrock) -> Embedder:
        return BedrockEmbedder(client=bedrock.client)

    @pytest.fixture
    def calls(self, embedder: Embedder) -> Calls:
        return [lambda: embedder.embed(["Priya's risk tolerance is cautious"])]


class TestOpenAICompatEmbedder(EmbedderContract, OpenAIFaultsContract):
    @pytest.fixture
    def server(self, minilm: MiniLmEmbedder) -> FakeOpenAIServer:
        return FakeOpenAIServer(embed=lambda texts: scaled(minilm.embed(texts)))

    @pytest.fixture
    def embedder(self, server: FakeOpenAIServer) -> Embedder:
        return OpenAICompatEmbedder("all-minilm:l6-v2", 384, client=server.client())

    @pytest.fixture
    def calls(self, embedder: Embedder) -> Calls:
        return [lambda: embedder.embed(["Priya's risk tolerance is cautious"])]


def test_importing_the_module_loads_no_runtime() -> None:
    # The module must stay cheap to import; the heavy libraries come with the first embed call.
    import subprocess

    code = (
        "import sys, agentmem.adapters.local.minilm_embedder as m; "
        "print(sorted({'onnxruntime', 'tokenizers', 'numpy'} & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_pinned_hash_matches_the_installed_model() -> None:
    data = minilm_embedder._read_package_file(minilm_embedder.ONNX_PACKAGE, minilm_embedder.ONNX_FILE)
    assert hashlib.sha256(data).hexdigest() == minilm_embedder.ONNX_SHA256


def test_a_model_with_another_hash_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(minilm_embedder, "ONNX_SHA256", "0" * 64)
    with pytest.raises(ModelFilesError, match="expected 0000"):
        MiniLmEmbedder().embed(["anything"])


def test_a_missing_model_package_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(minilm_embedder, "TOKENIZER_PACKAGE", "no_such_model_package")
    with pytest.raises(ModelFilesError, match="no_such_model_package"):
        MiniLmEmbedder().load()


def test_concurrent_first_calls_load_the_model_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from concurrent.futures import ThreadPoolExecutor

    loads: list[int] = []
    real_runtime = minilm_embedder._Runtime

    def counting_runtime(**kwargs: int) -> minilm_embedder._Runtime:
        loads.append(1)
        return real_runtime(**kwargs)

    monkeypatch.setattr(minilm_embedder, "_Runtime", counting_runtime)
    embedder = MiniLmEmbedder()
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda _: embedder.embed(["same text"]), range(8)))
    assert len(loads) == 1
    assert all(result == results[0] for result in results)
