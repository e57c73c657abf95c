"""Agent names on the command line (`random`, `greedy`, `mcts:iters=400`): one per seat or one for all."""

from __future__ import annotations

from dataclasses import dataclass, field

from sim.errors import ConfigError

# Agents each game offers, with the parameters each accepts (none yet for the compiled baselines).
KNOWN_AGENTS: dict[str, dict[str, dict[str, type]]] = {
    "kamakura": {"random": {}, "greedy": {}},
    "sakura": {"random": {}, "greedy": {}},
}


@dataclass(frozen=True)
class AgentSpec:
    name: str
    params: dict[str, float | int | str] = field(default_factory=dict)

    def __str__(self) -> str:
        if not self.params:
            return self.name
        return self.name + ":" + ",".join(f"{k}={v}" for k, v in self.params.items())


def parse_agents(text: str, players: int, game: str) -> list[AgentSpec]:
    """One AgentSpec per seat; refuse unknown agents and parameters with a ConfigError naming them."""
    known = KNOWN_AGENTS[game]
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
    out = []
    for spec in specs:
        name, _, param_text = spec.partition(":")
        if name not in known:
            raise ConfigError(f"--agents: unknown agent {name!r} for {game}; known: {', '.join(known)}")
        params: dict[str, float | int | str] = {}
        for item in filter(None, param_text.split(",")):
            key, eq, value = item.partition("=")
            if not eq or key not in known[name]:
                allowed = ", ".join(known[name]) or "none"
                raise ConfigError(f"--agents: agent {name!r} has no parameter {key!r} "
                                  f"(parameters: {allowed})")
            try:
                params[key] = known[name][key](value)
            except ValueError:
                raise ConfigError(f"--agents: {name}:{key} must be {known[name][key].__name__}, "
                                  f"got {value!r}") from None
        out.append(AgentSpec(name, params))
    return out
