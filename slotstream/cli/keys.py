"""`slotstream keys create|revoke|list`: the sidecar's API keys; `slotstream keys rotate-master`:
users' data keys wrapped again with a new master key."""

from __future__ import annotations

import argparse
import sys

from slotstream.config.settings import Settings

from .common import Subparsers, operator_settings


def register(sub: Subparsers) -> None:
    keys = sub.add_parser("keys", help="the sidecar's API keys (stored hashed in SLOTSTREAM_KEYS_FILE)")
    keys_sub = keys.add_subparsers(dest="keys_command", required=True)
    create = keys_sub.add_parser("create", help="make a key and print it once")
    create.add_argument("--tenant", required=True)
    create.add_argument("--scopes", default="read,write", help="comma-separated: read, write, admin")
    create.add_argument("--roles", default="", help="comma-separated roles the key's caller has")
    create.add_argument("--name", default="")
    create.set_defaults(func=cmd_create)
    revoke = keys_sub.add_parser("revoke", help="revoke a key by its id")
    revoke.add_argument("key_id")
    revoke.set_defaults(func=cmd_revoke)
    keys_sub.add_parser("list", help="the keys (ids, tenants, scopes; never the keys)").set_defaults(func=cmd_list)
    rotate = keys_sub.add_parser(
        "rotate-master",
        help="wrap every user's data key with the first master key, while the pipeline runs",
        description="Names the first master key (SLOTSTREAM_MASTER_KEY's first, or the master key "
        "file's first line) as the one new data keys are wrapped with, then wraps every user's data "
        "key with it, in Redis and in the keys topic. Exit 0 once no data key needs another master key.",
    )
    rotate.add_argument(
        "--generate",
        action="store_true",
        help="first make a new master key and put it first in the master key file (the old ones kept after it)",
    )
    rotate.add_argument(
        "--retire",
        action="store_true",
        help="once complete, remove every other master key from the master key file",
    )
    rotate.set_defaults(func=cmd_rotate_master)


def cmd_create(args: argparse.Namespace) -> int:
    from slotstream.sidecar.keys import create_key

    settings = Settings.from_env()
    scopes = [s.strip() for s in args.scopes.split(",") if s.strip()]
    roles = [r.strip() for r in (args.roles or "").split(",") if r.strip()]
    key_id, key = create_key(settings.keys_file, args.tenant, scopes, roles, args.name)
    print(key)  # shown once: only its hash is kept
    print(f"key id {key_id}, tenant {args.tenant}, scopes {','.join(scopes)} -> {settings.keys_file}", file=sys.stderr)
    return 0


def cmd_revoke(args: argparse.Namespace) -> int:
    from slotstream.sidecar.keys import revoke_key

    found = revoke_key(Settings.from_env().keys_file, args.key_id)
    print("revoked" if found else "no such key (or already revoked)")
    return 0 if found else 1


def cmd_list(args: argparse.Namespace) -> int:
    from slotstream.sidecar.keys import list_keys

    for entry in list_keys(Settings.from_env().keys_file):
        state = "revoked" if entry.get("revoked_at") else "active"
        print(
            f"{entry['id']}  {entry['tenant']:<20} {','.join(entry['scopes']):<18} {state:<8} {entry.get('name', '')}"
        )
    return 0


def cmd_rotate_master(args: argparse.Namespace) -> int:
    from slotstream.config.errors import SettingsError
    from slotstream.config.master_key import add_master_key, keep_only_first_master_key, user_keys
    from slotstream.memory.sealing import fingerprint
    from slotstream.ops.master_rotation import RotationReport, rotate
    from slotstream.state.client import connect
    from slotstream.streams.producer import SlotstreamProducer
    from slotstream.streams.topics import KEYS

    settings = operator_settings("keys rotate-master")
    if settings is None:
        return 2
    assert settings.redis_url and settings.kafka_bootstrap
    try:
        if args.generate:
            print(f"new master key {fingerprint(add_master_key(settings))} put first in {settings.master_key_file}")
        keys = user_keys(settings, connect(settings.redis_url))
    except SettingsError as err:
        print(f"slotstream keys rotate-master: {err}", file=sys.stderr)
        return 2
    producer = SlotstreamProducer(settings.kafka_bootstrap, settings.topic_prefix)

    def progress(report: RotationReport) -> None:
        print(
            f"pass {report.passes}: {report.users} users, {report.keys} data keys, "
            f"{report.rewrapped} wrapped again so far, {report.erased_meanwhile} erased meanwhile",
            flush=True,
        )

    print(f"wrapping every data key with master key {keys.ring.first}", flush=True)
    try:
        report = rotate(
            keys,
            lambda key, stored: producer.send_raw(KEYS, key, stored),
            lambda: producer.flush(),
            progress=progress,
        )
    finally:
        producer.close()
        keys.r.close()
    if not report.complete:
        left = ", ".join(f"{n} under {fp}" for fp, n in sorted(report.left.items()))
        print(f"not complete: {left}; run it again (a process without the new key still creates keys?)")
        return 1
    retired = [fp for fp in keys.ring.by_fingerprint if fp != report.wrapping]
    print(f"complete: every data key is wrapped with {report.wrapping}")
    if retired and args.retire:
        try:
            gone = keep_only_first_master_key(settings)
        except SettingsError as err:
            print(f"slotstream keys rotate-master: {err}", file=sys.stderr)
            return 2
        print(f"retired from {settings.master_key_file}: {', '.join(fingerprint(k) for k in gone)}")
    elif retired:
        print(f"no data key needs {', '.join(retired)} any more: it can be retired")
    return 0
