"""What a long job will cost, said before it starts: the games a study plays at each level and the time
they take on this machine, each level's self-play pace measured on the draft itself (sim/app/skill_cost.py,
the same figures the skill choice shows).

The pace of a seat list ("expert,greedy,greedy") is its slowest level's: a game goes at its slowest
player. The workers share the games: the time is games / (pace x workers), stage after stage.
"""

from __future__ import annotations

import os
from typing import Any

from analysis.verdicts import duration


def cores() -> int:
    """The workers a job runs on when the workbench was given no --jobs: the cores this process may use."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def levels_of(agents: str) -> list[str]:
    """The agent names of a seat list ("expert,greedy" -> ["expert", "greedy"]), parameters left out."""
    return [part.split(":")[0].strip() for part in agents.split(",")
            if part.strip() and ("=" not in part or ":" in part)]


def _rate(costs: dict[str, dict[str, Any]], level: str) -> float | None:
    rate = costs.get(level, {}).get("games_per_s")
    return float(rate) if rate else None


def pace(agents: str, costs: dict[str, dict[str, Any]]) -> float | None:
    """Self-play games a second of a seat list on one worker: its slowest level's (None: one not measured)."""
    rates = [_rate(costs, name) for name in levels_of(agents)]
    known = [r for r in rates if r]
    return min(known) if rates and len(known) == len(rates) else None


def staged_estimate(stages: list[tuple[str, int]], costs: dict[str, dict[str, Any]], workers: int,
                    overhead: float = 0.0) -> dict[str, Any]:
    """The estimate of a job that plays `stages` (level, games) one after the other on `workers` workers,
    from the draft's measured paces (`costs`: skill_rates' answer), and spends `overhead` seconds besides
    its games: its games, its seconds (None: a level's pace is not measured) and a sentence in the
    designer's words, "about 6 min on this machine: 120,000 games of greedy play and 103,400 of expert
    play"."""
    games = sum(n for _, n in stages)
    paces = [pace(level, costs) for level, _ in stages]
    known = bool(stages) and all(paces)
    seconds = overhead + sum(n / (p * max(1, workers)) for (_, n), p in zip(stages, paces, strict=True)) \
        if known else None
    parts = [f"{n:,} {'games ' if k == 0 else ''}of {level} play" for k, (level, n) in enumerate(stages)]
    played = "no games" if not parts else parts[0] if len(parts) == 1 else \
        f"{', '.join(parts[:-1])} and {parts[-1]}"
    when = f"about {duration(seconds)} on this machine" if seconds is not None else \
        "its time on this machine is not known (a level's pace on this draft is not measured)"
    return {"games": games, "seconds": seconds, "text": f"{when}: {played}",
            "stages": [{"agents": level, "games": n} for level, n in stages]}
