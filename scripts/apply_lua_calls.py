"""How many Redis commands apply.lua runs per applied op, by command, on the apply bench's ops.

The engine's apply script is wrapped (in this process only) so that each `redis.call` is counted;
the counts are added up in a hash of the namespace and printed per op. Each server call costs the
script about 1–2.5 µs on this machine, so the count is most of its time (docs/BENCHMARKS.md,
"Apply"). `--by-key` counts each command by the kind of key it names instead (the part of the key
after the user's prefix: `HSET rec`, `ZADD ixt`, ...). Usage:

    python scripts/apply_lua_calls.py REDIS_URL [OPS] [--by-key]
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

from slotstream.bench import apply_bench_ops
from slotstream.state import engine as engine_module
from slotstream.state.client import connect
from slotstream.state.engine import Engine

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


# a call's name when counted by key: the command and the key's kind, the word after the user's
# prefix (which ends with its hash tag's closing brace); a key without one is named whole
BY_KEY = """  local key = select(1, ...) or ''
  local name = command .. ' ' .. (string.match(key, '}:(%a+)') or key)
  counts[name] = (counts[name] or 0) + 1"""


def main(url: str, n_ops: int, by_key: bool = False) -> None:
    # the counts go to `KEYS[1]`'s namespace marker hash (the script's one declared key stays its only one)
    counting = apply_script_watched(
        "local counts = {}",
        BY_KEY if by_key else "  counts[command] = (counts[command] or 0) + 1",
        "for command, n in pairs(counts) do real_call('HINCRBY', KEYS[1] .. ':calls', command, n) end",
    )
    client = connect(url)
    with counting:
        engine = Engine(client, namespace=f"calls{time.time_ns()}")
        ops = apply_bench_ops(n_ops, USERS)
        for first in range(0, n_ops, BATCH):
            engine.apply_many(ops[first : first + BATCH])
    counts: dict[str, int] = {}
    for key in client.scan_iter(match=f"{engine.keys.namespace}:*:calls"):
        for command, n in client.hgetall(key).items():
            counts[command.decode()] = counts.get(command.decode(), 0) + int(n)
    print(f"{sum(counts.values()) / n_ops:.1f} server calls per op in apply.lua")
    for command, n in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        print(f"  {command:14} {n / n_ops:.2f}" if by_key else f"  {command:8} {n / n_ops:.2f}")


if __name__ == "__main__":
    by_key = "--by-key" in sys.argv[1:]
    positional = [arg for arg in sys.argv[1:] if arg != "--by-key"]
    if len(positional) not in (1, 2):
        sys.exit("usage: apply_lua_calls.py REDIS_URL [OPS] [--by-key]")
    main(positional[0], int(positional[1]) if len(positional) == 2 else 20_000, by_key)
