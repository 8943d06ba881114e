"""`slotstream bench lua-calls`: how many Redis commands apply.lua runs per applied op, by command,
on the apply bench's ops.

The engine's apply script is wrapped (in this process only) so that each `redis.call` is counted;
the counts are added up in a hash of the namespace and printed per op. A server call costs the
script about 1–2.5 µs on a 2-core machine, so the count is most of its time. `--by-key` counts each
command by the kind of key it names instead (the part of the key after the user's prefix:
`HSET rec`, `ZADD ixt`, ...).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

import redis

from slotstream.config.settings import Settings
from slotstream.local.redis_server import configured_or_local
from slotstream.state import engine as engine_module
from slotstream.state.engine import Engine
from slotstream.state.namespaces import drop_namespace

from .engine import apply_bench_ops

BATCH, USERS = 500, 1000

# apply.lua's body run with a `redis` whose `call` first runs `watch` (Lua, with `command` and `...`
# the call's), then the real call; `after` runs once the body has returned `reply`
WATCHED = """
local real_call = redis.call
%s
local function watched_call(command, ...)
%s
  return real_call(command, ...)
end
local function body()
  local redis = {call = watched_call, sha1hex = redis.sha1hex}
%s
end
local reply = body()
%s
return reply
"""

# a call's name when counted by key: the command and the key's kind, the word after the user's
# prefix (which ends with its hash tag's closing brace); a key without one is named whole
BY_KEY = """  local key = select(1, ...) or ''
  local name = command .. ' ' .. (string.match(key, '}:(%a+)') or key)
  counts[name] = (counts[name] or 0) + 1"""
BY_COMMAND = "  counts[command] = (counts[command] or 0) + 1"
# the counts go to `KEYS[1]`'s namespace marker hash (the script's one declared key stays its only one)
SAVE_COUNTS = "for command, n in pairs(counts) do real_call('HINCRBY', KEYS[1] .. ':calls', command, n) end"


@contextmanager
def apply_script_watched(setup: str, watch: str, after: str) -> Iterator[None]:
    """Engines made inside run apply.lua wrapped (in this process only): `setup` once a call, `watch`
    before each server call, `after` at the end (all Lua)."""
    original = engine_module._script
    wrapped = WATCHED % (setup, watch, original("apply.lua"), after)
    engine_module._script = lambda name: wrapped if name == "apply.lua" else original(name)
    try:
        yield
    finally:
        engine_module._script = original


def count_calls(client: redis.Redis, n_ops: int, by_key: bool = False) -> dict[str, int]:
    """The server calls apply.lua made applying `n_ops` of the apply bench's ops, by name."""
    with apply_script_watched("local counts = {}", BY_KEY if by_key else BY_COMMAND, SAVE_COUNTS):
        engine = Engine(client, namespace=f"calls{time.time_ns()}")
        ops = apply_bench_ops(n_ops, USERS)
        for first in range(0, n_ops, BATCH):
            engine.apply_many(ops[first : first + BATCH])
    counts: dict[str, int] = {}
    for key in client.scan_iter(match=f"{engine.keys.namespace}:*:calls"):
        for command, n in client.hgetall(key).items():
            name = command.decode() if isinstance(command, bytes) else command
            counts[name] = counts.get(name, 0) + int(n)
    drop_namespace(client, engine.keys.namespace)
    return counts


def run_lua_calls(settings: Settings, n_ops: int, by_key: bool = False) -> int:
    with configured_or_local(settings) as client:
        counts = count_calls(client, n_ops, by_key)
    print(f"{sum(counts.values()) / n_ops:.1f} server calls per op in apply.lua")
    for command, n in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        print(f"  {command:14} {n / n_ops:.2f}" if by_key else f"  {command:8} {n / n_ops:.2f}")
    return 0
