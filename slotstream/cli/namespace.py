"""`slotstream namespace list|drop`: Redis namespaces that hold pipeline state."""

from __future__ import annotations

import argparse

from .common import Subparsers, operator_settings


def register(sub: Subparsers) -> None:
    ns = sub.add_parser("namespace", help="Redis namespaces that hold pipeline state")
    ns_sub = ns.add_subparsers(dest="namespace_command", required=True)
    ns_sub.add_parser("list", help="each namespace with its size and digest").set_defaults(func=cmd_list)
    drop = ns_sub.add_parser("drop", help="delete a namespace that is not in use")
    drop.add_argument("name")
    drop.add_argument("--yes", action="store_true", help="really delete it")
    drop.set_defaults(func=cmd_drop)


def cmd_list(args: argparse.Namespace) -> int:
    from slotstream.ops.namespaces import namespace_list

    settings = operator_settings("namespace list", ("redis_url",))
    return 2 if settings is None else namespace_list(settings)


def cmd_drop(args: argparse.Namespace) -> int:
    from slotstream.ops.namespaces import namespace_drop

    settings = operator_settings("namespace drop", ("redis_url",))
    return 2 if settings is None else namespace_drop(settings, args.name, args.yes)
