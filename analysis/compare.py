"""Several runs side by side (any game): one row per key, one block of columns per run, and short labels
that tell the runs apart."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from sim import games


def side_by_side(tables: dict[str, pd.DataFrame], key: str | list[str], value_cols: list[str],
                 flat: bool = True, by: str = "run") -> pd.DataFrame:
    """Join one table per run (label -> DataFrame with the same columns) on `key`.

    One row per key value found in any run (an outer join: a seat or card one run lacks gets nulls there),
    sorted by key when the key values sort, else in order of first appearance. Columns: the key column(s),
    then for each run a block of `value_cols` (`by="value"` puts each value's runs next to each other
    instead). `flat=True` names them "<value> [<run>]"; `flat=False` gives MultiIndex columns (run, value),
    with the key columns as (key, ""). A value column a run lacks is null in its block. A key that occurs
    twice in one run's table is refused (ValueError), since the rows could not be matched."""
    if not tables:
        raise ValueError("side_by_side needs at least one table")
    if by not in ("run", "value"):
        raise ValueError(f"by must be 'run' or 'value', not {by!r}")
    keys = [key] if isinstance(key, str) else list(key)
    values = list(value_cols)
    labels = [str(label) for label in tables]
    if len(set(labels)) < len(labels):
        raise ValueError("run labels must be unique")
    parts = []
    for label, frame in zip(labels, tables.values(), strict=True):
        missing = [k for k in keys if k not in frame.columns]
        if missing:
            raise ValueError(f"run {label!r}: no key column {', '.join(missing)}")
        if frame.duplicated(keys).any():
            raise ValueError(f"run {label!r}: key {keys} is not unique")
        part = frame.reindex(columns=keys + values).set_index(keys)
        part.columns = pd.MultiIndex.from_product([[label], values], names=["run", "value"])
        parts.append(part)
    index = parts[0].index
    for part in parts[1:]:
        index = index.append(part.index[~part.index.isin(index)])
    try:
        index = index.sort_values()
    except TypeError:
        pass
    wide = pd.concat([part.reindex(index) for part in parts], axis=1)
    if by == "value":
        wide = wide[[(label, value) for value in values for label in labels]]
    wide = wide.reset_index()
    if flat:
        wide.columns = [run if not value and run in keys else f"{value} [{run}]"
                        for run, value in wide.columns]
    else:
        wide.columns = pd.MultiIndex.from_tuples(
            [(run, value) if run not in keys or value else (run, "") for run, value in wide.columns],
            names=["run", "value"])
    return wide


def _agents(agents: Iterable[str]) -> str:
    agents = [str(a) for a in agents]
    return agents[0] if agents and len(set(agents)) == 1 else ",".join(agents)


def run_label(manifest: dict, path: str | os.PathLike[str] | None = None) -> str:
    """A short label for a run: game, player count, agents (one name when every seat has the same),
    "rotated" when seats were rotated, and what sets the config apart: its file name unless that is
    base.toml, and the words the game's registry entry adds for its rules (`GameSpec.run_label`, e.g. a
    two-player variant) unless the file name already says them. E.g. "<game> 4p random",
    "<game> 3p greedy,random,random rotated", "<game> 2p greedy,random tactical". Without a manifest's
    game or players the folder name of `path`. Labels of different runs can collide (same settings, other
    seeds); `run_labels` resolves that."""
    game = manifest.get("game")
    players = manifest.get("players")
    if not game or not players:
        return Path(path).name if path is not None else "run"
    parts = [str(game), f"{players}p", _agents(manifest.get("agents") or [])]
    if manifest.get("rotate_seats"):
        parts.append("rotated")
    stem = Path(str(manifest.get("config_path") or "base.toml")).stem
    if stem != "base":
        parts.append(stem)
    rules = (manifest.get("config") or {}).get("rules") or {}
    extra = games.spec(game).run_label(rules, players) if game in games.names() else ""
    if extra and extra not in stem:
        parts.append(extra)
    return " ".join(p for p in parts if p)


def run_labels(runs: Iterable[tuple[dict, str | os.PathLike[str]]]) -> list[str]:
    """Unique labels for several (manifest, path) runs: run_label where it is unique, else the run
    folder's name (then "parent/folder", then a "#n" suffix, if even those collide)."""
    runs = list(runs)
    labels = [run_label(m, p) for m, p in runs]
    fallbacks = (lambda path: path.name, lambda path: f"{path.parent.name}/{path.name}")
    for fallback in fallbacks:
        counts = Counter(labels)
        labels = [fallback(Path(path)) if counts[label] > 1 else label
                  for label, (_, path) in zip(labels, runs, strict=True)]
    counts, seen = Counter(labels), Counter()
    out = []
    for label in labels:
        seen[label] += 1
        out.append(label if counts[label] == 1 else f"{label} #{seen[label]}")
    return out
