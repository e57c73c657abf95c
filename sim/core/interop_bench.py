"""Random play through the other libraries' APIs, timed for `balance bench` (issue: the engines where
game-AI people work). Duck-typed over a pyspiel game and a PettingZoo AEC environment, so this module
imports neither library: a game's spec names its adapters (`GameSpec.openspiel_ref`, `.pettingzoo_ref`,
references that import their module when called), and `interop_figures` builds them for the bench's players
(`adapter`), each None when its optional extra is not installed.

Both loops draw every choice from one seeded generator: chance outcomes by their probabilities (OpenSpiel),
and a uniform legal action (OpenSpiel's `legal_actions`, PettingZoo's action mask).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

#: what a bench line says when an optional extra is missing, by interface
MISSING = {"openspiel": "not measured (install the `openspiel` extra: pip install -e '.[openspiel]')",
           "pettingzoo": "not measured (install the `pettingzoo` extra: pip install -e '.[pettingzoo]')"}


def openspiel_game_once(game: Any, rng: np.random.Generator) -> int:
    """One random game through OpenSpiel's API, from `new_initial_state` to the end; its moves."""
    state = game.new_initial_state()
    moves = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=np.asarray(probs) / sum(probs))))
        else:
            legal = state.legal_actions()
            state.apply_action(int(legal[rng.integers(len(legal))]))
        moves += 1
    return moves


def pettingzoo_game_once(env: Any, seed: int, rng: np.random.Generator) -> int:
    """One random game through PettingZoo's AEC loop (`reset(seed)`, `agent_iter`, `last`, `step`, a
    uniform action among the mask's legal ones); its steps."""
    env.reset(seed=seed)
    steps = 0
    for _ in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
        steps += 1
    return steps


def median_games_per_s(play_one: Callable[[int], Any], games: int, repeats: int) -> float:
    """The median over `repeats` of `games` games a second, after one warm-up game; `play_one(k)` plays
    game k (a distinct seed for every game of every repeat)."""
    play_one(-1)
    rates = []
    for rep in range(repeats):
        start = time.perf_counter()
        for k in range(games):
            play_one(rep * games + k)
        rates.append(games / (time.perf_counter() - start))
    return statistics.median(rates)


def interop_rates(name: str, openspiel_game: Any, pettingzoo_env: Any, games: int,
                  repeats: int) -> dict[str, Any]:
    """`{name}_openspiel_random_games_per_s` and `{name}_pettingzoo_random_games_per_s` (None for an
    interface whose adapter is None: its extra is not installed), and the games a repeat."""
    out: dict[str, Any] = {f"{name}_interop_games_per_repeat": games}
    if openspiel_game is not None:
        out[f"{name}_openspiel_random_games_per_s"] = round(median_games_per_s(
            lambda k: openspiel_game_once(openspiel_game, np.random.default_rng(k + 1)), games, repeats), 2)
    else:
        out[f"{name}_openspiel_random_games_per_s"] = None
    if pettingzoo_env is not None:
        out[f"{name}_pettingzoo_random_games_per_s"] = round(median_games_per_s(
            lambda k: pettingzoo_game_once(pettingzoo_env, k + 1, np.random.default_rng(k + 1)), games,
            repeats), 2)
    else:
        out[f"{name}_pettingzoo_random_games_per_s"] = None
    return out


def adapter(ref: Callable[[], Callable[..., Any]] | None, players: int) -> Any:
    """What an adapter module's builder (`ref()` imports it) makes for `players`; None when the game has no
    such module or its optional extra is not installed (the import fails)."""
    if ref is None:
        return None
    try:
        return ref()(players=players)
    except ImportError:
        return None


def interop_figures(spec: Any, games: int, repeats: int) -> dict[str, Any]:
    """`interop_rates` of a game's spec (its name, its adapters' references) at its `bench_players`; no
    figures for a game with neither adapter."""
    if spec.openspiel_ref is None and spec.pettingzoo_ref is None:
        return {}
    players = spec.bench_players
    spiel, zoo = adapter(spec.openspiel_ref, players), adapter(spec.pettingzoo_ref, players)
    return interop_rates(spec.name, spiel, zoo, games, repeats)


def interop_lines(name: str, title: str, f: dict[str, Any]) -> list[str]:
    """The bench's lines for the two interfaces under a heading naming the game by its `title`, each
    against the native batch path of the same run; none when the run has no such figures."""
    if f"{name}_interop_games_per_repeat" not in f:
        return []
    batch = f.get(f"{name}_random_games_per_s")
    out = [f"  {title} through other libraries' APIs (base config, the bench's players):"]
    for key, label in (("openspiel", "OpenSpiel API"), ("pettingzoo", "PettingZoo AEC")):
        rate = f.get(f"{name}_{key}_random_games_per_s")
        if rate is None:
            out.append(f"    random, {label:<15}: {MISSING[key]}")
            continue
        ratio = f"; the batch path is {batch / rate:,.0f}x faster" if batch else ""
        out.append(f"    random, {label:<15}: {rate:>10,.1f} games/s "
                   f"({f[f'{name}_interop_games_per_repeat']} games a repeat{ratio})")
    return out
