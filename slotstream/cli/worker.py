"""`slotstream worker`: the processors, as a worker of the consumer group."""

from __future__ import annotations

import argparse

from slotstream.config.settings import Settings

from .common import Subparsers, servers_missing


def register(sub: Subparsers) -> None:
    worker = sub.add_parser(
        "worker", help="run the processors (a worker in the consumer group, on the runtime SLOTSTREAM_RUNTIME names)"
    )
    worker.add_argument(
        "--processors", default="all", help="comma-separated: extraction,reconciliation,expiry (default: all)"
    )
    worker.add_argument("--loglevel", default="WARNING")
    worker.add_argument(
        "--rebuild",
        action="store_true",
        help="when the Redis namespace lost its state, rebuild it by re-reading the retained "
        "topics from the beginning (instead of stopping)",
    )
    worker.set_defaults(func=cmd_worker)


def cmd_worker(args: argparse.Namespace) -> int:
    settings = Settings.from_env()
    if servers_missing(settings, "worker"):
        return 2
    from slotstream.worker.startup import claim_namespace, resolve_namespace
    from slotstream.worker.wiring import PROCESSORS, run_worker

    chosen = PROCESSORS if args.processors == "all" else tuple(p.strip() for p in args.processors.split(","))
    base = settings.namespace
    settings = settings.replace(namespace=resolve_namespace(settings))
    code = claim_namespace(settings, rebuild=args.rebuild)
    if code:
        return code
    return run_worker(settings, chosen, base, args.loglevel)
