"""`balance bench`: engine and agent throughput on this machine, every figure measured in the same run.

Each figure is the median of several timed repeats after a warm-up (numba compiles on first call); the
batch figures run on one core (the kernels are single-threaded). Kamakura is timed with 3 players,
Sakura with 4.
"""

from __future__ import annotations

import os
import platform
import statistics
import time
from collections.abc import Callable

import numba
import numpy as np

from sim.kamakura import batch as kamakura_batch
from sim.kamakura import policies as kamakura_policies
from sim.kamakura.game import KamakuraGame
from sim.kamakura.params import default_rules as kamakura_rules
from sim.rng import game_seeds, new_rng
from sim.sakura import batch as sakura_batch
from sim.sakura import policies as sakura_policies
from sim.sakura.game import SakuraGame
from sim.sakura.params import default_rules as sakura_rules

RANDOM, GREEDY = 0, 1  # agent codes, the same in both games


def _median_rate(run: Callable[[int], None], games: int, repeats: int) -> float:
    rates = []
    for rep in range(repeats):
        start = time.perf_counter()
        run(rep)
        rates.append(games / (time.perf_counter() - start))
    return statistics.median(rates)


def play_api_game(game, policy_class, seed: int) -> None:
    """One random-agent game through the readable API (strings in, new states out)."""
    state = game.new_state(seed)
    policy = policy_class(new_rng(seed, 1))
    while not game.is_over(state):
        state = game.apply(state, policy.choose(game, state))


def _measure(name: str, game, run_batch, policy_class, players: int, scale: float, repeats: int) -> dict:
    rules = game.rules
    batch_games = max(10, int(20000 * scale))
    greedy_games = max(5, int(500 * scale))
    api_games = max(2, int(20 * scale))
    run_batch(rules, game_seeds(0, 0, 4), [RANDOM] * players)  # compile, or load the cache
    run_batch(rules, game_seeds(0, 0, 4), [GREEDY] * players)
    play_api_game(game, policy_class, 0)

    def batch(kind: int, games: int) -> Callable[[int], None]:
        return lambda rep: run_batch(rules, game_seeds(rep + 1, 0, games), [kind] * players)

    def api(rep: int) -> None:
        for seed in game_seeds(rep + 1, 0, api_games):
            play_api_game(game, policy_class, int(seed))

    random_rate = _median_rate(batch(RANDOM, batch_games), batch_games, repeats)
    api_rate = _median_rate(api, api_games, repeats)
    greedy_rate = _median_rate(batch(GREEDY, greedy_games), greedy_games, repeats)
    return {
        f"{name}_random_games_per_s": round(random_rate, 1),
        f"{name}_api_games_per_s": round(api_rate, 2),
        f"{name}_batch_over_api": round(random_rate / api_rate, 1),
        f"{name}_greedy_games_per_s": round(greedy_rate, 1),
        f"{name}_players": players,
        f"{name}_games_per_repeat": {"random_batch": batch_games, "random_api": api_games,
                                     "greedy_batch": greedy_games},
    }


def _mcts_rate(search: Callable[[np.ndarray, np.ndarray, int], int], vector: np.ndarray, iters: int,
               repeats: int) -> float:
    """Median iterations per second of fresh searches from one position (after a warm-up search)."""
    search(vector, new_rng(0, 1), 10)

    def run(rep: int) -> None:
        search(vector, new_rng(rep + 1, 1), iters)

    return _median_rate(run, iters, repeats)


