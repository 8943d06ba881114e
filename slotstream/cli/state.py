"""`slotstream state digest | compact`: the slot state in Redis."""

from __future__ import annotations

import argparse

from .common import Subparsers, operator_settings


def register(sub: Subparsers) -> None:
    state = sub.add_parser("state", help="the slot state in Redis")
    state_sub = state.add_subparsers(dest="state_command", required=True)
    digest = state_sub.add_parser("digest", help="a deterministic digest of a namespace's state, with counts")
    digest.add_argument("--namespace", default=None, help="default: the namespace serving SLOTSTREAM_NAMESPACE")
    digest.set_defaults(func=cmd_digest)
    compact = state_sub.add_parser(
        "compact",
        help="rewrite every user's keys in their compact forms, drop the read indexes of small scopes; "
        "safe beside running workers, resumable",
    )
    compact.add_argument("--namespace", default=None, help="default: the namespace serving SLOTSTREAM_NAMESPACE")
    compact.set_defaults(func=cmd_compact)


def cmd_digest(args: argparse.Namespace) -> int:
    from slotstream.ops.namespaces import state_digest

    settings = operator_settings("state digest", ("redis_url",))
    return 2 if settings is None else state_digest(settings, args.namespace)


def cmd_compact(args: argparse.Namespace) -> int:
    from slotstream.ops.namespaces import state_compact

    settings = operator_settings("state compact", ("redis_url",))
    return 2 if settings is None else state_compact(settings, args.namespace)
