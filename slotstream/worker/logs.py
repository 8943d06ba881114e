"""Worker logging: during a broker outage the Kafka client logs the same failure many times a
second; the first of each kind is kept and the rest are counted, once per interval."""

from __future__ import annotations

import logging
import time


class RepeatFilter(logging.Filter):
    def __init__(self, interval: float = 10.0) -> None:
        super().__init__()
        self.interval = interval
        self._last: dict[tuple[str, str], tuple[float, int]] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        key = (record.name, str(record.msg))
        now = time.monotonic()
        last, suppressed = self._last.get(key, (0.0, 0))
        if now - last < self.interval:
            self._last[key] = (last, suppressed + 1)
            return False
        self._last[key] = (now, 0)
        if suppressed:
            record.msg = f"{record.msg} [{suppressed} more like this in the last {self.interval:g} s]"
        return True


def quiet_kafka_client(interval: float = 10.0) -> None:
    """Filter the Kafka clients' loggers (a logger's filter sees only its own records, so each
    module's logger gets it; call after the clients are imported)."""
    repeat = RepeatFilter(interval)
    names = [name for name in logging.Logger.manager.loggerDict if name.split(".")[0] in ("aiokafka", "kafka")]
    for name in ("aiokafka", "kafka", *names):
        logging.getLogger(name).addFilter(repeat)


def setup_worker_logging(loglevel: str) -> None:
    """The lean runtime's log lines (Faust sets up its own): level, time, process, logger, to stderr.
    Debug lines cost nothing per message when the level is above debug: the hot path logs per
    batch, never per message."""
    logging.basicConfig(
        level=loglevel.upper(),
        format="[%(asctime)s] [%(process)d] [%(levelname)s] %(name)s: %(message)s",
    )
