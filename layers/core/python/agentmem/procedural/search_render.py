"""How found skills render for the packing engine: full, short and identity renderings of a
function or guidance hit, each a whole statement."""

from __future__ import annotations

from collections.abc import Sequence

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


def skill_candidate(hit: FunctionHit | GuidanceHit) -> Candidate:
    """One found item for the packer, at full, short and identity renderings."""
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
    return Candidate(
        item_id=item_id(key),
        source=SOURCE,
        score=hit.score,
        renders=tuple(dict.fromkeys(renders)),  # an item with nothing to shorten keeps fewer levels
        meta={"kind": key[0], "id": key[1], "version": hit.version},
    )
