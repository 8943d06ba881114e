"""`slotstream sidecar`: the HTTP API."""

from __future__ import annotations

import argparse
import sys

from slotstream.config.settings import Settings

from .common import Subparsers, servers_missing


def register(sub: Subparsers) -> None:
    sidecar = sub.add_parser("sidecar", help="the HTTP sidecar: context lookups, ingest, memory controls, metrics")
    sidecar.set_defaults(func=cmd_sidecar)


def cmd_sidecar(args: argparse.Namespace) -> int:
    settings = Settings.from_env()
    if servers_missing(settings, "sidecar"):
        return 2
    from slotstream.sidecar.errors import SidecarError
    from slotstream.sidecar.server import serve

    try:
        serve(settings)
    except SidecarError as err:
        print(f"slotstream sidecar: {err}", file=sys.stderr)
        return 1
    return 0
