"""Run a real Apache Kafka broker (KRaft) on loopback, no Docker: one node, or several.

The broker jars come from Maven Central through ``scripts/kafka/pom.xml``;
``scripts/kafka/fetch.sh`` puts them in ``.cache/kafka/<version>/libs`` once.
:class:`LocalKafka` then writes a ``server.properties`` for a combined
broker+controller node that listens on 127.0.0.1 only, formats the storage
and starts ``kafka.Kafka`` in a JVM with a modest heap. It is ready when the
broker answers a Kafka Metadata request that lists itself.

Usage::

    with LocalKafka() as kafka:
        producer = KafkaProducer(bootstrap_servers=kafka.bootstrap)

:class:`LocalKafkaCluster` runs N such nodes as one cluster (one static
controller quorum of all of them; replication 3 and min.insync.replicas 2 by
default), and stops, kills and restarts single nodes of it (docs/operating.md).

Command line: ``python -m slotstream.local.kafka_broker`` starts a broker
(``--brokers N``: a cluster), prints its bootstrap address on stdout and runs
until Ctrl-C or SIGTERM.

Environment:

``SLOTSTREAM_KAFKA_LIBS``
    a folder of broker jars to use as is (``fetch.sh`` is not run).
``KAFKA_VERSION``
    Kafka version to fetch and run (default: the one in ``pom.xml``).
``JAVA_HOME``
    JDK (17+) to run the broker with; else ``java`` on ``PATH``.

Only the standard library is used. :func:`docker_available` tells test
fixtures whether a Docker engine answers, to choose testcontainers instead.
"""

from __future__ import annotations

import argparse
import atexit
import base64
import contextlib
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import BinaryIO

from .errors import LocalServerError

__all__ = [
    "LocalKafka",
    "LocalKafkaCluster",
    "LocalKafkaError",
    "docker_available",
    "ensure_kafka_libs",
    "find_java",
]

LOOPBACK = "127.0.0.1"
NODE_ID = 1
FETCH_SCRIPT_IN_CHECKOUT = Path("scripts") / "kafka" / "fetch.sh"


def _checkout_root() -> Path | None:
    """The source checkout whose scripts fetch the broker's jars: the current folder or one above
    it (the commands run from the checkout), else the one the package was installed from in
    editable mode. An installed build has no scripts of its own."""
    for start in (Path.cwd(), Path(__file__).resolve().parent):
        for folder in (start, *start.parents):
            if (folder / FETCH_SCRIPT_IN_CHECKOUT).is_file():
                return folder
    return None


class LocalKafkaError(LocalServerError):
    """The local broker could not be fetched, formatted or started."""


# --------------------------------------------------------------------------
# Docker probe


