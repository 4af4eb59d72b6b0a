"""Backend adapters, built by each backend's factory (local/factory.py, aws/factory.py), which only
agentmem.wiring calls. The domain sees the ports (agentmem.ports)."""
