"""What compiling the kernels costs: a fresh clone's `python -m sim.commands.compile_kernels`, then the
first run after an edit of sim/core/config.py (a comment appended), for each git revision given, one after the
other, each in its own fresh clone with its own numba cache.

    python scripts/compile_time.py 0607e7a HEAD

The seconds are wall time on this machine as it is, and CPU time (user and system, of the command and
the worker processes it waited for): run it on a quiet machine, and read the figures side by side
(docs/design/notes.md, "Compiling the kernels").
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUN = ["-m", "sim", "simulate", "configs/kamakura/base.toml", "--players", "3", "--games", "20", "--jobs",
       "1", "--quiet"]


def _cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _timed(argv: list[str], cwd: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of the command."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"} | {"PYTHONPATH": str(cwd)}
    start, cpu = time.perf_counter(), _cpu()
    subprocess.run(argv, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start, _cpu() - cpu


def measure(revision: str, scratch: Path) -> tuple[tuple[float, float], tuple[float, float]]:
    """(fresh clone's compile, first run after editing the config module), each (wall, CPU) seconds, for
    `revision`."""
    clone = scratch / revision.replace("/", "_")
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    subprocess.run(["git", "checkout", "-q", revision], cwd=clone, check=True)
    compiled = _timed([sys.executable, "-m", "sim.commands.compile_kernels"], clone)
    config_file = next(path for path in (clone / "sim" / "core" / "config.py", clone / "sim" / "config.py")
                       if path.exists())  # the foundation moved to sim/core/
    with config_file.open("a") as config:
        config.write("# an edit that changes no kernel\n")
    after_edit = _timed([sys.executable, *RUN, "--out", str(scratch / f"{clone.name}-run")], clone)
    return compiled, after_edit


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("revisions", nargs="+", help="git revisions to measure, in this order")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        for revision in args.revisions:
            compiled, after_edit = measure(revision, Path(scratch))
            print(f"{revision}: fresh clone compiles in {compiled[0]:.0f} s ({compiled[1]:.0f} s CPU); after "
                  f"editing the config module, a 20-game Kamakura run takes {after_edit[0]:.0f} s "
                  f"({after_edit[1]:.0f} s CPU)", flush=True)


if __name__ == "__main__":
    main()
