"""Writing the composer's inputs: assets in bulk and authored skills, validated and authorized
(agentmem.access) before the store is touched, so a refused write writes nothing."""

from __future__ import annotations

from agentmem.access import Caller, check_asset_write, may_read, require_writer
from agentmem.compose.catalogue_view import CatalogueView
from agentmem.compose.model import ComposerSkill, ComposerSkillSpec, PutAssetsRequest
from agentmem.compose.scope import validate_scope
from agentmem.errors import NotFoundError
from agentmem.ports.catalogue import Catalogue


def put_skill(catalogue: Catalogue, skill_id: str, spec: ComposerSkillSpec) -> ComposerSkill:
    """Validate the scope (malformed globs, no rules), then store a new version."""
    validate_scope(spec.scope)
    return catalogue.put_skill(skill_id, spec)


def put_assets(catalogue: Catalogue, request: PutAssetsRequest, caller: Caller, view: CatalogueView) -> int:
    """Write the bulk in one transaction; returns the catalogue revision after it. The caller
    must be a writer that may read every asset it replaces, and each asset as written (`view` is
    the catalogue at its current revision). Deleting or deprecating an asset takes effect at the
    next compose: no skill is edited."""
    stored = {a.asset_id: view.by_id[a.asset_id] for a in request.assets if a.asset_id in view.by_id}
    check_asset_write(caller, request.assets, stored, view.lineage)
    return catalogue.put_assets(request.assets)


def delete_asset(catalogue: Catalogue, asset_id: str, caller: Caller, view: CatalogueView) -> int:
    """Delete it; returns the new revision. A writer may delete only what it may read: anything
    else is answered as absent (NotFoundError), so deleting does not reveal what exists."""
    require_writer(caller, "deleting assets")
    header = view.by_id.get(asset_id)
    if header is None or not may_read(caller, header, view.ancestors(header.path)):
        raise NotFoundError(f"no asset {asset_id!r}", field="asset_id")
    return catalogue.delete_asset(asset_id)
