"""A small HTTP/1.1 load generator for the sidecar benchmark: `concurrency` keep-alive connections,
each sending one prepared request after the other (a closed loop), the latency of each timed.

It runs in its own process (`python -m slotstream.bench.loadgen`, JSON in on argv, JSON out on stdout)
so its CPU time is its own and can be reported: a benchmark states what its load generator cost.
Raw asyncio streams on uvloop rather than an HTTP client library, because on a 2-core machine the
generator shares the cores with the server and a heavy client would be measured as the server.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time so far of these processes and their children (Linux /proc)."""
    tick = os.sysconf("SC_CLK_TCK")
    wanted, total = set(pids), 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(entry.name) in wanted or int(fields[1]) in wanted:
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def request_bytes(method: str, path: str, host: str, headers: dict[str, str], body: bytes = b"") -> bytes:
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}", "Connection: keep-alive"]
    lines += [f"{k}: {v}" for k, v in headers.items()]
    if body or method in ("POST", "PUT"):
        lines.append(f"Content-Length: {len(body)}")
    if body and not any(k.lower() == "content-type" for k in headers):
        lines.append("Content-Type: application/json")  # the sidecar refuses a body of another type
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


async def _read_response(reader: asyncio.StreamReader) -> int:
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head[9:12])
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
            break
    else:
        raise ValueError("the benchmark needs responses with Content-Length")
    if length:
        await reader.readexactly(length)
    return status


async def _run(
    host: str, port: int, payload: bytes, concurrency: int, total: int, warmup: int, watch: dict[str, list[int]]
) -> dict[str, Any]:
    latencies: list[float] = []
    errors: dict[str, int] = {}
    remaining = [warmup + total]
    started = [0.0]

    async def connection() -> None:
        reader, writer = await asyncio.open_connection(host, port)
        try:
            while remaining[0] > 0:
                remaining[0] -= 1
                counted = remaining[0] < total
                begin = time.perf_counter()
                writer.write(payload)
                status = await _read_response(reader)
                if counted:
                    if not started[0]:
                        started[0] = begin
                    latencies.append(time.perf_counter() - begin)
                    if status != 200:
                        errors[str(status)] = errors.get(str(status), 0) + 1
        finally:
            writer.close()

    cpu = time.process_time()
    watched = {name: cpu_seconds(pids) for name, pids in watch.items()}
    began = time.perf_counter()
    await asyncio.gather(*(connection() for _ in range(concurrency)))
    end = time.perf_counter()
    return {
        # each watched process group's CPU over the whole run (warm-up included), in cores
        "cpu_shares": {name: (cpu_seconds(pids) - watched[name]) / (end - began) for name, pids in watch.items()},
        "latencies_ms": [x * 1000 for x in latencies],
        "seconds": end - started[0],
        "cpu_seconds": time.process_time() - cpu,
        "wall_seconds": end - began,
        "sent": warmup + total,
        "errors": errors,
    }


def main() -> None:
    args = json.loads(sys.argv[1])
    try:
        import uvloop

        uvloop.install()
    except ImportError:  # pragma: no cover - uvloop comes with uvicorn[standard]
        pass
    payload = request_bytes(
        args["method"], args["path"], f"{args['host']}:{args['port']}", args["headers"], args["body"].encode()
    )
    out = asyncio.run(
        _run(
            args["host"],
            args["port"],
            payload,
            args["concurrency"],
            args["requests"],
            args["warmup"],
            args.get("watch", {}),
        )
    )
    sys.stdout.write(json.dumps(out))


if __name__ == "__main__":
    main()
