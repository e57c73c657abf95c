"""Agent names on the command line (`random`, `greedy`, `mcts:iters=400`): one per seat or one for all.

Which agents a game has, their kernel codes and parameter schemas come from its registry entry
(sim/games.py, `GameSpec.agents`); this module only parses and checks names against them."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sim import games
from sim.errors import ConfigError


def _kinds(game: str) -> dict[str, games.AgentKind]:
    """The agents a game offers (its registry entry), name -> AgentKind."""
    return games.spec(game).agents


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
    kinds = _kinds(game)
    known_names = (*kinds, *extra_names)
    if name not in known_names:
        raise ConfigError(f"--agents: unknown agent {name!r} for {game}; known: {', '.join(known_names)}")
    kind_of = kinds.get(name)
    known = kind_of.params if kind_of else {}
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
        lowest = kind_of.lowest.get(key) if kind_of else None
        if lowest is not None and number < lowest:
            raise ConfigError(f"--agents: {name}:{key} must be at least {lowest}, got {value!r}")
        params[key] = number
    return AgentSpec(name, params)


def resolved(spec: AgentSpec, game: str) -> str:
    """The agent with every parameter written out, defaults included (`mcts:iters=1000,c=0.1,...`): what
    the agent string meant when a run was made, so a later change of defaults cannot pass for the same
    agent."""
    schema = _kinds(game)[spec.name].params
    if not schema:
        return spec.name
    values = {key: spec.params.get(key, kind[int(default)] if isinstance(kind, tuple) else kind(default))
              for key, (kind, default) in schema.items()}
    return spec.name + ":" + ",".join(f"{key}={value}" for key, value in values.items())


def param_schema(game: str) -> dict[str, tuple[type | tuple[str, ...], float]]:
    """The kernels' parameter row layout of a game: the widest schema among its agents (today only the
    searching agent, `mcts`, has parameters)."""
    return max((kind.params for kind in _kinds(game).values()), key=len)


def mcts_row(spec: AgentSpec, game: str) -> list[float]:
    """The kernel parameter row of an agent: its values (defaults filled in); zeros for an agent without
    parameters."""
    known = param_schema(game)
    if not _kinds(game)[spec.name].params:
        return [0.0] * len(known)
    row = []
    for key, (kind, default) in known.items():
        value = spec.params.get(key)
        if value is None:
            row.append(float(default))
        else:
            row.append(float(kind.index(value) if isinstance(kind, tuple) else value))
    return row


def agent_arrays(seating: list[list[str]], game: str) -> tuple[np.ndarray, np.ndarray]:
    """Agent codes (games, players) and parameter rows (games, players, n) for a list of seatings."""
    codes = games.spec(game).agent_codes()
    cache: dict[str, tuple[int, list[float]]] = {}
    for row in seating:
        for text in row:
            if text not in cache:
                spec = parse_spec(text, game)
                cache[text] = (codes[spec.name], mcts_row(spec, game))
    kinds = np.array([[cache[text][0] for text in row] for row in seating], dtype=np.int64)
    params = np.array([[cache[text][1] for text in row] for row in seating], dtype=np.float64)
    return kinds, params.reshape(len(seating), len(seating[0]) if seating else 0, len(param_schema(game)))
