"""`balance train GAME --players N`: fit the `expert` agent's evaluation by self-play (expert iteration).

Round 0 plays `games` self-play games with the data agent (`--agents`, greedy by default) and records, at
every turn or round start, each seat's evaluation features and the points (tokens) it went on to gain
(the game's `GameSpec.training_ref`). A ridge regression of those gains on the features is the round's
model. Each later round plays the expert with the model so far and refits on the positions of every round
so far, so the evaluation learns the positions the expert itself reaches. Game g of round r has the seed
of (seed + r, g): rounds see different deals; every figure is the same at any --jobs.

The model file (sim/core/expert_model.py) records the game, player count, feature list, config and its hash,
the training (agents, rounds, games, positions, ridge, fit R^2) and the strength measured at the end: the
win share of one expert against players-1 copies of the data agent, seats rotated, with its Wilson 95%
interval and n.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed

from analysis.seats import win_shares
from analysis.stats import wilson_interval
from sim import games
from sim.core.agent_spec import agent_arrays, parse_agents
from sim.core.errors import ConfigError
from sim.core.expert_model import ExpertModel, save_model
from sim.core.game_spec import GameSpec
from sim.core.rng import game_seeds

RIDGE = 1.0  # a light penalty: it only steadies weights of features that hardly vary (unused seats)
CHUNK = 250


@dataclass(frozen=True)
class TrainResult:
    model: ExpertModel
    path: Path
    positions: int


def default_model_out(game: str, config: str | os.PathLike[str], players: int) -> Path:
    return Path("runs") / "models" / f"{game}-{Path(config).stem}-{players}p.json"


def fit_ridge(features: np.ndarray, target: np.ndarray, ridge: float = RIDGE) -> tuple[np.ndarray, float]:
    """Least squares with an L2 penalty on every weight but the first (the bias); returns (weights, R^2)."""
    penalty = ridge * np.eye(features.shape[1])
    penalty[0, 0] = 0.0
    weights = np.linalg.solve(features.T @ features + penalty, features.T @ target)
    residual = target - features @ weights
    spread = float(np.var(target))
    return weights, (1.0 - float(np.var(residual)) / spread) if spread > 0 else 0.0


def _positions_chunk(spec: GameSpec, config: dict, config_path: str, players: int, agent: str,
                     seeds: np.ndarray) -> dict[str, np.ndarray]:
    """Training positions of one chunk of games (runs in a worker)."""
    rules = spec.rules(config, players, config_path)
    kinds, params = agent_arrays([[agent] * players] * len(seeds), spec)
    return spec.training_positions(rules, seeds, kinds, params)


def _play_positions(spec: GameSpec, config: dict, config_path: str, players: int, agent: str, seed: int,
                    n_games: int, jobs: int) -> dict[str, np.ndarray]:

    seeds = game_seeds(seed, 0, n_games)
    chunks = [seeds[i:i + CHUNK] for i in range(0, n_games, CHUNK)]
    parts = Parallel(n_jobs=min(jobs, len(chunks)))(
        delayed(_positions_chunk)(spec, config, config_path, players, agent=agent, seeds=chunk)
        for chunk in chunks)
    return {key: np.concatenate([part[key] for part in parts]) for key in ("features", "gained")}


def _shares_chunk(spec: GameSpec, config: dict, config_path: str, players: int, seating: list[list[str]],
                  seeds: np.ndarray) -> np.ndarray:
    """Each seat's win share in games of seeds (a shared win 1/k)."""
    kinds, params = agent_arrays(seating, spec)
    batch = spec.run_batch(spec.rules(config, players, config_path), seeds, kinds, params)
    return win_shares(batch["winners"], batch.get("other_winners"))  # a winner that is no seat counts too


