"""The rules of the game's design that "Show fair alternatives" keeps: the game's own list (its spec's
`design_rules`, what its shipped tune files' `[[constraints]]` say), each applied where the form's rows
touch it, made into the explore file's `[[constraints]]` for this draft, and said in the page's words
("points rise with icons within blue; the chits' total 95-105"). The designer may turn each off.

Why the game's list and not the page's: the workbench knows no game; which values are a component's
points or the rank that orders them is the game's to say (sim/core/game_spec.py, DesignRule).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from sim.core.config import WILD, KeyPath, expand, get_path, parse_pattern
from sim.core.errors import ConfigError
from sim.core.game_spec import DesignRule, GameSpec
from sim.workbench.workspace import Refused

#: a pattern's table wildcard: a `*` segment that is not an index's `[*]`
_TABLE_WILD = re.compile(r"(?:^|(?<=\.))\*(?=[.\[]|$)")


@dataclass(frozen=True)
class Kept:
    """A rule of the game's design that applies to the draft's search: its name, its words for this draft
    ("the chits' total 95-105") and its constraints, as the explore file's `[[constraints]]` tables."""

    name: str
    words: str
    tables: tuple[dict[str, Any], ...]


def applying(spec: GameSpec, config: dict[str, Any], patterns: list[str]) -> list[Kept]:
    """The game's design rules that the rows (`patterns`, the values searched) touch in `config`, in the
    game's order; a row that names nothing is left to the explore file's check to refuse."""
    searched = _paths(config, patterns)
    found = (_kept(rule, config, searched) for rule in spec.design_rules)
    return [k for k in found if k is not None]


def chosen(kept: list[Kept], spec: GameSpec, keep: list[str] | None) -> list[Kept]:
    """The rules kept: every one that applies (`keep` None), else those `keep` names; a name that is no
    rule of the game is refused at the field."""
    if keep is None:
        return kept
    known = [r.name for r in spec.design_rules]
    unknown = [name for name in keep if name not in known]
    if unknown:
        offered = ", ".join(known) if known else "it has none"
        raise Refused(f"keep: {unknown[0]!r} is no rule of {spec.vocabulary.title}'s design (its rules: "
                      f"{offered})", "keep")
    return [k for k in kept if k.name in keep]


def tables_of(kept: list[Kept]) -> tuple[list[dict[str, Any]], list[Kept]]:
    """The `[[constraints]]` tables of the kept rules, and the rule each table came from (by index)."""
    tables = [t for k in kept for t in k.tables]
    owners = [k for k in kept for _ in k.tables]
    return tables, owners


def said(kept: list[Kept]) -> str:
    """"Kept: points rise with icons within blue; the chits' total 95-105", or "" when none is kept."""
    return f"Kept: {'; '.join(k.words for k in kept)}" if kept else ""


def _paths(config: dict[str, Any], patterns: list[str]) -> set[KeyPath]:
    out: set[KeyPath] = set()
    for pattern in patterns:
        try:
            out.update(expand(pattern, config, "", ""))
        except ConfigError:
            continue
    return out


def _kept(rule: DesignRule, config: dict[str, Any], searched: set[KeyPath]) -> Kept | None:
    """The rule for this draft and these rows, or None where it does not apply: none of its values is
    searched, it is not in the draft, or it ranks by a searched value (a tune file refuses that)."""
    groups = _groups(rule, config) if rule.each else {"": (rule.keys, rule.by)}
    tables, names, bounds = [], [], (rule.low, rule.high)
    for name, (keys, by) in groups.items():
        try:
            paths = expand(keys, config, "", "")
            ranks = expand(by, config, "", "") if by else []
        except ConfigError:
            continue
        if not searched & set(paths) or searched & set(ranks):
            continue
        table, bounds = _table(rule, keys, by, _total(config, paths))
        if table is not None:
            tables.append(table)
            names.append(name)
    if not tables:
        return None
    every = rule.each and len(names) == len(groups)
    each = f"each {rule.each}" if every else _joined(names)
    low, high = (_num(b) if b is not None else "" for b in bounds)
    return Kept(rule.name, rule.words.format(each=each, low=low, high=high), tuple(tables))


def _groups(rule: DesignRule, config: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """An `each` rule's keys and rank for each key of its table wildcard ("blue": the blue chits' points
    by their icons), in the draft's order."""
    parts = parse_pattern(rule.keys, "", "")
    if WILD not in parts:
        return {"": (rule.keys, rule.by)}
    try:
        table = get_path(config, parts[:parts.index(WILD)])
    except (KeyError, IndexError, TypeError):
        return {}
    if not isinstance(table, dict):
        return {}
    one = lambda pattern, key: _TABLE_WILD.sub(key, pattern, count=1)  # noqa: E731
    return {str(key): (one(rule.keys, key), one(rule.by, key) if rule.by else "") for key in table}


def _table(rule: DesignRule, keys: str, by: str, total: float | None) -> tuple[dict | None, tuple]:
    """The rule's `[[constraints]]` table for `keys` (None: a sum of values that are not all numbers),
    and its bounds."""
    if rule.kind == "nondecreasing":
        return {"nondecreasing": keys, **({"by": by} if by else {})}, (None, None)
    low, high = rule.low, rule.high
    if rule.within is not None:
        if total is None:
            return None, (None, None)
        low, high = total - rule.within, total + rule.within
    table: dict[str, Any] = {rule.kind: keys}
    if rule.kind == "count":
        table["value"] = list(rule.value) if isinstance(rule.value, tuple) else rule.value
    table.update({k: _whole(v) for k, v in (("min", low), ("max", high)) if v is not None})
    return table, (low, high)


def _total(config: dict[str, Any], paths: list[KeyPath]) -> float | None:
    """The sum of the draft's values at `paths`, or None when one is not a number."""
    values = []
    for p in paths:
        try:
            values.append(get_path(config, p))
        except (KeyError, IndexError, TypeError):
            return None
    if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        return None
    return sum(values)


def _whole(x: float) -> int | float:
    return int(x) if math.isfinite(x) and float(x).is_integer() else x


def _num(x: float) -> str:
    return f"{_whole(x):g}" if isinstance(_whole(x), float) else str(_whole(x))


def _joined(names: list[str]) -> str:
    """"blue", "red and blue", "red, yellow and blue"."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
