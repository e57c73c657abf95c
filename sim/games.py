"""The game registry: one `GameSpec` per game, and the readable API's entry point `games.load`.

Every command (simulate, study, bench, play, ladder, sweep, tune, report, summary) asks this registry what a
game is; no module outside a game's own packages (`sim/<game>/`, `analysis/<game>/`) names a game. Each
game's spec (`GameSpec`, sim/core/game_spec.py) lives in its package (`sim/<game>/spec.py`, pure data:
importing it loads no kernels) and is imported only when asked for, like pgx's `make` or a TAG
`GameType` entry.
Adding a game: its packages, and one line in `REGISTRY`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import cache
from typing import Any

from sim.core.config import did_you_mean, load_toml, type_name
from sim.core.errors import ConfigError
from sim.core.game_spec import AgentKind, GameSpec, Vocabulary

__all__ = ["REGISTRY", "AgentKind", "GameSpec", "Vocabulary", "load", "load_config", "names", "spec",
           "spec_of_config", "specs"]


def _kamakura() -> GameSpec:
    from sim.kamakura.spec import SPEC

    return SPEC


def _sakura() -> GameSpec:
    from sim.sakura.spec import SPEC

    return SPEC


#: name -> the function that imports its GameSpec. The one place that lists the games.
REGISTRY: dict[str, Callable[[], GameSpec]] = {
    "kamakura": _kamakura,
    "sakura": _sakura,
}


def names() -> tuple[str, ...]:
    """The registered games, in registry order."""
    return tuple(REGISTRY)


@cache
def spec(name: str) -> GameSpec:
    """The GameSpec of `name`; a ConfigError names the known games."""
    if name not in REGISTRY:
        raise ConfigError(f"unknown game {name!r}; known games: {', '.join(REGISTRY)}")
    return REGISTRY[name]()


def specs() -> list[GameSpec]:
    return [spec(name) for name in REGISTRY]


def spec_of_config(config: dict, file: str | os.PathLike[str]) -> GameSpec:
    """The spec of a merged config's `game` key; a ConfigError names the file and the known games."""
    game = config.get("game")
    if not isinstance(game, str) or game not in REGISTRY:  # an array or table cannot be looked up
        hint = did_you_mean(game, REGISTRY)
        got = repr(game) if isinstance(game, str) or game is None else f"a TOML {type_name(game)}"
        raise ConfigError(f"{os.fspath(file)}: game: must be one of {', '.join(REGISTRY)}, got {got}"
                          + (f"; {hint}" if hint else ""))
    return spec(game)


def load_config(path: str | os.PathLike[str], players: int) -> tuple[GameSpec, dict, Any]:
    """Read a config of any game (its `game` key says which) and validate it for `players`:
    (spec, merged config, rules)."""
    merged, _ = load_toml(path)
    game = spec_of_config(merged, path)
    return game, merged, game.rules(merged, players, os.fspath(path))


def load(name: str, config: str | os.PathLike[str] | None = None, players: int = 3):
    """A game object (rules and parameters) for `name`, from a TOML config (default: the base config)."""
    game = spec(name)
    return game.game_class(game.load_rules(config, players))
