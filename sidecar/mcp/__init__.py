"""The sidecar as an MCP server: the tools, resources and prompt (tools.py) and their door on
Streamable HTTP at /mcp, answered by the sidecar's own service (http.py)."""
