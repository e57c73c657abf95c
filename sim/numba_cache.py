"""Where numba keeps the compiled kernels: a folder named by a digest of every source file of `sim`.

numba checks a cached function against its own source file only ("cache invalidation fails to recognize
changes in symbols defined in another file", numba's notes on caching). A kernel that calls into another
file (the batch loop into the agents, every agent into the rules) would keep running the compiled old
version of an edited callee, silently: a rule fixed in kernels.py, or an agent changed in expert.py, would
not reach `balance simulate` until batch.py itself changed. Keying the whole cache on the digest of all
sources makes any edit, or a `git pull` that changes a kernel, compile afresh instead. The layers above
the engines (sim.app, sim.design, sim.workbench, sim.commands) hold no kernel and no kernel imports them
(tests/test_architecture.py holds the layers), so they are left out: editing a command compiles nothing.

`sim/__init__.py` calls use() before any kernel module is imported (numba reads the folder when a kernel is
decorated). A NUMBA_CACHE_DIR the user set is kept as the base the digest's folder goes under.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
PREFIX = "kernels-"
ABOVE_KERNELS = ("app", "design", "workbench", "commands", "__main__.py")  # no kernel reads these
KEEP = 3  # digests' folders kept when a new one is made (one per recent version of the sources)


def source_digest(package: Path = PACKAGE) -> str:
    """A digest of every .py file under `package` (paths and bytes) but the layers above the kernels: any
    edit a kernel could see changes it."""
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        top = path.relative_to(package).parts[0]
        if "__pycache__" in path.parts or top in ABOVE_KERNELS:
            continue
        digest.update(path.relative_to(package).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()[:16]


def cache_base(environ: dict | os._Environ = os.environ) -> Path:
    """The folder the digests' folders live in: under the user's NUMBA_CACHE_DIR when set (a folder of
    ours already set there, inherited by a worker process, counts as its base), else sim/__pycache__."""
    given = environ.get("NUMBA_CACHE_DIR", "")
    if not given:
        return PACKAGE / "__pycache__" / "numba"
    path = Path(given)
    return path.parent if path.name.startswith(PREFIX) else path


def cache_dir(environ: dict | os._Environ = os.environ, package: Path = PACKAGE) -> Path:
    """The cache folder of the sources as they are now."""
    return cache_base(environ) / f"{PREFIX}{source_digest(package)}"


def prune(base: Path, current: Path, keep: int = KEEP) -> list[Path]:
    """Remove all but the `keep` most recent digests' folders under base (never `current`); returns
    what it removed. Old versions' kernels are never read again once their sources are gone."""
    if not base.is_dir():
        return []
    others = sorted((p for p in base.glob(f"{PREFIX}*") if p.is_dir() and p != current),
                    key=lambda p: p.stat().st_mtime, reverse=True)
    removed = others[max(keep - 1, 0):]
    for path in removed:
        shutil.rmtree(path, ignore_errors=True)
    return removed


def use() -> Path:
    """Point numba's cache at the current sources' folder (this process and the workers it starts, which
    inherit the environment); a new folder prunes the oldest."""
    folder = cache_dir()
    if not folder.is_dir():
        prune(folder.parent, folder)
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    if "numba" in sys.modules:  # imported first by someone else: have it read the variable again
        from numba.core import config

        config.reload_config()
    return folder
