"""Compile every game's kernels into numba's cache once, at install time (`make` runs it after `pip
install`), so the first real run does not pay for it: a fresh clone's `make demo` otherwise spends more
than half its time compiling (6 min 10 s cold against 2 min 27 s warm, measured on the 2-core machine).

It plays one short game per game and agent (MCTS with a handful of iterations) through the same batch
kernels `balance simulate` uses, and one base game of each game's `balance values` kernel. numba keys
its cache on each source file, so a later edit recompiles only what changed.

    python -m sim.app.compile_kernels
"""

from __future__ import annotations

import time

from sim import games
from sim.agent_spec import agent_arrays
from sim.rng import game_seeds


def _agent_text(game: str, name: str) -> str:
    """The agent with the least work per move: searching agents at a few iterations."""
    params = games.spec(game).agents[name].params
    return f"{name}:iters=4" if "iters" in params else name


def compile_all(say=print) -> None:
    for game in games.names():
        start = time.perf_counter()
        spec = games.spec(game)
        players = spec.bench_players
        rules = spec.default_rules(players)
        seeds = game_seeds(0, 0, 1)
        for name in spec.agents:
            kinds, params = agent_arrays([[_agent_text(game, name)] * players], game)
            spec.run_batch(rules, seeds, kinds[0], params[0])
        if spec.values is not None:
            greedy = [["greedy"] * players]
            kinds, params = agent_arrays(greedy, game)
            spec.values.run(rules, seeds, kinds[0], params[0], positions=spec.values.positions)
        say(f"{game}: kernels compiled in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    compile_all()
