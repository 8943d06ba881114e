"""Settings from environment variables prefixed SLOTSTREAM_ (the same names in docker-compose.yml)."""

from __future__ import annotations

import os
from dataclasses import dataclass, fields


@dataclass(frozen=True)
class Settings:
    redis_url: str | None = None  # SLOTSTREAM_REDIS_URL; unset: start the embedded local server
    namespace: str = "ss"  # SLOTSTREAM_NAMESPACE: prefix of every Redis key
    kafka_bootstrap: str | None = None  # SLOTSTREAM_KAFKA_BOOTSTRAP; unset: start the local broker
    topic_prefix: str = "slotstream"  # SLOTSTREAM_TOPIC_PREFIX
    partitions: int = 4  # SLOTSTREAM_PARTITIONS
    batch_size: int = 500  # SLOTSTREAM_BATCH_SIZE: events per processor batch
    batch_wait: float = 0.01  # SLOTSTREAM_BATCH_WAIT: seconds a partial batch waits for more
    expiry_interval: float = 1.0  # SLOTSTREAM_EXPIRY_INTERVAL: seconds between sweeps
    session_timeout: float = 10.0  # SLOTSTREAM_SESSION_TIMEOUT: seconds before a dead worker's partitions move
    workers: int = 1  # SLOTSTREAM_WORKERS: worker processes `slotstream run` starts
    profile: str | None = None  # SLOTSTREAM_PROFILE: a worker writes a cProfile dump here on exit
    llm_url: str | None = None  # SLOTSTREAM_LLM_URL: OpenAI-compatible endpoint, off when unset
    llm_model: str | None = None  # SLOTSTREAM_LLM_MODEL
    llm_timeout: float | None = None  # SLOTSTREAM_LLM_TIMEOUT: seconds per request (SLOTSTREAM_LLM_API_KEY: the key)
    # SLOTSTREAM_MAX_EVENT_SKEW: seconds an input's event time may lead its ingest time (the Kafka
    # record timestamp); later is refused (event_time_in_future). Replays may trail by any amount.
    max_event_skew: float = 300.0
    data_dir: str = "var"  # SLOTSTREAM_DATA_DIR: where the embedded Redis and Kafka keep their data
    # SLOTSTREAM_FAULT_MARKERS: fault tests only. A message whose payload contains one of these
    # comma-separated strings fails inside its processor, as a bug would.
    fault_markers: str | None = None

    @property
    def consumer_group(self) -> str:
        return f"{self.topic_prefix}-worker"

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> "Settings":
        env = os.environ if env is None else env
        values = {}
        for f in fields(cls):
            raw = env.get(f"SLOTSTREAM_{f.name.upper()}")
            if raw is None or raw == "":
                continue
            kind = str(f.type)
            values[f.name] = int(raw) if kind.startswith("int") else float(raw) if kind.startswith("float") else raw
        return cls(**values)


def env_names() -> list[str]:
    return [f"SLOTSTREAM_{f.name.upper()}" for f in fields(Settings)]
