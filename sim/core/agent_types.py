"""What an agent of a game is (`AgentKind`: its kernel code and parameter schema) and a game's table of them
(`AgentRoster`). The kernels read agent codes and parameter order from each game's `agent_kinds.py`, which is
built from these alone, so this module imports nothing of the project: it is part of the compiled kernels'
sources (sim/core/numba_cache.py), and the validation and registry code above it is not.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class AgentKind:
    """An agent of a game: its code in the kernels and its parameters, name -> (type or choices, default).
    Kernels read the numeric parameters as one float row per seat, in this order, a choice as its index;
    a `str` parameter (a model file) is not in the row. An agent with `features` plays a learned model
    (sim/core/expert_model.py): the row ends with the model's weights, one per feature, in this order."""

    code: int
    params: dict[str, tuple[type | tuple[str, ...], float | str]] = field(default_factory=dict)
    #: smallest allowed value of each numeric parameter
    lowest: dict[str, float] = field(default_factory=dict)
    #: largest allowed value of each numeric parameter: past it a search's arrays would not fit in memory,
    #: or its float row would overflow the kernels' integers (2**63 iterations wrap to none at all)
    highest: dict[str, float] = field(default_factory=dict)
    #: games a chunk of the runner holds at least when a seat plays this agent (searching agents are slow)
    smallest_chunk: int = 1000
    #: the evaluation's feature names, for an agent that plays a model file (`model=` parameter)
    features: tuple[str, ...] = ()


def agent_codes(agents: dict[str, AgentKind]) -> dict[str, int]:
    """Each agent's code in the kernels, by name: the one table a GameSpec and an AgentRoster give."""
    return {name: kind.code for name, kind in agents.items()}


@dataclass(frozen=True)
class AgentRoster:
    name: str
    agents: dict[str, AgentKind]

    def agent_codes(self) -> dict[str, int]:
        return agent_codes(self.agents)
