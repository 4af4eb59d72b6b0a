"""Writing the composer's inputs: assets in bulk and authored skills, validated before the store."""

from __future__ import annotations

from agentmem.compose.model import RESERVED_SKILL_IDS, ComposerSkill, ComposerSkillSpec, PutAssetsRequest
from agentmem.compose.ports import Catalogue
from agentmem.compose.scope import validate_scope
from agentmem.errors import InvalidInputError


def put_skill(catalogue: Catalogue, skill_id: str, spec: ComposerSkillSpec) -> ComposerSkill:
    """Validate the scope (malformed globs, no rules) and the id, then store a new version."""
    if skill_id in RESERVED_SKILL_IDS:
        raise InvalidInputError(
            f"skill id {skill_id!r} is reserved for /v1/skills/{skill_id} of the procedural tier",
            field="skill_id",
        )
    validate_scope(spec.scope)
    return catalogue.put_skill(skill_id, spec)


def put_assets(catalogue: Catalogue, request: PutAssetsRequest) -> int:
    """Write the bulk in one transaction; returns the catalogue revision after it. Deleting or
    deprecating an asset takes effect at the next compose: no skill is edited."""
    return catalogue.put_assets(request.assets)