def docker_available(timeout: float = 5.0) -> bool:
    """True only if a Docker engine answers ``docker info`` within *timeout*.

    A ``docker`` client without a reachable daemon (the usual case on
    machines without Docker) gives False, as does a hung daemon.
    """
    docker = shutil.which("docker")
    if docker is None:
        return False
    try:
        result = subprocess.run(
            [docker, "info", "--format", "{{.ServerVersion}}"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return result.returncode == 0 and bool(result.stdout.strip())


# --------------------------------------------------------------------------
# Jars and JDK


def ensure_kafka_libs(version: str | None = None, *, quiet: bool = False) -> Path:
    """Return the folder of broker jars, running ``fetch.sh`` if needed."""
    override = os.environ.get("SLOTSTREAM_KAFKA_LIBS")
    if override:
        libs = Path(override).resolve()
        if not any(libs.glob("kafka_2.13-*.jar")):
            raise LocalKafkaError(f"SLOTSTREAM_KAFKA_LIBS={libs} holds no kafka_2.13 jar")
        return libs
    root = _checkout_root()
    if root is None:
        raise LocalKafkaError(
            f"{FETCH_SCRIPT_IN_CHECKOUT} not found here or above: run from the source checkout "
            "or set SLOTSTREAM_KAFKA_LIBS to a folder of Kafka broker jars"
        )
    fetch_script = root / FETCH_SCRIPT_IN_CHECKOUT
    env = dict(os.environ)
    if version:
        env["KAFKA_VERSION"] = version
    try:
        result = subprocess.run(
            ["bash", str(fetch_script)],
            cwd=str(root),
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=1800,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise LocalKafkaError("fetching the Kafka jars took more than 30 minutes") from exc
    if result.returncode != 0:
        raise LocalKafkaError(f"{fetch_script} failed (exit {result.returncode}):\n{result.stderr[-4000:]}")
    if result.stderr and not quiet and "nothing to do" not in result.stderr:
        sys.stderr.write(result.stderr)  # only when it actually fetched
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    if not lines:
        raise LocalKafkaError(f"{fetch_script} printed no libs folder")
    return Path(lines[-1].strip())


def find_java() -> str:
    """Path of the ``java`` launcher: ``$JAVA_HOME/bin/java`` or on PATH."""
    java_home = os.environ.get("JAVA_HOME")
    if java_home:
        candidate = Path(java_home) / "bin" / "java"
        if os.access(candidate, os.X_OK):
            return str(candidate)
    found = shutil.which("java")
    if found is None:
        raise LocalKafkaError("no 'java' found (set JAVA_HOME or install a JDK 17+)")
    return found


# --------------------------------------------------------------------------
# Small helpers


def _two_free_ports(host: str = LOOPBACK) -> tuple[int, int]:
    broker, controller = _free_ports(2, host)
    return broker, controller


def _free_ports(n: int, host: str = LOOPBACK) -> list[int]:
    # Hold every socket open while choosing so the ports differ.
    with contextlib.ExitStack() as held:
        socks = [held.enter_context(socket.socket()) for _ in range(n)]
        for sock in socks:
            sock.bind((host, 0))
        return [sock.getsockname()[1] for sock in socks]


def random_cluster_id() -> str:
    """A Kafka cluster id: a random UUID in URL-safe base64, no padding."""
    return base64.urlsafe_b64encode(uuid.uuid4().bytes).decode("ascii").rstrip("=")


def _tail(path: Path, lines: int) -> str:
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - 256 * 1024))
            data = fh.read().decode("utf-8", "replace")
    except OSError:
        return ""
    return "\n".join(data.splitlines()[-lines:])


# --------------------------------------------------------------------------
# Minimal Kafka wire protocol probe (ApiVersions v0, then Metadata v4..v8)

_API_METADATA = 3
_API_VERSIONS = 18


def _kafka_request(sock: socket.socket, api_key: int, version: int, corr: int, body: bytes) -> bytes:
    client_id = b"slotstream-localkafka"
    header = struct.pack(">hhih", api_key, version, corr, len(client_id)) + client_id
    payload = header + body
    sock.sendall(struct.pack(">i", len(payload)) + payload)
    size = struct.unpack(">i", _recv_exact(sock, 4))[0]
    data = _recv_exact(sock, size)
    (got_corr,) = struct.unpack_from(">i", data, 0)
    if got_corr != corr:
        raise ConnectionError(f"correlation id {got_corr} != {corr}")
    return data[4:]


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("broker closed the connection")
        buf += chunk
    return bytes(buf)


def probe_broker(host: str, port: int, timeout: float = 2.0) -> list[int]:
    """Ask the broker at host:port for cluster metadata; return its broker ids.

    Raises OSError/ConnectionError/ValueError while the broker is not serving.
    """
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.settimeout(timeout)
        resp = _kafka_request(sock, _API_VERSIONS, 0, 1, b"")
        (error,) = struct.unpack_from(">h", resp, 0)
        if error != 0:
            raise ValueError(f"ApiVersions error {error}")
        (count,) = struct.unpack_from(">i", resp, 2)
        ranges = {}
        for i in range(count):
            key, vmin, vmax = struct.unpack_from(">hhh", resp, 6 + 6 * i)
            ranges[key] = (vmin, vmax)
        if _API_METADATA not in ranges:
            raise ValueError("broker does not list the Metadata API yet")
        vmin, vmax = ranges[_API_METADATA]
        version = max(4, vmin)
        if version > min(vmax, 8):
            raise ValueError(f"no Metadata version in 4..8 (broker has {vmin}..{vmax})")
        # topics = [] (no topics), allow_auto_topic_creation = false,
        # v8+: include_cluster/topic_authorized_operations = false.
        body = struct.pack(">ib", 0, 0) + (b"\x00\x00" if version >= 8 else b"")
        resp = _kafka_request(sock, _API_METADATA, version, 2, body)
        offset = 4  # throttle_time_ms
        (n_brokers,) = struct.unpack_from(">i", resp, offset)
        offset += 4
        brokers = []
        for _ in range(n_brokers):
            node_id, host_len = struct.unpack_from(">ih", resp, offset)
            offset += 6 + host_len
            offset += 4  # port
            (rack_len,) = struct.unpack_from(">h", resp, offset)
            offset += 2 + max(rack_len, 0)
            brokers.append(node_id)
        return brokers


# --------------------------------------------------------------------------
# Process cleanup: never leave a broker behind when the interpreter exits

_RUNNING: set[LocalKafka] = set()  # strong refs: a dropped instance still gets stopped


def _stop_all_at_exit() -> None:
    for kafka in list(_RUNNING):
        with contextlib.suppress(Exception):  # best effort at exit
            kafka.stop(timeout=15)


atexit.register(_stop_all_at_exit)


def _die_with_parent() -> None:  # runs in the child between fork and exec
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_PDEATHSIG = 1
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except Exception:  # noqa: BLE001 - without prctl the broker is still stopped by stop() or atexit
        pass


_LOG4J2_XML = """<?xml version="1.0" encoding="UTF-8"?>
<!-- Written by slotstream.local.kafka_broker: broker logs to files only. -->
<Configuration status="warn" shutdownHook="disable">
  <Appenders>
    <RollingFile name="server" fileName="{logs}/server.log"
                 filePattern="{logs}/server.log.%i">
      <PatternLayout pattern="[%d] %p %m (%c)%n"/>
      <Policies><SizeBasedTriggeringPolicy size="20 MB"/></Policies>
      <DefaultRolloverStrategy max="2"/>
    </RollingFile>
  </Appenders>
  <Loggers>
    <Root level="{level}"><AppenderRef ref="server"/></Root>
    <Logger name="kafka.request.logger" level="WARN"/>
    <Logger name="state.change.logger" level="WARN"/>
    <Logger name="kafka.log.LogCleaner" level="WARN"/>
    <Logger name="org.apache.kafka.storage.internals.log.LogCleaner" level="WARN"/>
    <Logger name="org.apache.kafka.common.utils.AppInfoParser" level="WARN"/>
  </Loggers>
</Configuration>
"""


class LocalKafka:
    """A single-node Kafka broker+controller (KRaft) on 127.0.0.1.

    Parameters:
        num_partitions: ``num.partitions`` for topics created without a count.
        data_dir: where config, logs and data go; a new temp dir by default.
        keep: keep ``data_dir`` after :meth:`stop` (a given ``data_dir`` is
            never deleted unless it was created by us).
        startup_timeout: seconds to wait for the broker to serve requests.
        version: Kafka version to fetch/run (default: the pom's).
        heap_min, heap_max: JVM ``-Xms``/``-Xmx``.
        log_level: root level of the broker's ``server.log``.
        extra_properties: more ``server.properties`` entries (override ours).
        node_id: ``node.id`` (a member of a :class:`LocalKafkaCluster` has its own).
    """

    def __init__(
        self,
        *,
        node_id: int = NODE_ID,
        num_partitions: int = 4,
        data_dir: str | os.PathLike[str] | None = None,
        keep: bool = False,
        startup_timeout: float = 90.0,
        version: str | None = None,
        heap_min: str = "256m",
        heap_max: str = "512m",
        log_level: str = "INFO",
        extra_properties: dict[str, object] | None = None,
    ) -> None:
        self.node_id = int(node_id)
        self.num_partitions = int(num_partitions)
        self.keep = keep
        self.startup_timeout = float(startup_timeout)
        self.version = version
        self.heap_min = heap_min
        self.heap_max = heap_max
        self.log_level = log_level
        self.extra_properties = dict(extra_properties or {})
        self._given_data_dir = Path(data_dir).resolve() if data_dir is not None else None
        self._owns_data_dir = False
        self.data_dir: Path | None = self._given_data_dir
        self.port: int | None = None
        self.controller_port: int | None = None
        self.cluster_id: str | None = None
        # a cluster member's controller quorum ("id@host:port,..."); None: this node alone
        self.quorum_voters: str | None = None
        self.libs: Path | None = None
        self.startup_seconds: float | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._stdout_fh: BinaryIO | None = None
        self._lock = threading.Lock()

    # ----------------------------------------------------------- properties
    @property
    def bootstrap(self) -> str:
        """``"127.0.0.1:PORT"`` of the running broker."""
        if self.port is None:
            raise LocalKafkaError("LocalKafka is not started")
        return f"{LOOPBACK}:{self.port}"

    @property
    def log_dir(self) -> Path:
        return self._require_data_dir() / "logs"

    @property
    def server_log(self) -> Path:
        return self.log_dir / "server.log"

    @property
    def is_running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def pid(self) -> int | None:
        """The broker's JVM process (None when it is not running)."""
        return self._proc.pid if self._proc is not None else None

    def _require_data_dir(self) -> Path:
        if self.data_dir is None:
            raise LocalKafkaError("LocalKafka has no data dir yet (not started)")
        return self.data_dir

    # ------------------------------------------------------------ lifecycle
    def start(self) -> LocalKafka:
        with self._lock:
            if self.is_running:
                return self
            java = self._prepare()
            started = time.monotonic()
            try:
                for attempt in range(3):
                    self.port, self.controller_port = _two_free_ports()
                    self._write_config()
                    self._format_storage(java)
                    self._launch(java)
                    try:
                        self._wait_ready(started)
                        break
                    except LocalKafkaError:
                        # Another process may have taken a port between our
                        # probe and the broker's bind: retry with new ports.
                        if attempt < 2 and self._bind_failed():
                            self._kill()
                            continue
                        raise
            except BaseException:
                self._kill()
                self._cleanup_dir()
                raise
            self.startup_seconds = time.monotonic() - started
            _RUNNING.add(self)
            return self

    def halt(self, timeout: float = 30.0, kill: bool = False) -> None:
        """Stop the broker process but keep its data dir and ports, for :meth:`resume` (outage
        tests). `kill`: SIGKILL at once, a crash (no controlled shutdown, no leadership handed over)."""
        with self._lock:
            proc = self._proc
            if proc is not None and proc.poll() is None and not kill:
                try:
                    proc.terminate()
                    proc.wait(timeout=timeout)
                except subprocess.TimeoutExpired:
                    pass
            self._kill()

    def resume(self) -> LocalKafka:
        """Start the halted broker again on the same ports with the same data."""
        with self._lock:
            if self.is_running:
                return self
            java = find_java()
            self._launch(java)
            self._wait_ready(time.monotonic())
            return self

    def stop(self, timeout: float = 30.0) -> None:
        """Stop the broker (SIGTERM, then SIGKILL after *timeout*) and clean up."""
        self.halt(timeout)
        with self._lock:
            _RUNNING.discard(self)
            self._cleanup_dir()

    def __enter__(self) -> LocalKafka:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "running" if self.is_running else "stopped"
        where = f" {self.bootstrap}" if self.port is not None else ""
        return f"<LocalKafka{where} {state} data_dir={self.data_dir}>"

    def log_tail(self, lines: int = 60) -> str:
        """Last lines of the broker's server.log and of the JVM's stdout/stderr."""
        if self.data_dir is None:
            return ""
        parts = []
        for path in (self.server_log, self.log_dir / "kafka.out"):
            text = _tail(path, lines)
            if text.strip():
                parts.append(f"--- {path} ---\n{text}")
        return "\n".join(parts)

    # ------------------------------------------------------------ internals
    def _prepare(self) -> str:
        """The jars and the data dir in place; returns the ``java`` launcher."""
        self.libs = ensure_kafka_libs(self.version)
        java = find_java()
        if self.data_dir is None:
            self.data_dir = Path(tempfile.mkdtemp(prefix="slotstream-kafka-"))
            self._owns_data_dir = True
        else:
            self.data_dir.mkdir(parents=True, exist_ok=True)
        self.log_dir.mkdir(parents=True, exist_ok=True)
        return java

    def _properties(self) -> dict[str, object]:
        data = self._require_data_dir()
        props: dict[str, object] = {
            "process.roles": "broker,controller",
            "node.id": self.node_id,
            "controller.quorum.voters": self.quorum_voters or f"{self.node_id}@{LOOPBACK}:{self.controller_port}",
            "listeners": f"PLAINTEXT://{LOOPBACK}:{self.port},CONTROLLER://{LOOPBACK}:{self.controller_port}",
            "advertised.listeners": f"PLAINTEXT://{LOOPBACK}:{self.port}",
            "inter.broker.listener.name": "PLAINTEXT",
            "controller.listener.names": "CONTROLLER",
            "listener.security.protocol.map": "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
            "log.dirs": str(data / "kraft-data"),
            "num.partitions": self.num_partitions,
            "default.replication.factor": 1,
            "min.insync.replicas": 1,
            "auto.create.topics.enable": "false",
            "delete.topic.enable": "true",
            "offsets.topic.replication.factor": 1,
            "offsets.topic.num.partitions": 4,
            "transaction.state.log.replication.factor": 1,
            "transaction.state.log.min.isr": 1,
            "transaction.state.log.num.partitions": 4,
            "share.coordinator.state.topic.replication.factor": 1,
            "share.coordinator.state.topic.min.isr": 1,
            "group.initial.rebalance.delay.ms": 0,
            # Small footprint for a 2-core test machine.
            "num.network.threads": 2,
            "num.io.threads": 4,
            "num.recovery.threads.per.data.dir": 1,
            "background.threads": 4,
            "log.segment.bytes": 16 * 1024 * 1024,
            "log.retention.hours": 24,
            "log.retention.check.interval.ms": 60_000,
            "log.cleaner.threads": 1,
            "log.cleaner.dedupe.buffer.size": 16 * 1024 * 1024,
            # the cleaner looks for compactable segments every second (default 15 s), so a shredded
            # key leaves the keys topic within the topic's compaction lag plus this
            "log.cleaner.backoff.ms": 1000,
        }
        props.update(self.extra_properties)
        return props

    def _write_config(self) -> None:
        data = self._require_data_dir()
        lines = ["# Written by slotstream.local.kafka_broker"]
        lines += [f"{key}={value}" for key, value in self._properties().items()]
        (data / "server.properties").write_text("\n".join(lines) + "\n")
        (data / "log4j2.xml").write_text(
            _LOG4J2_XML.replace("{logs}", str(self.log_dir)).replace("{level}", self.log_level)
        )

    def _jvm_base(self, java: str, heap_min: str, heap_max: str) -> list[str]:
        assert self.libs is not None
        return [
            java,
            f"-Xms{heap_min}",
            f"-Xmx{heap_max}",
            "-XX:+UseG1GC",
            "-XX:MaxGCPauseMillis=20",
            "-XX:+ExitOnOutOfMemoryError",
            "-Djava.awt.headless=true",
            "-Dlog4j2.disable.jmx=true",
            f"-Dlog4j2.configurationFile={self._require_data_dir() / 'log4j2.xml'}",
            f"-Dkafka.logs.dir={self.log_dir}",
            "-cp",
            str(self.libs / "*"),
        ]

    def _format_storage(self, java: str) -> None:
        data = self._require_data_dir()
        if (data / "kraft-data" / "meta.properties").exists():
            return  # a kept data dir: already formatted
        self.cluster_id = self.cluster_id or random_cluster_id()
        cmd = [
            *self._jvm_base(java, "64m", "256m"),
            "kafka.tools.StorageTool",
            "format",
            # "=" form: a base64 id may start with "-", which argparse would take for a flag
            f"--cluster-id={self.cluster_id}",
            "--config",
            str(data / "server.properties"),
            "--ignore-formatted",
        ]
        out_path = self.log_dir / "storage-format.log"
        with open(out_path, "wb") as out:
            try:
                result = subprocess.run(
                    cmd,
                    cwd=str(data),
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    timeout=120,
                    check=False,
                )
            except subprocess.TimeoutExpired as exc:
                raise LocalKafkaError("formatting the Kafka storage timed out") from exc
        if result.returncode != 0:
            raise LocalKafkaError(
                f"kafka.tools.StorageTool format failed (exit {result.returncode}):\n" + _tail(out_path, 40)
            )

    def _launch(self, java: str) -> None:
        data = self._require_data_dir()
        for name in ("server.log", "kafka.out"):
            with contextlib.suppress(FileNotFoundError):
                (self.log_dir / name).unlink()
        cmd = [*self._jvm_base(java, self.heap_min, self.heap_max), "kafka.Kafka", str(data / "server.properties")]
        self._stdout_fh = open(self.log_dir / "kafka.out", "wb")  # noqa: SIM115 - closed in _kill
        # Tie the JVM to our life only when we are the sole thread:
        # preexec_fn is unsafe with threads, and PDEATHSIG follows the
        # forking thread, not the process.
        single_thread = threading.active_count() == 1 and threading.current_thread() is threading.main_thread()
        self._proc = subprocess.Popen(
            cmd,
            cwd=str(data),
            stdin=subprocess.DEVNULL,
            stdout=self._stdout_fh,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # Ctrl-C in a terminal goes to us, not the JVM
            preexec_fn=_die_with_parent if (single_thread and sys.platform == "linux") else None,
        )

    def _wait_ready(self, started: float) -> None:
        assert self._proc is not None and self.port is not None
        deadline = started + self.startup_timeout
        last_error: Exception | None = None
        while True:
            code = self._proc.poll()
            if code is not None:
                raise LocalKafkaError(
                    f"Kafka broker exited with code {code} during startup "
                    f"(data dir {self.data_dir}).\n{self.log_tail()}"
                )
            try:
                brokers = probe_broker(LOOPBACK, self.port, timeout=2.0)
                if self.node_id in brokers:
                    return
                last_error = ValueError(f"metadata lists brokers {brokers}, not yet node {self.node_id}")
            except (OSError, ValueError, struct.error) as exc:
                last_error = exc
            if time.monotonic() >= deadline:
                raise LocalKafkaError(
                    f"Kafka broker did not become ready on {self.bootstrap} within "
                    f"{self.startup_timeout:g} s (last probe: {last_error!r}; "
                    f"data dir {self.data_dir}).\n{self.log_tail()}"
                )
            time.sleep(0.2)

    def _bind_failed(self) -> bool:
        text = self.log_tail(200)
        return "Address already in use" in text or "BindException" in text

    def _kill(self) -> None:
        proc = self._proc
        if proc is not None:
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=10)
            self._proc = None
        if self._stdout_fh is not None:
            self._stdout_fh.close()
            self._stdout_fh = None

    def _cleanup_dir(self) -> None:
        if self._owns_data_dir and not self.keep and self.data_dir is not None:
            shutil.rmtree(self.data_dir, ignore_errors=True)
            self.data_dir = self._given_data_dir
            self._owns_data_dir = False


