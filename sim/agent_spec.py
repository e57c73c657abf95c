"""Agent names on the command line (`random`, `greedy`, `mcts:iters=400`): one per seat or one for all."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sim.errors import ConfigError

ROLLOUTS = ("random", "greedy", "uniform", "quick")  # indices: mcts.ROLLOUT_*
REWARDS = ("win", "score")
TREES = ("turns", "actions")  # indices: mcts.TREE_*
# MCTS parameters each game accepts: (type or choices, default). Kernels read them as one float row per
# seat, in this order (sim/<game>/mcts.py P_*). Choices are passed as their index.
MCTS_PARAMS: dict[str, dict[str, tuple[type | tuple[str, ...], float]]] = {
    "kamakura": {"iters": (int, 1000), "c": (float, 0.1), "rollout": (ROLLOUTS, 1),
                 "reward": (REWARDS, 1), "horizon": (int, 1), "prior": (float, 2.0), "tree": (TREES, 0),
                 "width": (int, 8)},
    "sakura": {"iters": (int, 2000), "c": (float, 0.7), "reward": (REWARDS, 0)},
}
AGENT_NAMES = ("random", "greedy", "mcts")
# smallest allowed value of numeric parameters
LOWEST = {"iters": 1, "c": 0.0, "horizon": 0, "prior": 0.0, "width": 1}


@dataclass(frozen=True)
class AgentSpec:
    name: str
    params: dict[str, float | int | str] = field(default_factory=dict)

    def __str__(self) -> str:
        if not self.params:
            return self.name
        return self.name + ":" + ",".join(f"{k}={v}" for k, v in self.params.items())


def parse_agents(text: str, players: int, game: str, extra_names: tuple[str, ...] = ()) -> list[AgentSpec]:
    """One AgentSpec per seat; refuse unknown agents and parameters with a ConfigError naming them.
    extra_names: more agents without parameters that this command accepts (`human` for `balance play`)."""
    names = [part.strip() for part in text.split(",")] if text else []
    # Parameters are comma-separated too: re-join "mcts:iters=4", "c=1" into one spec.
    specs: list[str] = []
    for part in names:
        if "=" in part and ":" not in part and specs:
            specs[-1] += "," + part
        else:
            specs.append(part)
    if len(specs) == 1:
        specs = specs * players
    if len(specs) != players:
        raise ConfigError(f"--agents: give one agent for every seat or one for all {players} seats, "
                          f"got {len(specs)}: {text!r}")
    return [parse_spec(spec, game, extra_names) for spec in specs]


def parse_spec(spec: str, game: str, extra_names: tuple[str, ...] = ()) -> AgentSpec:
    """One agent, e.g. `mcts:iters=400,c=1.2`; a ConfigError says what is wrong."""
    name, _, param_text = spec.strip().partition(":")
    if name not in AGENT_NAMES + extra_names:
        raise ConfigError(f"--agents: unknown agent {name!r} for {game}; known: "
                          f"{', '.join(AGENT_NAMES + extra_names)}")
    known = MCTS_PARAMS[game] if name == "mcts" else {}
    params: dict[str, float | int | str] = {}
    for item in filter(None, param_text.split(",")):
        key, eq, value = item.partition("=")
        if not eq or key not in known:
            allowed = ", ".join(known) or "none"
            raise ConfigError(f"--agents: agent {name!r} has no parameter {key!r} (parameters: {allowed})")
        kind = known[key][0]
        if isinstance(kind, tuple):
            if value not in kind:
                raise ConfigError(f"--agents: {name}:{key} must be one of {', '.join(kind)}, got {value!r}")
            params[key] = value
            continue
        try:
            number = kind(value)
        except ValueError:
            raise ConfigError(f"--agents: {name}:{key} must be {kind.__name__}, got {value!r}") from None
        if number < LOWEST[key]:
            raise ConfigError(f"--agents: {name}:{key} must be at least {LOWEST[key]}, got {value!r}")
        params[key] = number
    return AgentSpec(name, params)


def resolved(spec: AgentSpec, game: str) -> str:
    """The agent with every parameter written out, defaults included (`mcts:iters=1000,c=0.1,...`): what
    the agent string meant when a run was made, so a later change of defaults cannot pass for the same
    agent."""
    if spec.name != "mcts":
        return spec.name
    values = {key: spec.params.get(key, kind[int(default)] if isinstance(kind, tuple) else kind(default))
              for key, (kind, default) in MCTS_PARAMS[game].items()}
    return "mcts:" + ",".join(f"{key}={value}" for key, value in values.items())


def mcts_row(spec: AgentSpec, game: str) -> list[float]:
    """The kernel parameter row of an agent: MCTS values (defaults filled in), zeros for the others."""
    known = MCTS_PARAMS[game]
    if spec.name != "mcts":
        return [0.0] * len(known)
    row = []
    for key, (kind, default) in known.items():
        value = spec.params.get(key)
        if value is None:
            row.append(float(default))
        else:
            row.append(float(kind.index(value) if isinstance(kind, tuple) else value))
    return row


def agent_arrays(seating: list[list[str]], game: str, codes: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """Agent codes (games, players) and MCTS parameter rows (games, players, n) for a list of seatings."""
    cache: dict[str, tuple[int, list[float]]] = {}
    for row in seating:
        for text in row:
            if text not in cache:
                spec = parse_spec(text, game)
                cache[text] = (codes[spec.name], mcts_row(spec, game))
    kinds = np.array([[cache[text][0] for text in row] for row in seating], dtype=np.int64)
    params = np.array([[cache[text][1] for text in row] for row in seating], dtype=np.float64)
    return kinds, params.reshape(len(seating), len(seating[0]) if seating else 0, len(MCTS_PARAMS[game]))
