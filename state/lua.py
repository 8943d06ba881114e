"""Lua scripts called by SHA inside pipelines.

redis-py's `Script` objects make every pipeline that contains them ask `SCRIPT EXISTS` first: one
more round trip per batch. These are loaded once; a pipeline that meets NOSCRIPT (the server
restarted or flushed its scripts) is rebuilt and sent again after a reload — safe, because every
script here is idempotent (the apply script refuses an op id it has already applied).

On a Redis Cluster each script is sent with a guard in front (`cluster_guarded`): the scripts
declare one key (a user's meta hash) and reach the user's other keys by name, and while
`redis-cli --cluster reshard` moves a hash slot those keys are split between two nodes. A script
that met a key already moved would stop half-way with its earlier writes kept (the server does
not undo them), or, run on the importing node, read a key not moved yet as empty. The guard
refuses the call with TRYAGAIN before it touches anything while the slot of KEYS[1] is moving to
or from this node, and the caller sends it again once the slot has moved (a slot with a few
users' keys moves in milliseconds).
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from typing import Any

import hiredis
import redis
from redis.exceptions import AskError, ClusterDownError, ClusterError, NoScriptError, TryAgainError

# One line, put in front of a script's first line (its error messages keep their line numbers).
# The server checks every key a script names against the slot's state as it checks a client's: on
# the node migrating the slot a key it lacks is elsewhere, on the node importing it (reached with
# ASKING) several keys not all there must wait. Two keys of KEYS[1]'s hash slot (its hash tag: every
# key here has one) that never exist fail that check exactly while the slot is moving, and
# nowhere else; one EXISTS, whatever the size of the cluster.
CLUSTER_GUARD = (
    "if #KEYS > 0 then local probed = redis.pcall('EXISTS', KEYS[1] .. ':slot-move-probe-1', "
    "KEYS[1] .. ':slot-move-probe-2') if type(probed) == 'table' and probed.err then "
    "return redis.error_reply('TRYAGAIN the hash slot of ' .. KEYS[1] .. ' is moving between nodes') end end "
)
# How long a write waits, sending again, for a hash slot to finish moving before it gives the
# error to its caller (the worker then backs off and retries the batch, as for any outage).
SLOT_MOVE_WAIT = 30.0
SLOT_MOVE_PAUSE = 0.02  # the first pause; doubled up to SLOT_MOVE_PAUSE_MAX
SLOT_MOVE_PAUSE_MAX = 0.5


def cluster_guarded(source: str) -> str:
    """`source` with the guard in front: what is loaded on a Redis Cluster."""
    return CLUSTER_GUARD + source


def slot_moving(err: BaseException) -> bool:
    """A reply meaning a hash slot is moving: TRYAGAIN (the guard's, or the server's for keys split
    between nodes), a redirection the client's own hops did not settle, or the client's retries
    used up on them ("TTL exhausted"). A cluster down is an outage, not a move."""
    if isinstance(err, ClusterDownError):
        return False
    return isinstance(err, (TryAgainError, AskError, ClusterError))


def is_cluster_client(client: Any) -> bool:
    return not isinstance(client, redis.Redis)  # redis-py's cluster clients are not Redis subclasses


class SlotMoveWait:
    """Pauses between sends of a command refused while its hash slot moves; False once
    SLOT_MOVE_WAIT has passed since the first refusal (the caller then raises the error)."""

    def __init__(self) -> None:
        self.deadline: float | None = None
        self.pause = SLOT_MOVE_PAUSE

    def again(self) -> bool:
        now = time.monotonic()
        if self.deadline is None:
            self.deadline = now + SLOT_MOVE_WAIT
        if now >= self.deadline:
            return False
        time.sleep(min(self.pause, self.deadline - now))
        self.pause = min(self.pause * 2, SLOT_MOVE_PAUSE_MAX)
        return True


@dataclass(frozen=True, slots=True)
class ScriptText:
    """A script's source and its SHA, for callers that queue EVALSHA themselves (the async reader)."""

    source: str
    sha: str

    @classmethod
    def named(cls, name: str) -> ScriptText:
        return cls.of(script_source(name))

    @classmethod
    def of(cls, source: str) -> ScriptText:
        return cls(source, hashlib.sha1(source.encode()).hexdigest())

    def guarded(self) -> ScriptText:
        """The script as sent to a Redis Cluster (module docstring)."""
        return ScriptText.of(cluster_guarded(self.source))


# scripts that read stored records or suppressions start with the functions that read their forms
_PRELUDES = {
    "load.lua": ("stored.lua",),
    "records.lua": ("stored.lua",),
    "apply.lua": ("suppressed.lua",),
    "context.lua": ("suppressed.lua",),
}


def script_source(name: str) -> str:
    """A script's source, after the shared functions it uses (stored.lua, suppressed.lua)."""
    files = resources.files(__package__)
    preludes = "".join(files.joinpath(prelude).read_text() for prelude in _PRELUDES.get(name, ()))
    return preludes + files.joinpath(name).read_text()


class LuaScript:
    def __init__(self, client: redis.Redis, source: str) -> None:
        """`source` is sent as it is to one server, with the guard in front to a cluster."""
        self.client = client
        self.source = cluster_guarded(source) if is_cluster_client(client) else source
        self.sha = hashlib.sha1(self.source.encode()).hexdigest()
        self._loaded = False  # loaded on first use: building an engine contacts no server

    def reload(self) -> None:
        self.sha = self.client.script_load(self.source)
        self._loaded = True

    def ensure_loaded(self) -> None:
        if not self._loaded:
            self.reload()

    def __call__(self, keys: list[Any], args: list[Any], client: Any = None) -> Any:
        self.ensure_loaded()
        target = client if client is not None else self.client
        if client is not None:  # a pipeline: queued, the reply comes with execute()
            return target.evalsha(self.sha, len(keys), *keys, *args)
        wait = SlotMoveWait()
        while True:
            try:
                try:
                    return target.evalsha(self.sha, len(keys), *keys, *args)
                except NoScriptError:
                    self.reload()
                    return target.evalsha(self.sha, len(keys), *keys, *args)
            except redis.RedisError as err:
                if not (slot_moving(err) and wait.again()):
                    raise


