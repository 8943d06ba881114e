"""`slotstream topics create|describe`: the Kafka topics."""

from __future__ import annotations

import argparse

from .common import Subparsers, operator_settings


def register(sub: Subparsers) -> None:
    topics = sub.add_parser("topics", help="Kafka topics")
    topics_sub = topics.add_subparsers(dest="topics_command", required=True)
    create = topics_sub.add_parser("create", help="create the topics and set their configs (idempotent)")
    create.set_defaults(func=cmd_create)
    describe = topics_sub.add_parser("describe", help="partitions, retention and compaction as the broker has them")
    describe.set_defaults(func=cmd_describe)


def cmd_create(args: argparse.Namespace) -> int:
    from slotstream.ops.topics import topics_create

    settings = operator_settings("topics create", ("kafka_bootstrap",))
    return 2 if settings is None else topics_create(settings)


def cmd_describe(args: argparse.Namespace) -> int:
    from slotstream.ops.topics import topics_describe

    settings = operator_settings("topics describe", ("kafka_bootstrap",))
    return 2 if settings is None else topics_describe(settings)
