"""Lua scripts called by SHA inside pipelines.

redis-py's `Script` objects make every pipeline that contains them ask `SCRIPT EXISTS` first: one
more round trip per batch. These are loaded once; a pipeline that meets NOSCRIPT (the server
restarted or flushed its scripts) is rebuilt and sent again after a reload — safe, because every
script here is idempotent (the apply script refuses an op id it has already applied).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from typing import Any

import redis
from redis.exceptions import NoScriptError


@dataclass(frozen=True, slots=True)
class ScriptText:
    """A script's source and its SHA, for callers that queue EVALSHA themselves (the async reader)."""

    source: str
    sha: str

    @classmethod
    def named(cls, name: str) -> ScriptText:
        source = resources.files(__package__).joinpath(name).read_text()
        return cls(source, hashlib.sha1(source.encode()).hexdigest())


class LuaScript:
    def __init__(self, client: redis.Redis, source: str) -> None:
        self.client = client
        self.source = source
        self.sha = hashlib.sha1(source.encode()).hexdigest()
        self._loaded = False  # loaded on first use: building an engine contacts no server

    def reload(self) -> None:
        self.sha = self.client.script_load(self.source)
        self._loaded = True

    def __call__(self, keys: list[Any], args: list[Any], client: Any = None) -> Any:
        if not self._loaded:
            self.reload()
        target = client if client is not None else self.client
        if client is not None:  # a pipeline: queued, the reply comes with execute()
            return target.evalsha(self.sha, len(keys), *keys, *args)
        try:
            return target.evalsha(self.sha, len(keys), *keys, *args)
        except NoScriptError:
            self.reload()
            return target.evalsha(self.sha, len(keys), *keys, *args)


def run_pipeline(client: redis.Redis, build: Callable[[Any], None], scripts: list[LuaScript]) -> list[Any]:
    """Build and execute a non-transactional pipeline; once more after a script reload on NOSCRIPT."""
    for attempt in (1, 2):
        pipe = client.pipeline(transaction=False)
        build(pipe)
        try:
            return pipe.execute()
        except NoScriptError:
            if attempt == 2:
                raise
            for script in scripts:
                script.reload()
    raise AssertionError("unreachable")
