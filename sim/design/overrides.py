"""Dotted-key overrides of a config (`rules.order_chit_moves`, `chits.blue[3].points`, `board.torii`) and
writing a config back out as TOML, for `balance sweep` and `balance tune`.

An override is applied to the merged (``extends`` resolved) TOML table before validation, so a variant is
checked by the game's own validator exactly like a config file: a bad value is refused with the file, the
dotted key and what is wrong. A table value merges into a table key by key (as ``extends`` does); anything
else replaces.
"""

from __future__ import annotations

import json
import math
import re
import textwrap
from collections.abc import Mapping
from typing import Any

from sim.config import _copy, deep_merge, dotted, fail

__all__ = ["KeyPath", "apply_overrides", "dump_toml", "format_value", "get_path", "parse_key", "path_text"]

_PART = re.compile(r"(?:^|\.)([A-Za-z0-9_-]+)|\[(\d+)\]")
_BARE = re.compile(r"^[A-Za-z0-9_-]+$")

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
                fail(file, where, f"{path_text(path[:depth + 1])} is not in the base config, so "
                                  f"[{nxt}] cannot index it; override the whole value")
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


# ---- writing TOML ----------------------------------------------------------------------------------------
def format_value(value: Any) -> str:
    """A value as an inline TOML literal (strings JSON-quoted: a JSON string is a TOML basic string)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(format_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_key(k)} = {format_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"cannot write {type(value).__name__} as TOML")


def _key(key: str) -> str:
    return key if _BARE.match(key) else json.dumps(key, ensure_ascii=False)


def _assign(key: str, value: Any) -> str:
    if isinstance(value, list) and value and any(isinstance(v, dict | list) for v in value):
        inner = "".join(f"    {format_value(v)},\n" for v in value)
        return f"{_key(key)} = [\n{inner}]\n"
    return f"{_key(key)} = {format_value(value)}\n"


def dump_toml(table: Mapping[str, Any], header: str = "") -> str:
    """A config table as TOML text that ``tomllib`` reads back to an equal table: scalars and arrays first,
    then one ``[section]`` per sub-table (nested as ``[a.b]``); arrays of tables are written as arrays of
    inline tables, one per line. ``header`` lines become comments at the top."""
    lines = [f"# {part}".rstrip() + "\n" for line in header.splitlines()
             for part in (textwrap.wrap(line, 100, break_on_hyphens=False) or [""])]

    def emit(prefix: str, node: Mapping[str, Any]) -> None:
        plain = {k: v for k, v in node.items() if not isinstance(v, dict)}
        tables = {k: v for k, v in node.items() if isinstance(v, dict)}
        if prefix and (plain or not tables):
            lines.append(f"\n[{prefix}]\n")
        for k, v in plain.items():
            lines.append(_assign(k, v))
        for k, v in tables.items():
            emit(f"{prefix}.{_key(k)}" if prefix else _key(k), v)

    emit("", table)
    return "".join(lines)
