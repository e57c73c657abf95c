"""Where numba keeps the compiled kernels: a folder named by a digest of the kernels' sources.

numba checks a cached function against its own source file only ("cache invalidation fails to recognize
changes in symbols defined in another file", numba's notes on caching). A kernel that calls into another
file (the batch loop into the agents, every agent into the rules) or reads a constant from one (an agent's
code, a state field) would keep running the compiled old version after an edit there, silently. Keying the
whole cache on the digest of the kernels' sources makes any edit a kernel could see compile afresh.

The kernels' sources (`kernel_sources`) are exactly the modules that define a kernel and every module they
import at their top, transitively: what numba compiles or freezes into compiled code as a global.
tests/test_kernel_cache.py derives the same set from the syntax trees and compares. Validation, the
registry and the layers above (config.py, game_spec.py, games.py, each game's params.py and spec.py,
sim.app, ...) are not in it, so editing them compiles nothing: a kernel module imports them only inside the
Python functions that need them.

`sim/__init__.py` calls use() before any kernel module is imported (numba reads the folder when a kernel is
decorated). A NUMBA_CACHE_DIR the user set is kept as the base the digest's folder goes under.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]  # sim/: this module sits in sim/core/
PREFIX = "kernels-"
#: a kernel: a function compiled by numba (`@njit(...)`, `@numba.njit`, `@jit`)
_KERNEL = re.compile(r"^@(numba\.)?n?jit\b", re.MULTILINE)
#: a project import at a module's top (an indented one, in a function or under TYPE_CHECKING, is not)
_TOP_IMPORT = re.compile(
    r"^(?:from\s+(sim(?:\.\w+)*)\s+import\s+(\([^)]*\)|[^\n]+)|import\s+(sim(?:\.\w+)*))", re.MULTILINE)
KEEP = 3  # digests' folders kept when a new one is made (one per recent version of the sources)


def _module_files(package: Path) -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name)."""
    root = package.parent
    return {".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__"): path
            for path in package.rglob("*.py") if "__pycache__" not in path.parts}


def _imports(text: str, modules: dict[str, Path]) -> set[str]:
    """The project modules a module's text imports at its top: `from m import a, b` names m, and a or b
    when it is a module of its own."""
    found = set()
    for source, names, plain in _TOP_IMPORT.findall(text):
        module = source or plain
        found.add(module)
        found |= {f"{module}.{name.split()[0]}" for name in names.strip("()").replace("\n", " ").split(",")
                  if name.strip()}
    return found & set(modules)


def kernel_sources(package: Path = PACKAGE) -> tuple[str, ...]:
    """The kernels' sources, relative to `package`: the modules that define a kernel and every module they
    import at their top, transitively."""
    modules = _module_files(package)
    texts = {name: path.read_text() for name, path in modules.items()}
    todo = [name for name, text in texts.items() if _KERNEL.search(text)]
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo += _imports(texts[name], modules)
    return tuple(sorted(modules[name].relative_to(package).as_posix() for name in seen))


def source_digest(package: Path = PACKAGE, sources: tuple[str, ...] | None = None) -> str:
    """A digest of the kernels' sources (paths and bytes; `sources`, else those `kernel_sources` finds):
    any edit a kernel could see changes it, and no other edit does."""
    digest = hashlib.sha256()
    for name in sorted(sources if sources is not None else kernel_sources(package)):
        digest.update(name.encode())
        digest.update(b"\0")
        digest.update((package / name).read_bytes())
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


def cache_dir(environ: dict | os._Environ = os.environ, package: Path = PACKAGE,
              sources: tuple[str, ...] | None = None) -> Path:
    """The cache folder of the kernels' sources as they are now."""
    return cache_base(environ) / f"{PREFIX}{source_digest(package, sources)}"


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
