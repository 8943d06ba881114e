"""The whole pipeline on one machine: Redis and Kafka (configured, or embedded local ones), the
topics, and worker processes; plus the offset barrier that tells when everything produced so far
has reached Redis."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from slotstream.config.history import engine_options
from slotstream.config.master_key import sealer
from slotstream.config.settings import PREFIX, Settings
from slotstream.local.redis_server import LocalRedis, stop_process
from slotstream.state.client import connect
from slotstream.state.deployment import active_namespace
from slotstream.state.engine import Engine
from slotstream.state.progress import Progress
from slotstream.streams.admin import create_topics
from slotstream.streams.producer import SlotstreamProducer
from slotstream.streams.topics import OPS, TURNS

from .errors import BarrierTimeout, WorkersGone

# consecutive ready answers start_sidecar waits for (the server processes answer in turn)
READY_ANSWERS_IN_A_ROW = 10


class LocalStack:
    """`persistent`: the embedded Redis and Kafka keep their data in `settings.data_dir` (the main
    job: it survives a restart with its state); otherwise they live in temporary folders.
    `redis_aof`: the embedded Redis appends every write to its AOF (fsync every second), wherever
    it keeps it; off, it holds its state in memory only (a bench's choice: the state can be rebuilt
    from the topics by a replay)."""

    def __init__(
        self,
        settings: Settings,
        workers: int | None = None,
        processors: str = "all",
        log_dir: Path | None = None,
        persistent: bool = False,
        redis_aof: bool = True,
    ) -> None:
        self.settings = settings
        self.redis_aof = redis_aof
        self.n_workers = settings.workers if workers is None else workers
        self.processors = processors
        self.log_dir = log_dir
        self.persistent = persistent
        self._redis: LocalRedis | None = None
        self._kafka: Any = None
        self.workers: list[subprocess.Popen[bytes]] = []
        self.sidecar: subprocess.Popen[bytes] | None = None
        self.redis_url = settings.redis_url
        self.bootstrap = settings.kafka_bootstrap

    def start(self) -> LocalStack:
        try:
            data = Path(self.settings.data_dir) if self.persistent else None
            if not self.redis_url:
                self._redis = LocalRedis(data_dir=data / "redis" if data else None, persist=self.redis_aof).start()
                self.redis_url = self._redis.url
            if not self.bootstrap:
                from slotstream.local.kafka_broker import LocalKafka

                self._kafka = LocalKafka(
                    num_partitions=self.settings.partitions,
                    data_dir=data / "kafka" if data else None,
                    keep=data is not None,
                )
                self._kafka.start()
                self.bootstrap = self._kafka.bootstrap
            self.settings = self.settings.replace(redis_url=self.redis_url, kafka_bootstrap=self.bootstrap)
            if self.persistent:
                write_stack_file(self.settings)
            create_topics(self.bootstrap, self.settings.topic_specs().values())
            self.client = connect(self.redis_url)
            self.engine = Engine(
                self.client, namespace=self.settings.namespace, **engine_options(self.settings, self.client)
            )
            self.progress = Progress(self.client, self.settings.namespace)
            self.producer = SlotstreamProducer(
                self.bootstrap, self.settings.topic_prefix, sealer=sealer(self.settings, self.client)
            )
            from kafka import KafkaConsumer

            self._offsets = KafkaConsumer(bootstrap_servers=self.bootstrap, client_id="slotstream-barrier")
            for i in range(self.n_workers):
                self.add_worker(i)
            return self
        except BaseException:
            self.stop()
            raise

    def worker_env(self) -> dict[str, str]:
        # the stack's settings, whole: a SLOTSTREAM_* variable of this process that the stack
        # changed (or left unset) must not reach the workers
        env = {k: v for k, v in os.environ.items() if not k.startswith(PREFIX)}
        env.update(self.settings.to_env())
        return env

    def add_worker(self, index: int | None = None, extra_args: list[str] | None = None) -> subprocess.Popen[bytes]:
        index = len(self.workers) if index is None else index
        out: Any = subprocess.DEVNULL
        if self.log_dir is not None:
            self.log_dir.mkdir(parents=True, exist_ok=True)
            out = open(self.log_dir / f"worker-{index}.log", "ab")  # noqa: SIM115 - closed with the process
        proc = subprocess.Popen(
            [
                sys.executable,
                "-P",
                "-m",
                "slotstream.cli",
                "worker",
                "--processors",
                self.processors,
                *(extra_args or []),
            ],
            env=self.worker_env(),
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        self.workers.append(proc)
        return proc

    @property
    def redis_pid(self) -> int | None:
        """The embedded Redis server's process (None when Redis was configured)."""
        return self._redis.proc.pid if self._redis is not None and self._redis.proc is not None else None

    @property
    def broker_pid(self) -> int | None:
        """The embedded Kafka broker's process (None when Kafka was configured)."""
        return self._kafka.pid if self._kafka is not None else None

    @property
    def sidecar_url(self) -> str:
        return f"http://{self.settings.sidecar_host}:{self.settings.sidecar_port}"

    def start_sidecar(self, timeout: float = 60.0) -> str:
        """Start `slotstream sidecar` on the stack's servers; returns its URL once /readyz says ready."""
        import urllib.error
        import urllib.request

        out: Any = subprocess.DEVNULL
        if self.log_dir is not None:
            self.log_dir.mkdir(parents=True, exist_ok=True)
            out = open(self.log_dir / "sidecar.log", "ab")  # noqa: SIM115 - closed with the process
        self.sidecar = subprocess.Popen(
            [sys.executable, "-P", "-m", "slotstream.cli", "sidecar"],
            env=self.worker_env(),
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + timeout
        # the sidecar's server processes share the port and each gets ready on its own: one ready
        # answer may come from the first of them, so several in a row are asked for
        ready_in_a_row = 0
        while True:
            if self.sidecar.poll() is not None:
                raise WorkersGone("the sidecar exited" + self._worker_log_hint())
            try:
                with urllib.request.urlopen(self.sidecar_url + "/readyz", timeout=2) as resp:
                    ready_in_a_row = ready_in_a_row + 1 if resp.status == 200 else 0
                    if ready_in_a_row >= READY_ANSWERS_IN_A_ROW:
                        return self.sidecar_url
                    continue
            except (urllib.error.URLError, OSError):
                ready_in_a_row = 0
            if time.monotonic() > deadline:
                raise BarrierTimeout(f"the sidecar was not ready at {self.sidecar_url} within {timeout} s")
            time.sleep(0.1)

    def stop_worker(self, proc: subprocess.Popen[bytes], kill: bool = False) -> None:
        stop_process(proc, 30, kill=kill)
        if proc in self.workers:
            self.workers.remove(proc)

    def end_offsets(self, role: str) -> dict[int, int]:
        from kafka import TopicPartition

        name = self.settings.topics[role]
        parts = self._offsets.partitions_for_topic(name) or set()
        ends = self._offsets.end_offsets([TopicPartition(name, p) for p in parts])
        return {tp.partition: off for tp, off in ends.items()}

    def barrier(self, timeout: float = 120.0) -> None:
        """Return once everything produced so far reached Redis: first every turn is extracted (its
        ops delivered), then every op, including those, is applied. Offsets, not sleeps."""
        deadline = time.monotonic() + timeout
        for role in (TURNS, OPS):
            name = self.settings.topics[role]
            want = {p: off for p, off in self.end_offsets(role).items() if off > 0}
            while True:
                # the namespace serving the stack now (a promote moves it)
                progress = Progress(self.client, active_namespace(self.client, self.settings.namespace))
                done = progress.offsets(name)
                if all(done.get(p, 0) >= off for p, off in want.items()):
                    break
                if any(w.poll() is not None for w in self.workers) and not any(w.poll() is None for w in self.workers):
                    raise WorkersGone("every worker process has exited" + self._worker_log_hint())
                if time.monotonic() > deadline:
                    raise BarrierTimeout(f"{name}: processed {done}, produced {want}")
                time.sleep(0.002)

    def _worker_log_hint(self) -> str:
        if self.log_dir is None:
            return ""
        tails = []
        for path in sorted([*self.log_dir.glob("worker-*.log"), *self.log_dir.glob("sidecar.log")]):
            lines = path.read_text(errors="replace").splitlines()[-5:]
            tails.append(f"{path}:\n  " + "\n  ".join(lines))
        return "; last lines of the worker logs:\n" + "\n".join(tails) if tails else ""

    def stop(self) -> None:
        if self.persistent:
            stack_file(self.settings).unlink(missing_ok=True)
        if self.sidecar is not None:
            stop_process(self.sidecar, 15)
            self.sidecar = None
        for proc in list(self.workers):
            self.stop_worker(proc)
        for closer in ("producer", "_offsets", "client"):
            obj = getattr(self, closer, None)
            if obj is not None:
                with contextlib.suppress(Exception):  # best effort on shutdown
                    obj.close()
        if self._kafka is not None:
            self._kafka.stop()
            self._kafka = None
        if self._redis is not None:
            self._redis.stop()
            self._redis = None

    def __enter__(self) -> LocalStack:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def stack_file(settings: Settings) -> Path:
    return Path(settings.data_dir) / "stack.env"


def write_stack_file(settings: Settings) -> None:
    """Where the main job's servers listen, for the operator commands run beside it."""
    lines = [
        f"# written by `slotstream run` (pid {os.getpid()}); removed when it stops",
        f"SLOTSTREAM_REDIS_URL={settings.redis_url}",
        f"SLOTSTREAM_KAFKA_BOOTSTRAP={settings.kafka_bootstrap}",
        f"PID={os.getpid()}",
    ]
    path = stack_file(settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")


def with_running_stack(settings: Settings) -> Settings:
    """`settings` with the servers of a running `slotstream run` when none are configured: the
    operator commands (topics, replay, promote, ...) then work on the main job's local stack."""
    path = stack_file(settings)
    if settings.redis_url or settings.kafka_bootstrap or not path.exists():
        return settings
    values = dict(
        line.split("=", 1) for line in path.read_text().splitlines() if "=" in line and not line.startswith("#")
    )
    try:
        os.kill(int(values.get("PID", "0")), 0)
    except (ValueError, OSError):
        return settings  # the job that wrote it is gone
    return settings.replace(
        redis_url=values.get("SLOTSTREAM_REDIS_URL"), kafka_bootstrap=values.get("SLOTSTREAM_KAFKA_BOOTSTRAP")
    )
