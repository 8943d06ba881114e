"""`slotstream promote N`: switch the deployment's readers and workers to a namespace a replay built.

1. The pointer says "switching": every live processor finishes the batch it holds (writes and
   position recorded), reports itself paused and takes nothing more; the expiry sweep stops too.
   Readers keep reading the old namespace, which is complete up to that point.
2. N catches up: the replay continues from where N stands to where the old namespace's
   processors stopped (their recorded positions; with re-extraction, the turns up to the old
   extraction's position and the ops callers sent up to the ops topic's end).
3. One write points the deployment at N: readers read N on their next request; each processor
   restarts and resumes N's positions. Ops that arrived meanwhile wait in Kafka: they are applied
   once, in N.

If the processors do not all pause in time, or the catch-up fails, the pointer goes back to the
old namespace and nothing was switched.
"""

from __future__ import annotations

import sys
import threading
import time
import uuid
from dataclasses import dataclass
from typing import cast

import redis
from kafka import KafkaConsumer, TopicPartition

from slotstream.config.settings import Settings
from slotstream.ops.replay import Plan, Ranges, load_plan, replay_partitions
from slotstream.state.client import connect
from slotstream.state.deployment import Pointer, read_pointer, write_pointer
from slotstream.state.keys import deploy_runners
from slotstream.state.progress import Progress
from slotstream.streams.topics import OPS, TURNS


class PromoteError(Exception):
    """A promote that did not switch (the old namespace still serves)."""


@dataclass
class Promoted:
    old: str
    new: str
    pause_ms: float  # until every live processor stood still
    catch_up_ms: float
    switched_ms: float  # from the first write to the switch: what an op arriving meanwhile waited at most
    caught_up: int  # messages N applied during the catch-up


def runners(client: redis.Redis, base: str) -> dict[str, str]:
    """The live processors' heartbeats: runner -> "running" / "paused:<switch>"."""
    keys = list(client.scan_iter(match=deploy_runners(base), count=1000))
    values = cast(list[bytes | None], client.mget(keys)) if keys else []
    return {k.decode().rsplit(":", 1)[-1]: v.decode() for k, v in zip(keys, values, strict=True) if v is not None}


def _end_offsets(bootstrap: str, topic: str) -> dict[int, int]:
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, client_id="slotstream-promote")
    try:
        parts = consumer.partitions_for_topic(topic) or set()
        return {
            tp.partition: end for tp, end in consumer.end_offsets([TopicPartition(topic, p) for p in parts]).items()
        }
    finally:
        consumer.close()


def _catch_up_ranges(settings: Settings, plan: Plan, old: Progress, new: Progress) -> Ranges:
    """From where N stands to where the old namespace's processors stopped."""
    ranges: Ranges = {}
    targets = {OPS: old.offsets(plan.topics[OPS])}
    if plan.source == "turns":
        targets[TURNS] = old.offsets(plan.topics[TURNS])
        # the ops callers sent up to now (the logged extraction ops are skipped: N re-extracted their turns)
        targets[OPS] = _end_offsets(settings.kafka_bootstrap or "", plan.topics[OPS])
    for role, target in targets.items():
        held = new.offsets(plan.topics[role])
        ranges[role] = {
            p: (max(start, held.get(p, start)), max(start, held.get(p, start), target.get(p, 0)))
            for p, (start, _) in plan.ranges[role].items()
        }
    return ranges


def promote(settings: Settings, target: str, timeout: float = 60.0) -> Promoted:
    assert settings.redis_url and settings.kafka_bootstrap
    base = settings.namespace
    client = connect(settings.redis_url)
    try:
        pointer = read_pointer(client, base)
        if pointer.switching:
            raise PromoteError(f"a promote of {base} is already in progress (switch {pointer.switch})")
        old = pointer.namespace
        if target == old:
            raise PromoteError(f"{target} already serves {base}")
        plan = load_plan(client, target)
        if plan is None or plan.finished is None:
            raise PromoteError(f"{target} is not a finished replay (run `slotstream replay --namespace {target}`)")
        switch = uuid.uuid4().hex[:12]
        started = time.monotonic()
        write_pointer(client, base, Pointer(old, "switching", switch, pointer.previous))
        try:
            deadline = started + timeout
            while True:
                states = runners(client, base)
                if all(state == f"paused:{switch}" for state in states.values()):
                    break
                if time.monotonic() > deadline:
                    busy = sorted(r for r, s in states.items() if s != f"paused:{switch}")
                    raise PromoteError(f"the live processors did not pause within {timeout:.0f} s: {busy}")
                time.sleep(0.01)
            paused = time.monotonic()
            old_progress, new_progress = Progress(client, old), Progress(client, target)
            ranges = _catch_up_ranges(settings, plan, old_progress, new_progress)
            partitions = sorted(set().union(*(set(r) for r in ranges.values())))
            before = sum(sum(new_progress.offsets(plan.topics[role]).values()) for role in ranges)
            replay_partitions(settings, client, target, plan, partitions, threading.Event(), ranges)
            caught_up = sum(sum(new_progress.offsets(plan.topics[role]).values()) for role in ranges) - before
            if plan.source == "ops":
                # N does not extract: the live extraction's position carries over (its ops are in the
                # ops topic, which N has read up to where the old reconciliation stopped)
                turns_topic = settings.topic_specs()[TURNS].name
                turns_done = old_progress.offsets(turns_topic)
                if turns_done:
                    new_progress.advance(turns_topic, turns_done)
            caught = time.monotonic()
            write_pointer(client, base, Pointer(target, "active", None, old))
        except BaseException:
            write_pointer(client, base, Pointer(old, "active", None, pointer.previous))
            raise
        done = time.monotonic()
        return Promoted(
            old,
            target,
            (paused - started) * 1000,
            (caught - paused) * 1000,
            (done - started) * 1000,
            caught_up,
        )
    finally:
        client.close()


def run_promote(settings: Settings, target: str, timeout: float) -> int:
    try:
        result = promote(settings, target, timeout)
    except PromoteError as err:
        print(f"slotstream promote: {err}", file=sys.stderr)
        return 1
    print(
        f"promoted {result.new} (was {result.old}); `slotstream namespace drop {result.old} --yes` removes the old one"
    )
    print(
        f"  processors paused in {result.pause_ms:.0f} ms, caught up {result.caught_up} messages in "
        f"{result.catch_up_ms:.0f} ms; switched {result.switched_ms:.0f} ms after the start"
    )
    return 0
