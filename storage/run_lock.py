"""One writer per run directory: an exclusive advisory lock on `<dir>/.lock`, taken
before a command plans what to play and held until it has written its last chunk and its manifest.

fcntl's flock, not a lock file's mere existence: the kernel drops the lock when its holder dies, kill -9
included, so a crashed run never leaves a directory locked. The file records who holds it (pid, start
time, command line) so that a second writer is refused at once with a line that names the holder, or
waits for it (`--wait`).
"""

from __future__ import annotations

import fcntl
import json
import os
import sys
import time
from pathlib import Path
from types import TracebackType

from sim.core.errors import ConfigError

LOCK_NAME = ".lock"


def holder_text(lock_path: Path) -> str:
    """Who holds the lock, as its file says: 'pid 123, started 2026-12-01 21:03:04: balance simulate ...'."""
    try:
        info = json.loads(lock_path.read_text() or "{}")
    except (OSError, json.JSONDecodeError):
        info = {}
    if not info:
        return "another process"
    started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(info.get("started", 0)))
    return f"pid {info.get('pid')}, started {started}: {info.get('command', '?')}"


def held_by(folder: str | os.PathLike[str]) -> str | None:
    """Who is writing the run directory `folder` now (`holder_text`), or None if nobody is: a probe of
    the lock that takes it for an instant, so it never creates the folder or its lock file."""
    path = Path(folder) / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return holder_text(path)
    finally:
        os.close(fd)  # closing drops the probe's own lock
    return None


class RunLock:
    """`with RunLock(folder):` holds the folder's lock (creating the folder); a second holder is refused
    (ConfigError naming the first) or, with `wait`, blocks until the first lets go."""

    def __init__(self, folder: str | os.PathLike[str], wait: bool = False) -> None:
        self.folder = Path(folder)
        self.path = self.folder / LOCK_NAME
        self.wait = wait
        self._fd: int | None = None

    def __enter__(self) -> RunLock:
        if self.folder.exists() and not self.folder.is_dir():
            raise ConfigError(f"{self.folder}: --out is a file, not a run directory")
        self._made = [] if self.folder.is_dir() else [p for p in (self.folder, *self.folder.parents)
                                                          if not p.exists()]
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            self._new_lock = not self.path.exists()
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as err:
            raise ConfigError(f"{self.folder}: cannot create the run directory ({err.strerror})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if not self.wait:
                holder = holder_text(self.path)
                os.close(fd)
                raise ConfigError(f"{self.folder}: another balance process is writing this run ({holder}); "
                                  "wait for it to finish, or pass --wait") from None
            fcntl.flock(fd, fcntl.LOCK_EX)
        called = sys.argv and sys.argv[0].endswith(("balance", "sim/__main__.py"))  # or `python -m sim`
        record = json.dumps({"pid": os.getpid(), "started": time.time(), "command": " ".join(
            ["balance", *sys.argv[1:]] if called else sys.argv)})
        os.ftruncate(fd, 0)
        os.pwrite(fd, record.encode(), 0)
        self._fd = fd
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self._fd is not None:
            if error is not None:
                self._leave_nothing()
            os.ftruncate(self._fd, 0)  # nobody holds it now (the file stays: removing it would race)
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def _leave_nothing(self) -> None:
        """After a failure that wrote nothing (a refusal: a dead Dask scheduler, a bad option found late),
        the lock file this writer made goes, and so do the folders it made: a refused command leaves the
        disk as it found it. A folder holding anything else keeps its lock, which a later writer may be
        waiting on."""
        try:
            if not self._new_lock or any(p.name != LOCK_NAME for p in self.folder.iterdir()):
                return
            self.path.unlink()
            for made in self._made:  # the deepest first; one that now holds something else stays
                made.rmdir()
        except OSError:
            return
