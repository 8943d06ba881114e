"""The `slotstream` command: one module per command group, each adding its own parser (`register`)
and handlers (`cmd_*`)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from slotstream.config.errors import SettingsError

from . import bench, keys, mcp, namespace, promote, replay, run, scenario, sidecar, state, topics, worker
from . import eval as evaluation
from . import settings as settings_command

DESCRIPTION = "Long-term memory for personal AI agents, kept as a stream-processing pipeline."
GROUPS = (
    run,
    worker,
    sidecar,
    mcp,
    keys,
    settings_command,
    topics,
    state,
    namespace,
    replay,
    promote,
    scenario,
    evaluation,
    bench,
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="slotstream", description=DESCRIPTION)
    sub = parser.add_subparsers(dest="command", required=True)
    for group in GROUPS:
        group.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from slotstream.streams.errors import TimelineUnwritable

    try:
        return int(args.func(args) or 0)
    except (SettingsError, TimelineUnwritable) as err:
        print(f"slotstream: {err}", file=sys.stderr)
        return 2
