"""What an explore will spend, said before its first game: the budget's games by stage and level, and the
time they take at this machine's pace now, each level's self-play pace measured on the file's base design
for a moment (sim/app/skill_cost.py, as the workbench's estimates are): a guide, not a promise (a busy
machine, designs that play longer than the base, and the stages' own overheads make it longer; a budget
not spent and a resumed explore, whose stored games replay for nothing, make it shorter)."""

from __future__ import annotations

from typing import Any

from analysis.verdicts import duration
from sim.app.skill_cost import selfplay_rate
from sim.core.agent_spec import parse_agents
from sim.core.errors import ConfigError
from sim.design.explore import Settings
from sim.design.files import validate
from sim.design.tune_file import Tune

#: seconds each level's pace is measured for
PACE_SECONDS = 0.3


def stage_games(tune: Tune, settings: Settings) -> list[tuple[str, str, int]]:
    """(what, level, games at most) of each stage: the search at the file's agents, the refining,
    polishing and confirming at the judge's, each elite's witness at the level above."""
    witness = settings.witness_games * settings.elites if settings.witness and settings.confirm_games else 0
    after = settings.reserve() - witness
    judge = settings.judge or tune.agents
    out = [("searching", tune.agents, max(0, tune.budget - settings.reserve())),
           ("refining, polishing and confirming", judge, after)]
    return out + ([("the witness", settings.witness, witness)] if witness else [])


def _pace(tune: Tune, rules: Any, agents: str) -> float | None:
    """Games a second of one worker at `agents` (its slowest seat's), None where a level cannot play."""
    names = dict.fromkeys(str(a) for a in parse_agents(agents, tune.players, tune.spec))
    try:
        return min(selfplay_rate(tune.spec, rules, name, tune.players, PACE_SECONDS) for name in names)
    except ConfigError:
        return None


def plan_text(tune: Tune, settings: Settings, workers: int) -> str:
    """"FILE: at most 1,258,000 games: 169,600 searching at expert, ...; about 42 min of play at this
    machine's pace now (2 workers; expert about 267 games/s a worker here; ...)." """
    rules = validate(tune.spec, dict(tune.search_space.base), tune.players, tune.base)
    stages = [s for s in stage_games(tune, settings) if s[2] > 0]
    paces = {level: _pace(tune, rules, level) for level in dict.fromkeys(level for _, level, _ in stages)}
    parts = ", ".join(f"{games:,} {what} at {level}" for what, level, games in stages)
    known = all(paces.values())
    seconds = sum(games / (paces[level] * max(1, workers)) for _, level, games in stages) if known else None
    rates = "; ".join(f"{level} about {pace:,.0f} games/s a worker" for level, pace in paces.items() if pace)
    when = (f"about {duration(seconds)} of play at this machine's pace now ({workers} "
            f"worker{'s' * (workers != 1)}; {rates})") if seconds is not None else \
        "its time here is not known (a level cannot be timed)"
    return (f"{tune.file}: at most {sum(s[2] for s in stages):,} games: {parts}; {when}. A resumed explore "
            "replays its stored games for nothing.")
