"""The memory inspector: read-only pages over the agentmem API at `/ui` (docs/inspector.md).

`agentmem serve` mounts it beside the API and reads through its own resolver; `agentmem inspect
--url ...` serves it on loopback against a deployed tenant through `MemoryClient`. Either way
every figure on a page is an API answer to the caller looking, so what that caller may not read
is neither shown nor counted."""
