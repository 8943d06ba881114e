"""A worker process's start: its collector settings, the namespace it serves, and the check that
the namespace holds the state its consumer group's offsets describe."""

from __future__ import annotations

from slotstream.config.settings import Settings
from slotstream.state.client import connect


def tune_gc() -> None:
    """For long-running throughput processes (workers, benchmarks): the engine allocates many
    short-lived objects per op, and CPython's default gen-0 threshold (700) makes the collector run
    every few ops; collecting less often is a measurable part of apply throughput."""
    import gc

    gc.freeze()  # everything imported so far is permanent: never scan it again
    gc.set_threshold(100_000, 50, 100)


def resolve_namespace(settings: Settings) -> str:
    """The namespace serving the configured deployment now (the configured one until a promote);
    waits out a Redis that is not reachable yet, and a promote that is switching."""
    import threading
    import time

    from slotstream.processors.runner import retry
    from slotstream.state.deployment import read_pointer

    assert settings.redis_url
    never = threading.Event()
    client = connect(settings.redis_url)
    try:
        while True:
            pointer = retry(lambda: read_pointer(client, settings.namespace), never, "worker start (deployment)")
            if not pointer.switching:
                return pointer.namespace
            time.sleep(0.05)
    finally:
        client.close()


def claim_namespace(settings: Settings, rebuild: bool = False) -> int:
    """Before a worker consumes: 0 when its Redis namespace holds the state its consumer group's
    offsets describe (or is new), else a non-zero exit code after saying why. Waits out a Redis or
    Kafka that is not reachable yet."""
    import sys
    import threading

    from slotstream.processors.runner import retry
    from slotstream.state.client import connect
    from slotstream.state.progress import Progress, StateLost
    from slotstream.streams.admin import committed_offsets
    from slotstream.streams.topics import OPS, TURNS

    assert settings.kafka_bootstrap and settings.redis_url
    specs = settings.topic_specs()
    topics = [specs[TURNS].name, specs[OPS].name]
    group = settings.group
    never = threading.Event()
    client = connect(settings.redis_url)
    try:
        committed = retry(
            lambda: committed_offsets(settings.kafka_bootstrap or "", group, topics),
            never,
            "worker start (consumer group offsets)",
        )
        retry(
            lambda: Progress(client, settings.namespace).claim(committed, rebuild=rebuild),
            never,
            "worker start (namespace)",
        )
        # Every start (a restart after Redis came back behind, a rebuild): users' keys Redis lost
        # come back from the keys topic before any payload is opened (and wrongly found shredded).
        from slotstream.config.master_key import restore_user_keys

        restored = retry(lambda: restore_user_keys(settings, client), never, "worker start (user keys)")
        if restored:
            print(f"slotstream worker: restored {restored} user keys from the keys topic", file=sys.stderr)
    except StateLost as lost:
        print(f"slotstream worker: {lost}", file=sys.stderr)
        return 3
    finally:
        client.close()
    return 0
