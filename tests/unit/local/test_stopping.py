"""A stop signal unwinds the main job once, and the handlers before it come back."""

from __future__ import annotations

import os
import signal
import time

import pytest

from slotstream.local.stopping import Stopping, stop_on_signals


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_raises_stopping_once_and_the_handlers_return(sig: signal.Signals) -> None:
    before = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # as a shell leaves it for a background job
    try:
        with pytest.raises(Stopping) as stopped, stop_on_signals():
            os.kill(os.getpid(), sig)
            time.sleep(1)  # the handler runs before this returns
        assert stopped.value.signum == sig and str(stopped.value) == sig.name
        assert isinstance(stopped.value, KeyboardInterrupt), "unwinds as Ctrl-C does"
        assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN, "the handler from before is back"
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)


def test_a_second_signal_during_the_shutdown_is_ignored() -> None:
    before = signal.getsignal(signal.SIGTERM)
    try:
        with pytest.raises(Stopping), stop_on_signals():
            try:
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(1)
            finally:
                assert signal.getsignal(signal.SIGTERM) == signal.SIG_IGN
                os.kill(os.getpid(), signal.SIGTERM)  # ignored: the shutdown is not interrupted
                time.sleep(0.1)
    finally:
        signal.signal(signal.SIGTERM, before)
