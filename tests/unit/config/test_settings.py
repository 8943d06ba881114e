"""Settings from SLOTSTREAM_* variables: typed, bounded, secrets masked, errors naming the variable."""

from __future__ import annotations

import pytest

from slotstream.config.settings import Settings, env_names
from slotstream.errors import SettingsError


def test_values_are_typed_and_defaults_hold() -> None:
    s = Settings.from_env(
        {"SLOTSTREAM_PARTITIONS": "8", "SLOTSTREAM_BATCH_WAIT": "0.5", "SLOTSTREAM_TOPIC_PREFIX": "acme"}
    )
    assert s.partitions == 8 and s.batch_wait == 0.5 and s.namespace == "ss"
    assert s.group == "acme-worker"
    assert Settings.from_env({"SLOTSTREAM_CONSUMER_GROUP": "g1"}).group == "g1"


@pytest.mark.parametrize(
    "var,value",
    [
        ("SLOTSTREAM_PARTITIONS", "four"),
        ("SLOTSTREAM_PARTITIONS", "0"),
        ("SLOTSTREAM_BATCH_WAIT", "-1"),
        ("SLOTSTREAM_NAMESPACE", "a b"),
        ("SLOTSTREAM_OPS_RETENTION_MS", "-5"),
    ],
)
def test_a_bad_value_names_its_variable_and_not_its_value(var: str, value: str) -> None:
    with pytest.raises(SettingsError) as err:
        Settings.from_env({var: value})
    assert var in str(err.value)
    assert f"'{value}'" not in str(err.value)


def test_the_ops_topic_is_kept_forever_by_default_and_retention_is_a_setting() -> None:
    specs = Settings().topic_specs()
    assert specs["ops"].config["retention.ms"] == "-1"
    assert specs["turns"].config["retention.ms"] == str(7 * 24 * 3600 * 1000)
    custom = Settings.from_env({"SLOTSTREAM_TURNS_RETENTION_MS": "-1", "SLOTSTREAM_OPS_RETENTION_MS": "86400000"})
    assert custom.topic_specs()["turns"].config["retention.ms"] == "-1"
    assert custom.topic_specs()["ops"].config["retention.ms"] == "86400000"
    assert {s.config.get("message.timestamp.type") for r, s in specs.items() if r in ("turns", "ops")} == {
        "LogAppendTime"
    }


def test_secrets_are_masked_unless_asked() -> None:
    s = Settings.from_env({"SLOTSTREAM_LLM_API_KEY": "sk-very-secret-value"})
    assert "sk-very-secret-value" not in repr(s) and "sk-very-secret-value" not in str(s.describe())
    assert dict((v, x) for v, x, _ in s.describe(reveal=True))["SLOTSTREAM_LLM_API_KEY"] == "sk-very-secret-value"
    assert s.to_env(reveal=False)["SLOTSTREAM_LLM_API_KEY"] == "**********"


def test_to_env_round_trips() -> None:
    s = Settings.from_env(
        {
            "SLOTSTREAM_REDIS_URL": "redis://h:1/0",
            "SLOTSTREAM_PARTITIONS": "3",
            "SLOTSTREAM_LLM_API_KEY": "k",
            "SLOTSTREAM_MAX_EVENT_SKEW": "12.5",
        }
    )
    again = Settings.from_env(s.to_env())
    assert again == s
    assert set(s.to_env()) <= set(env_names())


def test_replace_validates() -> None:
    s = Settings()
    assert s.replace(partitions=2).partitions == 2
    with pytest.raises(SettingsError):
        s.replace(partitions=0)
