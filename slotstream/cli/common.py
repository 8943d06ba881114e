"""What several commands share: the settings an operator command runs with, and the check that a
command meant for given servers has them."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from slotstream.config.settings import Settings

Subparsers = Any  # argparse's _SubParsersAction, which it does not export
Handler = Callable[[argparse.Namespace], int]


def servers_missing(settings: Settings, command: str) -> bool:
    """A command that runs against given servers, run without them: say so (exit 2)."""
    if settings.kafka_bootstrap and settings.redis_url:
        return False
    print(
        f"slotstream {command}: set SLOTSTREAM_KAFKA_BOOTSTRAP and SLOTSTREAM_REDIS_URL "
        "(or use `slotstream run`, which starts local servers, a worker and the sidecar)",
        file=sys.stderr,
    )
    return True


def operator_settings(command: str, need: tuple[str, ...] = ("redis_url", "kafka_bootstrap")) -> Settings | None:
    """Settings for an operator command: the configured servers, else those of a running
    `slotstream run` (its data folder's stack.env); None (after saying so) when there are none."""
    from slotstream.local.stack import with_running_stack

    settings = with_running_stack(Settings.from_env())
    missing = [f"SLOTSTREAM_{name.upper()}" for name in need if not getattr(settings, name)]
    if missing:
        print(
            f"slotstream {command}: set {' and '.join(missing)}, or start the local stack with "
            "`slotstream run` (these commands then use its servers)",
            file=sys.stderr,
        )
        return None
    return settings
