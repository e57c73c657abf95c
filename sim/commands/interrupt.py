"""Ctrl-C ends any `balance` command within 2 s, its finished games kept.

The command's own clean-up comes first: the runner stops its chunks, kills its worker processes, records
what finished and releases the run's lock (storage/backends.py, sim/app/runner.py), and the dispatcher
says one line and exits 130. `watch` guards the 2 s where Python cannot: a KeyboardInterrupt is raised
only between bytecodes of the main thread, so a main thread inside a long numba kernel (`balance bench`
timing games, a chunk replayed to check a manifest) would not see it before the kernel returns. The
signal also wakes a watch thread at once (the C-level handler writes to `signal.set_wakeup_fd`, and the
kernels release the GIL); if the process is still there `GRACE` seconds later, the watch kills its worker
processes and exits 130 itself. Finished chunks are safe either way: a run directory survives a kill at any
instant (storage/run_dir.py), and the next run of the same command plays only what is missing.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time

#: seconds the command's own clean-up may take before the watch ends the process without it
GRACE = 1.0
_said = threading.Event()


def said() -> None:
    """The dispatcher has said its line: the watch, if it has to end the process, says none."""
    _said.set()


#: the warnings filter (Python's -W syntax) that silences a resource tracker's report at its exit
TRACKER_WARNINGS = "ignore:resource_tracker:UserWarning"


def quiet_trackers() -> None:
    """Silence loky's (and multiprocessing's) resource trackers in the processes this one starts. A worker
    killed on Ctrl-C leaves its semaphores registered; the tracker unlinks them when the command has gone
    and warns about each on the terminal, after the command's one line. The clean-up is the tracker's job
    and done; the warnings tell a designer nothing. Trackers inherit the environment's PYTHONWARNINGS."""
    filters = [item for item in os.environ.get("PYTHONWARNINGS", "").split(",") if item]
    if TRACKER_WARNINGS not in filters:
        os.environ["PYTHONWARNINGS"] = ",".join([*filters, TRACKER_WARNINGS])


def watch() -> None:
    """Start the watch (from the main thread of the `balance` process, once; not in a process that uses
    `main` as a library: its exit is not ours to take)."""
    read, write = os.pipe()
    os.set_blocking(write, False)
    signal.set_wakeup_fd(write, warn_on_full_buffer=False)
    threading.Thread(target=_watch, args=(read,), name="watch-ctrl-c", daemon=True).start()


def _watch(fd: int) -> None:
    while int(signal.SIGINT) not in os.read(fd, 512):
        pass
    time.sleep(GRACE)
    exit_now()


def exit_now() -> None:
    """End the process now with status 130: say the line (unless said), kill the worker processes (loky's,
    a local Dask cluster's: multiprocessing children all), and exit without the interpreter's clean-up."""
    if not _said.is_set():
        os.write(2, b"balance: interrupted\n")  # not sys.stderr: the main thread may hold its lock
    for child in multiprocessing.active_children():
        try:
            child.kill()
        except OSError:  # gone already
            pass
    os._exit(130)
