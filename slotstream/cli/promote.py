"""`slotstream promote`: switch readers and workers to a namespace a replay built."""

from __future__ import annotations

import argparse

from .common import Subparsers, operator_settings


def register(sub: Subparsers) -> None:
    prom = sub.add_parser(
        "promote", help="switch readers and workers to a namespace a replay built (docs/operating.md)"
    )
    prom.add_argument("target", help="the namespace to serve from now on")
    prom.add_argument(
        "--timeout", type=float, default=60.0, help="seconds to wait for the live processors to pause (default 60)"
    )
    prom.set_defaults(func=cmd_promote)


def cmd_promote(args: argparse.Namespace) -> int:
    from slotstream.ops.promote import run_promote

    settings = operator_settings("promote")
    return 2 if settings is None else run_promote(settings, args.target, args.timeout)
