"""A quick in-memory balance study: play a batch, summarise seats, ties and length (no run directory)."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from analysis.seats import chi_square_equal, seat_win_rates_from_shares, win_shares
from analysis.stats import wilson_interval
from sim import games
from sim.core.agent_spec import AgentSpec, agent_arrays, check_models, parse_agents
from sim.core.expert_model import PlayedConfig
from sim.core.rng import game_seeds
from sim.games import GameSpec


@dataclass
class StudyResult:
    spec: GameSpec
    rules: Any
    agents: list[AgentSpec]
    seed: int
    seconds: float
    batch: dict[str, np.ndarray]

    @property
    def games(self) -> int:
        return len(self.batch["winners"])

    @property
    def scores(self) -> np.ndarray:
        return self.batch[self.spec.vocabulary.batch_scores][:, :self.rules.players]

    @property
    def lengths(self) -> np.ndarray:
        return self.batch[self.spec.vocabulary.length]

    def seats(self) -> pd.DataFrame:
        return seat_win_rates_from_shares(self.shares(), [str(a) for a in self.agents])

    def shares(self) -> np.ndarray:
        """Each seat's win share per game (a winner that is no seat, the batch's `other_winners`, counted
        in the 1/k of a shared win)."""
        return win_shares(self.batch["winners"], self.batch.get("other_winners"))


def run_study(config: str | os.PathLike[str], players: int, agents: str, n_games: int,
              seed: int) -> StudyResult:
    spec, _, rules = games.load_config(config, players)
    agent_specs = parse_agents(agents, rules.players, spec)
    check_models(agent_specs, spec, rules.players, rules.config_hash, config)
    seating, params = agent_arrays([[str(a) for a in agent_specs]], spec,
                                   PlayedConfig(os.fspath(config), rules.config_hash))
    start = time.perf_counter()
    batch = spec.run_batch(rules, game_seeds(seed, 0, n_games), seating[0], params[0])
    return StudyResult(spec=spec, rules=rules, agents=agent_specs, seed=seed,
                       seconds=time.perf_counter() - start, batch=batch)


def format_study(result: StudyResult) -> str:
    r, n = result.rules, result.games
    words = result.spec.vocabulary
    unit = words.length
    score = f"mean {words.score}"
    lines = [f"{words.title} study: {r.source} (config {r.config_hash}), {r.players} players, "
             f"agents {','.join(str(a) for a in result.agents)}, seed {result.seed}",
             f"{n} games in {result.seconds:.1f} s ({n / max(result.seconds, 1e-9):,.0f} games/s)", "",
             f"seat win rates (seat 0 starts; n = {n} games each; fair share {100 / r.players:.1f}%; "
             f"tie-break {r.tie_break}):",
             f"  seat  agent      win rate   95% CI            {score}"]
    for row in result.seats().itertuples():
        flag = "" if row.differs_from_fair else "  (not significantly different from fair, Holm)"
        lines.append(f"  {row.seat:>4}  {row.agent:<9} {100 * row.win_rate:8.1f}%   "
                     f"[{100 * row.ci_low:4.1f}%, {100 * row.ci_high:4.1f}%]   "
                     f"{result.scores[:, row.seat].mean():11.1f}{flag}")
    shares = result.shares()
    eq = chi_square_equal(shares.sum(axis=0), np.full(shares.shape[1], n))
    lines.append(f"  all seats equal? chi-square {eq['statistic']:.1f} on {eq['dof']} dof, "
                 f"p = {eq['p_value']:.3g}; seat flags: tests against the fair share, Holm-adjusted over the "
                 f"{r.players} seats")
    ties = int(result.batch["tie"].sum())
    low, high = wilson_interval(ties, n)
    decided = int(result.batch["decided_by_tiebreak"].sum())
    lengths = result.lengths
    lines += ["",
              f"top score tied in {100 * ties / n:.1f}% of games [{100 * low:.1f}%, {100 * high:.1f}%], "
              f"decided by the tie-break in {100 * decided / n:.1f}% (n = {n})",
              f"{unit} per game: mean {lengths.mean():.1f}, median {np.median(lengths):.0f}, "
              f"range {lengths.min()}-{lengths.max()}"]
    for key, label in words.study_means:
        lines.append(f"{label}: mean {result.batch[key].mean():.2f}")
    return "\n".join(lines)
