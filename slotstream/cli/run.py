"""`slotstream run`: the main job on one machine, and `slotstream demo`: the engine alone."""

from __future__ import annotations

import argparse

from slotstream.config.settings import Settings

from .common import Subparsers


def register(sub: Subparsers) -> None:
    run = sub.add_parser(
        "run",
        help="the main job: Redis, Kafka, a worker and the sidecar; a demo conversation "
        "through the sidecar; then it keeps serving",
    )
    run.add_argument("--demo-only", action="store_true", help="stop after the demo instead of serving")
    run.set_defaults(func=cmd_run)
    demo = sub.add_parser("demo", help="the engine alone: apply a short scenario, print the context before and after")
    demo.set_defaults(func=cmd_demo)


def cmd_run(args: argparse.Namespace) -> int:
    from slotstream.local.demo import run_pipeline_demo
    from slotstream.local.stopping import Stopping, stop_on_signals

    settings = Settings.from_env()
    try:
        with stop_on_signals():
            return run_pipeline_demo(settings, serve=not args.demo_only)
    except Stopping as stop:
        print(f"stopped on {stop}", flush=True)  # everything was stopped on the way out
        return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from slotstream.local.demo import run_demo

    return run_demo(Settings.from_env())
