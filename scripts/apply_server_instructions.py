"""The Redis server's instructions per applied op, on the apply bench's ops.

The scripts' time on the server moves with the machine by tens of percent from one hour to the
next; the server's instruction count moves little. This starts a Redis server of its own under
valgrind (on a free loopback port), applies OPS of the apply bench's ops (over 1,000 users, in
batches of 500), stops it, and does it again with twice the ops; the difference over OPS is what
applying one op costs the server (scripts, command parsing, replies), without its start and stop:

    python scripts/apply_server_instructions.py [OPS]          # default 4000; about two minutes

`--wrapper ""` runs the server without valgrind (nothing is counted): the test of this script uses
it. docs/BENCHMARKS.md ("Apply") quotes its output.
"""

from __future__ import annotations

import argparse
import re
import shlex
import socket
import subprocess
import time

import redis

from slotstream.bench import apply_bench_ops
from slotstream.localredis import server_binary
from slotstream.state.client import connect
from slotstream.state.engine import Engine

USERS, BATCH = 1000, 500
VALGRIND = "valgrind --tool=callgrind --callgrind-out-file=/dev/null"
COLLECTED = re.compile(r"Collected : (\d+)")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def server_run(n_ops: int, wrapper: str) -> int | None:
    """Apply the first `n_ops` bench ops on a fresh server; its instructions (None: not counted)."""
    port = _free_port()
    command = [*shlex.split(wrapper), server_binary(), "--port", str(port), "--bind", "127.0.0.1"]
    command += ["--save", "", "--appendonly", "no"]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
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
        admin = redis.Redis(port=port, socket_timeout=120)
        engine = Engine(connect(f"redis://127.0.0.1:{port}/0", socket_timeout=120), namespace="serverinstructions")
        ops = apply_bench_ops(n_ops, USERS)
        for first in range(0, n_ops, BATCH):
            engine.apply_many(ops[first : first + BATCH])
        assert next(admin.scan_iter(match=engine.keys.user_metas(), count=1000), None) is not None  # applied
        # sent by hand: redis-py retries a command whose connection closes, as this one's does
        with socket.create_connection(("127.0.0.1", port), timeout=120) as line:
            line.sendall(b"SHUTDOWN NOSAVE\r\n")
            line.recv(1)
        _, errors = server.communicate(timeout=120)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    found = COLLECTED.search(errors)
    return int(found.group(1)) if found else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ops", nargs="?", type=int, default=4000)
    parser.add_argument("--wrapper", default=VALGRIND, help="what the server runs under ('' for nothing)")
    args = parser.parse_args()
    once, twice = server_run(args.ops, args.wrapper), server_run(2 * args.ops, args.wrapper)
    print(f"applied {args.ops} and {2 * args.ops} ops over {USERS} users on a fresh server each")
    if once is None or twice is None:
        print("server instructions: not counted (no valgrind)")
        return
    print(f"server instructions: {once:,} and {twice:,}")
    print(f"server instructions per applied op: {(twice - once) / args.ops:,.0f}")


if __name__ == "__main__":
    main()
