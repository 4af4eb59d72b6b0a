"""`make demo`: start the local server and run a scripted multi-agent session over real HTTP.

The agents are deterministic stand-ins (no LLM): each appends its output to the shared log and
reads back only what it needs. The run shows appends, paged reads, blob offload of a large
transactions CSV, and an idempotent retry that writes nothing."""

from __future__ import annotations

import logging
import os
import tempfile
from pathlib import Path

from agentmem.api.app import build_resolver
from agentmem.bootstrap import bootstrap
from agentmem.client import MemoryClient
from agentmem.model.events import EventContent
from agentmem.server import LocalServer
from agentmem.settings import Settings

SUBJECT = "priya"
SESSION = "priya-s1"


def transactions_csv(rows: int = 1200) -> str:
    """A realistic, deterministic year of card transactions (about 60 KB, over the inline limit)."""
    merchants = ["Whole Foods", "Shell", "Netflix", "Rent - Oak St", "Amazon", "Blue Bottle", "Delta", "PG&E"]
    lines = ["date,merchant,category,amount_usd"]
    for i in range(rows):
        merchant = merchants[(i * 7) % len(merchants)]
        category = "housing" if "Rent" in merchant else ("travel" if merchant == "Delta" else "everyday")
        amount = 2150.0 if category == "housing" else round(((i * 37) % 19000) / 100 + 3.5, 2)
        lines.append(f"2026-{1 + i % 12:02d}-{1 + i % 28:02d},{merchant},{category},{amount:.2f}")
    return "\n".join(lines) + "\n"


SCRIPT: list[tuple[int, str, str, EventContent, str | None]] = [
    (
        0,
        "intake",
        "profile",
        {
            "name": "Priya",
            "age": 34,
            "risk_tolerance": "cautious",
            "note": "Dislikes individual stocks; prefers index funds.",
        },
        None,
    ),
    (0, "transactions", "upload", "CSV", "text/csv"),
    (
        1,
        "transaction-analysis",
        "analysis",
        "Spending is steady: rent 2,150 USD/month, everyday spend "
        "about 1,900 USD/month, no missed payments across 12 months.",
        None,
    ),
    (
        2,
        "goal-planning",
        "plan",
        {"goal": "house down payment", "target_usd": 90000, "horizon_years": 5},
        None,
    ),
]


def rule(title: str) -> None:
    print(f"\n== {title} " + "=" * max(0, 76 - len(title)))


def run(data_dir: Path) -> None:
    settings = Settings(data_dir=data_dir)
    services = bootstrap(settings)
    with LocalServer(lambda: build_resolver(services), port=0) as server:
        client = MemoryClient(server.url)
        print(f"agentmem local server at {server.url}  (data dir {data_dir})")
        rule("1. agents append their outputs to the shared log")
        print(f"{'seq':>3}  {'round':>5}  {'agent':<22} {'kind':<9} {'stored':<7} {'bytes':>7}")
        for round_, agent, kind, content, media_type in SCRIPT:
            payload = transactions_csv() if content == "CSV" else content
            ack = client.append_event(
                SESSION,
                subject_id=SUBJECT,
                round=round_,
                agent=agent,
                kind=kind,
                content=payload,
                media_type=media_type,
            )
            size = len(payload.encode()) if isinstance(payload, str) else len(str(payload))
            print(f"{ack.seq:>3}  {round_:>5}  {agent:<22} {kind:<9} {ack.stored:<7} {size:>7,}")

        rule("2. a retry with the same idempotency key writes nothing")
        first = client.append_event(
            SESSION,
            subject_id=SUBJECT,
            round=3,
            agent="recommendation",
            kind="advice",
            content="Keep 6 months of expenses in cash.",
            idempotency_key="rec-1",
        )
        again = client.append_event(
            SESSION,
            subject_id=SUBJECT,
            round=3,
            agent="recommendation",
            kind="advice",
            content="Keep 6 months of expenses in cash.",
            idempotency_key="rec-1",
        )
        print(f"first call  -> seq {first.seq}, event {first.event_id}")
        print(f"retry       -> seq {again.seq}, event {again.event_id}  (same event: {first == again})")
        page = client.list_events(SESSION, limit=100)
        print(
            f"events in the log: {len(page.items)} (seq {page.items[0].seq}..{page.items[-1].seq}, no gaps)"
        )

        rule("3. a reader takes only its slice: round 2 by goal-planning, then a paged read")
        for event in client.list_events(SESSION, agent="goal-planning").items:
            print(f"seq {event.seq}: {event.content}")
        cursor, pages = 0, 0
        while True:
            page = client.list_events(SESSION, after=cursor, limit=2)
            pages += 1
            print(f"page {pages}: seqs {[e.seq for e in page.items]}  next={page.next}")
            if page.next is None:
                break
            cursor = int(page.next)

        rule("4. the large CSV is stored once, by content hash, and read by reference")
        (blob_event,) = [e for e in client.list_events(SESSION).items if e.blob]
        assert blob_event.blob is not None
        print(f"pointer : {blob_event.blob.uri}")
        print(f"bytes   : {blob_event.blob.bytes:,}   sha256: {blob_event.blob.sha256[:16]}...")
        print(f"preview : {blob_event.blob.preview[:70]!r}...")
        resolved = client.list_events(SESSION, after=blob_event.seq - 1, limit=1, resolve_blobs=True).items[0]
        text = resolved.content if isinstance(resolved.content, str) else ""
        print(f"resolved: {len(text.splitlines()):,} CSV lines inlined on request (resolve_blobs=true)")

        rule("5. bad input is refused with the field named, and nothing is written")
        before = len(client.list_events(SESSION, limit=1000).items)
        bad_fields: list[tuple[str, dict[str, object]]] = [
            ("negative round", {"round": -1}),
            ("empty content", {"content": "  "}),
            ("bad agent id", {"agent": "intake agent!"}),
        ]
        for label, bad in bad_fields:
            body = {
                "subject_id": SUBJECT,
                "round": 0,
                "agent": "intake",
                "kind": "note",
                "content": "x",
                **bad,
            }
            try:
                client.request("POST", f"/v1/sessions/{SESSION}/events", body)
            except Exception as exc:
                print(f"{label:<15} -> {exc}")
        after = len(client.list_events(SESSION, limit=1000).items)
        print(f"events before {before}, after {after}")


def main() -> None:
    logging.getLogger("agentmem").setLevel(logging.WARNING)
    os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
    with tempfile.TemporaryDirectory(prefix="agentmem-demo-") as tmp:
        run(Path(tmp))


if __name__ == "__main__":
    main()
