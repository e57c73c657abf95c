"""Sakura's part of `balance bench`: information-set MCTS iterations per second with the agent's defaults,
and random games per second through OpenSpiel's and PettingZoo's APIs (sim/core/interop_bench.py), when
their extras are installed."""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from sim.core.interop_bench import interop_lines, interop_rates
from sim.sakura import mcts
from sim.sakura.game import SakuraGame


def figures(rules: Any, scale: float, repeats: int, rate: Callable[..., float]) -> dict:
    """The figures at the start of a game of `rules` (the spec's `bench_players`, base config); `rate(search,
    vector, iters, repeats)` times a search (sim/app/bench.py)."""
    iters = max(50, int(1000 * scale))
    start = SakuraGame(rules).new_state(0)
    agent = rate(lambda v, rng, n: mcts.search(v, rng, iters=n), start.vector, iters, repeats)
    spiel, zoo = _adapters(rules.players)
    return {"sakura_mcts_iters_per_s": round(agent, 1), "sakura_mcts_iters_per_search": iters,
            "sakura_mcts_position": "start of a 4-player game, base config, seed 0",
            **interop_rates("sakura", spiel, zoo, max(2, int(20 * scale)), repeats)}


def _adapters(players: int) -> tuple[Any, Any]:
    """The OpenSpiel game and the PettingZoo environment of the base config (None where the optional extra
    is not installed)."""
    try:
        from sim.sakura.openspiel_game import load
        spiel = load(players)
    except ImportError:
        spiel = None
    try:
        from sim.sakura.pettingzoo_env import env
        zoo = env(players=players)
    except ImportError:
        zoo = None
    return spiel, zoo


def lines(f: dict) -> list[str]:
    return [f"  Sakura ISMCTS ({f['sakura_mcts_iters_per_search']} iterations a search, "
            f"{f['sakura_mcts_position']}):",
            f"    the agent's defaults       : {f['sakura_mcts_iters_per_s']:>10,.0f} it/s",
            "  Sakura through other libraries' APIs (base config, the bench's players):",
            *interop_lines("sakura", f)]


BENCH = SimpleNamespace(figures=figures, lines=lines)
