"""Lambda entry point of the replay state machine's worker: prepare a generation, project a slice of
a log export into it, or activate it (agentmem.entrypoints.replay_worker)."""

from agentmem.entrypoints.replay_worker import replay_worker_handler

handler = replay_worker_handler()
