"""Game-independent TOML config loading and validation helpers.

Every bad config must be refused before any game runs, with a message of the form
``"{file}: {dotted.key}: {what is wrong}"`` (API.md), so the CLI can print it alone. The helpers here keep
that form in one place; each game's params module uses them to validate its own schema.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import re
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, NoReturn

from sim.errors import ConfigError

__all__ = [
    "check_unknown_keys",
    "config_hash",
    "deep_merge",
    "dotted",
    "expect_bool",
    "expect_int",
    "expect_list",
    "expect_str",
    "expect_str_choice",
    "expect_table",
    "fail",
    "load_toml",
    "type_name",
]

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


# --------------------------------------------------------------------------------------------------------
# Messages


def dotted(prefix: str, key: str | int) -> str:
    """Join a dotted key path: ``dotted("chits.green", 3)`` -> ``chits.green[3]``.

    String keys that are not TOML bare keys are quoted, so the printed path can be typed back into a file.
    """
    if isinstance(key, int):
        return f"{prefix}[{key}]"
    part = key if _BARE_KEY.match(key) else json.dumps(key)
    return f"{prefix}.{part}" if prefix else part


def fail(file: str | os.PathLike[str], key: str, what: str) -> NoReturn:
    """Raise the one error form users see: ``{file}: {key}: {what}`` (no key part when key is empty)."""
    if key:
        raise ConfigError(f"{file}: {key}: {what}")
    raise ConfigError(f"{file}: {what}")


def type_name(value: object) -> str:
    """The TOML name of a value's type, so messages speak the config file's language, not Python's."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "table"
    if isinstance(value, _dt.datetime | _dt.date | _dt.time):
        return "date/time"
    return type(value).__name__


def _got(value: object) -> str:
    """Describe a refused value with its TOML type, so a wrong type is named (``got a string ("3")``)."""
    if isinstance(value, bool):
        return f"got a boolean ({str(value).lower()})"
    if isinstance(value, str):
        return f"got a string ({json.dumps(value)})"
    if isinstance(value, list):
        return "got an array"
    if isinstance(value, dict):
        return "got a table"
    if isinstance(value, int):
        return f"got an integer ({value})"
    return f"got a {type_name(value)} ({value!r})"


# --------------------------------------------------------------------------------------------------------
# Validators: each returns the value with its checked type, or raises ConfigError naming file and key.


def expect_int(
    value: object, file: str | os.PathLike[str], key: str, lo: int | None = None, hi: int | None = None
) -> int:
    """An integer within [lo, hi]; booleans are refused (``true`` is not a count, though Python says so)."""
    if lo is not None and hi is not None:
        want = f"an integer in {lo}..{hi}"
    elif lo is not None:
        want = f"an integer >= {lo}"
    elif hi is not None:
        want = f"an integer <= {hi}"
    else:
        want = "an integer"
    if isinstance(value, bool) or not isinstance(value, int):
        fail(file, key, f"must be {want}, {_got(value)}")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        fail(file, key, f"must be {want}, got {value}")
    return value


def expect_str(value: object, file: str | os.PathLike[str], key: str) -> str:
    """A string."""
    if not isinstance(value, str):
        fail(file, key, f"must be a string, {_got(value)}")
    return value


def expect_str_choice(
    value: object, file: str | os.PathLike[str], key: str, choices: Iterable[str]
) -> str:
    """One of a fixed set of names; the message lists them so the user can fix a typo at once."""
    options = list(choices)
    listed = ", ".join(json.dumps(c) for c in options)
    if not isinstance(value, str) or value not in options:
        fail(file, key, f"must be one of {listed}, {_got(value)}")
    return value


def expect_bool(value: object, file: str | os.PathLike[str], key: str) -> bool:
    """A TOML boolean (``true``/``false``); 0 and 1 are refused so a typo cannot flip a rule silently."""
    if not isinstance(value, bool):
        fail(file, key, f"must be a boolean (true or false), {_got(value)}")
    return value


def expect_list(value: object, file: str | os.PathLike[str], key: str) -> list[Any]:
    """A TOML array."""
    if not isinstance(value, list):
        fail(file, key, f"must be an array, {_got(value)}")
    return value


