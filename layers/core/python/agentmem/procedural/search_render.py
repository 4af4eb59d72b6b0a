"""How found skills render for the packing engine: full, short and identity renderings of a
function or guidance hit, each a whole statement."""

from __future__ import annotations

from collections.abc import Sequence

from agentmem.model.dependents import Staleness
from agentmem.packing.model import Candidate
from agentmem.ports.procedural import SkillKey
from agentmem.procedural.search_models import FunctionHit, GuidanceHit

SOURCE = "skills"


def item_id(key: SkillKey) -> str:
    return f"{key[0]}:{key[1]}"


def flat(text: str) -> str:
    return " ".join(text.split())


def _first_sentence(text: str) -> str:
    squashed = flat(text)
    end = squashed.find(". ")
    return squashed if end < 0 else squashed[: end + 1]


def _ids(label: str, ids: Sequence[str]) -> str:
    return f"; {label}: " + ", ".join(f"`{i}`" for i in ids) if ids else ""


def _change(s: Staleness) -> str:
    built = f"built on {s.belief} v{s.from_version}" if s.from_version else f"built before {s.belief} existed"
    now = "now erased" if s.to_version is None else f"now v{s.to_version} ({s.reason})"
    return f"{built}, {now}"


def stale_label(stale: Sequence[Staleness]) -> str:
    """What a stale item's line ends with: each cited belief that moved, and why."""
    return " ⚠ stale: " + "; ".join(_change(s) for s in stale) if stale else ""


def skill_candidate(hit: FunctionHit | GuidanceHit, stale: Sequence[Staleness] = ()) -> Candidate:
    """One found item for the packer, at full, short and identity renderings. A guidance entry
    whose cited beliefs moved (`stale`, as GET answers it) says so at every rendering and in its
    `ref`; a fresh one renders as before."""
    if isinstance(hit, FunctionHit):
        sig = hit.signature or hit.name
        refs = _ids("closure", hit.closure) + _ids("guidance", hit.guidance_ids)
        doc = flat(hit.docstring)
        renders = (
            f"**{hit.name}** `{sig}`"
            + (f": {doc}" if doc else "")
            + f" (function `{hit.function_id}`{refs})",
            f"**{hit.name}** `{sig}`: {_first_sentence(hit.docstring)} (function `{hit.function_id}`)",
            f"function `{hit.function_id}`",
        )
        key: SkillKey = ("function", hit.function_id)
    else:
        refs = _ids("functions", hit.function_ids)
        content = flat(hit.content)
        renders = (
            f"**{hit.title}**"
            + (f": {content}" if content else "")
            + f" (guidance `{hit.guidance_id}`{refs})",
            f"**{hit.title}** (guidance `{hit.guidance_id}`{refs})",
            f"guidance `{hit.guidance_id}`",
        )
        key = ("guidance", hit.guidance_id)
    label = stale_label(stale)
    meta: dict[str, object] = {"kind": key[0], "id": key[1], "version": hit.version}
    if stale:
        meta["stale"] = [s.model_dump(mode="json") for s in stale]
    return Candidate(
        item_id=item_id(key),
        source=SOURCE,
        score=hit.score,
        # an item with nothing to shorten keeps fewer levels
        renders=tuple(dict.fromkeys(render + label for render in renders)),
        meta=meta,
    )
