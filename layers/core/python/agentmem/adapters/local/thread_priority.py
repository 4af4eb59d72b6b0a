"""CPU priority of one thread, so background work yields the cores to requests.

The local server runs the projector in a thread of its own process. On two cores a projection
that embeds passages keeps both busy (two model calls side by side), and a context read arriving
then waited its turn for a core. Linux gives each thread its own nice value, and a thread it
creates inherits it, so the model calls of background work run on pool threads whose nice value
is raised (minilm_embedder.py), and the kernel's scheduler runs a read first whenever both want a
core. The projector's own thread keeps its priority (`work_in_background` says why); the GIL it
shares with the requests is handled by semantic/foreground.py. Other systems apply
`setpriority` to the whole process, so there this does nothing.
"""

from __future__ import annotations

import logging
import os
import sys
import threading

logger = logging.getLogger(__name__)

_marks = threading.local()

# Nice 10 gives a thread about a tenth of a core's time against one at 0 while both want it, and
# all of the time the requests leave idle.
BACKGROUND_NICE = 10


def thread_nice() -> int:
    """The calling thread's nice value (0 where threads have none of their own)."""
    if sys.platform != "linux":
        return 0
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


def lower_thread_priority(nice: int = BACKGROUND_NICE) -> bool:
    """Raise the calling thread's nice value to `nice` (never lower it: only a privileged process
    may); returns whether the thread now runs at `nice` or below that priority."""
    if sys.platform != "linux" or nice <= 0:
        return False
    if thread_nice() >= nice:
        return True
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), nice)
    except OSError as exc:  # a sandbox without the syscall: run at the priority given
        logger.warning("thread priority unchanged", extra={"error": str(exc)})
        return False
    return True


def work_in_background() -> None:
    """Mark the calling thread as background work: the model calls it makes then run on threads
    whose CPU priority is lowered (`background_nice`). The thread itself keeps its priority: it
    holds the GIL between model calls, and lowered it would hold it longest exactly when a
    request, which needs it too, has taken the cores (measured: reads stalled 200 to 600 ms
    behind a lowered projector compiling a new subject's patterns)."""
    _marks.background = True


def background_nice() -> int:
    """The nice value for the model calls of the calling thread: BACKGROUND_NICE when it was
    marked as background work, else 0."""
    return BACKGROUND_NICE if getattr(_marks, "background", False) else 0