def expect_table(value: object, file: str | os.PathLike[str], key: str) -> dict[str, Any]:
    """A TOML table (``[section]`` or inline ``{...}``)."""
    if not isinstance(value, dict):
        fail(file, key, f"must be a table, {_got(value)}")
    return value


def check_unknown_keys(
    table: Mapping[str, object], allowed: Iterable[str], file: str | os.PathLike[str], prefix: str
) -> None:
    """Refuse keys the schema does not know: a misspelt knob would otherwise fall back to its default."""
    known = set(allowed)
    for key in table:
        if key not in known:
            fail(file, dotted(prefix, key), f"unknown key (allowed: {', '.join(sorted(known))})")


# --------------------------------------------------------------------------------------------------------
# Loading with `extends`


def deep_merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """Merge override onto base: tables merge key by key (recursively); arrays and scalars replace.

    Inputs are not modified; the result shares no tables with them.
    """
    merged: dict[str, Any] = {k: _copy(v) for k, v in base.items()}
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = _copy(value)
    return merged


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _read_one(shown: str, real: Path) -> dict[str, Any]:
    """Parse one TOML file; ``shown`` is the path as the user will recognise it in messages."""
    try:
        text = real.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        fail(shown, "", f"not UTF-8 text: {exc.reason} at byte {exc.start}")
    except OSError as exc:
        fail(shown, "", f"cannot read file: {exc.strerror or exc}")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        fail(shown, "", f"TOML syntax error: {exc}")


def _load(shown: str, chain: tuple[Path, ...]) -> dict[str, Any]:
    real = Path(shown).resolve()
    data = _read_one(shown, real)
    chain = (*chain, real)
    if "extends" not in data:
        return data
    target = data.pop("extends")
    if not isinstance(target, str) or not target:
        fail(shown, "extends", f"must be a non-empty string (a path relative to this file), {_got(target)}")
    parent_shown = os.path.normpath(os.path.join(os.path.dirname(shown), target))
    parent_real = Path(parent_shown).resolve()
    if parent_real in chain:
        loop = " -> ".join([*(str(p) for p in chain), str(parent_real)])
        fail(shown, "extends", f"cycle: {loop}")
    if not parent_real.is_file():
        fail(shown, "extends", f"file not found: {target}")
    return deep_merge(_load(parent_shown, chain), data)


def load_toml(path: str | os.PathLike[str]) -> tuple[dict[str, Any], str]:
    """Read a TOML config and resolve its ``extends`` chain into one merged table.

    ``extends = "other.toml"`` names the parent, relative to the extending file; the parent is loaded
    (recursively) and this file's keys are merged over it (tables key by key, arrays and scalars replace).
    The ``extends`` key is not in the result. Messages name files by the path as given (joined with the
    extends paths), which is what the user typed; the returned string is the top file's resolved path.
    """
    shown = os.fspath(path)
    real = Path(shown).resolve()
    if not real.is_file():
        fail(shown, "", "file not found" if not real.exists() else "not a file")
    return _load(shown, ()), str(real)


def config_hash(merged: Mapping[str, Any]) -> str:
    """First 12 hex digits of the sha256 of canonical JSON (sorted keys), to tag runs by the config used."""
    text = json.dumps(merged, sort_keys=True, separators=(",", ":"), ensure_ascii=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def check_header(cfg: Any, file: str, game: str, players: object, player_range: tuple[int, int],
                 top_keys: set[str]) -> None:
    """The checks every game's config starts with: the player count, a table of known keys, the right
    `game` and an optional string `description`."""
    lo, hi = player_range
    if isinstance(players, bool) or not isinstance(players, int) or not lo <= players <= hi:
        fail(file, "players", f"{game.capitalize()} is for {lo} to {hi} players, got {players!r}")
    expect_table(cfg, file, "")
    check_unknown_keys(cfg, top_keys, file, "")
    if "game" not in cfg:
        fail(file, "game", f'missing key (must be "{game}")')
    found = expect_str(cfg["game"], file, "game")
    if found != game:
        fail(file, "game", f'must be "{game}" in a {game.capitalize()} config, got "{found}"')
    if "description" in cfg:
        expect_str(cfg["description"], file, "description")
