"""`slotstream run` started as a shell starts a background job (SIGINT ignored) and stopped with
SIGTERM, as systemd, Docker and Kubernetes stop it: a request in flight is answered, the workers
commit what they applied, the embedded Redis and Kafka stop with their data written out (read back
here by starting them again on the same folders), no process of the stack is left, and no
temporary folder (Prometheus' included)."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest
from kafka import KafkaConsumer, TopicPartition

from slotstream.config.settings import Settings
from slotstream.local.kafka_broker import LocalKafka
from slotstream.local.redis_server import LocalRedis, free_port
from slotstream.state.client import connect
from slotstream.state.engine import Engine
from slotstream.state.progress import Progress

pytestmark = [pytest.mark.kafka, pytest.mark.integration]


def descendants(root: int) -> set[int]:
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(stat.parent.name)] = int(fields[1])
    found, frontier = set(), {root}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def whole_response(conn: socket.socket) -> str:
    """An HTTP/1.1 response read to the end of its body (it may come in several packets)."""
    got = b""
    while b"\r\n\r\n" not in got:
        chunk = conn.recv(65536)
        if not chunk:
            break
        got += chunk
    head, _, body = got.partition(b"\r\n\r\n")
    length = re.search(rb"(?i)content-length: (\d+)", head)
    while length and len(body) < int(length.group(1)):
        chunk = conn.recv(65536)
        if not chunk:
            break
        body += chunk
    return (head + b"\r\n\r\n" + body).decode(errors="replace")


def as_background_job() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def test_sigterm_stops_a_backgrounded_run_cleanly(tmp_path: Path) -> None:
    data, tmp = tmp_path / "var", tmp_path / "tmp"
    tmp.mkdir()
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLOTSTREAM_") and k != "PROMETHEUS_MULTIPROC_DIR"}
    env.update(
        SLOTSTREAM_DATA_DIR=str(data),
        SLOTSTREAM_SIDECAR_PORT=str(port),
        SLOTSTREAM_SIDECAR_WORKERS="2",
        SLOTSTREAM_KEYS_FILE=str(tmp_path / "keys.json"),
        TMPDIR=str(tmp),
        PYTHONSAFEPATH="1",
    )
    run = subprocess.Popen(
        [sys.executable, "-m", "slotstream.cli", "run"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        preexec_fn=as_background_job,
    )
    stack: set[int] = set()
    try:
        assert run.stdout is not None
        said: list[str] = []
        deadline = time.monotonic() + 240
        while not any(line.startswith("serving on") for line in said):
            line = run.stdout.readline().decode(errors="replace")
            assert line and time.monotonic() < deadline, "".join(said[-40:])
            said.append(line)
        key = re.search(r"Bearer (ssk_[A-Za-z0-9_-]+)", "".join(said))
        assert key, "the demo printed its key"
        stack = descendants(run.pid)
        assert len(stack) >= 5, "Redis, Kafka, a worker, the sidecar and its server processes"
        assert list(tmp.glob("slotstream-metrics-*")), "the sidecar's Prometheus folder while it runs"

        # a request in flight when the signal comes: its headers and half its body now, the rest after
        body = orjson.dumps({"user": "dana", "text": "I live in Lisbon.", "turn_id": "drain-1"})
        head = (
            f"POST /v1/turns?wait=10 HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {key.group(1)}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        ).encode()
        with socket.create_connection(("127.0.0.1", port), timeout=60) as conn:
            conn.sendall(head + body[:10])
            time.sleep(0.3)
            run.send_signal(signal.SIGTERM)
            time.sleep(1.0)
            conn.sendall(body[10:])
            answer = whole_response(conn)
        assert answer.startswith("HTTP/1.1 202"), answer[:300]
        assert '"complete":true' in answer, "the turn was applied before the stack went down"

        rest, _ = run.communicate(timeout=180)
        output = "".join(said) + rest.decode(errors="replace")
        assert run.returncode == 0, output[-3000:]
        assert "stopping (SIGTERM)" in output
        assert not [pid for pid in stack if alive(pid)], "every process of the stack stopped"
        assert not list(tmp.iterdir()), f"temporary folders left: {sorted(p.name for p in tmp.iterdir())}"
        assert not (data / "stack.env").exists()

        settings = Settings(data_dir=str(data))
        with LocalRedis(data_dir=data / "redis") as redis:  # the data as the stack wrote it out
            client = connect(redis.url)
            values = [r.value for r in Engine(client, settings.namespace).records("demo", "dana")]
            assert "Lisbon" in values, values
            applied = Progress(client, settings.namespace).offsets(settings.topics["turns"])
            client.close()
            with LocalKafka(data_dir=data / "kafka", keep=True) as kafka:
                turns = settings.topics["turns"]
                consumer = KafkaConsumer(
                    bootstrap_servers=kafka.bootstrap, group_id=settings.group, enable_auto_commit=False
                )
                parts = [TopicPartition(turns, p) for p in consumer.partitions_for_topic(turns)]
                ends = {tp.partition: offset for tp, offset in consumer.end_offsets(parts).items()}
                committed = {tp.partition: consumer.committed(tp) or 0 for tp in parts}  # asked, never joined
                consumer.close()
        assert committed == ends, "the workers committed everything they applied"
        assert {p: o for p, o in applied.items() if ends.get(p)} == {p: o for p, o in ends.items() if o}
    finally:
        for pid in [run.pid, *stack, *descendants(run.pid)]:  # a failed stop leaves nothing behind for later tests
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
