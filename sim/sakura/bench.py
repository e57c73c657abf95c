"""Sakura's part of `balance bench`: information-set MCTS iterations per second with the agent's defaults.
Random games through OpenSpiel's and PettingZoo's APIs are timed for every game with those adapters
(sim/core/interop_bench.py, from sim/app/bench.py)."""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from sim.sakura import mcts
from sim.sakura.game import SakuraGame


def figures(rules: Any, scale: float, repeats: int, rate: Callable[..., float]) -> dict:
    """The figures at the start of a game of `rules` (the spec's `bench_players`, base config); `rate(search,
    vector, iters, repeats)` times a search (sim/app/bench.py)."""
    iters = max(50, int(1000 * scale))
    start = SakuraGame(rules).new_state(0)
    agent = rate(lambda v, rng, n: mcts.search(v, rng, iters=n), start.vector, iters, repeats)
    return {"sakura_mcts_iters_per_s": round(agent, 1), "sakura_mcts_iters_per_search": iters,
            "sakura_mcts_position": "start of a 4-player game, base config, seed 0"}


def lines(f: dict) -> list[str]:
    return [f"  Sakura ISMCTS ({f['sakura_mcts_iters_per_search']} iterations a search, "
            f"{f['sakura_mcts_position']}):",
            f"    the agent's defaults       : {f['sakura_mcts_iters_per_s']:>10,.0f} it/s"]


BENCH = SimpleNamespace(figures=figures, lines=lines)
