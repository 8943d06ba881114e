"""`slotstream bench aof`: what the local Redis's append-only file costs: the bytes each kind of
write adds to it, and how long a rewrite takes with its base compressed and not.

Starts a local Redis of its own with the AOF on (as the local stack runs it), writes the turns of
the pipeline bench's mix through the worker's own handlers into it (`bench handlers`, batches of
500), then prints the AOF's growth since the last rewrite by command and key kind (a key's name
past its user's prefix, ids and digests folded) and what the stored records' bytes are spent on
(field names, evidence), and times `BGREWRITEAOF` a number of rounds each way, alternately with
`rdbcompression yes` and `no`, until `INFO persistence` says it is done, with the size of the base
it wrote.
"""

from __future__ import annotations

import re
import statistics
import time
from collections import Counter
from pathlib import Path

import orjson
import redis

from slotstream.local.redis_server import LocalRedis

from .handlers import run_handlers


def commands(data: bytes) -> list[list[bytes]]:
    """The commands of an AOF's incremental file (RESP arrays of bulk strings)."""
    out, pos = [], 0
    while pos < len(data):
        end = data.index(b"\r\n", pos)
        count, pos = int(data[pos + 1 : end]), end + 2
        args = []
        for _ in range(count):
            end = data.index(b"\r\n", pos)
            size, pos = int(data[pos + 1 : end]), end + 2
            args.append(data[pos : pos + size])
            pos += size + 2
        out.append(args)
    return out


def key_kind(key: bytes) -> str:
    """`ns:{tenant:user}:ixt:global:<digest>` -> `ixt:global:*`: what a key holds, not whose."""
    name = key.decode(errors="replace").split("}", 1)[-1].lstrip(":")
    name = re.sub(r"^(hist|ixt|ixp|ixq):(.*?)(:[^:]*)?$", lambda m: m[1] + (":" + m[2] if m[3] else "") + ":*", name)
    return name


def field_name_bytes(value: object) -> int:
    """The bytes a JSON value spends on its objects' field names (each with its quotes and colon)."""
    if isinstance(value, dict):
        return sum(len(name) + 3 + field_name_bytes(item) for name, item in value.items())
    if isinstance(value, list):
        return sum(field_name_bytes(item) for item in value)
    return 0


def record_parts(written: list[bytes]) -> str | None:
    """What the stored records' bytes are spent on: their field names and their evidence lists
    (a record is stored as a JSON object; one that does not parse as one is left out)."""
    total = names = evidence = 0
    for raw in written:
        try:
            record = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if not isinstance(record, dict):
            continue
        total += len(raw)
        names += field_name_bytes(record)
        evidence += len(orjson.dumps(record.get("evidence") or []))
    if not total:
        return None
    return (
        f"  of the stored records' bytes: field names {names / total * 100:.0f}%, "
        f"evidence lists {evidence / total * 100:.0f}% (its own field names included)"
    )


def composition(folder: Path) -> list[str]:
    """The incremental files' bytes by command and key kind; an applied op writes its ledger entry
    (`HSET ops`) once, which counts the ops they hold."""
    manifest = (folder / "appendonly.aof.manifest").read_text()
    incr = [line.split()[1] for line in manifest.splitlines() if line.split()[-1] == "i"]
    sizes: Counter[tuple[str, str]] = Counter()
    calls: Counter[tuple[str, str]] = Counter()
    records: list[bytes] = []
    for name in incr:
        for args in commands((folder / name).read_bytes()):
            kind = (args[0].decode().upper(), key_kind(args[1]) if len(args) > 1 else "")
            size = sum(len(arg) for arg in args)
            sizes[kind] += size
            calls[kind] += 1
            if kind == ("HSET", "rec"):
                records.append(args[3])
    total = sum(sizes.values())
    applied = calls[("HSET", "ops")]
    lines = [
        f"AOF since its last rewrite: {total:,} bytes of arguments for {applied:,} applied ops, "
        f"{total / max(1, applied):,.0f} an op"
    ]
    for written, size in sizes.most_common(8):
        share = size / total * 100
        count = calls[written]
        lines.append(f"  {' '.join(written)}: {share:.0f}% ({count} writes, {size / count:,.0f} bytes each)")
    if records:
        sizes_written = [len(raw) for raw in records]
        lines.append(
            f"  a stored record written: median {statistics.median(sizes_written):,.0f} bytes, "
            f"largest {max(sizes_written):,}"
        )
        parts = record_parts(records)
        if parts:
            lines.append(parts)
    return lines


def rewrite(client: redis.Redis, folder: Path) -> tuple[float, int]:
    """One `BGREWRITEAOF`: its milliseconds until done, and the base's size in bytes."""
    started = time.perf_counter()
    client.bgrewriteaof()
    while True:
        persistence = client.info("persistence")
        if not persistence["aof_rewrite_in_progress"] and not persistence["aof_rewrite_scheduled"]:
            break
        time.sleep(0.005)
    elapsed = (time.perf_counter() - started) * 1000
    return elapsed, sum(path.stat().st_size for path in folder.glob("*.base.rdb"))


def run_aof_costs(turns: int, rounds: int) -> int:
    with LocalRedis(persist=True) as server:
        client = redis.Redis.from_url(server.url)
        folder = server.folder / "appendonlydir"
        run_handlers(server.url, 500, "bench", turns)
        for line in composition(folder):
            print(line)
        print(f"state: {client.dbsize():,} keys, {client.info('memory')['used_memory_human']} in memory")
        for _ in range(rounds):
            for compression in ("yes", "no"):
                client.config_set("rdbcompression", compression)
                elapsed, base = rewrite(client, folder)
                print(f"rewrite with rdbcompression {compression}: {elapsed:.0f} ms, base {base / 1e6:.3f} MB")
    return 0
