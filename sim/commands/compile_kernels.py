"""Compile every game's kernels into numba's cache once, at install time (`make` runs it after `pip
install`), so the first real run does not pay for it: a fresh clone's `make demo` otherwise spends more
than half its time compiling (6 min 10 s cold against 2 min 27 s warm, measured on the 2-core machine).

It runs the commands themselves on tiny inputs, into a temporary folder: `balance simulate` of a few
games per game and agent (searching agents at a few iterations) and `balance values` of one base game,
so the kernels are compiled for exactly the array layouts real runs pass. The cache is keyed on every
source file of `sim` (sim/numba_cache.py), so after an edit or a pull the first run compiles afresh
rather than run a stale kernel.

    python -m sim.commands.compile_kernels
"""

from __future__ import annotations

import contextlib
import io
import tempfile
import time
from pathlib import Path

from sim import games
from sim.commands import main
from sim.game_spec import GameSpec


def _agent_text(spec: GameSpec, name: str) -> str:
    """The agent with the least work per move: searching agents at a few iterations."""
    params = spec.agents[name].params
    return f"{name}:iters=4" if "iters" in params else name


def compile_all(say=print) -> None:
    say("compiling every game's kernels into numba's cache, once (about 3 minutes on 2 cores), so that no "
        "run pays for it later")
    with tempfile.TemporaryDirectory() as tmp:
        for spec in games.specs():
            game = spec.name
            start = time.perf_counter()
            config = str(spec.default_config)
            players = str(spec.bench_players)
            runs = []
            for name in spec.agents:
                out = str(Path(tmp) / f"{game}-{name}")
                runs.append(["simulate", config, "--players", players, "--agents", _agent_text(spec, name),
                             "--games", "2", "--jobs", "1", "--out", out, "--quiet"])
            if spec.values is not None:
                runs.append(["values", config, "--players", players, "--agents", "greedy", "--games", "1",
                             "--jobs", "1", "--quiet", "--out", str(Path(tmp) / f"{game}-values")])
            for argv in runs:
                with contextlib.redirect_stdout(io.StringIO()):
                    if main(argv) != 0:
                        raise SystemExit(f"compiling the kernels: `balance {' '.join(argv)}` failed")
            say(f"{game}: kernels compiled in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    compile_all()
