"""Shadow replay: rebuild the semantic tier from the log into a new generation with another
extractor or embedder, beside the live one, and switch readers to it only when told to.

The build is `replay` without its last step: readers stay on the live generation, and the live
projector keeps writing there. A shadow generation falls behind the log from the moment it is
built; promotion catches it up from its own checkpoint, with the models it was built with, before
the one-step switch."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from pydantic import JsonValue

from agentmem.errors import ConflictError, NotFoundError
from agentmem.model.generations import ShadowBuild
from agentmem.ports.generations import ShadowLedger
from agentmem.ports.log import CheckpointStore, LogTail
from agentmem.ports.semantic import ObservationSnapshot
from agentmem.semantic.passage_vectors import embed_all_pending
from agentmem.semantic.service import SemanticService
from agentmem.semantic.snapshot import seed
from agentmem.semantic.worker import drain

logger = logging.getLogger(__name__)


def build_shadow(
    tail: LogTail,
    semantic: SemanticService,
    checkpoints: CheckpointStore,
    ledger: ShadowLedger,
    overrides: Mapping[str, str],
    settings: Mapping[str, JsonValue],
    *,
    snapshot: ObservationSnapshot | None = None,
    on_phase: Callable[[str], None] | None = None,
) -> ShadowBuild:
    """`semantic` is built with the shadow's models over the live stores; `settings` are the ones
    it was built from, recorded so that promotion can insist on them. The ledger says
    `building` until the whole log is in; a build that dies leaves it so, and is never promoted."""
    phase = on_phase or (lambda _: None)
    semantic.store.ensure_ready()
    live = semantic.store.active().generation
    fresh = semantic.store.new_generation()
    ledger.begin(fresh.generation, live, overrides, settings)
    phase("begun")
    seed(snapshot, semantic, fresh)
    read = drain(tail, semantic, checkpoints, fresh)
    seed(snapshot, semantic, fresh)  # observations the retention sweep moved there meanwhile
    embed_passages(semantic, fresh.generation)
    build = ledger.complete(fresh.generation, read)
    logger.info("shadow built", extra={"generation": fresh.generation, "live": live, "events": read})
    return build


def embed_passages(semantic: SemanticService, generation: int) -> None:
    """The vectors of the generation's passages, with the shadow's own embedder: the worker's lane
    serves only the active generation, and a build is complete only with them (as a replay is)."""
    if semantic.passages is not None:
        embed_all_pending(
            semantic.passages.generation(generation), semantic.embedder, cache=semantic.vector_cache
        )


@dataclass(frozen=True)
class Promotion:
    generation: int
    previous_generation: int
    caught_up: int  # events appended since the build, projected before the switch


def promotable(ledger: ShadowLedger, generation: int, active: int) -> ShadowBuild:
    """The build of `generation`, or a NotFoundError / ConflictError saying why it cannot serve."""
    build = ledger.get(generation)
    if build is None:
        known = ", ".join(f"{b.generation} ({b.state})" for b in ledger.builds()) or "none yet"
        raise NotFoundError(
            f"generation {generation} does not exist as a shadow build (shadow generations: {known});"
            " build one with `agentmem replay --shadow`",
            field="generation",
        )
    if build.state != "complete":
        raise ConflictError(
            f"generation {generation} is not complete: its shadow build stopped before the end of the"
            " log; run `agentmem replay --shadow` again and promote the new generation",
            field="generation",
        )
    if generation == active:
        raise ConflictError(f"generation {generation} is already the one readers use", field="generation")
    return build


def promote(
    tail: LogTail,
    semantic: SemanticService,
    checkpoints: CheckpointStore,
    ledger: ShadowLedger,
    generation: int,
    *,
    snapshot: ObservationSnapshot | None = None,
) -> Promotion:
    """Switch readers to a complete shadow generation in one step. `semantic` must carry the
    models the shadow was built with (the caller checks the settings): the events logged since
    the build are projected into it with them first, so readers never step back in the log, and
    the observations of any that retention expired meanwhile are folded in from `snapshot`."""
    previous = semantic.store.active().generation
    promotable(ledger, generation, previous)
    shadow = semantic.store.generation(generation)
    read = drain(tail, semantic, checkpoints, shadow)
    seed(snapshot, semantic, shadow)
    embed_passages(semantic, generation)
    if semantic.passages is not None:
        semantic.passages.activate(generation)
    semantic.store.activate(generation)
    read += drain(tail, semantic, checkpoints, shadow)  # appended during the catch-up
    logger.info("shadow promoted", extra={"generation": generation, "previous": previous, "events": read})
    return Promotion(generation, previous, read)
