"""BlobStore on a local folder, laid out by content hash."""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path
from urllib.parse import unquote, urlparse

from agentmem.errors import NotFoundError

SHA256_HEX = re.compile(r"[0-9a-f]{64}")


class FolderBlobStore:
    """Blobs live at `<root>/sha256/<aa>/<hash>`. A write goes to a temp file, is fsynced, then
    renamed into place, so a reader never sees a partial blob and a crash leaves none behind."""

    def __init__(self, root: Path) -> None:
        self._root = root.resolve()
        self._root.mkdir(parents=True, exist_ok=True)

    def _path(self, sha256: str) -> Path:
        return self._root / "sha256" / sha256[:2] / sha256

    def put(self, data: bytes, *, sha256: str, media_type: str) -> str:
        path = self._path(sha256)
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
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
