"""Writer process for the crash-safety test: appends to one session until it is killed.

Usage: python crash_writer.py DATA_DIR SESSION_ID WRITER_NAME

Each append that returned is acknowledged on stdout as `<seq> <event_id> <n>`, flushed at once,
so every line the parent reads names an event the log promised to keep."""

from __future__ import annotations

import sys
from pathlib import Path

from agentmem.model.events import AppendEventRequest
from agentmem.settings import Settings
from agentmem.wiring import bootstrap


def main(argv: list[str]) -> None:
    data_dir, session_id, writer = Path(argv[0]), argv[1], argv[2]
    services = bootstrap(Settings(data_dir=data_dir))
    print("ready", flush=True)
    n = 0
    while True:
        n += 1
        request = AppendEventRequest(
            subject_id="crash-subject",
            round=n % 1000,
            agent=writer,
            kind="note",
            content={"writer": writer, "n": n, "text": f"{writer} output number {n}"},
        )
        outcome = services.episodic.append(session_id, request)
        sys.stdout.write(f"{outcome.event.seq} {outcome.event.event_id} {n}\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