def level_shares(spec: GameSpec, config: dict, config_path: str, players: int, level: str, against: str,
                 n_games: int, seed: int, jobs: int) -> np.ndarray:
    """The win share of the `level` seat in each of `n_games` games against players-1 `against` seats,
    `level` in seat g mod players in game g (seats rotated), a shared win counting 1/k. Game g plays the
    seed of (seed, g), so two configs played with the same seed are paired game by game."""
    seating = [[level if seat == g % players else against for seat in range(players)]
               for g in range(n_games)]
    seeds = game_seeds(seed, 0, n_games)
    step = max(1, min(CHUNK, -(-n_games // max(jobs, 1))))
    parts = Parallel(n_jobs=min(jobs, -(-n_games // step)))(
        delayed(_shares_chunk)(spec, config, config_path, players, seating=seating[i:i + step],
                               seeds=seeds[i:i + step])
        for i in range(0, n_games, step))
    shares = np.concatenate(parts)
    return shares[np.arange(n_games), np.arange(n_games) % players]


def measure_strength(spec: GameSpec, config: dict, config_path: str, players: int, expert: str, against: str,
                     n_games: int, seed: int, jobs: int) -> dict:
    """Win share of one `expert` seat against players-1 `against` seats (`level_shares`), with its Wilson
    95% interval."""
    share = float(level_shares(spec, config, config_path, players, expert, against=against, n_games=n_games,
                               seed=seed, jobs=jobs).sum())
    low, high = wilson_interval(share, n_games)
    return {"against": against, "games": n_games, "win_share": round(share / n_games, 4),
            "interval": [round(low, 4), round(high, 4)], "fair_share": round(1 / players, 4), "seed": seed}


def train(spec: GameSpec, players: int, config: str | os.PathLike[str] | None = None,
          games_per_round: int = 3000, agents: str = "greedy", rounds: int = 2, jobs: int = 1, seed: int = 0,
          out: str | os.PathLike[str] | None = None, strength_games: int = 600,
          say: Callable[[str], None] = lambda line: None) -> TrainResult:
    """Train an expert model of `spec`'s game (see the module docstring) and write it; ConfigError on bad
    input."""
    game = spec.name
    if spec.training_ref is None or "expert" not in spec.agents:
        raise ConfigError(f"{game}: has no expert agent to train")
    config_path = os.fspath(config if config is not None else spec.default_config)
    found, merged, rules = games.load_config(config_path, players)
    if found.name != game:
        raise ConfigError(f"{config_path}: game: the config is for {found.name}, not {game}")
    named = {str(a) for a in parse_agents(agents, players, spec)}
    if len(named) != 1:
        raise ConfigError(f"--agents: training plays self-play; give one agent, got {agents!r}")
    (data_agent,) = named
    if rounds < 1:
        raise ConfigError(f"--rounds: at least 1, got {rounds}")
    features = spec.agents["expert"].features
    out_path = Path(out) if out is not None else default_model_out(game, config_path, players)
    feature_parts, target_parts = [], []
    model = None
    with tempfile.TemporaryDirectory() as scratch:
        agent = data_agent
        for round_index in range(rounds):
            data = _play_positions(spec, merged, config_path, players, agent=agent, seed=seed + round_index,
                                   n_games=games_per_round, jobs=jobs)
            feature_parts.append(data["features"])
            target_parts.append(data["gained"])
            weights, r2 = fit_ridge(np.concatenate(feature_parts), np.concatenate(target_parts))
            positions = int(sum(len(part) for part in target_parts))
            model = ExpertModel(game=game, players=players, features=features,
                                weights=tuple(float(w) for w in weights), config=config_path,
                                config_hash=rules.config_hash,
                                training={"agents": data_agent, "rounds": rounds, "games_per_round":
                                          games_per_round, "positions": positions, "seed": seed,
                                          "ridge": RIDGE, "r2": round(r2, 4)})
            say(f"round {round_index}: {len(data['gained']):,} positions from {agent}, "
                f"{positions:,} in the fit, R^2 {r2:.3f}")
            interim = save_model(model, Path(scratch) / f"round-{round_index}.json")
            agent = f"expert:model={interim}"
        strength = {}
        if strength_games > 0:
            strength = measure_strength(spec, merged, config_path, players, expert=agent, against=data_agent,
                                        n_games=strength_games, seed=seed + rounds, jobs=jobs)
            say(f"strength: {strength['win_share']:.1%} [{strength['interval'][0]:.1%}, "
                f"{strength['interval'][1]:.1%}] against {data_agent} (n = {strength_games}, fair share "
                f"{strength['fair_share']:.1%})")
    model = replace(model, strength=strength)
    return TrainResult(model, save_model(model, out_path), model.training["positions"])
