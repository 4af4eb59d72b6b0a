"""A small memory for the inspector's tests: a client whose risk tolerance changes between two
sessions (a CONFLICT), a large statement stored by reference, a stored `<script>`, a skill library
with a rewrite under review and a draft, and the sample catalogue for compositions. Its saved
reads: one to re-run now, a composition, one kept with its answer in the middle of session 2 (so
an event is written after it), and one whose kept answer saw an event the log does not hold."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from agentmem.api.app import build_resolver
from agentmem.client import MemoryClient
from agentmem.compose.evaluate import load_catalogue
from agentmem.compose.model import ComposeRequest
from agentmem.demo.eval_run import install, sample_folder
from agentmem.entrypoints.cli import local_worker
from agentmem.entrypoints.server import ApiKeys, LocalServer
from agentmem.episodic.service import utc_now_iso
from agentmem.inspector.saved_reads import SAVED_READS_FILE, SavedCompose, SavedContextRead, write_saved_reads
from agentmem.inspector.serve import local_inspector
from agentmem.model.context import ContextRequest, ContextResponse
from agentmem.procedural.model import FunctionSpec, GuidanceSpec
from agentmem.settings import Settings
from agentmem.wiring import Services, bootstrap

SUBJECT = "priya"
SCRIPT = "<script>window.__pwned = 1</script>"
QUESTION = "How do we compute monthly net revenue, and which table has the refunds?"
SKILL = "metric-answering"


@dataclass(frozen=True)
class Story:
    url: str
    services: Services
    flagged_event_seq: int  # the event in s2 that flipped the risk tolerance


def _event(
    client: MemoryClient,
    session: str,
    round_: int,
    agent: str,
    kind: str,
    content: object,
    facts: list[dict[str, str]] | None = None,
    media_type: str | None = None,
) -> int:
    body: dict[str, object] = {
        "subject_id": SUBJECT,
        "round": round_,
        "agent": agent,
        "kind": kind,
        "content": content,
        "idempotency_key": f"{session}-{round_}-{kind}",
    }
    if facts:
        body["facts"] = facts
    if media_type:
        body["media_type"] = media_type
    ack = client.request("POST", f"/v1/sessions/{session}/events", body)
    return int(ack["seq"])


def write_story(client: MemoryClient, between: Callable[[], None] = lambda: None) -> int:
    """Two sessions; returns the seq of the event in s2 that contradicted s1's risk tolerance.
    `between` runs after that event and before the last one, s2's compliance review."""
    cautious = {
        "key": "risk_tolerance",
        "value": "cautious",
        "text": "Priya is cautious about investment risk.",
    }
    _event(
        client, "priya-s1", 0, "intake", "profile", {"client": "Priya", "said": "I am careful."}, [cautious]
    )
    statement = "date,description,amount\n" + "".join(
        f"2026-03-{d % 28 + 1:02d},COFFEE,-4.50\n" for d in range(4000)
    )
    _event(client, "priya-s1", 0, "intake", "statement", statement, media_type="text/csv")
    _event(client, "priya-s1", 1, "compliance", "review", f"Suitability PASS. Note from the client: {SCRIPT}")
    aggressive = {
        "key": "risk_tolerance",
        "value": "aggressive",
        "text": "Priya wants to be aggressive, in individual tech stocks.",
    }
    flagged = _event(
        client,
        "priya-s2",
        0,
        "intake",
        "profile",
        {"client": "Priya", "said": "Now aggressive."},
        [aggressive, {"key": "city", "value": "Austin", "text": f"Priya lives in Austin {SCRIPT}"}],
    )
    between()
    _event(
        client, "priya-s2", 1, "compliance", "review", "Risk tolerance changed from cautious to aggressive."
    )
    return flagged


