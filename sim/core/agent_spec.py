"""Agent names on the command line (`random`, `greedy`, `mcts:iters=400`): one per seat or one for all.

Which agents a game has, their kernel codes and parameter schemas come from its registry entry
(`GameSpec.agents`), which the caller hands in; this module only parses and checks names against them."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from sim.core.agent_types import AgentKind
from sim.core.errors import ConfigError
from sim.core.expert_model import PlayedConfig, digest, load_model, model_path, shown_path, warn_config


class Roster(Protocol):
    """What agent names are checked against: a game's name, the agents it offers and their kernel codes. A
    GameSpec is one; a game's own policies, which its spec refers to, use an AgentRoster of its agent
    table."""

    @property
    def name(self) -> str: ...

    @property
    def agents(self) -> dict[str, AgentKind]: ...

    def agent_codes(self) -> dict[str, int]: ...


@dataclass(frozen=True)
class AgentSpec:
    name: str
    params: dict[str, float | int | str] = field(default_factory=dict)

    def __str__(self) -> str:
        if not self.params:
            return self.name
        return self.name + ":" + ",".join(f"{k}={v}" for k, v in self.params.items())


def parse_agents(text: str, players: int, game: Roster, extra_names: tuple[str, ...] = ()) -> list[AgentSpec]:
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


def parse_spec(spec: str, game: Roster, extra_names: tuple[str, ...] = ()) -> AgentSpec:
    """One agent, e.g. `mcts:iters=400,c=1.2`; a ConfigError says what is wrong."""
    name, _, param_text = spec.strip().partition(":")
    kinds = game.agents
    known_names = (*kinds, *extra_names)
    if name not in known_names:
        raise ConfigError(f"--agents: unknown agent {name!r} for {game.name}; "
                          f"known: {', '.join(known_names)}")
    kind_of = kinds.get(name)
    known = kind_of.params if kind_of else {}
    params: dict[str, float | int | str] = {}
    for item in filter(None, param_text.split(",")):
        key, eq, value = item.partition("=")
        if not eq or key not in known:
            allowed = ", ".join(known) or "none"
            raise ConfigError(f"--agents: agent {name!r} has no parameter {key!r} (parameters: {allowed})")
        if key in params:  # `iters=5,iters=7`: which one was meant is not ours to guess
            raise ConfigError(f"--agents: {name}:{key} is given twice ({params[key]!r} and {value!r})")
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
        if isinstance(number, float) and not math.isfinite(number):  # nan passes every comparison below
            raise ConfigError(f"--agents: {name}:{key} must be a finite number, got {value!r}")
        lowest = kind_of.lowest.get(key) if kind_of else None
        if lowest is not None and number < lowest:
            raise ConfigError(f"--agents: {name}:{key} must be at least {lowest}, got {value!r}")
        highest = kind_of.highest.get(key) if kind_of else None
        if highest is not None and number > highest:
            raise ConfigError(f"--agents: {name}:{key} must be at most {highest}, got {value!r} "
                              "(docs/reference/agents.md gives each parameter's range)")
        params[key] = number
    return AgentSpec(name, params)


def model_file(spec: AgentSpec, game: Roster, players: int, played: PlayedConfig | None = None):
    """The model file an agent with a learned evaluation plays: its `model=`; else the model fitted for the
    config `played` (sim/core/expert_model.py, `fitted_model_path`), if any; else the shipped default."""
    return model_path(str(spec.params.get("model", "")), game.name, players, played)


def load_agent_model(spec: AgentSpec, game: Roster, players: int, played: PlayedConfig | None = None):
    """The checked model of an agent that plays one (ConfigError: missing, malformed, another game, player
    count or feature list; sim/core/expert_model.py), or None for the other agents."""
    kind = game.agents[spec.name]
    if not kind.features:
        return None
    return load_model(model_file(spec, game, players, played), game.name, players, kind.features)


def check_models(specs: list[AgentSpec], game: Roster, players: int, config_hash: str,
                 config_path: str | os.PathLike[str] | None = None) -> None:
    """Refuse an unusable model before any game is played, and warn (one line) when one was trained on
    another config (config_path: the config's file, where a model fitted for it would sit)."""
    played = PlayedConfig(os.fspath(config_path), config_hash) if config_path is not None else None
    for spec in specs:
        model = load_agent_model(spec, game, players, played)
        if model is not None:
            warn_config(model, model_file(spec, game, players, played), config_hash)


def model_seats(agents: list[str], game: Roster, players: int,
                played: PlayedConfig | None = None) -> tuple[dict, ...]:
    """What a run records of the models its seats play, one record per agent that plays one (`agents`:
    one per seat): the agent, its seats, the model file, its bytes' digest, its identity (weights and the
    trained-on config) and the config it was trained on (file and hash). Empty when no seat plays one."""
    out: dict[str, dict] = {}
    for seat, text in enumerate(agents):
        spec = parse_spec(text, game)
        if not game.agents[spec.name].features:
            continue
        if text not in out:
            path = model_file(spec, game, players, played)
            model = load_model(path, game.name, players, game.agents[spec.name].features)
            out[text] = {"agent": text, "seats": [], "file": shown_path(path), "digest": digest(path),
                         "identity": model.identity, "trained_on": model.config,
                         "trained_on_hash": model.config_hash}
        out[text]["seats"].append(seat)
    return tuple(out.values())


def resolved(spec: AgentSpec, game: Roster, players: int | None = None,
             played: PlayedConfig | None = None) -> str:
    """The agent with every parameter written out, defaults included (`mcts:iters=1000,c=0.1,...`): what
    the agent string meant when a run was made, so a later change of defaults cannot pass for the same
    agent. A model file is written with a hash of its bytes (`model=PATH@digest`): retraining the model
    makes another agent (players: needed to name the default model; played: the config, whose fitted
    model, if any, a seat without `model=` plays)."""
    kind_of = game.agents[spec.name]
    schema = kind_of.params
    if not schema:
        return spec.name
    values = {key: spec.params.get(key, kind[int(default)] if isinstance(kind, tuple) else kind(default))
              for key, (kind, default) in schema.items()}
    if kind_of.features and players is not None:
        path = model_file(spec, game, players, played)
        # the shipped model by its place in the repository, so a run made in another clone (or a
        # moved checkout) is the same run; a named or fitted file as it was found; with its bytes' digest
        shown = path if spec.params.get("model") else shown_path(path)
        values["model"] = f"{shown}@{digest(path)}" if path.is_file() else str(shown)
    return spec.name + ":" + ",".join(f"{key}={value}" for key, value in values.items())


def agent_row(spec: AgentSpec, game: Roster, players: int | None = None,
              played: PlayedConfig | None = None) -> list[float]:
    """The kernel parameter row of an agent: its numeric parameters in its schema's order (defaults filled
    in, choices by index), then, for an agent that plays a model, the model's weights (`model_file`: on
    the config `played`); empty for an agent without parameters."""
    kind_of = game.agents[spec.name]
    row = []
    for key, (kind, default) in kind_of.params.items():
        if kind is str:
            continue
        value = spec.params.get(key)
        if value is None:
            row.append(float(default))
        else:
            row.append(float(kind.index(value) if isinstance(kind, tuple) else value))
    if kind_of.features:
        if players is None:
            raise ValueError(f"agent_row: {spec.name} plays a model; give the player count")
        row.extend(load_agent_model(spec, game, players, played).weights)
    return row


def policy_params(spec: AgentSpec, game: Roster) -> dict[str, float | int | str]:
    """The keyword parameters of a readable-API policy: every parameter of the agent's schema, defaults
    filled in (a choice by index, a model file by name)."""
    out: dict[str, float | int | str] = {}
    for key, (kind, default) in game.agents[spec.name].params.items():
        value = spec.params.get(key)
        if kind is str:
            out[key] = str(default if value is None else value)
        elif isinstance(kind, tuple):
            out[key] = int(default) if value is None else kind.index(value)
        else:
            out[key] = kind(default if value is None else value)
    return out


def agent_arrays(seating: list[list[str]], game: Roster,
                 played: PlayedConfig | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Agent codes (games, players) and parameter rows (games, players, n) for a list of seatings; rows
    are zero-padded to the longest of them (agents without parameters: all zeros). played: the config the
    games are played on, whose fitted model a seat without `model=` plays (sim/core/expert_model.py)."""
    codes = game.agent_codes()
    players = len(seating[0]) if seating else 0
    cache: dict[str, tuple[int, list[float]]] = {}
    for row in seating:
        for text in row:
            if text not in cache:
                spec = parse_spec(text, game)
                cache[text] = (codes[spec.name], agent_row(spec, game, players, played))
    width = max([1, *(len(param_row) for _code, param_row in cache.values())])
    kinds = np.array([[cache[text][0] for text in row] for row in seating], dtype=np.int64)
    params = np.zeros((len(seating), players, width), dtype=np.float64)
    for g, row in enumerate(seating):
        for seat, text in enumerate(row):
            param_row = cache[text][1]
            params[g, seat, :len(param_row)] = param_row
    return kinds, params
