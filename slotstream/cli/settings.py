"""`slotstream settings`: every SLOTSTREAM_* setting with its value."""

from __future__ import annotations

import argparse

from slotstream.config.settings import Settings

from .common import Subparsers


def register(sub: Subparsers) -> None:
    settings = sub.add_parser("settings", help="every SLOTSTREAM_* setting with its value (secrets masked)")
    settings.add_argument("--reveal", action="store_true", help="show secret settings in clear")
    settings.set_defaults(func=cmd_settings)


def cmd_settings(args: argparse.Namespace) -> int:
    rows = Settings.from_env().describe(reveal=args.reveal)
    width = max(len(var) for var, _, _ in rows)
    for var, value, text in rows:
        print(f"{var:<{width}}  {value}" + (f"    # {text}" if text else ""))
    return 0
