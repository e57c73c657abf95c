"""Game-independent TOML config loading and validation helpers.

Every bad config must be refused before any game runs, with a message of the form
``"{file}: {dotted.key}: {what is wrong}"`` (docs/reference/configs.md), so the CLI can print it alone. The
helpers here keep that form in one place; each game's params module uses them to validate its own schema.
"""

from __future__ import annotations

import datetime as _dt
import difflib
import hashlib
import json
import os
import re
import tomllib
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, NoReturn

from sim.core.errors import ConfigError
from sim.core.file_reads import not_regular, read_regular

__all__ = [
    "ANY_INDEX",
    "WILD",
    "KeyPath",
    "apply_overrides",
    "check_unknown_keys",
    "config_hash",
    "deep_merge",
    "did_you_mean",
    "dotted",
    "expand",
    "expect_bool",
    "expect_int",
    "expect_list",
    "expect_str",
    "expect_str_choice",
    "expect_table",
    "fail",
    "get_path",
    "load_rules_file",
    "load_toml",
    "parse_key",
    "parse_pattern",
    "path_text",
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


def did_you_mean(word: object, options: Iterable[str], quote: bool = False) -> str:
    """``"did you mean blue?"`` naming the option closest to a mistyped word (difflib's ratio, at least
    0.6, as `difflib.get_close_matches`) and any about as close, or ``""`` when none is; ``quote`` writes
    them as TOML strings (a value, not a key)."""
    if not isinstance(word, str):
        return ""
    scored = []
    for i, option in enumerate(options):
        matcher = difflib.SequenceMatcher(None, word, option)
        if option != word and matcher.real_quick_ratio() >= 0.6 and matcher.ratio() >= 0.6:
            scored.append((-matcher.ratio(), i, option))
    if not scored:
        return ""
    best = min(scored)[0]  # the closest, and any as close as it (within 0.1): "E+3" is E+1 or E+2
    close = [option for score, _, option in sorted(scored) if score <= best + 0.1][:3]
    return "did you mean " + " or ".join(json.dumps(c) if quote else c for c in close) + "?"


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


def value_described(value: object) -> str:
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
        fail(file, key, f"must be {want}, {value_described(value)}")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        fail(file, key, f"must be {want}, got {value}")
    return value


def expect_str(value: object, file: str | os.PathLike[str], key: str) -> str:
    """A string."""
    if not isinstance(value, str):
        fail(file, key, f"must be a string, {value_described(value)}")
    return value


def expect_str_choice(
    value: object, file: str | os.PathLike[str], key: str, choices: Iterable[str]
) -> str:
    """One of a fixed set of names; the message lists them so the user can fix a typo at once."""
    options = list(choices)
    listed = ", ".join(json.dumps(c) for c in options)
    if not isinstance(value, str) or value not in options:
        hint = did_you_mean(value, options, quote=True)
        fail(file, key, f"must be one of {listed}, {value_described(value)}" + (f"; {hint}" if hint else ""))
    return value


def expect_bool(value: object, file: str | os.PathLike[str], key: str) -> bool:
    """A TOML boolean (``true``/``false``); 0 and 1 are refused so a typo cannot flip a rule silently."""
    if not isinstance(value, bool):
        fail(file, key, f"must be a boolean (true or false), {value_described(value)}")
    return value


def expect_list(value: object, file: str | os.PathLike[str], key: str) -> list[Any]:
    """A TOML array."""
    if not isinstance(value, list):
        fail(file, key, f"must be an array, {value_described(value)}")
    return value


def expect_table(value: object, file: str | os.PathLike[str], key: str) -> dict[str, Any]:
    """A TOML table (``[section]`` or inline ``{...}``)."""
    if not isinstance(value, dict):
        fail(file, key, f"must be a table, {value_described(value)}")
    return value


def check_unknown_keys(
    table: Mapping[str, object], allowed: Iterable[str], file: str | os.PathLike[str], prefix: str
) -> None:
    """Refuse keys the schema does not know: a misspelt knob would otherwise fall back to its default."""
    known = set(allowed)
    for key in table:
        if key not in known:
            hint = did_you_mean(key, sorted(known))
            fail(file, dotted(prefix, key), "unknown key" + (f"; {hint}" if hint else "")
                 + f" (allowed: {', '.join(sorted(known))})")


# --------------------------------------------------------------------------------------------------------
# Dotted keys: `rules.tie_break`, `chits.blue[3].points`. Sweep and tune files name their knobs this way,
# and a config file may set one element with a quoted top-level key (``"chits.blue[9].points" = 6``), so a
# variant changes one chit without copying its colour's whole array, or many at once with the wildcards a
# tune file's space keys take (``"chits.blue[*].points" = 1``, ``"chits.*[*].power" = 0``).


_PART = re.compile(r"(?:^|\.)([A-Za-z0-9_-]+)|\[(\d+)\]")

KeyPath = tuple[str | int, ...]  # a dotted key as parts: ("chits", "blue", 3, "points")


def parse_key(key: str, file: str, where: str) -> KeyPath:
    """``"chits.blue[3].points"`` -> ``("chits", "blue", 3, "points")``; anything else is refused, naming
    ``where`` (the key's place in the sweep or tune file)."""
    parts: list[str | int] = []
    pos = 0
    for m in _PART.finditer(key):
        if m.start() != pos:
            break
        parts.append(m.group(1) if m.group(1) is not None else int(m.group(2)))
        pos = m.end()
    if not key or pos != len(key) or not isinstance(parts[0], str):
        fail(file, where, f"not a dotted config key like rules.tie_break or chits.blue[3].points: {key!r}")
    return tuple(parts)


def path_text(path: KeyPath) -> str:
    """The dotted key of a path, as a user types it (``chits.blue[3].points``)."""
    text = ""
    for part in path:
        text = dotted(text, part)
    return text


def get_path(config: Mapping[str, Any], path: KeyPath) -> Any:
    """The value at ``path`` in a config table (KeyError/IndexError when it is not there)."""
    value: Any = config
    for part in path:
        value = value[part]
    return value


# Wildcards, in a config's dotted keys as in a tune file's space keys: ``[*]`` is every element of an array,
# ``*`` every key of a table (``"chits.*[*].power" = 0``).
WILD = "*"
ANY_INDEX = -1  # the part a ``[*]`` becomes
_PATTERN_PART = re.compile(r"(?:^|\.)([A-Za-z0-9_-]+|\*)|\[(\d+|\*)\]")


def parse_pattern(key: str, file: str, where: str) -> tuple[str | int, ...]:
    """A dotted key that may hold ``[*]`` (every element: part `ANY_INDEX`) and ``*`` (every key of a
    table: part ``"*"``); anything else is refused, naming ``where``."""
    parts: list[str | int] = []
    pos = 0
    for m in _PATTERN_PART.finditer(key):
        if m.start() != pos:
            break
        if m.group(1) is not None:
            parts.append(m.group(1))
        else:
            parts.append(ANY_INDEX if m.group(2) == WILD else int(m.group(2)))
        pos = m.end()
    if not key or pos != len(key) or not isinstance(parts[0], str):
        fail(file, where, f"not a dotted config key like chits.blue[3].points or chits.*[*].points: {key!r}")
    return tuple(parts)


def expand(key: str, config: Mapping[str, Any], file: str, where: str,
           within: str = "the base config") -> list[KeyPath]:
    """Every concrete path a key pattern names in ``config``, in config order; refused when it names none
    or runs into something that is not there (``within`` names ``config`` in the message)."""
    parts = parse_pattern(key, file, where)
    out: list[KeyPath] = []

    def missing(done: KeyPath, part: str | int, node: Any) -> NoReturn:
        hint = did_you_mean(part, node) if isinstance(node, dict) else ""
        fail(file, where, f"{path_text((*done, part))} is not in {within}" + (f"; {hint}" if hint else ""))

    def walk(node: Any, done: KeyPath, rest: tuple[str | int, ...]) -> None:
        if not rest:
            out.append(done)
            return
        part, tail = rest[0], rest[1:]
        here = path_text(done) or "the config"
        if part == ANY_INDEX:
            if not isinstance(node, list):
                fail(file, where, f"{here} is not an array, so [*] cannot run over it")
            for i, item in enumerate(node):
                walk(item, (*done, i), tail)
        elif part == WILD:
            if not isinstance(node, dict):
                fail(file, where, f"{here} is not a table, so * cannot run over its keys")
            for name, item in node.items():
                walk(item, (*done, name), tail)
        elif isinstance(part, int):
            if not isinstance(node, list) or part >= len(node):
                missing(done, part, node)
            walk(node[part], (*done, part), tail)
        else:
            if isinstance(node, list):
                fail(file, where, f"{here} is an array, so it has no key {part!r}: index it with [i] or [*]")
            if not isinstance(node, dict) or part not in node:
                if not tail and isinstance(node, dict):  # a key the base leaves at its default
                    out.append((*done, part))
                    return
                missing(done, part, node)
            walk(node[part], (*done, part), tail)

    walk(config, (), parts)
    if not out:
        fail(file, where, f"{key!r} names no value of {within}")
    return out


def _set(config: dict[str, Any], path: KeyPath, value: Any, file: str, where: str) -> None:
    node: Any = config
    for depth, part in enumerate(path):
        last = depth == len(path) - 1
        here = path_text(path[:depth]) or "the config"
        if isinstance(part, int):
            if not isinstance(node, list):
                fail(file, where, f"{here} is not an array, so [{part}] cannot index it")
            if part >= len(node):
                fail(file, where, f"index {part} is out of range: {here} has {len(node)} entries")
        elif not isinstance(node, dict):
            fail(file, where, f"{here} is not a table, so it has no key {part!r}")
        if last:
            old = node[part] if isinstance(part, int) or part in node else None
            if isinstance(value, dict) and isinstance(old, dict):
                node[part] = deep_merge(old, value)
            else:
                node[part] = _copy(value)
            return
        if isinstance(part, str) and part not in node:
            nxt = path[depth + 1]
            if isinstance(nxt, int):
                hint = did_you_mean(part, sorted(node))  # a misspelt table, as the table form says it
                fail(file, where, f"{path_text(path[:depth + 1])} is not in the base config" + (
                    f"; {hint} (allowed: {', '.join(sorted(node))})" if hint else
                    f", so [{nxt}] cannot index it; override the whole value"))
            node[part] = {}
        node = node[part]


def apply_overrides(config: Mapping[str, Any], overrides: Mapping[KeyPath, Any], file: str,
                    where: str = "") -> dict[str, Any]:
    """A copy of ``config`` with each override set, in order. Structural problems (indexing a table, an
    index out of range) are refused naming ``file`` and ``where`` plus the key; the values themselves are
    left for the game's validator."""
    out = _copy(dict(config))
    for path, value in overrides.items():
        _set(out, path, value, file, f"{where}{path_text(path)}" if where else path_text(path))
    return out


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


#: a config is a few kilobytes (the largest shipped, about 10 KB): past this it is not one
MAX_CONFIG_BYTES = 16 * 2**20


def _read_one(shown: str, real: Path) -> dict[str, Any]:
    """Parse one TOML file; ``shown`` is the path as the user will recognise it in messages."""
    try:  # only a regular file, within MAX_CONFIG_BYTES: a FIFO or a device is refused, not read
        text = read_regular(real, "config", MAX_CONFIG_BYTES, shown).decode("utf-8")
    except UnicodeDecodeError as exc:
        fail(shown, "", f"not UTF-8 text: {exc.reason} at byte {exc.start}")
    except OSError as exc:
        fail(shown, "", f"cannot read file: {exc.strerror or exc}")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        fail(shown, "", f"TOML syntax error: {exc}")
    except RecursionError:  # tomllib parses nested arrays and tables recursively
        fail(shown, "", f"arrays or tables nested too deeply (at most {MAX_DEPTH} levels)")
    check_values(data, shown)
    return data


#: how deep a config's tables and arrays may nest: the games' schemas need four levels, and thousands
#: would exhaust the interpreter's stack in the recursive merge below
MAX_DEPTH = 32


def check_values(data: dict[str, Any], file: str) -> None:
    """Refuse what no schema's check would catch: nesting past MAX_DEPTH, and a null byte in a key or a
    string (a path with one cannot be opened, and any other string is printed into reports)."""
    todo: list[tuple[Any, str, int]] = [(data, "", 1)]
    while todo:
        node, prefix, depth = todo.pop()
        for key, value in (node.items() if isinstance(node, dict) else enumerate(node)):
            where = dotted(prefix, key)
            if (isinstance(key, str) and "\0" in key) or (isinstance(value, str) and "\0" in value):
                fail(file, where, "has a null byte")
            if isinstance(value, dict | list):
                if depth >= MAX_DEPTH:
                    fail(file, where, f"arrays or tables nested too deeply (at most {MAX_DEPTH} levels)")
                todo.append((value, where, depth + 1))


def _resolve(shown: str, file: str, key: str) -> Path:
    """The real path of a config file ``shown`` (named in messages as ``file``, ``key``): a path with a
    null byte or a loop of symbolic links is refused."""
    if "\0" in shown:
        fail(file, key, "the path has a null byte")
    try:
        return Path(shown).resolve()
    except (OSError, RuntimeError) as exc:  # a symlink loop: RuntimeError before Python 3.13, then OSError
        fail(file, key, f"cannot resolve {shown}: a loop of symbolic links ({exc})")


#: the most files an extends chain may hold (a designer's are a few deep; Python's recursion ends near 500)
MAX_EXTENDS = 100


def _load(shown: str, chain: tuple[Path, ...]) -> dict[str, Any]:
    real = _resolve(shown, shown, "")
    data = _read_one(shown, real)
    chain = (*chain, real)
    # Quoted top-level keys with a dot or an index are dotted overrides, applied after this file's own
    # tables are merged over its parent, in the order written; each may hold wildcards ([*], *).
    overrides = [(key, data.pop(key)) for key in [k for k in data if _is_dotted(k)]]
    for key, _ in overrides:
        parse_pattern(key, shown, key)
    if "extends" not in data:
        return _apply_dotted(data, overrides, shown)
    target = data.pop("extends")
    if not isinstance(target, str) or not target:
        fail(shown, "extends",
             f"must be a non-empty string (a path relative to this file), {value_described(target)}")
    if any(ord(c) < 32 for c in target):  # a newline would split the message naming it
        fail(shown, "extends", f"must be a path on one line, without control characters, got {target!r}")
    if len(chain) >= MAX_EXTENDS:
        fail(shown, "extends", f"the chain of extends from {chain[0]} is longer than {MAX_EXTENDS} files: "
                               "extend a file nearer the base")
    parent_shown = os.path.normpath(os.path.join(os.path.dirname(shown), target))
    parent_real = _resolve(parent_shown, shown, "extends")
    if parent_real in chain:
        loop = " -> ".join([*(str(p) for p in chain), str(parent_real)])
        fail(shown, "extends", f"cycle: {loop}")
    if not parent_real.is_file():
        kind = not_regular(parent_real)
        fail(shown, "extends", f"{target!r} is {kind}, not a config file" if kind else
             _not_found(target, parent_real, shown, data.get("game")))
    return _apply_dotted(deep_merge(_load(parent_shown, chain), data), overrides, shown)


def _apply_dotted(config: dict[str, Any], overrides: list[tuple[str, Any]], file: str) -> dict[str, Any]:
    """``config`` with a file's dotted keys set in the order written, each wildcard expanded over the
    config as the keys before it left it (`expand`: one that names nothing is refused by file and key)."""
    for key, value in overrides:
        paths = expand(key, config, file, key, within="the config") if WILD in key \
            else [parse_key(key, file, key)]
        config = apply_overrides(config, dict.fromkeys(paths, value), file)
    return config


#: the configs shipped with the toolkit: a folder per game (configs/<game>/, each with its base.toml)
SHIPPED_CONFIGS = Path(__file__).resolve().parents[2] / "configs"


def _not_found(target: str, looked: Path, shown: str, game: object) -> str:
    """What a missing `extends` says: the folder it looked in and, when a shipped game's folder (the one
    of the file's own `game`, if it names one) holds a file of that name, the path to it from the file."""
    what = f"file not found: {target} (looked in {looked.parent})"
    if isinstance(game, str) and _BARE_KEY.match(game):
        folders = [SHIPPED_CONFIGS / game]
    else:
        folders = sorted(p.parent for p in SHIPPED_CONFIGS.glob("*/base.toml"))
    shipped = [folder / looked.name for folder in folders if (folder / looked.name).is_file()]
    if not shipped:
        return what
    here = os.path.abspath(os.path.dirname(shown))  # extends is joined to the file's folder as given
    paths = " or ".join(f'extends = "{Path(os.path.relpath(p, here)).as_posix()}"' for p in shipped)
    return f"{what}; did you mean {paths}?"


def _is_dotted(key: str) -> bool:
    """A top-level key written as a dotted path (``"rules.tie_break"``, ``"chits.blue[9].points"``); TOML
    reads an unquoted ``a.b = 1`` as nested tables already, so only quoted keys reach here with a dot."""
    return "." in key or "[" in key


def load_toml(path: str | os.PathLike[str]) -> tuple[dict[str, Any], str]:
    """Read a TOML config and resolve its ``extends`` chain into one merged table.

    ``extends = "other.toml"`` names the parent, relative to the extending file; the parent is loaded
    (recursively) and this file's keys are merged over it (tables key by key, arrays and scalars replace).
    The ``extends`` key is not in the result. A quoted top-level dotted key (``"chits.blue[9].points" = 6``)
    sets that one value after the merge, as a sweep or tune file's key would; with wildcards, as a tune
    file's space key, every value it names (``[*]`` every element, ``*`` every key of a table; one that
    names none is refused). A missing parent is refused naming the folder looked in, and the shipped config
    of that name if there is one. Messages name files by the path as given (joined with the extends paths),
    which is what the user typed; the returned string is the top file's resolved path.
    """
    shown = os.fspath(path)
    real = _resolve(shown, shown, "")
    if not real.is_file():
        kind = not_regular(real)
        fail(shown, "", f"not a file: it is {kind}" if kind else "file not found")
    return _load(shown, ()), str(real)


def load_rules_file(validate: Callable[[dict[str, Any], int, str], Any], path: str | os.PathLike[str] | None,
                    default: Path, players: int, overrides: Mapping[str, Any] | None = None) -> Any:
    """The rules of a config file (None or "": `default`), its `extends` resolved, with `overrides` (keys of
    ``[rules]``, e.g. ``{"tie_break": "shared"}``) written over its ``[rules]`` table and the whole validated
    for `players` by `validate` (a game's `rules_from_mapping`, or the registry's cached `GameSpec.rules`)
    as if the file held them. The one way rules are read from a file: the registry, the OpenSpiel games and
    the PettingZoo environment all come here."""
    shown = os.fspath(path) if path else os.fspath(default)
    config = load_toml(shown)[0]
    if overrides:
        config = {**config, "rules": {**config.get("rules", {}), **overrides}}
    return validate(config, players, shown)


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
