"""A writer killed between creating its temp file and renaming it leaves `.tmp-*` behind; the
next process to open the blob folder removes the stale ones and leaves live writes alone."""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

from agentmem.adapters.local.blob_folder import STALE_TEMP_SECONDS, FolderBlobStore


def leftover(folder: Path, name: str, age_seconds: float) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(b"half a blob")
    then = time.time() - age_seconds
    os.utime(path, (then, then))
    return path


def test_opening_the_store_removes_stale_temp_files_only(tmp_path: Path) -> None:
    root = tmp_path / "blobs"
    data = b"a real blob"
    sha = hashlib.sha256(data).hexdigest()
    FolderBlobStore(root).put(data, sha256=sha, media_type="text/plain")
    stale = leftover(root / "sha256" / "ab", ".tmp-crashed", STALE_TEMP_SECONDS * 10)
    also_stale = leftover(root / "sha256" / sha[:2], ".tmp-older", STALE_TEMP_SECONDS + 5)
    live = leftover(root / "sha256" / "ab", ".tmp-writing-now", 0)

    reopened = FolderBlobStore(root)

    assert not stale.exists() and not also_stale.exists()
    assert live.exists()
    assert reopened.exists(sha)  # real blobs are never touched
    assert reopened.remove_stale_temp_files() == 0


def test_cleanup_reports_how_many_it_removed(tmp_path: Path) -> None:
    store = FolderBlobStore(tmp_path)
    for n in range(3):
        leftover(tmp_path / "sha256" / f"0{n}", f".tmp-{n}", 3600)
    assert store.remove_stale_temp_files() == 3
    assert not list(tmp_path.rglob(".tmp-*"))
