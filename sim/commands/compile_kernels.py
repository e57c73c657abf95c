"""Compile every game's kernels into numba's cache once, at install time (`make` runs it after `pip
install`), so the first real run does not pay for it: a fresh clone's `make demo` otherwise spends more
than half its time compiling (6 min 10 s cold against 2 min 27 s warm, measured on the 2-core machine).

It runs the commands themselves on tiny inputs, into a temporary folder: `balance simulate` of a few
games per game and agent (searching agents at a few iterations) and `balance values` of one base game,
so the kernels are compiled for exactly the array layouts real runs pass. The games compile side by side,
one worker process each. The cache is keyed on the kernels' sources (sim/core/numba_cache.py), so after an
edit of a kernel or a pull that changes one the first run compiles afresh rather than run a stale kernel.

    python -m sim.commands.compile_kernels
"""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
import time
from pathlib import Path

from joblib import Parallel, delayed

from sim import games
from sim.commands import main
from sim.core.game_spec import GameSpec


def _agent_text(spec: GameSpec, name: str) -> str:
    """The agent with the least work per move: searching agents at a few iterations."""
    params = spec.agents[name].params
    return f"{name}:iters=4" if "iters" in params else name


def _runs(spec: GameSpec, tmp: str) -> list[list[str]]:
    """The tiny runs that compile a game's kernels: a simulate per agent, and a values run."""
    game, config, players = spec.name, str(spec.default_config), str(spec.bench_players)
    runs = [["simulate", config, "--players", players, "--agents", _agent_text(spec, name), "--games", "2",
             "--jobs", "1", "--out", str(Path(tmp) / f"{game}-{name}"), "--quiet"] for name in spec.agents]
    if spec.values is not None:
        runs.append(["values", config, "--players", players, "--agents", "greedy", "--games", "1",
                     "--jobs", "1", "--quiet", "--out", str(Path(tmp) / f"{game}-values")])
    return runs


def compile_game(spec: GameSpec) -> float:
    """Compile one game's kernels into the cache; the seconds it took."""
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for argv in _runs(spec, tmp):
            with contextlib.redirect_stdout(io.StringIO()):
                if main(argv) != 0:
                    raise SystemExit(f"compiling the kernels: `balance {' '.join(argv)}` failed")
    return time.perf_counter() - start


def compile_all(say=print) -> None:
    """Compile every game's kernels, the games side by side in worker processes (one per core, at most
    one per game): the games share no kernel, so each compiles its own."""
    specs = games.specs()
    workers = max(1, min(len(specs), os.cpu_count() or 1))
    say(f"compiling every game's kernels into numba's cache, once ({workers} at a time), so that no run pays "
        "for it later")
    start = time.perf_counter()
    seconds = Parallel(n_jobs=workers, backend="loky")(delayed(compile_game)(spec) for spec in specs)
    for spec, took in zip(specs, seconds, strict=True):
        say(f"{spec.name}: kernels compiled in {took:.0f} s")
    say(f"every kernel compiled in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    compile_all()
