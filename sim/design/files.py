"""What the design files (sweep and tune TOML files) share: their base config, player counts and agent
lineups, each variant's validation by its game's own rules, and the run directories they leave behind."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from sim import games
from sim.core.agent_spec import parse_agents
from sim.core.config import expect_int, expect_str, fail, load_toml
from sim.core.errors import ConfigError
from sim.core.game_spec import GameSpec
from storage.run_dir import RunDirectory


def base_path(file: str, value: object, key: str = "base") -> str:
    """The base config named in a sweep or tune file: relative to that file, or absolute; must exist."""
    text = expect_str(value, file, key)
    if not text:
        fail(file, key, "must name a config file")
    path = os.path.normpath(os.path.join(os.path.dirname(file), text))
    if not Path(path).is_file():
        fail(file, key, f"file not found: {text} (looked for {path})")
    return path


def load_base(file: str, value: object, key: str = "base") -> tuple[str, GameSpec, dict[str, Any]]:
    """(path, the game's spec, merged config) of a sweep or tune file's base config: the game is looked up
    here, once, by the base config's `game` key."""
    path = base_path(file, value, key)
    merged, _ = load_toml(path)
    return path, games.spec_of_config(merged, path), merged


#: the most games a sweep file's `games` or a tune file's budget and game counts may ask for: a billion
#: games is days of play on one machine, and past it a typo (an extra zero, a 1e30) is refused at once
MAX_GAMES = 10**9


def games_count(value: object, file: str, key: str, lo: int = 1, hi: int = MAX_GAMES) -> int:
    """A number of games in a sweep or tune file: an integer in lo..hi, hi at most MAX_GAMES."""
    return expect_int(value, file, key, lo, min(hi, MAX_GAMES))


def player_counts(file: str, value: object, spec: GameSpec, key: str = "players") -> tuple[int, ...]:
    """The player counts a sweep or tune file names, each one the game is for (refused by this file and
    key, not later by the base config's validation)."""
    items = value if isinstance(value, list) else [value]
    if not items:
        fail(file, key, "must name at least one player count")
    counts: list[int] = []
    for i, v in enumerate(items):
        where = f"{key}[{i}]" if isinstance(value, list) else key
        n = expect_int(v, file, where, 1)
        if not spec.min_players <= n <= spec.max_players:
            fail(file, where, f"{spec.name} is for {spec.min_players} to {spec.max_players} players, got {n}")
        counts.append(n)
    if len(set(counts)) < len(counts):
        fail(file, key, "repeats a player count")
    return tuple(counts)


def agent_lineups(file: str, value: object, key: str = "agents") -> tuple[str, ...]:
    items = value if isinstance(value, list) else [value]
    if not items:
        fail(file, key, "must name at least one agent lineup")
    lineups = tuple(expect_str(v, file, f"{key}[{i}]" if isinstance(value, list) else key)
                    for i, v in enumerate(items))
    if len(set(lineups)) < len(lineups):
        fail(file, key, "repeats an agent lineup")
    return lineups


def validate(spec: GameSpec, config: dict[str, Any], players: int, source: str) -> Any:
    """The game's own validation of a (variant's) merged config for `players`: its rules (ConfigError)."""
    return spec.rules(config, players, source)


def check_agents(file: str, key: str, lineup: str, players: int, spec: GameSpec) -> tuple[str, ...]:
    try:
        return tuple(str(a) for a in parse_agents(lineup, players, spec))
    except ConfigError as err:
        raise ConfigError(f"{file}: {key}: {str(err).removeprefix('--agents: ')} "
                          f"({players} players)") from None


def finished_games(path: Path) -> int:
    """Games 0..k-1 all finished in a run directory: k (0 when there is none)."""
    return RunDirectory(path).finished_games()


def write_if_changed(path: Path, text: str) -> None:
    """Write a file unless it already holds `text` (a finished sweep run again touches nothing)."""
    if not path.is_file() or path.read_text() != text:
        path.write_text(text)
