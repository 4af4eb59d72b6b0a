"""CDK infrastructure for agentmem: one stack per tenant (see infra/stack.py)."""
