"""Invariant 1 under a crash: an ack means durable, and seqs stay gap-free.

Two writer processes append to the same session of the local backend, each printing every
acknowledged seq the moment `append` returns. Both are SIGKILLed mid-stream, three times over the
same data dir. After each kill the log, reopened in this process, must hold every acknowledged
event at the seq it was acknowledged with, its seqs must be exactly 1..N with N at least the
highest ack, the next append must get N+1, and the SQLite file must pass `PRAGMA integrity_check`.

SIGKILL tests a process crash, not power loss: the OS keeps what was written either way, so this
cannot tell synchronous=FULL from NORMAL."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import pytest

from agentmem.model.events import AppendEventRequest
from agentmem.settings import Settings
from agentmem.wiring import bootstrap

WRITER_SCRIPT = Path(__file__).with_name("crash_writer.py")
SESSION = "crash-session"
WRITERS = ("writer-a", "writer-b")
ACKS_PER_WRITER = 100  # 200 in total before the kill
ACK_DEADLINE_SECONDS = 10.0
CRASHES = 3  # kill, reopen and check three times over the same data dir


@dataclass
class Writer:
    name: str
    process: subprocess.Popen[str]
    stderr: IO[str]
    acks: list[tuple[int, str]] = field(default_factory=list)  # (seq, event_id)
    ready: threading.Event = field(default_factory=threading.Event)
    reader: threading.Thread | None = None

    def read(self, stream: IO[str]) -> None:
        for line in stream:
            parts = line.split()
            if parts == ["ready"]:
                self.ready.set()
            elif len(parts) == 3:
                self.acks.append((int(parts[0]), parts[1]))


def start_writer(name: str, data_dir: Path, stderr_path: Path) -> Writer:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    stderr = stderr_path.open("w")  # closed by kill()
    process = subprocess.Popen(
        [sys.executable, str(WRITER_SCRIPT), str(data_dir), SESSION, name],
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
        env=env,
    )
    writer = Writer(name=name, process=process, stderr=stderr)
    assert process.stdout is not None
    writer.reader = threading.Thread(target=writer.read, args=(process.stdout,), daemon=True)
    writer.reader.start()
    return writer


def kill(writer: Writer) -> None:
    if writer.process.poll() is None:
        writer.process.send_signal(signal.SIGKILL)
    writer.process.wait(timeout=5)
    writer.stderr.close()


def run_until_acked_then_kill(data_dir: Path, names: list[str], logs: Path) -> list[Writer]:
    """Start one writer per name, wait until each has ACKS_PER_WRITER acks, SIGKILL them all."""
    writers = [start_writer(name, data_dir, logs / f"{name}.stderr") for name in names]
    try:
        deadline = time.monotonic() + ACK_DEADLINE_SECONDS
        while not all(len(w.acks) >= ACKS_PER_WRITER for w in writers):
            for w in writers:
                if w.process.poll() is not None:
                    stderr = (logs / f"{w.name}.stderr").read_text()
                    pytest.fail(f"{w.name} exited with {w.process.returncode} before the kill:\n{stderr}")
            if time.monotonic() > deadline:
                counts = {w.name: len(w.acks) for w in writers}
                pytest.fail(f"writers too slow: acks {counts} after {ACK_DEADLINE_SECONDS}s")
            time.sleep(0.005)
    finally:
        for w in writers:
            kill(w)
    for w in writers:
        assert w.reader is not None
        w.reader.join(timeout=5)  # drain what was acknowledged before the kill landed
        assert w.process.returncode == -signal.SIGKILL, f"{w.name} was not killed by SIGKILL"
    return writers


@pytest.mark.slow
def test_acknowledged_appends_survive_sigkill_of_two_concurrent_writers(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    # Create the schema up front so the writers race on appends, not on DDL.
    bootstrap(Settings(data_dir=data_dir)).event_log.last_seq(SESSION)

    acked: dict[int, tuple[str, str]] = {}  # seq -> (writer, event_id), over every crash so far
    for crash in range(CRASHES):
        names = [f"{name}-{crash}" for name in WRITERS]
        for w in run_until_acked_then_kill(data_dir, names, tmp_path):
            for seq, event_id in w.acks:
                assert seq not in acked, (
                    f"seq {seq} acknowledged twice: {acked[seq]} and {(w.name, event_id)}"
                )
                acked[seq] = (w.name, event_id)
        last_acked = max(acked)

        # Reopen the log in this process, as a restarted server would.
        services = bootstrap(Settings(data_dir=data_dir))
        stored = services.event_log.list_events(SESSION, after=0, limit=1_000_000)
        n = len(stored)
        assert [event.seq for event in stored] == list(range(1, n + 1)), "stored seqs are not exactly 1..N"
        assert n >= last_acked, f"log ends at {n} but seq {last_acked} was acknowledged"
        by_seq = {event.seq: event for event in stored}
        lost = sorted(seq for seq in acked if seq not in by_seq)
        assert not lost, f"acknowledged seqs lost after crash {crash}: {lost[:20]}"
        wrong = sorted(
            seq
            for seq, (writer, event_id) in acked.items()
            if (by_seq[seq].agent, by_seq[seq].event_id) != (writer, event_id)
        )
        assert not wrong, f"acknowledged seqs now hold another event after crash {crash}: {wrong[:20]}"

        outcome = services.episodic.append(
            SESSION,
            AppendEventRequest(
                subject_id="crash-subject", round=0, agent=f"after-crash-{crash}", kind="note", content="next"
            ),
        )
        assert outcome.created
        assert outcome.event.seq == n + 1
        acked[outcome.event.seq] = (outcome.event.agent, outcome.event.event_id)

        with closing(sqlite3.connect(data_dir / "agentmem.db")) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
