"""BlobStore on a local folder, laid out by content hash."""

from __future__ import annotations

import logging
import os
import re
import tempfile
import time
from pathlib import Path
from urllib.parse import unquote, urlparse

from agentmem.errors import NotFoundError

logger = logging.getLogger(__name__)

TEMP_PREFIX = ".tmp-"
# A temp file older than this belongs to a writer that died (a put takes milliseconds): removed
# when a store opens. Younger ones may be another live process's write in progress.
STALE_TEMP_SECONDS = 60.0
SHA256_HEX = re.compile(r"[0-9a-f]{64}")


class FolderBlobStore:
    """Blobs live at `<root>/sha256/<aa>/<hash>`. A write goes to a temp file, is fsynced, then
    renamed into place, so a reader never sees a partial blob. A crash mid-write can leave the
    temp file; opening the store removes those that are stale."""

    def __init__(self, root: Path) -> None:
        self._root = root.resolve()
        self._root.mkdir(parents=True, exist_ok=True)
        self.remove_stale_temp_files()

    def remove_stale_temp_files(self, older_than_seconds: float = STALE_TEMP_SECONDS) -> int:
        """Delete temp files left by writers that crashed; returns how many were removed."""
        cutoff = time.time() - older_than_seconds
        removed = 0
        for tmp in self._root.glob(f"sha256/*/{TEMP_PREFIX}*"):
            try:
                if tmp.stat().st_mtime < cutoff:
                    tmp.unlink()
                    removed += 1
            except FileNotFoundError:
                continue  # renamed into place or removed by another process meanwhile
        if removed:
            logger.info("removed stale blob temp files", extra={"count": removed, "root": str(self._root)})
        return removed

    def _path(self, sha256: str) -> Path:
        return self._root / "sha256" / sha256[:2] / sha256

    def put(self, data: bytes, *, sha256: str, media_type: str) -> str:
        path = self._path(sha256)
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=TEMP_PREFIX)
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(data)
                    handle.flush()
                    os.fsync(handle.fileno())
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        return path.as_uri()

    def get(self, uri: str) -> bytes:
        parsed = urlparse(uri)
        path = Path(unquote(parsed.path)).resolve()
        if parsed.scheme != "file" or self._root not in path.parents:
            raise NotFoundError(f"blob {uri} is not in this store", field="uri")
        try:
            return path.read_bytes()
        except FileNotFoundError as exc:
            raise NotFoundError(f"blob {uri} not found", field="uri") from exc

    def exists(self, sha256: str) -> bool:
        return self._path(sha256).exists()

    def delete(self, sha256: str) -> bool:
        if not SHA256_HEX.fullmatch(sha256):  # never a path outside the store
            return False
        try:
            self._path(sha256).unlink()
        except FileNotFoundError:
            return False
        return True
