"""Several runs side by side (any game): one row per key, one block of columns per run, and short labels
that tell the runs apart."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from sim.core.game_spec import GameSpec
from storage.run_record import RunManifest


def _agents(agents: Iterable[str]) -> str:
    agents = [str(a) for a in agents]
    return agents[0] if agents and len(set(agents)) == 1 else ",".join(agents)


def run_label(manifest: RunManifest | None, path: str | os.PathLike[str] | None = None,
              spec: GameSpec | None = None) -> str:
    """A short label for a run: game, player count, agents (one name when every seat has the same),
    "rotated" when seats were rotated, and what sets the config apart: its file name unless that is
    base.toml, and the words the run's game (`spec`, the run's GameSpec) adds for its rules
    (`GameSpec.run_label`, e.g. a two-player variant; none without a spec) unless the file name already
    says them. E.g. "<game> 4p random", "<game> 3p greedy,random,random rotated",
    "<game> 2p greedy,random tactical". Without a manifest's
    game or players the folder name of `path`. Labels of different runs can collide (same settings, other
    seeds); `run_labels` resolves that."""
    if manifest is None or not manifest.game or not manifest.players:
        return Path(path).name if path is not None else "run"
    game, players = manifest.game, manifest.players
    parts = [str(game), f"{players}p", _agents(manifest.agents)]
    if manifest.rotate_seats:
        parts.append("rotated")
    stem = Path(str(manifest.config_path or "base.toml")).stem
    if stem != "base":
        parts.append(stem)
    rules = (manifest.config or {}).get("rules") or {}
    extra = spec.run_label(rules, players) if spec is not None else ""
    if extra and extra not in stem:
        parts.append(extra)
    return " ".join(p for p in parts if p)


def run_labels(runs: Iterable[tuple[RunManifest | None, str | os.PathLike[str], GameSpec | None]],
               ) -> list[str]:
    """Unique labels for several (manifest, path, spec) runs: run_label where it is unique, else the run
    folder's name (then "parent/folder", then a "#n" suffix, if even those collide)."""
    runs = list(runs)
    labels = [run_label(m, p, spec) for m, p, spec in runs]
    fallbacks = (lambda path: path.name, lambda path: f"{path.parent.name}/{path.name}")
    for fallback in fallbacks:
        counts = Counter(labels)
        labels = [fallback(Path(path)) if counts[label] > 1 else label
                  for label, (_, path, _) in zip(labels, runs, strict=True)]
    counts, seen = Counter(labels), Counter()
    out = []
    for label in labels:
        seen[label] += 1
        out.append(label if counts[label] == 1 else f"{label} #{seen[label]}")
    return out