def _measure_mcts(scale: float, repeats: int) -> dict:
    """MCTS iterations per second: ours on one core, and OpenSpiel's MCTSBot on the adapter game at the
    same position with the same algorithm (UCT, one rollout to the end of the game per iteration, uniform
    over the legal actions, win reward), in this run. Our agent with its defaults (whole turns, greedy
    rollouts over one round) is timed too."""
    from sim.kamakura import mcts as kamakura_mcts
    from sim.sakura import mcts as sakura_mcts

    iters = max(50, int(1000 * scale))
    game = KamakuraGame(kamakura_rules(3))
    start = game.new_state(0)
    full = _mcts_rate(lambda v, rng, n: kamakura_mcts.search(
        v, rng, iters=n, c=1.4, rollout=kamakura_mcts.ROLLOUT_UNIFORM, reward=kamakura_mcts.REWARD_WIN,
        horizon=0, prior=0.0, tree=kamakura_mcts.TREE_ACTIONS), start.vector, iters, repeats)
    agent = _mcts_rate(lambda v, rng, n: kamakura_mcts.search(v, rng, iters=n), start.vector, iters, repeats)
    sakura_start = SakuraGame(sakura_rules(4)).new_state(0)
    sakura = _mcts_rate(lambda v, rng, n: sakura_mcts.search(v, rng, iters=n), sakura_start.vector, iters,
                        repeats)
    figures = {
        "kamakura_mcts_iters_per_s": round(full, 1),
        "kamakura_mcts_agent_iters_per_s": round(agent, 1),
        "sakura_mcts_iters_per_s": round(sakura, 1),
        "mcts_iters_per_search": iters,
        "mcts_position": "start of a 3-player Kamakura game, base config, seed 0 (Sakura: 4 players)",
    }
    try:
        from sim.kamakura.openspiel_game import openspiel_mcts_iters_per_s
    except ImportError:  # the optional extra is not installed
        figures["openspiel_mcts_iters_per_s"] = None
        return figures
    theirs = openspiel_mcts_iters_per_s(game.to_dict(start), iterations=iters, repeats=min(repeats, 3))
    figures["openspiel_mcts_iters_per_s"] = round(theirs, 1)
    figures["mcts_ours_over_openspiel"] = round(full / theirs, 1)
    return figures


def run_bench(scale: float = 1.0, repeats: int = 5) -> dict:
    figures: dict = {"repeats": repeats}
    figures.update(_measure("kamakura", KamakuraGame(kamakura_rules(3)), kamakura_batch.run_batch,
                            kamakura_policies.RandomPolicy, 3, scale, repeats))
    figures.update(_measure("sakura", SakuraGame(sakura_rules(4)), sakura_batch.run_batch,
                            sakura_policies.RandomPolicy, 4, scale, repeats))
    figures.update(_measure_mcts(scale, repeats))
    figures["machine"] = (f"{platform.machine()}, {os.cpu_count()} cpus, python {platform.python_version()}, "
                          f"numba {numba.__version__}, numpy {np.__version__}")
    return figures


def format_bench(figures: dict) -> str:
    lines = [f"balance bench: median of {figures['repeats']} repeats, one core ({figures['machine']})"]
    for name in ("kamakura", "sakura"):
        per = figures[f"{name}_games_per_repeat"]
        title = f"{name.capitalize()} ({figures[f'{name}_players']} players)"
        lines += [
            f"  {title:<22} random, batch path  : {figures[f'{name}_random_games_per_s']:>10,.0f} games/s "
            f"({per['random_batch']} games a repeat)",
            f"  {'':<22} random, readable API: {figures[f'{name}_api_games_per_s']:>10,.1f} games/s "
            f"({per['random_api']} games a repeat; "
            f"batch is {figures[f'{name}_batch_over_api']:,.0f}x faster)",
            f"  {'':<22} greedy, batch path  : {figures[f'{name}_greedy_games_per_s']:>10,.0f} games/s "
            f"({per['greedy_batch']} games a repeat)",
        ]
    agent_rate = figures["kamakura_mcts_agent_iters_per_s"]
    lines += [
        f"  MCTS ({figures['mcts_iters_per_search']} iterations a search, {figures['mcts_position']}):",
        f"    Kamakura, uniform rollouts to the end: {figures['kamakura_mcts_iters_per_s']:>10,.0f} it/s",
        f"    Kamakura, the agent's defaults       : {agent_rate:>10,.0f} it/s",
        f"    Sakura (ISMCTS), the agent's defaults: {figures['sakura_mcts_iters_per_s']:>10,.0f} it/s",
    ]
    if figures.get("openspiel_mcts_iters_per_s") is None:
        lines.append("    OpenSpiel MCTSBot: not measured (install the `openspiel` extra)")
    else:
        theirs = figures["openspiel_mcts_iters_per_s"]
        lines.append(f"    OpenSpiel MCTSBot on the adapter game : {theirs:>10,.1f} it/s "
                     f"(ours is {figures['mcts_ours_over_openspiel']:,.0f}x faster)")
    return "\n".join(lines)
