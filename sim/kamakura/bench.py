"""Kamakura's part of `balance bench`: MCTS iterations per second, ours and OpenSpiel's MCTSBot on the
adapter game at the same position with the same algorithm (UCT, one rollout to the end of the game per
iteration, uniform over the legal actions, win reward), in the same run (OpenSpiel's when its extra is
installed); and our agent with its defaults (whole turns, greedy rollouts over one round). Random games
through OpenSpiel's and PettingZoo's APIs are timed for every game with those adapters
(sim/core/interop_bench.py, from sim/app/bench.py)."""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from sim.kamakura import search, uct
from sim.kamakura.game import KamakuraGame


def figures(rules: Any, scale: float, repeats: int, rate: Callable[..., float]) -> dict:
    """The figures at the start of a game of `rules` (the spec's `bench_players`, base config); `rate(search,
    vector, iters, repeats)` times a search (sim/app/bench.py)."""
    iters = max(50, int(1000 * scale))
    game = KamakuraGame(rules)
    start = game.new_state(0)
    full = rate(lambda v, rng, n: search.search(
        v, rng, iters=n, c=1.4, rollout=uct.ROLLOUT_UNIFORM, reward=uct.REWARD_WIN,
        horizon=0, prior=0.0, tree=uct.TREE_ACTIONS), start.vector, iters, repeats)
    agent = rate(lambda v, rng, n: search.search(v, rng, iters=n), start.vector, iters, repeats)
    out = {
        "kamakura_mcts_iters_per_s": round(full, 1),
        "kamakura_mcts_agent_iters_per_s": round(agent, 1),
        "kamakura_mcts_iters_per_search": iters,
        "kamakura_mcts_position": "start of a 3-player game, base config, seed 0",
    }
    try:
        from sim.kamakura.openspiel_game import openspiel_mcts_iters_per_s
    except ImportError:  # the optional extra is not installed
        out["openspiel_mcts_iters_per_s"] = None
        return out
    theirs = openspiel_mcts_iters_per_s(game.to_dict(start), iterations=iters, repeats=min(repeats, 3))
    out["openspiel_mcts_iters_per_s"] = round(theirs, 1)
    out["mcts_ours_over_openspiel"] = round(full / theirs, 1)
    return out


def lines(f: dict) -> list[str]:
    out = [
        f"  Kamakura MCTS ({f['kamakura_mcts_iters_per_search']} iterations a search, "
        f"{f['kamakura_mcts_position']}):",
        f"    uniform rollouts to the end: {f['kamakura_mcts_iters_per_s']:>10,.0f} it/s",
        f"    the agent's defaults       : {f['kamakura_mcts_agent_iters_per_s']:>10,.0f} it/s",
    ]
    if f.get("openspiel_mcts_iters_per_s") is None:
        out.append("    OpenSpiel MCTSBot: not measured (install the `openspiel` extra)")
    else:
        theirs = f["openspiel_mcts_iters_per_s"]
        out.append(f"    OpenSpiel MCTSBot on the adapter game: {theirs:>10,.1f} it/s "
                   f"(ours is {f['mcts_ours_over_openspiel']:,.0f}x faster)")
    return out


BENCH = SimpleNamespace(figures=figures, lines=lines)