# --------------------------------------------------------------------------
# Several brokers


class LocalKafkaCluster:
    """``brokers`` combined broker+controller nodes (KRaft) on 127.0.0.1, one JVM each.

    Every node is a controller of one static quorum (a majority keeps it, so one node may be down)
    and a broker. Topics created without a replication factor get ``replication`` replicas (3, or
    the number of brokers if fewer) and the brokers' ``min.insync.replicas`` is ``min_insync``
    (2, or 1 for a single broker); the internal topics (consumer offsets, transactions) get the
    same. So a producer with ``acks=all`` keeps writing with one of three brokers down, and a
    write it got acknowledged is on at least two brokers.

    :meth:`halt` stops or kills one node, :meth:`resume` starts it again on its ports with its
    data; it catches up and rejoins the in-sync replicas. A member is a :class:`LocalKafka`
    (``nodes``), so its log and data dir are where a single broker keeps them.
    """

    def __init__(
        self,
        brokers: int = 3,
        *,
        num_partitions: int = 4,
        replication: int | None = None,
        min_insync: int | None = None,
        startup_timeout: float = 120.0,
        heap_max: str = "512m",
        log_level: str = "INFO",
        extra_properties: dict[str, object] | None = None,
    ) -> None:
        if brokers < 1:
            raise LocalKafkaError("a cluster needs at least one broker")
        self.replication = min(brokers, 3) if replication is None else int(replication)
        self.min_insync = (2 if self.replication >= 3 else 1) if min_insync is None else int(min_insync)
        if not 1 <= self.min_insync <= self.replication <= brokers:
            raise LocalKafkaError(
                f"want 1 <= min.insync.replicas ({self.min_insync}) <= replication ({self.replication}) "
                f"<= brokers ({brokers})"
            )
        self.startup_timeout = float(startup_timeout)
        replicated: dict[str, object] = {
            "default.replication.factor": self.replication,
            "min.insync.replicas": self.min_insync,
            "offsets.topic.replication.factor": self.replication,
            "transaction.state.log.replication.factor": self.replication,
            "transaction.state.log.min.isr": self.min_insync,
            "share.coordinator.state.topic.replication.factor": self.replication,
            "share.coordinator.state.topic.min.isr": self.min_insync,
            # a crashed broker is fenced (its partitions led elsewhere, it leaves the ISR) after
            # this long without a heartbeat: the defaults (2 s / 9 s) make an outage test wait longer
            "broker.heartbeat.interval.ms": 1000,
            "broker.session.timeout.ms": 6000,
        }
        self.nodes = [
            LocalKafka(
                node_id=i + 1,
                num_partitions=num_partitions,
                startup_timeout=startup_timeout,
                heap_min="128m",
                heap_max=heap_max,
                log_level=log_level,
                extra_properties={**replicated, **(extra_properties or {})},
            )
            for i in range(brokers)
        ]
        self.startup_seconds: float | None = None

    @property
    def bootstrap(self) -> str:
        """Every node's ``host:port``: clients find the cluster while any one of them is up."""
        return ",".join(node.bootstrap for node in self.nodes)

    def start(self) -> LocalKafkaCluster:
        started = time.monotonic()
        try:
            ports = _free_ports(2 * len(self.nodes))
            cluster_id = random_cluster_id()
            voters = ",".join(f"{node.node_id}@{LOOPBACK}:{ports[2 * i + 1]}" for i, node in enumerate(self.nodes))
            java = ""
            for i, node in enumerate(self.nodes):
                java = node._prepare()
                node.port, node.controller_port = ports[2 * i], ports[2 * i + 1]
                node.quorum_voters, node.cluster_id = voters, cluster_id
                node._write_config()
            # formatting is a JVM start each: side by side
            with ThreadPoolExecutor(len(self.nodes)) as pool:
                list(pool.map(lambda node: node._format_storage(java), self.nodes))
            for node in self.nodes:  # all launched before any waits: a broker needs the quorum to register
                node._launch(java)
            for node in self.nodes:
                node._wait_ready(started)
            self.wait_brokers(started + self.startup_timeout)
        except BaseException:
            self.stop()
            raise
        self.startup_seconds = time.monotonic() - started
        for node in self.nodes:
            node.startup_seconds = self.startup_seconds
            _RUNNING.add(node)
        return self

    def running_ids(self) -> list[int]:
        return [node.node_id for node in self.nodes if node.is_running]

    def wait_brokers(self, deadline: float | None = None) -> None:
        """Until the metadata every running node serves lists every running broker."""
        deadline = deadline if deadline is not None else time.monotonic() + self.startup_timeout
        last: object = None
        while True:
            want = set(self.running_ids())
            try:
                seen = [set(probe_broker(LOOPBACK, node.port or 0)) for node in self.nodes if node.is_running]
                if all(ids >= want for ids in seen):
                    return
                last = seen
            except (OSError, ValueError, struct.error) as exc:
                last = exc
            if time.monotonic() >= deadline:
                raise LocalKafkaError(f"the brokers {sorted(want)} do not all see each other (last probe: {last!r})")
            time.sleep(0.2)

    def halt(self, index: int, kill: bool = False) -> None:
        """Stop node ``nodes[index]`` (SIGTERM: a controlled shutdown; ``kill``: SIGKILL, a crash)."""
        self.nodes[index].halt(kill=kill)

    def resume(self, index: int) -> None:
        """Start node ``nodes[index]`` again on its ports with its data, once the others list it."""
        self.nodes[index].resume()
        self.wait_brokers()

    def stop(self, timeout: float = 30.0) -> None:
        # SIGTERM to every node first: one by one, the last ones would wait out their controlled
        # shutdown against a quorum that is already gone
        for node in self.nodes:
            proc = node._proc
            if proc is not None and proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.terminate()
        for node in self.nodes:
            node.stop(timeout)

    def log_tail(self, lines: int = 30) -> str:
        return "\n".join(f"=== node {node.node_id} ===\n{node.log_tail(lines)}" for node in self.nodes)

    def __enter__(self) -> LocalKafkaCluster:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


