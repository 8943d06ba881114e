"""`slotstream keys create|revoke|list`: the sidecar's API keys."""

from __future__ import annotations

import argparse
import sys

from slotstream.config.settings import Settings

from .common import Subparsers


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
