"""Wiring: the composition root. `bootstrap(settings, **ports)` picks the backend's factory
(agentmem/adapters/{local,aws}/factory.py) and returns the Services every entry point calls."""

from agentmem.wiring.bootstrap import BackendMisconfiguredError, bootstrap
from agentmem.wiring.services import Services

__all__ = ["BackendMisconfiguredError", "Services", "bootstrap"]