# --------------------------------------------------------------------------
# Command line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m slotstream.local.kafka_broker",
        description="Run a single-node Kafka broker (KRaft) on 127.0.0.1 until Ctrl-C/SIGTERM "
        "(--brokers N: a cluster of N, replication 3 and min.insync.replicas 2 for N >= 3).",
    )
    parser.add_argument("--brokers", type=int, default=1, help="broker+controller nodes (default 1)")
    parser.add_argument("--partitions", type=int, default=4, help="num.partitions (default 4)")
    parser.add_argument("--data-dir", help="data/config/log folder (default: a new temp dir)")
    parser.add_argument("--keep", action="store_true", help="keep the data dir on exit")
    parser.add_argument("--timeout", type=float, default=90.0, help="startup timeout in s")
    parser.add_argument("--version", dest="kafka_version", help="Kafka version (default: pom's)")
    args = parser.parse_args(argv)

    stop_event = threading.Event()

    def _on_signal(signum: int, _frame: object) -> None:
        stop_event.set()

    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGINT, _on_signal)

    if args.brokers > 1:
        return _run_cluster(args, stop_event)
    kafka = LocalKafka(
        num_partitions=args.partitions,
        data_dir=args.data_dir,
        keep=args.keep,
        startup_timeout=args.timeout,
        version=args.kafka_version,
    )

    def ready() -> str:
        return (
            f"localkafka: broker ready in {kafka.startup_seconds:.1f} s; "
            f"controller {LOOPBACK}:{kafka.controller_port}; data dir {kafka.data_dir}; "
            "Ctrl-C or SIGTERM stops it"
        )

    return _serve(kafka, ready, lambda: kafka.is_running, "broker", stop_event)


