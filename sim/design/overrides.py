"""Dotted-key overrides of a config for `balance sweep` and `balance tune`, and writing a config back out
as TOML. The dotted keys themselves (`parse_key`, `apply_overrides`) live in `sim.core.config`, because a
config file may use them too (a variant's ``"chits.blue[9].points" = 6``); they are re-exported here.
"""

from __future__ import annotations

import json
import math
import re
import textwrap
from collections.abc import Mapping
from typing import Any

from sim.core.config import KeyPath, apply_overrides, get_path, parse_key, path_text

__all__ = ["KeyPath", "apply_overrides", "dump_toml", "format_value", "get_path", "parse_key", "path_text"]

_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


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