def write_library(client: MemoryClient) -> None:
    client.put_function(
        FunctionSpec(
            function_id="annuity_factor",
            name="annuity_factor",
            implementation="def annuity_factor(r, n):\n    return ((1 + r) ** n - 1) / r\n",
            status="approved",
        )
    )
    saving = FunctionSpec(
        function_id="monthly_saving",
        name="monthly_saving",
        depends_on=["annuity_factor"],
        implementation="def monthly_saving(t, n, r):\n    return round(t / annuity_factor(r, n))\n",
        status="approved",
    )
    client.put_function(saving)
    client.put_function(
        FunctionSpec(function_id="draft_helper", name="draft_helper", implementation="pass\n")
    )
    client.put_guidance(
        GuidanceSpec(
            guidance_id="plan-a-goal",
            title="Plan a savings goal",
            function_ids=["monthly_saving"],
            status="approved",
        )
    )
    client.put_guidance(
        GuidanceSpec(guidance_id="draft-notes", title=f"Draft notes {SCRIPT}", function_ids=["draft_helper"])
    )
    client.put_function(saving.model_copy(update={"implementation": saving.implementation + "# rewritten\n"}))


COMPLIANCE_READ = ContextRequest(
    subject_id=SUBJECT,
    session_id="priya-s2",
    agent="compliance",
    query="risk tolerance changes and suitability",
    budget_tokens=1200,
)
KEPT, LOST = 2, 3  # the saved reads kept with their answers: as it was, and one the log lost
LOST_MARK = "a line only the lost read's kept answer holds"


def saved_reads(kept: ContextResponse, read_at: str) -> list[SavedContextRead | SavedCompose]:
    """`kept`: the compliance read's answer after s2's first event, made at `read_at`."""
    lost = kept.model_copy(update={"markdown": LOST_MARK})
    return [
        SavedContextRead(label="priya-s2 · compliance", request=COMPLIANCE_READ, watermark=1),
        SavedCompose(
            label="compose as analyst",
            skill_id=SKILL,
            request=ComposeRequest(question=QUESTION, budget_tokens=2500),
            principals="analyst",
        ),
        SavedContextRead(
            label="priya-s2 · compliance, kept", request=COMPLIANCE_READ, read_at=read_at, response=kept
        ),
        SavedContextRead(
            label="priya-s1 · lost", request=COMPLIANCE_READ.model_copy(update={"session_id": "priya-s1"}),
            watermark=99, response=lost,
        ),
    ]  # fmt: skip


@contextmanager
def story_server(data_dir: Path, *, keys: ApiKeys | None = None, catalogue: bool = True) -> Iterator[Story]:
    """A local server with the inspector mounted, over the story's data."""
    services = bootstrap(Settings(data_dir=data_dir))
    worker = local_worker(services)
    if catalogue:
        install(services, load_catalogue(sample_folder()))
        services.composer.indexer.sync()  # embed the catalogue now, not inside the first page's read
    server = LocalServer(
        lambda: build_resolver(services),
        port=0,
        api_keys=keys,
        mounts=local_inspector(lambda: build_resolver(services), data_dir, keys),
    )
    with server:
        writer_key = None
        if keys is not None:
            writer_key = next(iter(WRITER_KEY))
        client = MemoryClient(server.url, local_principals="writer", api_key=writer_key)
        kept: list[tuple[ContextResponse, str]] = []

        def keep_the_compliance_read() -> None:
            worker.settle()
            read_at = utc_now_iso()
            kept.append((client.context(**COMPLIANCE_READ.model_dump()), read_at))

        flagged = write_story(client, between=keep_the_compliance_read)
        write_library(client)
        worker.settle()
        write_saved_reads(data_dir / SAVED_READS_FILE, saved_reads(*kept[0]))
        yield Story(server.url, services, flagged)


WRITER_KEY = {"k-writer-0123456789abcdef": {"principals": ["writer", "analyst", "finance"], "role": "writer"}}
ANALYST_KEY = "k-analyst-0123456789abcdef"
FINANCE_KEY = "k-finance-0123456789abcdef"
KEYS = {
    **WRITER_KEY,
    ANALYST_KEY: {"principals": ["analyst"], "role": "reader"},
    FINANCE_KEY: {"principals": ["finance"], "role": "reader"},
}
