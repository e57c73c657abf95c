"""Entry point of the readable API (API.md): `games.load(name, config=..., players=...)`."""

from __future__ import annotations

import os

from sim.errors import ConfigError

GAMES = ("kamakura", "sakura")


def load(name: str, config: str | os.PathLike[str] | None = None, players: int = 3):
    """A game object (rules and parameters) for `name`, from a TOML config (default: the base config)."""
    if name == "kamakura":
        from sim.kamakura.game import KamakuraGame
        from sim.kamakura.params import DEFAULT_CONFIG, load_kamakura_config

        return KamakuraGame(load_kamakura_config(config if config is not None else DEFAULT_CONFIG, players))
    if name == "sakura":
        from sim.sakura.game import SakuraGame
        from sim.sakura.params import DEFAULT_CONFIG as SAKURA_CONFIG
        from sim.sakura.params import load_sakura_config

        return SakuraGame(load_sakura_config(config if config is not None else SAKURA_CONFIG, players))
    raise ConfigError(f"unknown game {name!r}; known games: {', '.join(GAMES)}")