def run_pipeline(client: redis.Redis, build: Callable[[Any], None], scripts: list[LuaScript]) -> list[Any]:
    """Build and execute a non-transactional pipeline; once more after a script reload on NOSCRIPT,
    and again while a hash slot it touches is moving (up to SLOT_MOVE_WAIT)."""
    reloaded = False
    wait = SlotMoveWait()
    while True:
        pipe = client.pipeline(transaction=False)
        build(pipe)
        try:
            return pipe.execute()
        except NoScriptError:
            if reloaded:
                raise
            reloaded = True
            for script in scripts:
                script.reload()
        except redis.RedisError as err:
            if not (slot_moving(err) and wait.again()):
                raise


class ChunkedWrites:
    """Pipelines sent one chunk at a time as the caller builds them, their replies read together
    at the end: Redis runs a chunk's scripts while the caller builds the next one.

    On one server the chunks go out on one connection from the calling thread, and the replies are
    read once every chunk is out. (A thread that sent and waited for each chunk would hand the GIL
    back and forth with the builder: with CPython's 5 ms switch interval, the waits added up to the
    whole Lua time of a batch.) A cluster client routes each command to its slot's node, so there
    each chunk is a pipeline of its own on `writer`, a thread. Every script sent this way must be
    safe to send twice (the apply script refuses an op id it has already applied): the commands
    refused with NOSCRIPT are sent again once the scripts are loaded, those refused while their
    hash slot moves (the cluster guard's TRYAGAIN: nothing was written) once it has moved, and
    after a lost connection every chunk is."""

    def __init__(self, client: redis.Redis, scripts: list[LuaScript], writer: Any) -> None:
        self.client, self.scripts, self.writer = client, scripts, writer
        self.streamed = isinstance(client, redis.Redis)  # a cluster client is not one
        self.chunks: list[list[tuple[Any, ...]]] = []
        self.futures: list[Any] = []
        self.connection: Any = None
        self.lost = False  # the connection failed while sending: every chunk is sent again at the end

    def __enter__(self) -> ChunkedWrites:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.connection is not None:  # left before the replies were read: they never will be
            self._drop_connection()
            self._release()
        # left on an error: no chunk is still on its way when the caller sees it (and maybe retries)
        concurrent.futures.wait(self.futures)

    def send(self, commands: list[tuple[Any, ...]]) -> None:
        """One chunk: each command's words, e.g. ("EVALSHA", sha, 1, key, arg, ...)."""
        for script in self.scripts:
            script.ensure_loaded()
        self.chunks.append(commands)
        if not self.streamed:
            self.futures.append(self.writer.submit(self._again, commands))
            return
        if self.lost or not commands:
            return
        try:
            if self.connection is None:
                self.connection = self.client.connection_pool.get_connection()
            # packed by hiredis directly: redis-py's packer walks every argument again first, which
            # cost more than the packing itself for the apply script's many short arguments
            self.connection.send_packed_command([b"".join(map(hiredis.pack_command, commands))])
        except (redis.ConnectionError, redis.TimeoutError):
            self._drop_connection()
            self.lost = True

    def replies(self) -> list[Any]:
        """Every command's reply in the order sent; raises the first error a command answered with."""
        commands = [command for chunk in self.chunks for command in chunk]
        if not self.streamed:
            replies = [reply for future in self.futures for reply in future.result()]
        else:
            try:
                replies = [] if self.lost or not commands else self._read(commands)
            finally:
                self._release()
            if self.lost:  # nothing read is trusted: everything again, through a pipeline that retries
                replies = self._again(commands)
        missing = [i for i, reply in enumerate(replies) if isinstance(reply, NoScriptError)]
        if missing:
            for script in self.scripts:
                script.reload()
            for i, reply in zip(missing, self._again([commands[i] for i in missing]), strict=True):
                replies[i] = reply
        wait = SlotMoveWait()
        while (
            moving := [i for i, reply in enumerate(replies) if isinstance(reply, Exception) and slot_moving(reply)]
        ) and wait.again():
            for i, reply in zip(moving, self._again([commands[i] for i in moving]), strict=True):
                replies[i] = reply
        for reply in replies:
            # an error reply, or an error the cluster client gave in a reply's place ("TTL exhausted")
            if isinstance(reply, Exception):
                raise reply
        return replies

    def _read(self, commands: list[tuple[Any, ...]]) -> list[Any]:
        out: list[Any] = []
        read = self.connection.read_response  # no reply to these commands needs redis-py's callbacks
        try:
            for _ in commands:
                try:
                    out.append(read())
                except redis.ResponseError as err:
                    out.append(err)
        except (redis.ConnectionError, redis.TimeoutError):
            self._drop_connection()
            self.lost = True
        return out

    def _again(self, commands: list[tuple[Any, ...]]) -> list[Any]:
        """Through an ordinary pipeline (with the client's retries; routed per node on a cluster)."""
        pipe = self.client.pipeline(transaction=False)
        for command in commands:
            pipe.execute_command(*command)
        return pipe.execute(raise_on_error=False)

    def _drop_connection(self) -> None:
        if self.connection is not None:
            self.connection.disconnect()

    def _release(self) -> None:
        if self.connection is not None:
            self.client.connection_pool.release(self.connection)
            self.connection = None
