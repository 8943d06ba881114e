"""`slotstream mcp`: the MCP tools over stdio for desktop clients (Claude Desktop, Cursor, IDEs),
talking to a running sidecar. Over HTTP the sidecar serves the same tools itself at /mcp."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

from .common import Subparsers


def register(sub: Subparsers) -> None:
    mcp = sub.add_parser("mcp", help="serve the MCP tools over stdio, through a running sidecar")
    mcp.add_argument("--url", default=None, help="the sidecar (default: SLOTSTREAM_SIDECAR_URL, or a local `run`)")
    mcp.add_argument("--user", default=None, help="fix the user every call acts for")
    mcp.add_argument("--key-file", default=None, help="a file holding the API key (default: SLOTSTREAM_API_KEY)")
    mcp.set_defaults(func=cmd_mcp)


def cmd_mcp(args: argparse.Namespace) -> int:
    from slotstream.client.mcp_stdio import serve_stdio
    from slotstream.memory.models import ID_RE

    key = Path(args.key_file).read_text().strip() if args.key_file else os.environ.get("SLOTSTREAM_API_KEY", "")
    if not key:
        print(
            "slotstream mcp: set SLOTSTREAM_API_KEY or --key-file (never the key on the command line)", file=sys.stderr
        )
        return 2
    if args.user is not None and not ID_RE.fullmatch(args.user):
        print("slotstream mcp: --user is [A-Za-z0-9_.@+-]{1,128}", file=sys.stderr)
        return 2
    url = args.url or os.environ.get("SLOTSTREAM_SIDECAR_URL") or _local_sidecar()
    asyncio.run(serve_stdio(url, key, args.user))
    return 0


def _local_sidecar() -> str:
    from slotstream.config.settings import Settings

    settings = Settings.from_env()
    return f"http://{settings.sidecar_host}:{settings.sidecar_port}"
