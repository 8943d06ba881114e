"""Settings: environment variables prefixed SLOTSTREAM_ (the same names in docker-compose.yml).

Each field's description starts with its variable. A bad value stops the command with an error
that names the variable (never echoing the value); secret settings are `SecretStr`, masked
wherever settings are shown unless asked (`slotstream settings --reveal`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from slotstream.config.errors import SettingsError
from slotstream.state.client import cluster_nodes, is_cluster_url
from slotstream.streams.topics import TopicSpec, topic_names, topic_specs

PREFIX = "SLOTSTREAM_"
DAY_MS = 24 * 3600 * 1000


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix=PREFIX, frozen=True, extra="ignore", env_ignore_empty=True)

    redis_url: str | None = Field(
        None,
        description="SLOTSTREAM_REDIS_URL: redis://host:port/db for one server; "
        "redis+cluster://host:port[,host:port...] (rediss+cluster:// with TLS) for a Redis Cluster, the "
        "nodes the client first asks for the slot map (docs/operating.md); unset: start the embedded local server",
    )
    namespace: str = Field(
        "ss",
        min_length=1,
        max_length=64,
        pattern=r"^[A-Za-z0-9_.\-]+$",
        description="SLOTSTREAM_NAMESPACE: prefix of every Redis key",
    )
    kafka_bootstrap: str | None = Field(None, description="SLOTSTREAM_KAFKA_BOOTSTRAP: unset: start the local broker")
    topic_prefix: str = Field(
        "slotstream",
        min_length=1,
        pattern=r"^[A-Za-z0-9_.\-]+$",
        description="SLOTSTREAM_TOPIC_PREFIX: topics are <prefix>.turns, .ops, .changes, .dlq, .keys, .control "
        "and .history",
    )
    consumer_group: str | None = Field(
        None, description="SLOTSTREAM_CONSUMER_GROUP: the workers' consumer group (default <topic prefix>-worker)"
    )
    partitions: int = Field(4, ge=1, le=1024, description="SLOTSTREAM_PARTITIONS: partitions of each topic")
    turns_retention_ms: int = Field(7 * DAY_MS, ge=-1, description="SLOTSTREAM_TURNS_RETENTION_MS: -1 keeps forever")
    ops_retention_ms: int = Field(
        -1,
        ge=-1,
        description="SLOTSTREAM_OPS_RETENTION_MS: the log a rebuild or a "
        "replay reads; -1 (the default) keeps it forever",
    )
    changes_retention_ms: int = Field(7 * DAY_MS, ge=-1, description="SLOTSTREAM_CHANGES_RETENTION_MS")
    dlq_retention_ms: int = Field(30 * DAY_MS, ge=-1, description="SLOTSTREAM_DLQ_RETENTION_MS")
    compaction_lag_ms: int = Field(
        3_600_000,
        ge=1000,
        description="SLOTSTREAM_COMPACTION_LAG_MS: the keys and control topics are compacted within this "
        "long of a write (a shredded data key leaves the broker's disks within it)",
    )
    batch_size: int = Field(1000, ge=1, le=100_000, description="SLOTSTREAM_BATCH_SIZE: events per processor batch")
    batch_wait: float = Field(0.01, ge=0, description="SLOTSTREAM_BATCH_WAIT: seconds a partial batch waits for more")
    expiry_interval: float = Field(1.0, gt=0, description="SLOTSTREAM_EXPIRY_INTERVAL: seconds between sweeps")
    session_timeout: float = Field(
        10.0,
        ge=1,
        description="SLOTSTREAM_SESSION_TIMEOUT: seconds before a dead worker's partitions move to the others",
    )
    workers: int = Field(1, ge=0, le=64, description="SLOTSTREAM_WORKERS: worker processes `slotstream run` starts")
    runtime: Literal["faust", "lean"] = Field(
        "lean",
        description="SLOTSTREAM_RUNTIME: what moves a worker's records: lean (aiokafka's consumer and producer "
        "directly) or faust (Faust's agents); the same processors and guarantees (docs/operating.md). Every "
        "worker of a consumer group runs the same one",
    )
    max_event_skew: float = Field(
        300.0,
        ge=0,
        description="SLOTSTREAM_MAX_EVENT_SKEW: seconds an input's event time "
        "may lead its ingest time; later is refused",
    )
    change_log_max: int = Field(
        200,
        ge=0,
        le=1_000_000,
        description="SLOTSTREAM_CHANGE_LOG_MAX: change-log entries (an op's changes each) Redis keeps per user, "
        "the newest (the changes topic carries every change)",
    )
    history_hot: int = Field(
        0,
        ge=0,
        le=1_000_000,
        description="SLOTSTREAM_HISTORY_HOT: retired versions of a slot (superseded, retracted, forgotten) kept "
        "whole among a user's records, the newest; older ones are compressed into the user's cold history",
    )
    history_archive_after: int = Field(
        64,
        ge=0,
        le=100_000,
        description="SLOTSTREAM_HISTORY_ARCHIVE_AFTER: records a user's cold history holds before they move to the "
        "history topic, out of Redis (0: the cold history stays in Redis)",
    )
    ledger_window: float = Field(
        7 * 86_400.0,
        ge=0,
        description="SLOTSTREAM_LEDGER_WINDOW: seconds of event time the op ledger remembers an op id for, "
        "counted back from the user's newest event; an op the ledger no longer knows from before that is "
        "refused (beyond_ledger_window). 0: remember every op id",
    )
    data_dir: str = Field("var", description="SLOTSTREAM_DATA_DIR: where the embedded Redis and Kafka keep data")
    profile: str | None = Field(None, description="SLOTSTREAM_PROFILE: a worker writes cProfile dumps here")
    batch_timeline: str | None = Field(
        None,
        description="SLOTSTREAM_BATCH_TIMELINE: a worker appends a line per batch here "
        "(its stages' times; streams/runtimes/timeline.py)",
    )
    fault_markers: str | None = Field(
        None,
        description="SLOTSTREAM_FAULT_MARKERS: fault tests only: a message "
        "whose payload contains one of these comma-separated "
        "strings fails inside its processor, as a bug would",
    )
    sidecar_host: str = Field("127.0.0.1", description="SLOTSTREAM_SIDECAR_HOST: the address the sidecar listens on")
    sidecar_port: int = Field(8700, ge=1, le=65535, description="SLOTSTREAM_SIDECAR_PORT")
    sidecar_workers: int = Field(2, ge=1, le=64, description="SLOTSTREAM_SIDECAR_WORKERS: server processes")
    sidecar_header_timeout: float = Field(
        10.0,
        gt=0,
        le=300,
        description="SLOTSTREAM_SIDECAR_HEADER_TIMEOUT: seconds a connection has to send a request's headers",
    )
    sidecar_max_connections: int = Field(
        1000,
        ge=1,
        description="SLOTSTREAM_SIDECAR_MAX_CONNECTIONS: open connections per server process; one more is "
        "answered 503 too_many_connections",
    )
    sidecar_read: Literal["async", "thread"] = Field(
        "async",
        description="SLOTSTREAM_SIDECAR_READ: context reads: async Redis on the event loop, or a thread pool",
    )
    context_cache_records: int = Field(
        200_000,
        ge=0,
        description="SLOTSTREAM_CONTEXT_CACHE_RECORDS: parsed records a sidecar process keeps between "
        "context lookups (about 0.5 KiB each); 0: read every time",
    )
    keys_file: str = Field("var/keys.json", description="SLOTSTREAM_KEYS_FILE: the sidecar's API keys, hashed")
    api_keys: str = Field(
        "",
        description="SLOTSTREAM_API_KEYS: more keys as a JSON list of entries like the keys file's "
        "(hashed), for containers without a keys file",
    )
    rate_limit: float = Field(
        2000.0, gt=0, description="SLOTSTREAM_RATE_LIMIT: requests/s per tenant, every sidecar process together"
    )
    rate_burst: float = Field(4000.0, ge=1, description="SLOTSTREAM_RATE_BURST: requests a tenant may send at once")
    ingest_rate: float = Field(
        200.0,
        gt=0,
        description="SLOTSTREAM_INGEST_RATE: turns and ops/s a tenant may produce, every sidecar process together",
    )
    ingest_burst: float = Field(
        1000.0,
        ge=1,
        description="SLOTSTREAM_INGEST_BURST: turns and ops a tenant may produce at once (a request of more is "
        "refused 413)",
    )
    max_body_bytes: int = Field(1_048_576, ge=1024, description="SLOTSTREAM_MAX_BODY_BYTES: larger requests get 413")
    master_key: SecretStr | None = Field(
        None,
        description="SLOTSTREAM_MASTER_KEY: base64 of 32 bytes: wraps the users' data keys (docs/operating.md); "
        "every process of a deployment needs the same one",
    )
    master_key_file: str = Field(
        "var/master.key",
        description="SLOTSTREAM_MASTER_KEY_FILE: read when SLOTSTREAM_MASTER_KEY is unset; created (0600) on first use",
    )
    llm_url: str | None = Field(None, description="SLOTSTREAM_LLM_URL: OpenAI-compatible endpoint; unset: no LLM")
    llm_model: str | None = Field(None, description="SLOTSTREAM_LLM_MODEL: required with SLOTSTREAM_LLM_URL")
    llm_timeout: float = Field(10.0, gt=0, description="SLOTSTREAM_LLM_TIMEOUT: seconds per model request")
    llm_api_key: SecretStr | None = Field(None, description="SLOTSTREAM_LLM_API_KEY: the model service's key")

    @field_validator("redis_url")
    @classmethod
    def _redis_url_parses(cls, url: str | None) -> str | None:
        """A cluster URL is checked node by node when the settings are read: a malformed one would
        otherwise leave the client waiting for nodes it cannot reach. (A single server's URL is
        parsed by redis-py when the client is built.)"""
        if url is not None and is_cluster_url(url):
            cluster_nodes(url)
        return url

    @property
    def group(self) -> str:
        return self.consumer_group or f"{self.topic_prefix}-worker"

    @property
    def topics(self) -> dict[str, str]:
        """Topic name per role (turns, ops, changes, dlq)."""
        return topic_names(self.topic_prefix)

    def engine_options(self) -> dict[str, Any]:
        """The state engine's write settings (state/engine.py `Engine`), for every process that applies."""
        return {
            "change_log_max": self.change_log_max,
            "ledger_window_s": self.ledger_window,
            "history_hot": self.history_hot,
            "archive_after": self.history_archive_after or 1,
        }

    def topic_specs(self) -> dict[str, TopicSpec]:
        return topic_specs(self.topic_prefix, self.partitions, self.retention_ms, self.compaction_lag_ms)

    @property
    def retention_ms(self) -> dict[str, int]:
        """Per topic role, as the topic specs take it."""
        return {
            "turns": self.turns_retention_ms,
            "ops": self.ops_retention_ms,
            "changes": self.changes_retention_ms,
            "dlq": self.dlq_retention_ms,
        }

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """From the process environment, or from `env` alone; SettingsError names a bad variable."""
        try:
            if env is None:
                return cls()
            values = {name: env[var] for name, var in zip(cls.model_fields, env_names(), strict=False) if env.get(var)}
            return cls.model_validate(values)
        except ValidationError as err:
            raise SettingsError(_describe_errors(err)) from None

    def replace(self, **changes: Any) -> Settings:
        """A copy with `changes`, validated like the environment's values."""
        try:
            return type(self).model_validate({**self.model_dump(), **changes})
        except ValidationError as err:
            raise SettingsError(_describe_errors(err)) from None

    def to_env(self, reveal: bool = True) -> dict[str, str]:
        """The SLOTSTREAM_* variables that reproduce these settings (for child processes)."""
        out: dict[str, str] = {}
        for name, var in zip(type(self).model_fields, env_names(), strict=False):
            value = getattr(self, name)
            if value is None:
                continue
            if isinstance(value, SecretStr):
                out[var] = value.get_secret_value() if reveal else "**********"
            else:
                out[var] = str(value)
        return out

    def describe(self, reveal: bool = False) -> list[tuple[str, str, str]]:
        """(variable, value, description) for every setting; secrets masked unless `reveal`."""
        env = self.to_env(reveal=reveal)
        rows = []
        for name, var in zip(type(self).model_fields, env_names(), strict=False):
            info = type(self).model_fields[name]
            text = (info.description or "").split(": ", 1)[-1] if ": " in (info.description or "") else ""
            rows.append((var, env.get(var, "(unset)"), text))
        return rows


def env_names() -> list[str]:
    return [f"{PREFIX}{name.upper()}" for name in Settings.model_fields]


def _describe_errors(err: ValidationError) -> str:
    parts = []
    for e in err.errors(include_input=False, include_url=False):
        field = str(e["loc"][0]) if e.get("loc") else "?"
        parts.append(f"{PREFIX}{field.upper()}: {e['msg']}")
    return "bad setting: " + "; ".join(parts)
