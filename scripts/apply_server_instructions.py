"""The Redis server's instructions per applied op, on the apply bench's ops.

The scripts' time on the server moves with the machine by tens of percent from one hour to the
next; the server's instruction count moves little. This starts a Redis server of its own under
valgrind (on a free loopback port), applies OPS of the apply bench's ops (over 1,000 users, in
batches of 500), stops it, and does it again with twice the ops; the difference over OPS is what
applying one op costs the server (scripts, command parsing, replies), without its start and stop:

    python scripts/apply_server_instructions.py [OPS]          # default 4000; about two minutes

`--replay-writes` asks what the same writes would cost without the apply script: each call of
apply.lua is run once on a plain server of its own with every write it makes recorded, and the
recorded writes of each call are then sent to the counted server as one MULTI/EXEC transaction,
after a WATCH of the call's users' meta keys (what an optimistic apply computed by the client
would send). The reads the script makes are left out: such an apply would make them in its load.
Without valgrind the replayed state is compared with the state the script left. It also prints
what packing those writes costs the client (hiredis, this process's CPU): the client's side of
sending them as commands rather than as one script call per chunk.

`--wrapper ""` runs the server without valgrind (nothing is counted): the tests of this script use
it. docs/BENCHMARKS.md ("Apply") quotes its output.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import hiredis
import redis
from apply_lua_calls import apply_script_watched  # scripts/ is on the path of a script run from it

from slotstream.bench import apply_bench_ops
from slotstream.localredis import server_binary
from slotstream.state.client import connect
from slotstream.state.engine import Engine

USERS, BATCH = 1000, 500
VALGRIND = "valgrind --tool=callgrind --callgrind-out-file=/dev/null"
COLLECTED = re.compile(r"Collected : (\d+)")
# each write apply.lua makes (command and arguments) recorded; the call's writes go to a list under
# its first user's prefix, as one JSON array after the call's number in the order the calls ran (a
# user's calls sit under different first users)
WRITES = ("HSET", "HDEL", "ZADD", "ZREM", "RPUSH", "LREM", "SADD", "DEL", "LTRIM")
RECORD_SETUP = "local recorded, writes = {}, {" + ",".join(f"{name}=1" for name in WRITES) + "}"
RECORD_WRITE = "  if writes[command] then recorded[#recorded + 1] = {command, ...} end"
RECORD_END = (
    "real_call('RPUSH', KEYS[1] .. ':writes',"
    " real_call('INCR', 'apply-calls-recorded') .. ' ' .. cjson.encode(recorded))"
)
Calls = list[list[list[Any]]]  # per call of apply.lua, its writes: [command, argument, ...]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def _server(wrapper: str) -> Iterator[tuple[int, list[int | None]]]:
    """A server of its own on a free port; yields the port and a list that holds, once the server
    has stopped, its instruction count (None: not counted)."""
    port = _free_port()
    command = [*shlex.split(wrapper), server_binary(), "--port", str(port), "--bind", "127.0.0.1"]
    command += ["--save", "", "--appendonly", "no"]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    counted: list[int | None] = []
    try:
        deadline = time.monotonic() + 60
        while True:  # the port answers once the server listens (under valgrind, seconds)
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise
                time.sleep(0.1)
        yield port, counted
        # sent by hand: redis-py retries a command whose connection closes, as this one's does
        with socket.create_connection(("127.0.0.1", port), timeout=120) as line:
            line.sendall(b"SHUTDOWN NOSAVE\r\n")
            line.recv(1)
        _, errors = server.communicate(timeout=120)
        found = COLLECTED.search(errors)
        counted.append(int(found.group(1)) if found else None)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


def _apply(port: int, n_ops: int, namespace: str) -> Engine:
    engine = Engine(connect(f"redis://127.0.0.1:{port}/0", socket_timeout=120), namespace=namespace)
    ops = apply_bench_ops(n_ops, USERS)
    for first in range(0, n_ops, BATCH):
        engine.apply_many(ops[first : first + BATCH])
    admin = redis.Redis(port=port, socket_timeout=120)
    assert next(admin.scan_iter(match=engine.keys.user_metas(), count=1000), None) is not None  # applied
    return engine


def server_run(n_ops: int, wrapper: str) -> int | None:
    """Apply the first `n_ops` bench ops on a fresh server; its instructions (None: not counted)."""
    with _server(wrapper) as (port, counted):
        _apply(port, n_ops, "serverinstructions")
    return counted[0]


def _state(client: redis.Redis, namespace: str) -> dict[str, Any]:
    """Every key of the namespace and its content, but the write time each apply stamps (a clock
    reading) and the recorded writes."""
    out: dict[str, Any] = {}
    for key in client.scan_iter(match=f"{namespace}:*", count=1000):
        name = key.decode()
        if name.endswith(":writes"):
            continue
        kind = client.type(key)
        if kind == b"hash":
            out[name] = {k: v for k, v in client.hgetall(key).items() if k != b"written"}
        elif kind == b"list":
            out[name] = client.lrange(key, 0, -1)
        elif kind == b"set":
            out[name] = sorted(client.smembers(key))
        else:
            out[name] = client.zrange(key, 0, -1, withscores=True)
    return out


def recorded_writes(n_ops: int) -> tuple[Calls, dict[str, Any]]:
    """The writes of every call of apply.lua for the first `n_ops` bench ops, in the order the
    calls ran, and the state the calls left."""
    with apply_script_watched(RECORD_SETUP, RECORD_WRITE, RECORD_END), _server("") as (port, _):
        engine = _apply(port, n_ops, "recorded")
        client = engine.r
        numbered: list[tuple[int, bytes]] = []
        for key in client.scan_iter(match=f"{engine.keys.namespace}:*:writes", count=1000):
            for raw in client.lrange(key, 0, -1):
                number, writes = raw.split(b" ", 1)
                numbered.append((int(number), writes))
        state = _state(client, engine.keys.namespace)
    return [json.loads(writes) for _, writes in sorted(numbered)], state


def replay_run(calls: Calls, wrapper: str, state: dict[str, Any]) -> int | None:
    """Each call's writes as one WATCH + MULTI/EXEC on a fresh server; its instructions. Without a
    wrapper the replayed state is compared with `state`, the one the script left (under valgrind
    the comparison would be counted)."""

    def argument(value: Any) -> str:
        return repr(value) if isinstance(value, float) else str(value)

    with _server(wrapper) as (port, counted):
        client = redis.Redis(port=port, socket_timeout=120)
        for first in range(0, len(calls), 25):
            pipe = client.pipeline(transaction=False)
            for call in calls[first : first + 25]:
                metas = sorted({write[1] for write in call if write[0] == "HSET" and write[1].endswith(":meta")})
                pipe.execute_command("WATCH", *metas)
                pipe.execute_command("MULTI")
                for command, *arguments in call:
                    pipe.execute_command(command, *map(argument, arguments))
                pipe.execute_command("EXEC")
            pipe.execute()
        if not wrapper:
            same = _state(client, "recorded") == state
            print(f"the replayed writes left the state the script left: {'yes' if same else 'NO'}")
    return counted[0]


def packing_cost(calls: Calls, n_ops: int) -> None:
    """The client CPU of packing every recorded write as a command of its own (the WATCH, MULTI and
    EXEC around each call left out), the fastest of three passes."""
    commands = [
        (command, *(repr(v) if isinstance(v, float) else str(v) for v in args))
        for call in calls
        for command, *args in call
    ]
    best = min(_packed_in(commands) for _ in range(3))
    print(
        f"packing those writes on the client (hiredis.pack_command): {best / len(commands) * 1e6:.2f} us a command, "
        f"{best / n_ops * 1e6:.1f} us an applied op"
    )


def _packed_in(commands: list[tuple[str, ...]]) -> float:
    started = time.process_time()
    for command in commands:
        hiredis.pack_command(command)
    return time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ops", nargs="?", type=int, default=4000)
    parser.add_argument("--wrapper", default=VALGRIND, help="what the server runs under ('' for nothing)")
    parser.add_argument("--replay-writes", action="store_true", help="count the script's writes sent as transactions")
    args = parser.parse_args()
    run: Callable[[int], int | None]
    if args.replay_writes:
        recorded = {n: recorded_writes(n) for n in (args.ops, 2 * args.ops)}
        writes = sum(map(len, recorded[2 * args.ops][0])) - sum(map(len, recorded[args.ops][0]))
        print(f"apply.lua's writes per applied op: {writes / args.ops:.2f}")
        packing_cost(recorded[args.ops][0], args.ops)
        run = lambda n: replay_run(recorded[n][0], args.wrapper, recorded[n][1])  # noqa: E731
        what = "replayed the writes of"
    else:
        run = lambda n: server_run(n, args.wrapper)  # noqa: E731
        what = "applied"
    once, twice = run(args.ops), run(2 * args.ops)
    print(f"{what} {args.ops} and {2 * args.ops} ops over {USERS} users on a fresh server each")
    if once is None or twice is None:
        print("server instructions: not counted (no valgrind)")
        return
    print(f"server instructions: {once:,} and {twice:,}")
    print(f"server instructions per applied op: {(twice - once) / args.ops:,.0f}")


if __name__ == "__main__":
    main()
