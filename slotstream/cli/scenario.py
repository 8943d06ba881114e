"""`slotstream scenario run`: scenario files, straight into the engine or through the pipeline."""

from __future__ import annotations

import argparse
from pathlib import Path

from slotstream.config.settings import Settings
from slotstream.eval.scenarios import LineResult

from .common import Subparsers


def register(sub: Subparsers) -> None:
    scen = sub.add_parser("scenario", help="scenario files (docs/evaluation.md)")
    scen_sub = scen.add_subparsers(dest="scenario_command", required=True)
    run = scen_sub.add_parser("run", help="run scenario files into a fresh namespace each")
    run.add_argument("files", nargs="+", type=Path)
    run.add_argument("--via", choices=["direct", "kafka"], default="direct")
    run.set_defaults(func=cmd_run)


def print_result(r: LineResult) -> None:
    tag = "PASS" if r.ok else "FAIL"
    if not r.counted:
        tag = "    "
    if r.kind == "query" or not r.ok or r.counted:
        print(f"{tag} {r.source}:{r.line} {r.kind}: {r.message}", flush=True)


def cmd_run(args: argparse.Namespace) -> int:
    settings = Settings.from_env()
    if args.via == "kafka":
        from slotstream.eval.scenarios_kafka import run_files_via_kafka

        return run_files_via_kafka(args.files, settings)
    from slotstream.eval.scenarios import run_files_direct

    passed, failed = run_files_direct(args.files, settings, emit=print_result)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0
