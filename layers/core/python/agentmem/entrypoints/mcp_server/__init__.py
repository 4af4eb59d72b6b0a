"""The MCP server (docs/mcp.md): agentmem's tools for agents over the Model Context Protocol, on
the official `mcp` SDK, against the embedded backend or a deployed tenant. Named `mcp_server` so
it never shadows the SDK's `mcp` package."""
