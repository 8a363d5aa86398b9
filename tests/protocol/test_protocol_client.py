"""HubClient's process handling that needs no engine: a plain child process stands in."""
import sys
import threading

import pytest

from protocol.client import HubClient

CHILD = [sys.executable, "-c", "import sys; sys.stdin.read()"]


def test_kill_after_a_start_interrupted_between_its_readers(monkeypatch):
    """The readers list holds started threads only. A tournament's Ctrl-C clean-up kills the
    engines from the main thread while a worker may be restarting one between its two reader
    starts; it once failed there with 'cannot join thread before it is started' instead of
    exiting with 130. Here start() is cut off at the same point, and kill() must still work."""
    real_start = threading.Thread.start
    calls = []

    def start_then_interrupt(thread):
        calls.append(thread)
        if len(calls) == 2:
            raise KeyboardInterrupt
        real_start(thread)

    monkeypatch.setattr(threading.Thread, "start", start_then_interrupt)
    client = HubClient(CHILD)
    with pytest.raises(KeyboardInterrupt):
        client.start()
    monkeypatch.undo()
    client.kill()
    assert client.proc.poll() is not None
    assert len(client._threads) == 1 and not client._threads[0].is_alive()
