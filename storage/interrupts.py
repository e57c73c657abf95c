"""Ctrl-C held off for the few milliseconds a step must not be cut in: `with deferred_interrupt():` lets the
step finish and raises the KeyboardInterrupt after it. The run directory survives a cut anywhere
(storage/run_dir.py), but a chunk whose parts are in place should leave with its record, not wait for the
next writer to adopt it.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def deferred_interrupt() -> Iterator[None]:
    """SIGINT during the block is remembered and acted on (the handler that was there, normally raising
    KeyboardInterrupt) when the block ends. Outside the main thread, where no handler can be set, the
    block runs as it is: a signal is handled by the main thread anyway; so it does where the handler was
    not set from Python (it could not be put back)."""
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGINT) is None:
        yield
        return
    caught: list[object] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(frame))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if caught and callable(previous):
            previous(signal.SIGINT, caught[0])
