"""The `slotstream` command."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from .errors import SettingsError
from .scenario import LineResult
from .settings import Settings


def _print_result(r: LineResult) -> None:
    tag = "PASS" if r.ok else "FAIL"
    if not r.counted:
        tag = "    "
    if r.kind == "query" or not r.ok or r.counted:
        print(f"{tag} {r.source}:{r.line} {r.kind}: {r.message}", flush=True)


def cmd_scenario_run(args: argparse.Namespace) -> int:
    from slotstream.state.engine import Engine
    from slotstream.state.namespaces import drop_namespace

    from .runtime import redis_client
    from .scenario import DirectBackend, fresh_namespace, read_lines, run_lines
    from .worker import extractor_for

    settings = Settings.from_env()
    if args.via == "kafka":
        from .pipeline_runner import (
            run_files_via_kafka,
        )

        return run_files_via_kafka(args.files, settings)
    passed = failed = 0
    with redis_client(settings) as client:
        for path in args.files:
            ns = fresh_namespace()
            try:
                backend = DirectBackend(Engine(client, namespace=ns), extractor_for(settings))
                report = run_lines(backend, read_lines(path), str(path), emit=_print_result)
            finally:
                drop_namespace(client, ns)
            passed += report.passed
            failed += report.failed
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


def cmd_eval_statebench(args: argparse.Namespace) -> int:
    from .statebench import main as statebench_main

    return statebench_main(args.files, Settings.from_env(), tracks=args.track, verbose=args.verbose, turns=args.turns)


def cmd_eval_everyday(args: argparse.Namespace) -> int:
    from .phrasings import main_everyday

    return main_everyday(args.corpus, args.split, verbose=args.verbose)


def cmd_eval_phrasings(args: argparse.Namespace) -> int:
    from .phrasings import main as phrasings_main

    return phrasings_main(args.corpus, args.split, verbose=args.verbose, show_holdout=args.show_holdout)


def cmd_eval_ranking(args: argparse.Namespace) -> int:
    from .ranking import main as ranking_main

    return ranking_main(args.requests, args.split, verbose=args.verbose)


def cmd_bench_engine(args: argparse.Namespace) -> int:
    from .bench import run_engine_bench
    from .runtime import tune_gc

    tune_gc()
    return run_engine_bench(
        Settings.from_env(),
        sizes=args.sizes,
        requests=args.requests,
        ops=args.ops,
        rounds=args.rounds,
        read_whole_up_to=args.read_whole_up_to,
    )


def cmd_bench_pipeline(args: argparse.Namespace) -> int:
    from .bench_pipeline import run_pipeline_bench
    from .runtime import tune_gc

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


def cmd_bench_replay(args: argparse.Namespace) -> int:
    from .bench_replay import run_replay_bench
    from .runtime import tune_gc

    tune_gc()
    return run_replay_bench(Settings.from_env(), args.turns, args.processes, args.rounds)


def cmd_bench_sidecar(args: argparse.Namespace) -> int:
    from .bench_sidecar import run_sidecar_bench

    settings = Settings.from_env()
    if args.server_processes:
        settings = settings.replace(sidecar_workers=args.server_processes)
    return run_sidecar_bench(settings, args.sizes, args.modes, args.requests, args.concurrency, args.rounds)


def cmd_engine_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    return run_demo(Settings.from_env())


def cmd_run(args: argparse.Namespace) -> int:
    from .demo import run_pipeline_demo

    return run_pipeline_demo(Settings.from_env(), serve=not args.demo_only)


def _servers_missing(settings: Settings, command: str) -> bool:
    """A command that runs against given servers, run without them: say so (exit 2)."""
    if settings.kafka_bootstrap and settings.redis_url:
        return False
    print(
        f"slotstream {command}: set SLOTSTREAM_KAFKA_BOOTSTRAP and SLOTSTREAM_REDIS_URL "
        "(or use `slotstream run`, which starts local servers, a worker and the sidecar)",
        file=sys.stderr,
    )
    return True


def cmd_worker(args: argparse.Namespace) -> int:
    settings = Settings.from_env()
    if _servers_missing(settings, "worker"):
        return 2
    from .runtime import claim_namespace, resolve_namespace
    from .worker import PROCESSORS, run_worker

    chosen = PROCESSORS if args.processors == "all" else tuple(p.strip() for p in args.processors.split(","))

    base = settings.namespace
    settings = settings.replace(namespace=resolve_namespace(settings))
    code = claim_namespace(settings, rebuild=args.rebuild)
    if code:
        return code
    return run_worker(settings, chosen, base, args.loglevel)


def _operator_settings(command: str, need: tuple[str, ...] = ("redis_url", "kafka_bootstrap")) -> Settings | None:
    """Settings for an operator command: the configured servers, else those of a running
    `slotstream run` (its data folder's stack.env); None (after saying so) when there are none."""
    from .stack import with_running_stack

    settings = with_running_stack(Settings.from_env())
    missing = [f"SLOTSTREAM_{name.upper()}" for name in need if not getattr(settings, name)]
    if missing:
        print(
            f"slotstream {command}: set {' and '.join(missing)}, or start the local stack with "
            "`slotstream run` (these commands then use its servers)",
            file=sys.stderr,
        )
        return None
    return settings


def cmd_topics(args: argparse.Namespace) -> int:
    from . import operate

    settings = _operator_settings(f"topics {args.topics_command}", ("kafka_bootstrap",))
    if settings is None:
        return 2
    if args.topics_command == "create":
        return operate.topics_create(settings)
    return operate.topics_describe(settings)


def cmd_state_digest(args: argparse.Namespace) -> int:
    from . import operate

    settings = _operator_settings("state digest", ("redis_url",))
    return 2 if settings is None else operate.state_digest(settings, args.namespace)


def cmd_namespace(args: argparse.Namespace) -> int:
    from . import operate

    settings = _operator_settings(f"namespace {args.namespace_command}", ("redis_url",))
    if settings is None:
        return 2
    if args.namespace_command == "list":
        return operate.namespace_list(settings)
    return operate.namespace_drop(settings, args.name, args.yes)


def cmd_replay(args: argparse.Namespace) -> int:
    from slotstream.streams.log_reader import Bound

    from . import replay

    settings = _operator_settings("replay")
    if settings is None:
        return 2
    if args.batch_size:
        settings = settings.replace(batch_size=args.batch_size)
    if args.part:
        part, _, parts = args.part.partition("/")
        return replay.run_part(settings, args.namespace, int(part), int(parts))
    try:
        start, end = Bound.parse(args.start), Bound.parse(args.end)
    except ValueError as err:
        print(f"slotstream replay: {err}", file=sys.stderr)
        return 2
    source = "turns" if args.re_extract else "ops"
    return replay.replay(settings, args.namespace, source, start, end, args.processes)


def cmd_promote(args: argparse.Namespace) -> int:
    from .promote import run_promote

    settings = _operator_settings("promote")
    return 2 if settings is None else run_promote(settings, args.target, args.timeout)


def cmd_sidecar(args: argparse.Namespace) -> int:
    settings = Settings.from_env()
    if _servers_missing(settings, "sidecar"):
        return 2
    from slotstream.sidecar.errors import SidecarError
    from slotstream.sidecar.server import serve

    try:
        serve(settings)
    except SidecarError as err:
        print(f"slotstream sidecar: {err}", file=sys.stderr)
        return 1
    return 0


def cmd_keys(args: argparse.Namespace) -> int:
    from slotstream.sidecar.keys import create_key, list_keys, revoke_key

    settings = Settings.from_env()
    if args.keys_command == "create":
        scopes = [s.strip() for s in args.scopes.split(",") if s.strip()]
        roles = [r.strip() for r in (args.roles or "").split(",") if r.strip()]
        key_id, key = create_key(settings.keys_file, args.tenant, scopes, roles, args.name)
        print(key)  # shown once: only its hash is kept
        print(
            f"key id {key_id}, tenant {args.tenant}, scopes {','.join(scopes)} -> {settings.keys_file}", file=sys.stderr
        )
        return 0
    if args.keys_command == "revoke":
        found = revoke_key(settings.keys_file, args.key_id)
        print("revoked" if found else "no such key (or already revoked)")
        return 0 if found else 1
    for entry in list_keys(settings.keys_file):
        state = "revoked" if entry.get("revoked_at") else "active"
        print(
            f"{entry['id']}  {entry['tenant']:<20} {','.join(entry['scopes']):<18} {state:<8} {entry.get('name', '')}"
        )
    return 0


def cmd_settings(args: argparse.Namespace) -> int:
    settings = Settings.from_env()
    rows = settings.describe(reveal=args.reveal)
    width = max(len(var) for var, _, _ in rows)
    for var, value, text in rows:
        print(f"{var:<{width}}  {value}" + (f"    # {text}" if text else ""))
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="slotstream", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)

    run = sub.add_parser(
        "run",
        help="the main job: Redis, Kafka, a worker and the sidecar; a demo conversation "
        "through the sidecar; then it keeps serving",
    )
    run.add_argument("--demo-only", action="store_true", help="stop after the demo instead of serving")
    run.set_defaults(func=cmd_run)
    demo = sub.add_parser("demo", help="the engine alone: apply a short scenario, print the context before and after")
    demo.set_defaults(func=cmd_engine_demo)

    worker = sub.add_parser(
        "worker", help="run the processors (a worker in the consumer group, on the runtime SLOTSTREAM_RUNTIME names)"
    )
    worker.add_argument(
        "--processors", default="all", help="comma-separated: extraction,reconciliation,expiry (default: all)"
    )
    worker.add_argument("--loglevel", default="WARNING")
    worker.add_argument(
        "--rebuild",
        action="store_true",
        help="when the Redis namespace lost its state, rebuild it by re-reading the retained "
        "topics from the beginning (instead of stopping)",
    )
    worker.set_defaults(func=cmd_worker)

    sidecar = sub.add_parser("sidecar", help="the HTTP sidecar: context lookups, ingest, memory controls, metrics")
    sidecar.set_defaults(func=cmd_sidecar)

    keys = sub.add_parser("keys", help="the sidecar's API keys (stored hashed in SLOTSTREAM_KEYS_FILE)")
    keys_sub = keys.add_subparsers(dest="keys_command", required=True)
    kcreate = keys_sub.add_parser("create", help="make a key and print it once")
    kcreate.add_argument("--tenant", required=True)
    kcreate.add_argument("--scopes", default="read,write", help="comma-separated: read, write, admin")
    kcreate.add_argument("--roles", default="", help="comma-separated roles the key's caller has")
    kcreate.add_argument("--name", default="")
    kcreate.set_defaults(func=cmd_keys)
    krevoke = keys_sub.add_parser("revoke", help="revoke a key by its id")
    krevoke.add_argument("key_id")
    krevoke.set_defaults(func=cmd_keys)
    klist = keys_sub.add_parser("list", help="the keys (ids, tenants, scopes; never the keys)")
    klist.set_defaults(func=cmd_keys)

    sett = sub.add_parser("settings", help="every SLOTSTREAM_* setting with its value (secrets masked)")
    sett.add_argument("--reveal", action="store_true", help="show secret settings in clear")
    sett.set_defaults(func=cmd_settings)

    topics = sub.add_parser("topics", help="Kafka topics")
    topics_sub = topics.add_subparsers(dest="topics_command", required=True)
    tcreate = topics_sub.add_parser("create", help="create the topics and set their configs (idempotent)")
    tcreate.set_defaults(func=cmd_topics)
    tdescribe = topics_sub.add_parser("describe", help="partitions, retention and compaction as the broker has them")
    tdescribe.set_defaults(func=cmd_topics)

    state = sub.add_parser("state", help="the slot state in Redis")
    state_sub = state.add_subparsers(dest="state_command", required=True)
    sdigest = state_sub.add_parser("digest", help="a deterministic digest of a namespace's state, with counts")
    sdigest.add_argument("--namespace", default=None, help="default: the namespace serving SLOTSTREAM_NAMESPACE")
    sdigest.set_defaults(func=cmd_state_digest)

    ns = sub.add_parser("namespace", help="Redis namespaces that hold pipeline state")
    ns_sub = ns.add_subparsers(dest="namespace_command", required=True)
    ns_sub.add_parser("list", help="each namespace with its size and digest").set_defaults(func=cmd_namespace)
    ndrop = ns_sub.add_parser("drop", help="delete a namespace that is not in use")
    ndrop.add_argument("name")
    ndrop.add_argument("--yes", action="store_true", help="really delete it")
    ndrop.set_defaults(func=cmd_namespace)

    rep = sub.add_parser("replay", help="rebuild a new namespace from the retained topics (docs/replay.md)")
    rep.add_argument("--namespace", required=True, help="the namespace to build (never the live one)")
    rep.add_argument(
        "--from",
        dest="start",
        action="append",
        help="beginning (default), an ISO-8601 time, or offsets role:partition=offset,... (repeatable)",
    )
    rep.add_argument("--to", dest="end", action="append", help="now (default), a time, or offsets as for --from")
    rep.add_argument(
        "--re-extract",
        action="store_true",
        help="re-extract the turns with the current extractor (default: apply the logged extracted ops)",
    )
    rep.add_argument("--processes", type=int, default=1, help="processes sharing the partitions (default 1)")
    rep.add_argument("--batch-size", type=int, default=None, help="messages per batch (default SLOTSTREAM_BATCH_SIZE)")
    rep.add_argument("--part", default=None, help=argparse.SUPPRESS)  # one process of a parallel replay: i/K
    rep.set_defaults(func=cmd_replay)

    prom = sub.add_parser("promote", help="switch readers and workers to a namespace a replay built (docs/replay.md)")
    prom.add_argument("target", help="the namespace to serve from now on")
    prom.add_argument(
        "--timeout", type=float, default=60.0, help="seconds to wait for the live processors to pause (default 60)"
    )
    prom.set_defaults(func=cmd_promote)

    scen = sub.add_parser("scenario", help="scenario files (docs/scenarios.md)")
    scen_sub = scen.add_subparsers(dest="scenario_command", required=True)
    srun = scen_sub.add_parser("run", help="run scenario files into a fresh namespace each")
    srun.add_argument("files", nargs="+", type=Path)
    srun.add_argument("--via", choices=["direct", "kafka"], default="direct")
    srun.set_defaults(func=cmd_scenario_run)

    ev = sub.add_parser("eval", help="external conformance material")
    ev_sub = ev.add_subparsers(dest="eval_command", required=True)
    sb = ev_sub.add_parser("statebench", help="StateBench timelines through the engine")
    sb.add_argument("files", nargs="+", type=Path)
    sb.add_argument("--track", action="append", help="only these tracks (repeatable)")
    sb.add_argument("--verbose", "-v", action="store_true", help="print each failing query")
    sb.add_argument(
        "--turns",
        action="store_true",
        help="also run the user's conversation turns through the rule extractor, beside the structured writes",
    )
    sb.set_defaults(func=cmd_eval_statebench)
    ph = ev_sub.add_parser("phrasings", help="rule-extractor recall and false positives on the phrasing corpus")
    ph.add_argument("--corpus", type=Path, default=None, help="corpus directory (default tests/corpus/phrasings)")
    ph.add_argument("--split", choices=["all", "dev", "holdout"], default="all", help="which lines (default all)")
    ph.add_argument("--verbose", "-v", action="store_true", help="print each missed dev line and dev false positive")
    ph.add_argument(
        "--show-holdout",
        action="store_true",
        help="also print the held-out misses and false positives (asked explicitly)",
    )
    ph.set_defaults(func=cmd_eval_phrasings)
    ed = ev_sub.add_parser("everyday", help="rule-extractor recall and false positives on the everyday corpus")
    ed.add_argument("--corpus", type=Path, default=None, help="corpus directory (default tests/corpus/everyday)")
    ed.add_argument("--split", choices=["all", "dev", "holdout"], default="all", help="which lines (default all)")
    ed.add_argument("--verbose", "-v", action="store_true", help="print each missed dev line and dev false positive")
    ed.set_defaults(func=cmd_eval_everyday)
    rk = ev_sub.add_parser("ranking", help="do everyday memories reach the requests they matter to (small budgets)")
    rk.add_argument("--requests", type=Path, default=None, help="request set (default tests/corpus/everyday)")
    rk.add_argument("--split", choices=["all", "dev", "holdout"], default="all", help="which lines (default all)")
    rk.add_argument("--verbose", "-v", action="store_true", help="print each dev miss with what was used instead")
    rk.set_defaults(func=cmd_eval_ranking)

    bench = sub.add_parser("bench", help="benchmarks that print figures")
    bench_sub = bench.add_subparsers(dest="bench_command", required=True)
    be = bench_sub.add_parser("engine", help="apply throughput and context latency")
    be.add_argument("--sizes", type=int, nargs="+", default=[10, 100, 1000, 10000])
    be.add_argument("--rounds", type=int, default=3, help="each context row this many times; medians printed")
    be.add_argument(
        "--read-whole-up-to", type=int, default=None, help="read scopes whole up to this many rows (default 128)"
    )
    be.add_argument("--requests", type=int, default=2000, help="context requests per size")
    be.add_argument("--ops", type=int, default=50000, help="ops for the apply throughput run")
    be.set_defaults(func=cmd_bench_engine)
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
    bp.set_defaults(func=cmd_bench_pipeline)
    br = bench_sub.add_parser("replay", help="replay rate (ops, turns; 1 and 2 processes) and promote latency")
    br.add_argument("--turns", type=int, default=20000)
    br.add_argument("--processes", type=int, nargs="+", default=[1, 2])
    br.add_argument("--rounds", type=int, default=3, help="each figure this many times; medians are printed")
    br.set_defaults(func=cmd_bench_replay)
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
    bs.set_defaults(func=cmd_bench_sidecar)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from slotstream.streams.errors import TimelineUnwritable

    try:
        return int(args.func(args) or 0)
    except (SettingsError, TimelineUnwritable) as err:
        print(f"slotstream: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