def _run_cluster(args: argparse.Namespace, stop_event: threading.Event) -> int:
    if args.data_dir or args.keep or args.kafka_version:
        print("localkafka: --data-dir, --keep and --version are for a single broker", file=sys.stderr)
        return 2
    cluster = LocalKafkaCluster(args.brokers, num_partitions=args.partitions, startup_timeout=args.timeout)

    def ready() -> str:
        return (
            f"localkafka: {args.brokers} brokers ready in {cluster.startup_seconds:.1f} s "
            f"(replication {cluster.replication}, min.insync.replicas {cluster.min_insync}); "
            "Ctrl-C or SIGTERM stops them"
        )

    return _serve(cluster, ready, lambda: all(node.is_running for node in cluster.nodes), "a broker", stop_event)


def _serve(
    servers: LocalKafka | LocalKafkaCluster,
    ready: Callable[[], str],
    running: Callable[[], bool],
    what: str,
    stop_event: threading.Event,
) -> int:
    """Start, print the bootstrap address (stdout) and a ready line (stderr), then wait for a stop;
    exit 1 when the start fails or `what` exits on its own."""
    try:
        servers.start()
    except LocalKafkaError as exc:
        print(f"localkafka: {exc}", file=sys.stderr)
        return 1
    try:
        print(servers.bootstrap, flush=True)
        print(ready(), file=sys.stderr, flush=True)
        while not stop_event.wait(1.0):
            if not running():
                print(f"localkafka: {what} exited unexpectedly\n" + servers.log_tail(), file=sys.stderr)
                return 1
    finally:
        print("localkafka: stopping", file=sys.stderr, flush=True)
        servers.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
