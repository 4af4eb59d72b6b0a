"""BlobStore on S3, laid out by content hash like the local folder store."""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from datetime import UTC, datetime
from functools import cached_property
from typing import TYPE_CHECKING
from urllib.parse import urlparse

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from agentmem.adapters.aws.errors import translate_client_error
from agentmem.errors import InvalidInputError, NotFoundError

if TYPE_CHECKING:
    from mypy_boto3_s3.client import S3Client
    from mypy_boto3_s3.type_defs import HeadObjectOutputTypeDef

SHA256_HEX = re.compile(r"[0-9a-f]{64}")


class S3BlobStore:
    """Blobs live at `s3://<bucket>/<prefix>sha256/<aa>/<hash>`.

    Uploads carry the caller's sha256 as `ChecksumSHA256`, so S3 itself refuses bytes that do not
    match the hash they are filed under. No encryption header is sent: the bucket's default
    encryption, set by the stack, decides, and an explicit `AES256` would silently override a KMS
    default if the stack ever moves to one.
    """

    def __init__(
        self,
        bucket: str,
        *,
        client: S3Client | Callable[[], S3Client] | None = None,
        prefix: str = "blobs/",
        refresh_after_seconds: int | None = None,
    ) -> None:
        # With retention, the bucket's lifecycle rule expires a blob by its age: an upload of a
        # blob older than this renews it, so it outlives every event that points at it.
        self._refresh_after = refresh_after_seconds
        self._bucket = bucket
        self._prefix = prefix
        # A callable is called on first use: an append that stays inline never builds an S3 client,
        # whose service model is a sizeable part of the write function's first invocation.
        self._client_source = client

    @cached_property
    def _client(self) -> S3Client:
        source = self._client_source
        if source is None:
            return boto3.client("s3", config=Config(retries={"mode": "standard"}))
        return source() if callable(source) else source

    def _key(self, sha256: str) -> str:
        return f"{self._prefix}sha256/{sha256[:2]}/{sha256}"

    def put(self, data: bytes, *, sha256: str, media_type: str) -> str:
        if not SHA256_HEX.fullmatch(sha256):
            raise InvalidInputError("sha256 must be 64 lowercase hex digits", field="sha256")
        key = self._key(sha256)
        # Content addressing makes an existing object the same bytes: skip the upload, unless
        # the lifecycle rule would expire it before the event about to point at it.
        if not self._current(key):
            try:
                self._client.put_object(
                    Bucket=self._bucket,
                    Key=key,
                    Body=data,
                    ContentType=media_type,
                    ChecksumSHA256=base64.b64encode(bytes.fromhex(sha256)).decode("ascii"),
                )
            except (ClientError, BotoCoreError) as exc:
                raise translate_client_error(exc, "store blob") from exc
        return f"s3://{self._bucket}/{key}"

    def get(self, uri: str) -> bytes:
        parsed = urlparse(uri)
        key = parsed.path.removeprefix("/")
        if parsed.scheme != "s3" or parsed.netloc != self._bucket or not key.startswith(self._prefix):
            raise NotFoundError(f"blob {uri} is not in this store", field="uri")
        try:
            # ChecksumMode makes botocore verify the stored SHA-256 against the bytes it receives.
            response = self._client.get_object(Bucket=self._bucket, Key=key, ChecksumMode="ENABLED")
            return response["Body"].read()
        except (ClientError, BotoCoreError) as exc:
            error = translate_client_error(exc, "read blob")
            if isinstance(error, NotFoundError):
                raise NotFoundError(f"blob {uri} not found", field="uri") from exc
            raise error from exc

    def exists(self, sha256: str) -> bool:
        return bool(SHA256_HEX.fullmatch(sha256)) and self._head(self._key(sha256)) is not None

    def delete(self, sha256: str) -> bool:
        """Remove every version of the blob, delete markers included: the stack versions the bucket
        (so a stray human delete can be undone), and a plain DeleteObject would only hide the bytes
        behind a marker. True when a version holding bytes was removed."""
        if not SHA256_HEX.fullmatch(sha256):
            return False
        key = self._key(sha256)
        try:
            versions = self._versions(key)
            for version_id, _ in versions:
                self._client.delete_object(Bucket=self._bucket, Key=key, VersionId=version_id)
        except (ClientError, BotoCoreError) as exc:
            raise translate_client_error(exc, "delete blob") from exc
        return any(holds_bytes for _, holds_bytes in versions)

    def _versions(self, key: str) -> list[tuple[str, bool]]:
        """(version id, holds bytes) of every version and delete marker of exactly `key` (an
        unversioned bucket answers its one object as version `null`)."""
        found: list[tuple[str, bool]] = []
        paginator = self._client.get_paginator("list_object_versions")
        for page in paginator.paginate(Bucket=self._bucket, Prefix=key):
            found += [(v["VersionId"], True) for v in page.get("Versions", []) if v["Key"] == key]
            found += [(m["VersionId"], False) for m in page.get("DeleteMarkers", []) if m["Key"] == key]
        return found

    def _current(self, key: str) -> bool:
        """The object exists and, with retention, was written recently enough to keep."""
        head = self._head(key)
        if head is None or self._refresh_after is None:
            return head is not None
        modified = head.get("LastModified")
        return modified is None or (datetime.now(UTC) - modified).total_seconds() < self._refresh_after

    def _head(self, key: str) -> HeadObjectOutputTypeDef | None:
        """The object's metadata, or None when there is none."""
        try:
            return self._client.head_object(Bucket=self._bucket, Key=key)
        except (ClientError, BotoCoreError) as exc:
            error = translate_client_error(exc, "check blob")
            if isinstance(error, NotFoundError):
                return None
            raise error from exc
