"""Reading a user's file safely: only a regular file is read (a FIFO would block the read for ever, a
device such as /dev/zero would never end), and only up to a size, so that a wrong path is refused in one
line (ConfigError naming the file and what it is) instead of hanging or filling the memory. Symbolic
links are followed: a link to a regular file is read, a link to a FIFO or a device refused."""

from __future__ import annotations

import os
import stat

from sim.core.errors import ConfigError


def kind_of(mode: int) -> str:
    """What a file that is not a regular one is, in words ("a FIFO", "a folder", "a device" ...)."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def not_regular(path: str | os.PathLike[str]) -> str | None:
    """What `path` is when it exists and is not a regular file (symbolic links followed), else None."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    return None if stat.S_ISREG(mode) else kind_of(mode)


def read_regular(path: str | os.PathLike[str], what: str, most: int,
                 shown: str | os.PathLike[str] | None = None) -> bytes:
    """The bytes of `path`, a regular file of at most `most` bytes; ConfigError naming `shown` (default
    `path`) and saying what it is otherwise (`what`: "run manifest", "config"). The file is opened without
    blocking and checked on the open descriptor, so a FIFO swapped in after a check is not waited on.
    OSError (missing, no permission) is left to the caller, which knows what a missing file means."""
    name = os.fspath(shown if shown is not None else path)
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ConfigError(f"{name}: not a {what}: it is {kind_of(info.st_mode)}, and only a regular "
                              "file is read")
        if info.st_size > most:
            raise ConfigError(f"{name}: not a {what} ({info.st_size:,} bytes; one is at most "
                              f"{most // 2**20} MB)")
        with os.fdopen(fd, "rb", closefd=False) as stream:
            data = stream.read(most + 1)
    finally:
        os.close(fd)
    if len(data) > most:  # grew while read
        raise ConfigError(f"{name}: not a {what} (past {most // 2**20} MB)")
    return data


def read_regular_text(path: str | os.PathLike[str], what: str, most: int,
                      shown: str | os.PathLike[str] | None = None) -> str:
    """`read_regular` decoded as UTF-8 (UnicodeDecodeError to the caller)."""
    return read_regular(path, what, most, shown).decode("utf-8")


