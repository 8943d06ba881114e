"""Where agents already are: a LangGraph store over the sidecar (langgraph.py; the `langgraph`
extra). The MCP server is the sidecar's own (sidecar/mcp) and `slotstream mcp`."""
