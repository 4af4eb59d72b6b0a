"""Reading a DynamoDB table export (ExportTableToPointInTime, format DYNAMODB_JSON).

An export's data files are gzip-compressed JSON lines, one `{"Item": {...}}` per line, each item in
the table's attribute-value format (`{"S": ...}`, `{"N": ...}`): the format a GetItem answer and a
stream NEW_IMAGE use, so the log adapter's `item_to_event` reads an exported event as it reads a
logged one. Every item of the table is exported (heads, idempotency records, the libraries); only
this tenant's appended events are turned into events.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from botocore.exceptions import BotoCoreError, ClientError

from agentmem.adapters.aws.dynamodb_items import item_to_event
from agentmem.adapters.aws.errors import translate_client_error
from agentmem.errors import InvalidInputError

if TYPE_CHECKING:
    from mypy_boto3_s3.client import S3Client

    from agentmem.model.events import Event


def data_file_key(prefix: str, key: str) -> str:
    """The object key of a manifest's `dataFileS3Key`: AWS documents it as starting with the
    export's own `AWSDynamoDB/<export id>/data/` path; whether it also carries the S3 prefix the
    export was asked for is taken either way (an export without a prefix has none)."""
    prefix = prefix.strip("/")
    if not prefix or key.startswith(f"{prefix}/"):
        return key
    return f"{prefix}/{key}"


def export_items(
    s3: S3Client, bucket: str, key: str, *, start: int = 0
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, item) for each line of the data file from line `start` on, streamed: a data
    file is never held whole in memory. Raises NotFoundError for a missing file and
    InvalidInputError for a line that is not an export line."""
    try:
        body = s3.get_object(Bucket=bucket, Key=key)["Body"]
    except (ClientError, BotoCoreError) as exc:
        raise translate_client_error(exc, f"read export file {key}") from exc
    with gzip.GzipFile(fileobj=body, mode="rb") as lines:
        for number, line in enumerate(lines):
            if number < start or not line.strip():
                continue
            try:
                item = json.loads(line)["Item"]
            except (ValueError, KeyError, TypeError) as exc:
                raise InvalidInputError(
                    f"line {number} of {key} is not a DynamoDB JSON export line", field="Item"
                ) from exc
            yield number, item


def event_of(item: dict[str, Any], tenant_id: str) -> Event | None:
    """The appended event the item holds, or None for any other item (a session head, an
    idempotency record, a library item) and for another tenant's keys."""
    pk = item.get("pk", {}).get("S", "")
    sk = item.get("sk", {}).get("S", "")
    if not (sk.startswith("E#") and pk.startswith(f"T#{tenant_id}#S#")):
        return None
    if item.get("entity", {}).get("S") != "event":
        return None
    return item_to_event(item)  # the export's JSON is the wire format
