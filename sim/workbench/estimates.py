"""What a long job will cost, said before it starts: the games a study plays and the time they take at the
chosen skill level on this draft, each level's self-play pace measured on the draft itself
(sim/app/skill_cost.py, the same figures the skill choice shows), and, when that is more than a few
minutes, the cheaper level that would do the same games in less (greedy, the fast one).

The pace of a seat list ("expert,greedy,greedy") is its slowest level's: a game goes at its slowest
player. The workers share the games: the time is games / (pace x workers).
"""

from __future__ import annotations

import os
from typing import Any

from analysis.verdicts import duration
from sim.app.skill_cost import SKILLS, pace_text

#: past this a job is long: the page offers the cheaper level beside the estimate
LONG_SECONDS = 180.0


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


def estimate(games: int, agents: str, costs: dict[str, dict[str, Any]], workers: int) -> dict[str, Any]:
    """The estimate of `games` self-play games of `agents` on `workers` workers, from the draft's measured
    paces (`costs`: skill_rates' answer): games, the level, its games a second, the seconds, whether it is
    long, a sentence, and the cheaper level offered when it is long (None when no level is cheaper or
    the pace of one of the seats is unknown)."""
    names = levels_of(agents)
    rates = {name: _rate(costs, name) for name in names}
    known = {name: rate for name, rate in rates.items() if rate}
    if not names or len(known) < len(set(names)):
        return {"games": games, "agents": agents, "games_per_s": None, "seconds": None, "long": None,
                "cheaper": None,
                "text": f"{games:,} games at {agents}; its pace on this draft is not measured"}
    slowest = min(known, key=known.__getitem__)
    rate = known[slowest] * max(1, workers)
    seconds = games / rate
    long = seconds > LONG_SECONDS
    cheaper = None
    if long:
        faster = [(r, name) for name in SKILLS if (r := _rate(costs, name)) and r > known[slowest]]
        if faster:
            best_rate, name = max(faster)
            quick = games / (best_rate * max(1, workers))
            cheaper = {"agents": name, "games_per_s": round(best_rate * max(1, workers), 3), "seconds": quick,
                       "text": f"at {name} the same {games:,} games take about {duration(quick)}"}
    text = (f"{games:,} games at {agents}: about {duration(seconds)} on {max(1, workers)} worker(s) "
            f"({slowest} plays about {pace_text(known[slowest])} on this draft)")
    if cheaper is not None:
        text += f"; {cheaper['text']}"
    return {"games": games, "agents": agents, "games_per_s": round(rate, 3), "seconds": seconds, "long": long,
            "cheaper": cheaper, "text": text}
