"""What every Catalogue adapter checks before it writes, so all backends accept and refuse the same
batches, and the few helpers their skill versioning shares."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from pydantic import TypeAdapter

from agentmem.compose.model import MAX_ASSETS_PER_PUT, Asset, ComposerSkill, ComposerSkillSpec
from agentmem.errors import InvalidInputError

MAX_PAYLOAD_BYTES = 300_000
"""An asset's payload as compact UTF-8 JSON is at most this. DynamoDB refuses items over 400 KB:
under this cap a payload fits compressed or not, with the rest of the asset beside it. Larger
content belongs in the blob store, referenced from the payload."""

MAX_ASSETS_PER_WRITE = MAX_ASSETS_PER_PUT
"""99: a DynamoDB transaction holds at most 100 actions, and the revision head's move is one of
them. Every backend takes the same bulk size, so a batch that works locally works on AWS."""

_PAYLOAD: TypeAdapter[dict[str, Any]] = TypeAdapter(dict[str, Any])


def encode_payloads(assets: Sequence[Asset]) -> list[bytes]:
    """Each asset's payload as compact JSON, once the batch is known to be writable: 1 to
    MAX_ASSETS_PER_WRITE assets, distinct ids, every payload within MAX_PAYLOAD_BYTES.
    InvalidInputError otherwise, raised before anything is written."""
    if not assets or len(assets) > MAX_ASSETS_PER_WRITE:
        raise InvalidInputError(
            f"put 1 to {MAX_ASSETS_PER_WRITE} assets at a time, not {len(assets)}", field="assets"
        )
    seen: set[str] = set()
    encoded: list[bytes] = []
    for asset in assets:
        if asset.asset_id in seen:
            # One transaction cannot write an item twice (DynamoDB refuses it), and which of the
            # two should win is the caller's call, not the store's.
            raise InvalidInputError(f"asset_id {asset.asset_id!r} appears twice", field="assets")
        seen.add(asset.asset_id)
        payload = _PAYLOAD.dump_json(asset.payload)
        if len(payload) > MAX_PAYLOAD_BYTES:
            raise InvalidInputError(
                f"asset {asset.asset_id!r} has a payload of {len(payload)} bytes of JSON, over the limit "
                f"of {MAX_PAYLOAD_BYTES}; keep large content in the blob store",
                field="payload",
            )
        encoded.append(payload)
    return encoded


def now() -> str:
    """The current time in ISO 8601 UTC, to the millisecond: a skill's `updated_at`."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def spec_of(skill: ComposerSkill) -> ComposerSkillSpec:
    """The spec a stored skill was written from, to tell a restatement from a new version."""
    return ComposerSkillSpec.model_validate(skill.model_dump(include=set(ComposerSkillSpec.model_fields)))


def next_version(
    skill_id: str, stored: ComposerSkill | None, spec: ComposerSkillSpec
) -> ComposerSkill | None:
    """The version to write for `spec`, or None when it restates the stored one."""
    if stored is not None and spec_of(stored) == spec:
        return None
    version = stored.version + 1 if stored is not None else 1
    return ComposerSkill(**spec.model_dump(), skill_id=skill_id, version=version, updated_at=now())
