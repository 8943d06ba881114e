"""`slotstream replay`: rebuild a new namespace from the retained topics."""

from __future__ import annotations

import argparse
import sys

from .common import Subparsers, operator_settings


def register(sub: Subparsers) -> None:
    rep = sub.add_parser("replay", help="rebuild a new namespace from the retained topics (docs/operating.md)")
    rep.add_argument("--namespace", required=True, help="the namespace to build (never the live one)")
    rep.add_argument(
        "--from",
        dest="start",
        action="append",
        help="beginning (default), an ISO-8601 time, or offsets role:partition=offset,... (repeatable)",
    )
    rep.add_argument("--to", dest="end", action="append", help="now (default), a time, or offsets as for --from")
    rep.add_argument(
        "--re-extract",
        action="store_true",
        help="re-extract the turns with the current extractor (default: apply the logged extracted ops)",
    )
    rep.add_argument("--processes", type=int, default=1, help="processes sharing the partitions (default 1)")
    rep.add_argument("--batch-size", type=int, default=None, help="messages per batch (default SLOTSTREAM_BATCH_SIZE)")
    rep.add_argument("--part", default=None, help=argparse.SUPPRESS)  # one process of a parallel replay: i/K
    rep.set_defaults(func=cmd_replay)


def cmd_replay(args: argparse.Namespace) -> int:
    from slotstream.ops import replay
    from slotstream.streams.log_reader import Bound

    settings = operator_settings("replay")
    if settings is None:
        return 2
    if args.batch_size:
        settings = settings.replace(batch_size=args.batch_size)
    if args.part:
        part, _, parts = args.part.partition("/")
        return replay.run_part(settings, args.namespace, int(part), int(parts))
    try:
        start, end = Bound.parse(args.start), Bound.parse(args.end)
    except ValueError as err:
        print(f"slotstream replay: {err}", file=sys.stderr)
        return 2
    source = "turns" if args.re_extract else "ops"
    return replay.replay(settings, args.namespace, source, start, end, args.processes)
