"""A quick in-memory balance study: play a batch, summarise seats, ties and length (no run directory)."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from analysis.seats import seat_win_rates, win_shares
from analysis.stats import wilson_interval
from sim.agent_spec import AgentSpec
from sim.kamakura.agents import AGENT_CODES
from sim.kamakura.batch import run_batch
from sim.kamakura.params import KamakuraRules
from sim.rng import game_seeds


@dataclass
class StudyResult:
    rules: KamakuraRules
    agents: list[AgentSpec]
    seed: int
    seconds: float
    batch: dict[str, np.ndarray]

    @property
    def games(self) -> int:
        return len(self.batch["turns"])

    def seats(self) -> pd.DataFrame:
        return seat_win_rates(win_shares(self.batch["winners"]), [str(a) for a in self.agents])


def kamakura_study(rules: KamakuraRules, agents: list[AgentSpec], games: int, seed: int) -> StudyResult:
    seating = np.array([AGENT_CODES[a.name] for a in agents], dtype=np.int64)
    start = time.perf_counter()
    batch = run_batch(rules, game_seeds(seed, 0, games), seating)
    return StudyResult(rules, agents, seed, time.perf_counter() - start, batch)


def format_study(result: StudyResult) -> str:
    r, n = result.rules, result.games
    lines = [f"Kamakura study: {r.source} (config {r.config_hash}), {r.players} players, "
             f"agents {','.join(str(a) for a in result.agents)}, seed {result.seed}",
             f"{n} games in {result.seconds:.1f} s ({n / max(result.seconds, 1e-9):,.0f} games/s)", "",
             f"seat win rates (n = {n} games each; fair share {100 / r.players:.1f}%; "
             f"tie-break {r.tie_break}):",
             "  seat  agent      win rate   95% CI            mean score"]
    scores = result.batch["scores"]
    for row in result.seats().itertuples():
        flag = "" if row.differs_from_fair else "  (not significantly different from fair)"
        lines.append(f"  {row.seat:>4}  {row.agent:<9} {100 * row.win_rate:8.1f}%   "
                     f"[{100 * row.ci_low:4.1f}%, {100 * row.ci_high:4.1f}%]   "
                     f"{scores[:, row.seat - 1].mean():10.1f}{flag}")
    ties = int(result.batch["tie"].sum())
    low, high = wilson_interval(ties, n)
    decided = int(result.batch["decided_by_tiebreak"].sum())
    turns = result.batch["turns"]
    lines += ["",
              f"top score tied in {100 * ties / n:.1f}% of games [{100 * low:.1f}%, {100 * high:.1f}%], "
              f"decided by the tie-break in {100 * decided / n:.1f}% (n = {n})",
              f"turns per game: mean {turns.mean():.1f}, median {np.median(turns):.0f}, "
              f"range {turns.min()}-{turns.max()}"]
    return "\n".join(lines)
