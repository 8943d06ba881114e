"""Prometheus metrics: the sidecar's requests and what it produced, and — read at each scrape — the
pipeline's consumer lag per partition and the workers' counts (ops applied by outcome, dead letters
by reason, kept in Redis with their positions).

With several server processes, prometheus_client's multiprocess mode (PROMETHEUS_MULTIPROC_DIR, set
by the server before it starts its workers) sums the request metrics over them.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest, multiprocess
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import REGISTRY, Collector

from slotstream.state.progress import Progress

log = logging.getLogger(__name__)
REQUESTS = Counter("slotstream_http_requests", "HTTP requests", ["route", "method", "status"])
LATENCY = Histogram(
    "slotstream_http_request_seconds",
    "HTTP request latency",
    ["route", "method"],
    buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0),
)


def observe_request(route: str, method: str, status: int, seconds: float) -> None:
    REQUESTS.labels(route, method, str(status)).inc()
    LATENCY.labels(route, method).observe(seconds)


PRODUCED = Counter("slotstream_produced", "Records the sidecar produced", ["topic"])
CONTEXT_READS = Counter(
    "slotstream_context_reads",
    "Context lookups by how their rows were read: whole_small, whole_unindexed, whole_grown (read whole "
    "on the size found at the user's last lookup, and past the threshold now), indexed, or uncertified "
    "(read through the index, not certified, then read whole)",
    ["how"],
)


def count_context_read(how: str) -> None:
    CONTEXT_READS.labels(how).inc()


class PipelineCollector(Collector):
    def __init__(self, progress: Callable[[], Progress], bootstrap: str, topics: dict[str, str]) -> None:
        """`progress`: the active namespace's (resolved on every scrape: a promote moves it)."""
        self.progress, self.bootstrap, self.topics = progress, bootstrap, topics
        self._consumer: Any = None
        self._lock = threading.Lock()

    def _end_offsets(self, topic: str) -> dict[int, int]:
        from kafka import KafkaConsumer, TopicPartition

        with self._lock:
            if self._consumer is None:
                self._consumer = KafkaConsumer(
                    bootstrap_servers=self.bootstrap,
                    client_id="slotstream-metrics",
                    request_timeout_ms=3000,
                )
            parts = self._consumer.partitions_for_topic(topic) or set()
            ends = self._consumer.end_offsets([TopicPartition(topic, p) for p in parts])
        return {tp.partition: off for tp, off in ends.items()}

    def collect(self) -> Iterator[Metric]:
        applied = CounterMetricFamily(
            "slotstream_ops_applied", "Ops the workers applied, by outcome", labels=["outcome"]
        )
        dead = CounterMetricFamily("slotstream_dead_letters", "Messages dead-lettered, by reason", labels=["reason"])
        lag = GaugeMetricFamily("slotstream_consumer_lag", "Messages not yet processed", labels=["topic", "partition"])
        try:
            progress = self.progress()
            for name, n in sorted(progress.counters().items()):
                kind, _, label = name.partition(":")
                if kind == "ops_applied":
                    applied.add_metric([label], n)
                elif kind == "dead_letters":
                    dead.add_metric([label], n)
            for role in ("turns", "ops"):
                topic = self.topics[role]
                done = progress.offsets(topic)
                for partition, end in sorted(self._end_offsets(topic).items()):
                    lag.add_metric([topic, str(partition)], max(0, end - done.get(partition, 0)))
        except Exception as err:  # noqa: BLE001 - a scrape shows what it could read; readyz says what is down
            log.warning("pipeline metrics incomplete: %r", err)
        yield applied
        yield dead
        yield lag

    def figures(self) -> tuple[list[Metric], dict[str, dict[int, int]]]:
        """What the memory inspector's health page shows: this collector's metric families, and
        the processors' event-time watermarks per topic and partition (ms)."""
        families = list(self.collect())
        try:
            progress = self.progress()
            marks = {self.topics[role]: progress.watermarks(self.topics[role]) for role in ("turns", "ops")}
        except Exception as err:  # noqa: BLE001 - as collect(): show what could be read
            log.warning("pipeline watermarks unreadable: %r", err)
            marks = {}
        return families, marks


def render(pipeline: Collector) -> bytes:
    own = CollectorRegistry()
    own.register(pipeline)
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        summed = CollectorRegistry()
        multiprocess.MultiProcessCollector(summed)
        return generate_latest(summed) + generate_latest(own)
    return generate_latest(REGISTRY) + generate_latest(own)
