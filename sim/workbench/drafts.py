"""A config being edited in the workbench: a whole TOML file in the workspace, edited key by key with
tomlkit so that the starting file's comments and layout stay (the download is that file).

Every edit is validated as `balance simulate` validates the file (the game's `rules` on the merged config,
for the chosen player count) before it is written: a refused edit changes nothing and its message is the
command line's, naming the file and the key, shown beside that field. So a draft on disk is always a config
the command line accepts.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomlkit

from sim.core.config import (
    KeyPath,
    apply_overrides,
    check_values,
    expand,
    get_path,
    load_toml,
    parse_key,
    path_text,
)
from sim.core.errors import ConfigError
from sim.core.game_spec import GameSpec
from sim.workbench.workspace import Refused, Start

#: the key a validator's message names: "<file>: <key>: <what>"
_MESSAGE_KEY = re.compile(r"^[^:]*: ([A-Za-z0-9_.\[\]-]+): ")


@dataclass
class Draft:
    """A draft config: its workspace file, its game and its document (comments kept)."""

    path: Path
    spec: GameSpec
    doc: tomlkit.TOMLDocument

    @classmethod
    def read(cls, path: Path, spec: GameSpec) -> Draft:
        return cls(path, spec, tomlkit.parse(path.read_text()))

    @property
    def config(self) -> dict[str, Any]:
        return self.doc.unwrap()

    @property
    def text(self) -> str:
        return tomlkit.dumps(self.doc)

    def check(self, config: Mapping[str, Any], players: int) -> Any:
        """The validated rules of `config` for `players`, or Refused with the command line's message."""
        try:
            check_values(dict(config), self.path.name)  # what a file read by the command line gets too
            return self.spec.rules(dict(config), players, self.path.name)
        except ConfigError as err:
            raise Refused(str(err), message_key(str(err))) from None

    def edit(self, changes: Mapping[KeyPath, Any], players: int) -> None:
        """Set every changed value at once if the result is valid for `players`, then write the file."""
        self.path.write_text(self.edited(changes, players))

    def edited(self, changes: Mapping[KeyPath, Any], players: int) -> str:
        """The draft's text with every change set, once the result (the changes merged as the command
        line merges overrides) is valid for `players`; what is written is exactly what was checked."""
        candidate = apply_overrides(self.config, changes, self.path.name)
        self.check(candidate, players)
        doc = tomlkit.parse(self.text)
        for path, value in changes.items():
            _merge(doc, path, value)
        if doc.unwrap() != candidate:  # a change tomlkit cannot hold as checked: write nothing
            raise Refused(f"{self.path.name}: this edit cannot be written as it was checked; edit the keys "
                          "inside the table one by one")
        self.doc = doc
        return self.text


def message_key(message: str) -> str | None:
    """The dotted key a validator's message is about ("f.toml: chits.blue[0].points: must be ..."), if any."""
    found = _MESSAGE_KEY.match(message)
    return found.group(1) if found else None


def _merge(doc: Any, path: KeyPath, value: Any) -> None:
    """Set `value` at `path`, a table into a table key by key (as `apply_overrides` merges it)."""
    node = doc
    for part in path[:-1]:
        node = node[part]
    old = node[path[-1]] if isinstance(path[-1], int) or path[-1] in node else None
    if isinstance(value, Mapping) and isinstance(old, Mapping):
        for key, inner in value.items():
            _merge(doc, (*path, key), inner)
    else:
        node[path[-1]] = value


def create(start: Start, target: Path, write: bool = True) -> Draft:
    """A new draft at `target` holding the starting config whole: its own text when it extends nothing,
    else the root file of its `extends` chain (whose comments describe every key) with the merged values
    set, and no `extends` (so the draft is one file a designer can take away). Written unless `write` is
    False (the workbench writes it as its own file: Workspace.write_draft)."""
    merged, _ = load_toml(start.path)
    root = start.path
    while "extends" in (data := tomllib.loads(root.read_text())):
        root = (root.parent / data["extends"]).resolve()
    doc = tomlkit.parse(root.read_text() if root != start.path else start.path.read_text())
    if root != start.path:
        _overlay(doc, merged)
    draft = Draft(target, start.spec, doc)
    if write:
        target.write_text(draft.text)
    return draft


def _overlay(node: Any, values: Mapping[str, Any]) -> None:
    """Set every value of `values` that differs in `node`, tables key by key (keeping their comments)."""
    for key in [k for k in node if k not in values]:
        del node[key]
    for key, value in values.items():
        if key in node and isinstance(value, dict) and isinstance(node[key], dict):
            _overlay(node[key], value)
        elif key not in node or _plain(node[key]) != value:
            node[key] = value


def _plain(item: Any) -> Any:
    return item.unwrap() if hasattr(item, "unwrap") else item


def typed(text: str, current: Any) -> Any:
    """The value a designer typed, read as the field's current value is: a string field's text as it is;
    anything else as a TOML value ("3", "true", "[0, 2, 3]"), or as text when it is not one (the validator
    then says what the key takes)."""
    if isinstance(current, str):
        return text
    try:
        return tomllib.loads(f"v = {text.strip()}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def field_edit(draft: Draft, key: str, text: str) -> dict[KeyPath, Any]:
    """The change of one field: its key must be one the draft holds."""
    path = _existing(draft, key)
    return {path: typed(text, get_path(draft.config, path))}


def bulk_edit(draft: Draft, pattern: str, operation: str, text: str) -> dict[KeyPath, Any]:
    """The changes of a bulk edit: every value `pattern` matches (`[*]` every element, `*` every key, as in
    tune files: "chits.blue[*].points") set to the typed value, or ("add") moved by a number."""
    where = "bulk edit"
    try:
        paths = expand(pattern, draft.config, draft.path.name, where)
    except ConfigError as err:
        raise Refused(str(err), "bulk") from None
    if not paths:
        raise Refused(f"{draft.path.name}: {pattern}: matches no value of the config", "bulk")
    config = draft.config
    if operation == "set":
        return {p: typed(text, get_path(config, p)) for p in paths}
    if operation != "add":
        raise Refused(f"bulk edit: operation must be 'set' or 'add', got {operation!r}", "bulk")
    amount = typed(text, 0)
    if not isinstance(amount, int | float) or isinstance(amount, bool):
        raise Refused(f"bulk edit: add takes a number (e.g. -1 for one less), got {text!r}", "bulk")
    changes = {}
    for path in paths:
        old = get_path(config, path)
        if not isinstance(old, int | float) or isinstance(old, bool):
            raise Refused(f"{draft.path.name}: {path_text(path)}: holds {old!r}, not a number, so it cannot "
                          "be added to", "bulk")
        changes[path] = old + amount
    return changes


def _existing(draft: Draft, key: str) -> KeyPath:
    try:
        path = parse_key(key, draft.path.name, "field")
        get_path(draft.config, path)
    except ConfigError as err:
        raise Refused(str(err), key) from None
    except (KeyError, IndexError, TypeError):
        raise Refused(f"{draft.path.name}: {key}: not a key of this config", key) from None
    return path

