"""When the embedded Redis's AOF is due for a quiet rewrite (slotstream/local/redis_server.py): grown by its
base's size and past the server's minimum, with no rewrite running or waiting."""

from __future__ import annotations

from slotstream.local.redis_server import QUIET_REWRITE_PERCENTAGE, REWRITE_BOUND_PERCENTAGE, quiet_rewrite_due

MB = 1 << 20


def persistence(**fields: int) -> dict[str, object]:
    info: dict[str, object] = {
        "aof_enabled": 1,
        "aof_rewrite_in_progress": 0,
        "aof_rewrite_scheduled": 0,
        "aof_current_size": 0,
        "aof_base_size": 0,
    }
    info.update(fields)
    return info


def test_a_file_grown_by_its_base_and_past_the_minimum_is_due() -> None:
    assert quiet_rewrite_due(persistence(aof_base_size=40 * MB, aof_current_size=80 * MB), min_size=64 * MB)
    assert quiet_rewrite_due(persistence(aof_base_size=40 * MB, aof_current_size=120 * MB), min_size=64 * MB)


def test_a_file_short_of_twice_its_base_is_not_due() -> None:
    assert not quiet_rewrite_due(persistence(aof_base_size=40 * MB, aof_current_size=80 * MB - 1), min_size=64 * MB)


def test_a_file_below_the_servers_minimum_is_not_due_however_much_it_grew() -> None:
    assert not quiet_rewrite_due(persistence(aof_base_size=100, aof_current_size=64 * MB - 1), min_size=64 * MB)
    assert quiet_rewrite_due(persistence(aof_base_size=100, aof_current_size=64 * MB), min_size=64 * MB)


def test_no_rewrite_is_asked_while_one_runs_or_waits_or_without_an_aof() -> None:
    grown = {"aof_base_size": 10 * MB, "aof_current_size": 90 * MB}
    assert not quiet_rewrite_due(persistence(aof_rewrite_in_progress=1, **grown), min_size=MB)
    assert not quiet_rewrite_due(persistence(aof_rewrite_scheduled=1, **grown), min_size=MB)
    assert not quiet_rewrite_due(persistence(aof_enabled=0, **grown), min_size=MB)


def test_the_quiet_trigger_comes_before_the_servers_own() -> None:
    assert QUIET_REWRITE_PERCENTAGE < REWRITE_BOUND_PERCENTAGE
