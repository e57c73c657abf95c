"""The model files of the `expert` agents: a learned evaluation's weights with what they were fitted for.

A model file is JSON, small enough to read and diff:

    {"format": 1, "game": "<game>", "players": 3, "features": [...], "weights": [...],
     "config": "configs/<game>/base.toml", "config_hash": "...", "training": {...}, "strength": {...}}

`training` records how it was made (agents, rounds, games, positions, seed); `strength` what
`balance train` measured of it (win share against the data agent, with n and its interval). Trained
defaults for each game's base config and player count ship in the repository (sim/<game>/models/); an
`expert` seat without `model=` uses the one for its game and player count.

A model is refused (ConfigError: one line, exit 2) when the file is missing or malformed, or was trained
for another game, player count or feature list; one trained on another config is used with a one-line
warning, since its features are config-aware (points, powers, distances, not component ids).

Which model a seat without `model=` plays is config-aware: a model fitted for the config played (`balance
train --from-config VARIANT.toml`, written next to it as `VARIANT.expert-<N>p.json`, `fitted_model_path`)
when one is there and was trained on exactly that config (its hash); else the shipped one. A model's
identity (`ExpertModel.identity`) is a hash of its weights and the hash of the config it was trained on.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from sim.core.errors import ConfigError

FORMAT = 1
_REQUIRED = ("format", "game", "players", "features", "weights", "config_hash")


@dataclass(frozen=True)
class ExpertModel:
    game: str
    players: int
    features: tuple[str, ...]
    weights: tuple[float, ...]
    config: str
    config_hash: str
    training: dict = field(default_factory=dict)
    strength: dict = field(default_factory=dict)

    def to_json(self) -> str:
        return json.dumps({"format": FORMAT, "game": self.game, "players": self.players,
                           "features": list(self.features), "weights": [float(w) for w in self.weights],
                           "config": self.config, "config_hash": self.config_hash,
                           "training": self.training, "strength": self.strength}, indent=1) + "\n"

    def array(self) -> np.ndarray:
        return np.array(self.weights, dtype=np.float64)

    @property
    def identity(self) -> str:
        """A short hash of the weights and of the config they were fitted on: what the model plays like
        and where (the file's other bytes, its training notes, do not change it)."""
        text = json.dumps({"weights": [float(w) for w in self.weights], "config": self.config_hash})
        return hashlib.sha256(text.encode()).hexdigest()[:12]


@dataclass(frozen=True)
class PlayedConfig:
    """The config a seat plays on, for choosing its model: the file (a model fitted for it sits next to
    it) and the hash of its rules (the model must have been trained on exactly these)."""

    path: str
    config_hash: str


#: the repository's root: the shipped models are named relative to it
ROOT = Path(__file__).resolve().parents[2]


def default_model_path(game: str, players: int) -> Path:
    """Where the shipped model of a game and player count lives."""
    return Path(__file__).resolve().parents[1] / game / "models" / f"expert-{players}p.json"


def variant_model_path(config: str | os.PathLike[str], players: int) -> Path:
    """Where `balance train --from-config` writes a config's model: next to it, `<stem>.expert-<N>p.json`."""
    config = Path(config)
    return config.with_name(f"{config.stem}.expert-{players}p.json")


def fitted_model_path(played: PlayedConfig, players: int) -> Path | None:
    """The model fitted for the config played (`variant_model_path`), if there is one and it was trained
    on this very config; None otherwise (none there, or one trained before the config was edited). A
    malformed file there is refused (ConfigError), as a `model=` would be."""
    path = variant_model_path(played.path, players)
    try:
        there = path.is_file()
    except (OSError, ValueError):
        return None
    if not there:
        return None
    return path if read_model(path).config_hash == played.config_hash else None


def model_path(text: str, game: str, players: int, played: PlayedConfig | None = None) -> Path:
    """The file a `model=` parameter names; '' or absent: the model fitted for the config `played`, if
    any (`fitted_model_path`), else the shipped default."""
    if text:
        return Path(text)
    fitted = fitted_model_path(played, players) if played is not None else None
    return fitted if fitted is not None else default_model_path(game, players)


def shown_path(path: Path) -> str:
    """A model file as a run records it: a shipped one (sim/<game>/models/) by its place in the repository,
    the same in any clone; any other as it was found."""
    try:
        real = path.resolve()
    except (OSError, RuntimeError):
        return os.fspath(path)
    shipped = real.parent.name == "models" and real.parent.parent.parent == ROOT / "sim"
    return real.relative_to(ROOT).as_posix() if shipped else os.fspath(path)


def save_model(model: ExpertModel, path: str | os.PathLike[str]) -> Path:
    """Write a model file atomically (a half-written model never replaces a good one)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".tmp-{path.name}")
    tmp.write_text(model.to_json())
    os.replace(tmp, path)
    return path


_CACHE: dict[tuple[str, float], ExpertModel] = {}


#: a model file is a few kilobytes; a bigger one is not a model, and reading it could fill the memory
MAX_MODEL_BYTES = 16 * 2**20


def _model_data(path: Path) -> tuple[dict, tuple[str, float]]:
    """A model file's JSON object and its cache key (real path, time of change); a ConfigError when it is
    missing, not a regular file (a FIFO would block the read), too big or not JSON."""
    try:
        info = path.stat()
        key = (os.fspath(path.resolve()), info.st_mtime)
    except (OSError, ValueError, RuntimeError):  # missing; a null byte in the path; a loop of links
        raise ConfigError(f"{path}: no such model file (train one with `balance train`)") from None
    if not stat.S_ISREG(info.st_mode):
        raise ConfigError(f"{path}: not a model file (not a regular file)")
    if info.st_size > MAX_MODEL_BYTES:
        raise ConfigError(f"{path}: not a model file ({info.st_size:,} bytes; a model has a few thousand)")
    try:
        data = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ConfigError(f"{path}: not a model file ({err})") from None
    except RecursionError:
        raise ConfigError(f"{path}: not a model file (JSON nested too deeply)") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: not a model file (expected a JSON object)")
    return data, key


#: each key's JSON type, (Python types, what a message calls them); `training` and `strength` may be absent
_TYPES = {"format": (int, "an integer"), "game": (str, "a string"), "players": (int, "an integer"),
          "features": (list, "an array of strings"), "weights": (list, "an array of numbers"),
          "config": (str, "a string"), "config_hash": (str, "a string"), "training": (dict, "an object"),
          "strength": (dict, "an object")}


def _check_types(data: dict, path: Path) -> None:
    """Refuse a missing key or a value of the wrong JSON type, naming the file and the key."""
    missing = [key for key in _REQUIRED if key not in data]
    if missing:
        raise ConfigError(f"{path}: not a model file (missing {', '.join(missing)})")
    for key, (kind, what) in _TYPES.items():
        value = data.get(key)
        if key in data and (isinstance(value, bool) or not isinstance(value, kind)):
            raise ConfigError(f"{path}: {key}: must be {what}, got {json.dumps(value)[:40]}")
    if data["format"] != FORMAT:
        raise ConfigError(f"{path}: format: model format {data['format']!r}, this version reads {FORMAT}")
    if data["players"] < 1:
        raise ConfigError(f"{path}: players: must be at least 1, got {data['players']}")
    if not all(isinstance(name, str) for name in data["features"]):
        raise ConfigError(f"{path}: features: must be an array of strings")
    weights = data["weights"]
    if (len(weights) != len(data["features"])
            or not all(isinstance(w, int | float) and not isinstance(w, bool) and _finite(w)
                       for w in weights)):
        raise ConfigError(f"{path}: weights: expected one finite number per feature")


def _finite(number: float) -> bool:
    """A JSON number that is a finite float (an integer of 400 digits is not)."""
    try:
        return math.isfinite(float(number))
    except OverflowError:
        return False


def read_model(path: str | os.PathLike[str]) -> ExpertModel:
    """A model file, parsed and checked for shape (ConfigError naming the file and what is wrong)."""
    path = Path(path)
    data, key = _model_data(path)
    if key in _CACHE:
        return _CACHE[key]
    _check_types(data, path)
    model = ExpertModel(game=data["game"], players=data["players"], features=tuple(data["features"]),
                        weights=tuple(float(w) for w in data["weights"]), config=data.get("config", ""),
                        config_hash=data["config_hash"], training=data.get("training", {}),
                        strength=data.get("strength", {}))
    _CACHE[key] = model
    return model


def load_model(path: str | os.PathLike[str], game: str, players: int,
               features: tuple[str, ...]) -> ExpertModel:
    """A model for `game` with `players` players whose features are `features` (the agent's), or a
    ConfigError saying why this file cannot be used."""
    model = read_model(path)
    if model.game != game:
        raise ConfigError(f"{path}: game: the model is for {model.game}, not {game}")
    if model.players != players:
        raise ConfigError(f"{path}: players: the model is for {model.players} players, not {players} "
                          f"(train one with `balance train {game} --players {players}`)")
    if model.features != tuple(features):
        raise ConfigError(f"{path}: features: the model's features are not this version's expert's "
                          f"(retrain it with `balance train`)")
    return model


_WARNED: set[str] = set()


def warn_config(model: ExpertModel, path: str | os.PathLike[str], config_hash: str) -> None:
    """The one-line warning when a model plays a config it was not trained on (once per model file and
    process: a sweep of twenty variants warns once, not twenty times)."""
    key = os.fspath(path)
    if model.config_hash != config_hash and key not in _WARNED:
        _WARNED.add(key)
        print(f"balance: warning: {path} was trained on config {model.config_hash} "
              f"({model.config or 'unknown file'}), not on this one ({config_hash}); using it anyway",
              file=sys.stderr)


def digest(path: str | os.PathLike[str]) -> str:
    """A short hash of a model file's bytes: part of a run's identity, so retraining makes a new run."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:12]
