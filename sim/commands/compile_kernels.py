"""Compile every game's kernels into numba's cache once, at install time (`make` runs it after `pip
install`), so the first real run does not pay for it: a fresh clone's `make demo` otherwise spends more
than half its time compiling (6 min 10 s cold against 2 min 27 s warm, measured on the 2-core machine).

The compiling is cut into pieces that worker processes take in turn, one worker per core, so that both
cores stay busy although one game's kernels outweigh the other's. A piece is one agent's kernels, compiled
by its policy (the readable API of `balance play`) choosing the first move of a game, or one of the
game's tiny runs, which then mostly read the agents' kernels from the cache: `balance simulate` of a few
games per agent (searching agents at a few iterations), and `balance values` of one base game, so the
batch loop and the values study compile for exactly the array layouts real runs pass. A worker reads
what another has compiled from the cache, but compiles afresh what is still being compiled elsewhere, so
a piece waits for the pieces whose kernels it calls: every searching agent plays greedy turns (rollouts,
replies, a forced pass), the search values positions with the expert's evaluation, and the runs call
every agent (random plays inside the batch loop; its policy re-states it in Python). The cache is keyed
on the kernels' sources (sim/core/numba_cache.py), so after an edit of a kernel or a pull that changes one the
first run compiles afresh rather than run a stale kernel.

    python -m sim.commands.compile_kernels
"""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from pathlib import Path

from sim import games
from sim.app.play import make_seats
from sim.commands import main
from sim.core.game_spec import GameSpec

RUNS = ("simulate", "values")  # the pieces of a game's tiny runs (the batch loop, the values study)
#: agent -> the agents whose kernels its own call (every agent but random and greedy waits for greedy)
WAITS = {"greedy": (), "search": ("greedy", "expert")}


def _agent_text(spec: GameSpec, name: str) -> str:
    """The agent with the least work per move: searching agents at a few iterations."""
    params = spec.agents[name].params
    return f"{name}:iters=4" if "iters" in params else name


def _runs(spec: GameSpec, tmp: str) -> list[list[str]]:
    """The tiny runs that compile a game's kernels: a simulate per agent, and a values run (when the game
    has a values study)."""
    game, config, players = spec.name, str(spec.default_config), str(spec.bench_players)
    runs = [["simulate", config, "--players", players, "--agents", _agent_text(spec, name), "--games", "2",
             "--jobs", "1", "--out", str(Path(tmp) / f"{game}-{name}"), "--quiet"] for name in spec.agents]
    if spec.values is not None:
        runs.append(["values", config, "--players", players, "--agents", "greedy", "--games", "1",
                     "--jobs", "1", "--quiet", "--out", str(Path(tmp) / f"{game}-values")])
    return runs


def compile_runs(spec: GameSpec, command: str) -> None:
    """Compile what a game's tiny runs of `command` (simulate, values) call (`_runs`) into the cache."""
    with tempfile.TemporaryDirectory() as tmp:
        for argv in [argv for argv in _runs(spec, tmp) if argv[0] == command]:
            with contextlib.redirect_stdout(io.StringIO()):
                if main(argv) != 0:
                    raise SystemExit(f"compiling the kernels: `balance {' '.join(argv)}` failed")


def compile_agent(spec: GameSpec, name: str) -> None:
    """Compile one agent's kernels into the cache: its policy chooses the first move of a game of the base
    rules (numba compiles a kernel and all it calls at its first call; the batch loop calls the same
    kernels with the same array types)."""
    players = spec.bench_players
    game = spec.game_class(spec.default_rules(players))
    seat = make_seats(spec, players, ",".join([_agent_text(spec, name)] * players), seed=0)[0]
    seat.policy.choose(game, game.new_state(0))


def compile_piece(spec: GameSpec, piece: str) -> float:
    """Compile one piece of a game (an agent's name, or one of RUNS); the seconds it took."""
    start = time.perf_counter()
    if piece in RUNS:
        compile_runs(spec, piece)
    else:
        compile_agent(spec, piece)
    return time.perf_counter() - start


def pieces(specs: list[GameSpec]) -> dict[tuple[str, str], set[tuple[str, str]]]:
    """Every game's pieces, (game, agent or one of RUNS), each with the pieces it waits for (`WAITS`)."""
    needs: dict[tuple[str, str], set[tuple[str, str]]] = {}
    for spec in specs:
        agents = [name for name in spec.agents if name != "random"]
        for name in agents:
            needs[(spec.name, name)] = {(spec.name, other) for other in WAITS.get(name, ("greedy",))
                                        if other in agents}
        for run in RUNS if spec.values is not None else RUNS[:1]:
            needs[(spec.name, run)] = {(spec.name, name) for name in agents}
    return needs


def next_pieces(needs: dict[tuple[str, str], set[tuple[str, str]]], done: set[tuple[str, str]],
                free: int) -> list[tuple[str, str]]:
    """Up to `free` pieces whose pieces waited for are done: those more pieces wait for first (they hold
    up the most), then in the registry's order."""
    ready = [piece for piece, waits in needs.items() if waits <= done]
    held = {piece: sum(piece in waits for waits in needs.values()) for piece in ready}
    return sorted(ready, key=lambda piece: -held[piece])[:free]


def compile_all(say=print) -> None:
    """Compile every game's kernels, piece by piece on worker processes (one per core)."""
    specs = {spec.name: spec for spec in games.specs()}
    needs = pieces(list(specs.values()))
    workers = max(1, min(len(needs), os.cpu_count() or 1))
    say(f"compiling every game's kernels into numba's cache, once ({workers} at a time), so that no run pays "
        "for it later")
    start = time.perf_counter()
    done: set[tuple[str, str]] = set()
    running: dict[Future, tuple[str, str]] = {}
    with ProcessPoolExecutor(workers) as pool:
        while needs or running:
            for piece in next_pieces(needs, done, workers - len(running)):
                del needs[piece]
                running[pool.submit(compile_piece, specs[piece[0]], piece[1])] = piece
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                game, piece = running.pop(future)
                done.add((game, piece))
                say(f"{game} {piece}: compiled in {future.result():.0f} s")
    say(f"every kernel compiled in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    compile_all()
