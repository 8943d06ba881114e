"""A `redis+cluster://` URL is read node by node (state/client.py): a malformed one is refused at
once, naming what is wrong and never repeating the URL's text, instead of leaving a client to wait
for nodes it cannot reach; the settings refuse it when they are read."""

from __future__ import annotations

import pytest

from slotstream.config.settings import Settings
from slotstream.errors import SettingsError
from slotstream.state.client import cluster_nodes


def test_nodes_ports_and_options_are_read() -> None:
    nodes, options = cluster_nodes("rediss+cluster://app:s%40cret@10.0.0.1:7000,10.0.0.2:7001/0")
    assert nodes == [("10.0.0.1", 7000), ("10.0.0.2", 7001)]
    assert options == {"username": "app", "password": "s@cret", "ssl": True}
    nodes, options = cluster_nodes("redis+cluster://[::1]:7000, cache-3 ,[fe80::1]")
    assert nodes == [("::1", 7000), ("cache-3", 6379), ("fe80::1", 6379)]
    assert options == {}


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("redis+cluster://", "at least one node"),
        ("redis+cluster://user:pw@", "at least one node"),
        ("redis+cluster://:7000", "node 1 needs a host"),
        ("redis+cluster://user:hunter2@:7000", "node 1 needs a host"),
        ("redis+cluster://127.0.0.1:7000,,127.0.0.1:7001", "node 2 is empty"),
        ("redis+cluster://127.0.0.1:7000,", "node 2 is empty"),
        ("redis+cluster://host:notaport", "node 1 needs a port"),
        ("redis+cluster://127.0.0.1:7000,127.0.0.1:99999", "node 2 needs a port"),
        ("redis+cluster://127.0.0.1:0", "node 1 needs a port"),
        ("redis+cluster://host:hunter2:7000", "more than one ':'"),
        ("redis+cluster://[::1]7000", "in brackets"),
        ("redis+cluster://[::1", "does not parse"),
        ("redis+cluster://127.0.0.1:7000/3", "no database other than 0"),
        ("redis+cluster://127.0.0.1:7000?ssl_cert_reqs=none", "no query options"),
        ("redis://127.0.0.1:7000", "not a Redis Cluster URL"),
    ],
)
def test_a_malformed_url_is_refused_with_a_reason_and_without_its_text(url: str, says: str) -> None:
    with pytest.raises(ValueError, match=says) as err:
        cluster_nodes(url)
    assert "hunter2" not in str(err.value) and "127.0.0.1" not in str(err.value)


def test_the_settings_refuse_a_malformed_cluster_url_naming_the_variable_only() -> None:
    with pytest.raises(SettingsError) as err:
        Settings.from_env({"SLOTSTREAM_REDIS_URL": "redis+cluster://user:hunter2@:7000"})
    assert "SLOTSTREAM_REDIS_URL" in str(err.value) and "needs a host" in str(err.value)
    assert "hunter2" not in str(err.value)
    url = "redis+cluster://127.0.0.1:7000,127.0.0.1:7001"
    assert Settings.from_env({"SLOTSTREAM_REDIS_URL": url}).redis_url == url
