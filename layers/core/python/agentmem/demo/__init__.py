"""The six-agent demo: a scripted financial-planning team that shares memory through agentmem.

`python -m agentmem.demo` runs it; `run_sessions` runs the team for any number of sessions (the
token benchmark uses it)."""

from agentmem.demo.runner import PROMPT_BUDGET, Run, Step, fresh_data_dir, run_sessions

__all__ = ["PROMPT_BUDGET", "Run", "Step", "fresh_data_dir", "run_sessions"]
