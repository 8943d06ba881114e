"""The embedded Redis rewrites its AOF at a quiet moment (slotstream/local/redis_server.py, QuietRewriter):
a file that has doubled is not rewritten while commands keep coming, and is once they stop; the
state survives the rewrite and a restart after it. Real servers; the minimum size is lowered so a
few MB make a file due."""

from __future__ import annotations

import threading
import time

import redis

from slotstream.local.redis_server import QUIET_OPS_PER_SECOND, REWRITE_BOUND_PERCENTAGE, LocalRedis

VALUE = "v" * 1000


def _rewrites(client: redis.Redis) -> int:
    return int(client.info("persistence")["aof_rewrites"])


def _wait_rewrites_done(client: redis.Redis, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while True:
        info = client.info("persistence")
        if not info["aof_rewrite_in_progress"] and not info["aof_rewrite_scheduled"]:
            return
        assert time.monotonic() < deadline, "the rewrite did not finish"
        time.sleep(0.05)


def test_only_a_server_with_an_aof_has_a_rewriter_and_it_stops_with_the_server() -> None:
    with LocalRedis(persist=True) as server:
        rewriter = server.rewriter
        assert rewriter is not None and rewriter._thread.is_alive()
    assert server.rewriter is None and not rewriter._thread.is_alive()
    with LocalRedis(persist=False) as server:
        assert server.rewriter is None


def test_a_server_that_stops_answering_leaves_the_rewriter_asking_not_failing() -> None:
    server = LocalRedis(persist=True).start()
    try:
        rewriter = server.rewriter
        assert rewriter is not None and server.proc is not None
        server.proc.kill()  # a crash the LocalRedis did not ask for: every check now fails to connect
        server.proc.wait()
        time.sleep(2.5)
        assert rewriter._thread.is_alive() and rewriter.rewrites == 0
    finally:
        server.stop()
    assert not rewriter._thread.is_alive()


def test_a_doubled_file_waits_for_a_quiet_moment_then_is_rewritten_with_nothing_lost(tmp_path) -> None:
    server = LocalRedis(data_dir=tmp_path, persist=True).start()
    try:
        client = redis.Redis.from_url(server.url)
        client.config_set("auto-aof-rewrite-min-size", 64 * 1024)
        with client.pipeline(transaction=False) as pipe:
            for k in range(1000):
                pipe.hset("user:rec", f"base{k}", VALUE)
            pipe.execute()
        client.bgrewriteaof()  # a base of about 1 MB, so the server's own trigger (9 MB) stays off
        _wait_rewrites_done(client)
        before = _rewrites(client)
        assert server.rewriter is not None and server.rewriter.rewrites == 0

        # busy: about 300 writes a second (over the quiet rate, and slow enough that the file stays
        # below the server's own trigger) until the file has doubled, and 4 s more
        stop, written = threading.Event(), [0]

        def load() -> None:
            busy = redis.Redis.from_url(server.url)
            while not stop.is_set():
                busy.hset("user:rec", f"busy{written[0]}", VALUE)
                written[0] += 1
                time.sleep(0.003)

        thread = threading.Thread(target=load, daemon=True)
        thread.start()
        try:
            deadline = time.monotonic() + 20
            while True:
                info = client.info()
                if info["aof_current_size"] >= 2 * info["aof_base_size"]:
                    break
                assert time.monotonic() < deadline, "the file did not double"
                time.sleep(0.1)
            time.sleep(4)
            info = client.info()
            assert float(info["instantaneous_ops_per_sec"]) > QUIET_OPS_PER_SECOND
            assert info["aof_current_size"] < (100 + REWRITE_BOUND_PERCENTAGE) * info["aof_base_size"] // 100
            assert _rewrites(client) == before, "rewritten under load"
        finally:
            stop.set()
            thread.join()

        # quiet: rewritten within a few checks
        deadline = time.monotonic() + 15
        while _rewrites(client) == before:
            assert time.monotonic() < deadline, "no rewrite once quiet"
            time.sleep(0.2)
        _wait_rewrites_done(client)
        assert server.rewriter.rewrites == 1
        assert client.info("persistence")["aof_last_bgrewrite_status"] == "ok"
        assert client.hlen("user:rec") == 1000 + written[0]

        server.halt()
        server.start()
        restarted = redis.Redis.from_url(server.url)
        assert restarted.hlen("user:rec") == 1000 + written[0]
        assert restarted.hget("user:rec", f"busy{written[0] - 1}") == VALUE.encode()
    finally:
        server.stop()
