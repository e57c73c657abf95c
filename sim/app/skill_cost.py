"""What each skill level costs on a config: its self-play games per second, measured on the config itself
(the workbench's skill choice says it beside each level, so a designer sees that the strongest play is
also the slowest before starting a run)."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from sim.core.agent_spec import agent_arrays
from sim.core.errors import ConfigError
from sim.core.game_spec import GameSpec
from sim.core.rng import game_seeds

#: the skill levels offered where a skill is chosen, with what each is, strongest search after expert
SKILLS = {"greedy": "greedy (fast)", "expert": "expert (strong)", "search": "search (strongest)",
          "mcts": "mcts (tree search)"}
#: the most games one level is measured on (a fast level reaches its time first)
MOST_GAMES = 256
#: the levels warmed up in this process: the first batch of a level loads its compiled kernels, not timed
_WARM: set[tuple[str, str, int]] = set()


def skill_levels(spec: GameSpec) -> list[str]:
    """The skill levels a game offers, in SKILLS' order."""
    return [name for name in SKILLS if name in spec.agents]


def selfplay_rate(spec: GameSpec, rules: Any, agent: str, players: int, seconds: float) -> float:
    """Self-play games per second of `agent` (its defaults) under `rules`: batches of 1, 2, 4, ... games
    (game seeds of seed 1) until `seconds` have passed or MOST_GAMES are played, at least one game; one
    core. ConfigError when the agent cannot play here (no model for this player count)."""
    kinds, params = agent_arrays([[agent] * players], spec)
    if (spec.name, agent, players) not in _WARM:
        spec.run_batch(rules, game_seeds(0, 0, 1), kinds, params)
        _WARM.add((spec.name, agent, players))
    played, spent, batch = 0, 0.0, 1
    while played == 0 or (spent < seconds and played < MOST_GAMES):
        n = min(batch, MOST_GAMES - played) or 1
        start = time.perf_counter()
        spec.run_batch(rules, game_seeds(1, played, n), np.repeat(kinds, n, 0), np.repeat(params, n, 0))
        spent += time.perf_counter() - start
        played, batch = played + n, batch * 2
    return played / spent


def skill_rates(spec: GameSpec, rules: Any, players: int, seconds: float = 0.3) -> dict[str, dict[str, Any]]:
    """Each skill level's cost under `rules`: {level: {"games_per_s": rate or None, "label": words}}, the
    label as the skill choice shows it ("expert (strong): about 95 games/s on this config")."""
    out: dict[str, dict[str, Any]] = {}
    for level in skill_levels(spec):
        try:
            rate = selfplay_rate(spec, rules, level, players, seconds)
        except ConfigError as err:
            out[level] = {"games_per_s": None, "label": f"{SKILLS[level]}: cannot play here ({err})"}
            continue
        out[level] = {"games_per_s": round(rate, 3),
                      "label": f"{SKILLS[level]}: {_rate(rate)} on this config"}
    return out


def _rate(rate: float) -> str:
    return f"about {pace_text(rate)}"


def pace_text(rate: float) -> str:
    """Games a second in words: "246 games/s", "5.8 games/s", "one game in 12 s"."""
    if rate >= 10:
        return f"{rate:,.0f} games/s"
    if rate >= 1:
        return f"{rate:.1f} games/s"
    return f"one game in {1 / rate:,.0f} s"
