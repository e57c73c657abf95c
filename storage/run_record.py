"""`RunManifest`: a run directory's manifest.json as one typed, frozen record.

Every key the toolkit writes is a field; a key an older manifest lacks reads as its default (what the
readers took its absence to mean), and is written back absent, so a manifest read and written again is
the same file byte for byte. The record remembers which keys it holds (`present`): those a file held, or
that a writer set (`updated`); `to_json` writes them and every field that differs from its default. Keys
this version does not know are kept as read (`others`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sim.core.errors import ConfigError

_Check = tuple[str, type | tuple[type, ...], bool]  # key, JSON type(s), required
#: what every manifest the toolkit writes holds (simulate and values runs alike), checked before it is read
_MANIFEST: tuple[_Check, ...] = (
    ("game", str, True), ("players", int, True), ("config", dict, True), ("agents", list, True),
    ("seed", int, True), ("rotate_seats", bool, False), ("config_hash", str, False), ("study", str, False),
    ("games_asked", int, False), ("games_finished", int, False), ("sessions", list, False),
    ("wall_time_s", (int, float), False), ("resolved_agents", list, False),
    ("positions", (list, type(None)), False), ("components", list, False),
    ("stopped_adaptively", bool, False), ("looks", list, False), ("models", list, False))
#: the manifest keys that make two runs the same run (with resolved_agents)
IDENTITY = ("game", "config_hash", "players", "agents", "rotate_seats", "seed", "study", "positions")
#: what a manifest written before a key existed means by its absence, when two runs' identities are
#: compared (any other key of IDENTITY: None)
_ABSENT = {"study": "simulate", "positions": None}
#: the fields held as tuples (JSON lists)
_TUPLES = ("agents", "sessions", "resolved_agents", "positions", "components", "looks", "models")
#: what every run the runner starts writes, even at a default value (a new record holds these); the rest
#: (a values run's positions and components, stopped_adaptively, the models its seats play) only when set
WRITTEN = frozenset({"game", "players", "config", "agents", "seed", "rotate_seats", "config_hash", "study",
                     "games_asked", "games_finished", "sessions", "wall_time_s", "resolved_agents",
                     "config_path", "created", "package_versions"})


def check_manifest(manifest: dict, path: Path) -> None:
    """Refuse (ConfigError naming `path` and the key) a manifest without the keys and types the toolkit
    writes (`_MANIFEST`): the record is built from it without further checks."""
    for key, kind, required in _MANIFEST:
        if key not in manifest:
            if required:
                raise ConfigError(f"{path}: {key}: missing (the manifest of a run holds it)")
            continue
        value = manifest[key]
        if not isinstance(value, kind) or (isinstance(value, bool) and kind in (int, (int, float))):
            raise ConfigError(f"{path}: {key}: wrong type ({type(value).__name__}: {str(value)[:40]!r})")
        if isinstance(value, int | float) and not isinstance(value, bool) and key != "seed" and value < 0:
            raise ConfigError(f"{path}: {key}: must not be negative, got {value}")
    if manifest["players"] < 1 or len(manifest["agents"]) != manifest["players"] or not all(
            isinstance(a, str) for a in manifest["agents"]):
        raise ConfigError(f"{path}: agents: must list one agent name per player ({manifest['players']})")
    if not all(isinstance(s, dict) for s in manifest.get("sessions", [])):
        raise ConfigError(f"{path}: sessions: must list one record (a JSON object) per session")
    if not all(isinstance(m, dict) for m in manifest.get("models", [])):
        raise ConfigError(f"{path}: models: must list one record (a JSON object) per agent playing a model")
    if not all(isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in manifest.get("looks", [])):
        raise ConfigError(f"{path}: looks: must list the games in hand at each look, whole numbers above 0")


@dataclass(frozen=True)
class RunManifest:
    """A run's manifest. The first five fields every manifest holds; the rest default to what their
    absence has always meant. Lists are tuples here (JSON lists in the file)."""

    game: str
    players: int
    config: dict[str, Any]               # the config snapshot, `extends` resolved
    agents: tuple[str, ...]              # as given, one per seat
    seed: int
    rotate_seats: bool = False
    config_hash: str | None = None
    study: str = "simulate"              # "simulate" (self-play) or "values"
    games_asked: int = 0                 # the most games any session asked for
    games_finished: int = 0              # every finished game on disk, also past games_asked
    sessions: tuple[dict[str, Any], ...] = ()  # one record per session that played
    wall_time_s: float = 0.0             # the sessions' seconds, summed (a whole number as written)
    resolved_agents: tuple[str, ...] | None = None  # the agents with every default written out
    positions: tuple[int, ...] | None = None        # a values run's positions
    components: tuple[dict[str, Any], ...] | None = None  # a values run's components, in table order
    stopped_adaptively: bool = False     # played until its verdicts were decided (--until-decided)
    looks: tuple[int, ...] = ()          # the games in hand each time --until-decided judged it, ascending
    #: one record per agent that plays a learned model (agent_spec.model_seats): its seats, the model file,
    #: its digest and identity, the config it was trained on (file and hash)
    models: tuple[dict[str, Any], ...] | None = None
    config_path: str | None = None
    created: float | None = None         # seconds since the epoch
    package_versions: dict[str, str] | None = None
    others: dict[str, Any] = field(default_factory=dict)  # keys this version does not know, as read
    #: the keys held even at their default value (`to_json`): by default those every new run writes
    present: frozenset[str] = field(default=WRITTEN, repr=False)

    def __post_init__(self) -> None:
        for name in _TUPLES:  # a list given (a writer, a test) is held as the tuple the record declares
            if isinstance(getattr(self, name), list):
                object.__setattr__(self, name, tuple(getattr(self, name)))

    @classmethod
    def from_json(cls, data: dict, path: Path) -> RunManifest:
        """The record of a manifest's JSON object, checked first (`check_manifest`: a ConfigError naming
        `path` and the key). Keys it lacks take their defaults; keys this version does not know are kept."""
        check_manifest(data, path)
        known = {key: data[key] for key in KEYS if key in data}
        others = {key: value for key, value in data.items() if key not in KEYS}
        return cls(**known, others=others, present=frozenset(known))

    def has(self, key: str) -> bool:
        """Whether the manifest holds `key` (a file held it or a writer set it, or it is not its default)."""
        return key in self.present or getattr(self, key) != _DEFAULTS[key]

    def to_json(self) -> dict[str, Any]:
        """The manifest as its JSON object: every key it holds (`has`), lists as lists, and the keys it was
        read with that this version does not know."""
        out = {key: _plain(getattr(self, key)) for key in KEYS if self.has(key)}
        return {**out, **{key: value for key, value in self.others.items() if key not in out}}

    def updated(self, **changes: Any) -> RunManifest:
        """A copy with `changes` (fields), which it then holds even at their default value."""
        return dataclasses.replace(self, **changes, present=self.present | frozenset(changes))

    def identity(self) -> dict[str, Any]:
        """The values that make a run this run (IDENTITY), as JSON values; a key the manifest lacks is
        what its absence means (`_ABSENT`, else None)."""
        return {key: _plain(getattr(self, key)) if self.has(key) else _ABSENT.get(key) for key in IDENTITY}

    def differences(self, asked: RunManifest) -> dict[str, tuple[Any, Any]]:
        """Where this run's identity differs from the `asked` one's: key -> (this run's, the asked run's).
        resolved_agents counts only when this manifest holds it (runs made before agents were recorded
        resolved lack it: their agent strings must do)."""
        ours, theirs = self.identity(), asked.identity()
        out = {key: (ours[key], theirs[key]) for key in IDENTITY if ours[key] != theirs[key]}
        if self.has("resolved_agents") and self.resolved_agents != asked.resolved_agents:
            out["resolved_agents"] = (_plain(self.resolved_agents), _plain(asked.resolved_agents))
        return out


def _plain(value: Any) -> Any:
    """A field's JSON value (a tuple as a list)."""
    return list(value) if isinstance(value, tuple) else value


#: the manifest's keys, in the order of the record's fields
KEYS = tuple(f.name for f in dataclasses.fields(RunManifest) if f.name not in ("others", "present"))
_DEFAULTS = {f.name: f.default for f in dataclasses.fields(RunManifest) if f.name in KEYS}
