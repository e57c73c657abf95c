"""The editor's layout of a config, as plain data the page renders: groups of single fields (a table's
scalars and short arrays) and grids (an array of tables: a colour's chits, the deck's cards), each cell
named by its dotted key so that an edit, and a refusal, find their field. Built from the config itself, so
a key the validator learns appears in the editor without a change here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import tomlkit

from sim.core.game_spec import GameSpec

_INDEX = re.compile(r"\[\d+\]")
_HIDDEN = ("game", "extends")


@dataclass
class Field:
    key: str      # the dotted key: "chits.blue[3].points"
    label: str    # what the page shows beside it
    text: str     # the value as typed (TOML for arrays and booleans, a string's text as it is)
    choices: tuple[str, ...] = ()


@dataclass
class Group:
    title: str
    fields: list[Field] = field(default_factory=list)      # single fields, or
    columns: list[str] = field(default_factory=list)       # a grid: its columns and
    rows: list[list[Field]] = field(default_factory=list)  # one row of cells per array element


def shown(value: Any) -> str:
    if isinstance(value, str):
        return value
    return tomlkit.item(value).as_string()


def choices_of(spec: GameSpec, key: str) -> tuple[str, ...]:
    """The strings a key takes (`GameSpec.choices`, any index matching "[*]"); booleans take true/false."""
    pattern = _INDEX.sub("[*]", key)
    return next((values for k, values in spec.choices if k == pattern), ())


def groups(config: dict[str, Any], spec: GameSpec) -> list[Group]:
    """Every editable value of `config`, grouped: the top-level scalars first ("about"), then each table's
    scalars, then each array of tables as a grid."""
    about = Group("about", [_field(k, k, v, spec) for k, v in config.items()
                            if k not in _HIDDEN and not isinstance(v, dict | list)])
    out = [about] if about.fields else []
    for key, value in config.items():
        if key not in _HIDDEN and isinstance(value, dict | list):
            out += _groups_of(key, value, spec)
    return out


def _groups_of(prefix: str, value: Any, spec: GameSpec) -> list[Group]:
    if _is_grid(value):
        return [_grid(prefix, value, spec)]
    if isinstance(value, list):  # a top-level array of scalars
        return [Group(prefix, [_field(prefix, prefix, value, spec)])]
    single = Group(prefix, [_field(f"{prefix}.{k}", k, v, spec) for k, v in value.items()
                            if not isinstance(v, dict) and not _is_grid(v)])
    out = [single] if single.fields else []
    for k, v in value.items():
        if isinstance(v, dict) or _is_grid(v):
            out += _groups_of(f"{prefix}.{k}", v, spec)
    return out


def _is_grid(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


def _grid(prefix: str, items: list[dict[str, Any]], spec: GameSpec) -> Group:
    columns = list(dict.fromkeys(k for item in items for k in item))
    rows = [[_field(f"{prefix}[{i}].{c}", c, item.get(c, ""), spec) for c in columns]
            for i, item in enumerate(items)]
    return Group(prefix, columns=columns, rows=rows)


def _field(key: str, label: str, value: Any, spec: GameSpec) -> Field:
    choices = ("true", "false") if isinstance(value, bool) else choices_of(spec, key)
    return Field(key, label, shown(value), choices)
