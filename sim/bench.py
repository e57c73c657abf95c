"""`balance bench`: engine and agent throughput on this machine, every figure measured in the same run.

Each figure is the median of several timed repeats after a warm-up (numba compiles on first call); the
batch figures run on one core (the kernels are single-threaded).
"""

from __future__ import annotations

import os
import platform
import statistics
import time
from collections.abc import Callable

import numba
import numpy as np

from sim.kamakura.agents import AGENT_GREEDY, AGENT_RANDOM
from sim.kamakura.batch import run_batch
from sim.kamakura.game import KamakuraGame
from sim.kamakura.params import default_rules
from sim.kamakura.policies import RandomPolicy
from sim.rng import game_seeds, new_rng


def _median_rate(run: Callable[[int], None], games: int, repeats: int) -> float:
    rates = []
    for rep in range(repeats):
        start = time.perf_counter()
        run(rep)
        rates.append(games / (time.perf_counter() - start))
    return statistics.median(rates)


def play_api_game(game: KamakuraGame, seed: int) -> None:
    """One random-agent game through the readable API (strings in, new states out)."""
    state = game.new_state(seed)
    policy = RandomPolicy(new_rng(seed, 1))
    while not game.is_over(state):
        state = game.apply(state, policy.choose(game, state))


def run_bench(scale: float = 1.0, repeats: int = 5) -> dict[str, float | int | str]:
    rules = default_rules(3)
    game = KamakuraGame(rules)
    batch_games = max(10, int(20000 * scale))
    greedy_games = max(5, int(500 * scale))
    api_games = max(2, int(20 * scale))
    run_batch(rules, game_seeds(0, 0, 4), [AGENT_RANDOM] * 3)  # compile / load the cache
    run_batch(rules, game_seeds(0, 0, 4), [AGENT_GREEDY] * 3)
    play_api_game(game, 0)

    def batch(kind: int, games: int) -> Callable[[int], None]:
        return lambda rep: run_batch(rules, game_seeds(rep + 1, 0, games), [kind] * 3)

    def api(rep: int) -> None:
        for seed in game_seeds(rep + 1, 0, api_games):
            play_api_game(game, int(seed))

    random_rate = _median_rate(batch(AGENT_RANDOM, batch_games), batch_games, repeats)
    api_rate = _median_rate(api, api_games, repeats)
    greedy_rate = _median_rate(batch(AGENT_GREEDY, greedy_games), greedy_games, repeats)
    return {
        "kamakura_random_games_per_s": round(random_rate, 1),
        "kamakura_api_games_per_s": round(api_rate, 2),
        "kamakura_batch_over_api": round(random_rate / api_rate, 1),
        "kamakura_greedy_games_per_s": round(greedy_rate, 1),
        "players": 3,
        "repeats": repeats,
        "games_per_repeat": {"random_batch": batch_games, "random_api": api_games,
                             "greedy_batch": greedy_games},
        "machine": f"{platform.machine()}, {os.cpu_count()} cpus, python {platform.python_version()}, "
                   f"numba {numba.__version__}, numpy {np.__version__}",
    }


def format_bench(figures: dict) -> str:
    per = figures["games_per_repeat"]
    return "\n".join([
        f"balance bench: median of {figures['repeats']} repeats, 3 players, one core ({figures['machine']})",
        f"  Kamakura random, batch path : {figures['kamakura_random_games_per_s']:>12,.0f} games/s "
        f"({per['random_batch']} games a repeat)",
        f"  Kamakura random, readable API: {figures['kamakura_api_games_per_s']:>12,.1f} games/s "
        f"({per['random_api']} games a repeat; batch is {figures['kamakura_batch_over_api']:,.0f}x faster)",
        f"  Kamakura greedy, batch path : {figures['kamakura_greedy_games_per_s']:>12,.0f} games/s "
        f"({per['greedy_batch']} games a repeat)",
    ])
