"""What a report says about the rules a run read: how it read each rule that docs/rules.md reads two ways (the
registry's `GameSpec.readings`), and whether its components are the reconstructed defaults the originals
do not print (`GameSpec.reconstructed`), so that a designer does not take a result of our reconstruction
for a finding about the published game (docs/howto/rule-readings.md).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from analysis.runs import Run
from sim.core.config import get_path, load_toml, parse_key


def rule_readings(run: Run) -> dict[str, Any]:
    """Each reading knob of the run's game -> the value the run used (its validated rules; a log written
    before a knob existed reads as that knob's default)."""
    rules = run.rules
    players = int(run.manifest.players)
    return {key: getattr(rules, key) for key, counts in run.spec.readings
            if hasattr(rules, key) and (counts is None or players in counts)}


def readings_text(run: Run) -> str:
    """The run's readings as `key = value` text for the report's run list ('' for none)."""
    def shown(value: Any) -> str:
        return str(value).lower() if isinstance(value, bool) else str(value)
    return ", ".join(f"{k} = {shown(v)}" for k, v in rule_readings(run).items())


@cache
def _default_mapping(config: Path) -> dict[str, Any]:
    merged, _ = load_toml(config)
    return merged


def _at(mapping: dict[str, Any], key: str) -> Any:
    """The value at a dotted key of a config table, None when it is not there."""
    try:
        return get_path(mapping, parse_key(key, "the registry", "reconstructed"))
    except (KeyError, IndexError, TypeError):
        return None


def reconstructed_parts(run: Run) -> list[str]:
    """The reconstructed components (`GameSpec.reconstructed` names) the run's config keeps at their
    default values."""
    spec = run.spec
    default = _default_mapping(Path(spec.default_config))
    config = run.manifest.config
    return [name for key, name in spec.reconstructed
            if _at(config, key) is not None and _at(config, key) == _at(default, key)]


def reconstruction_notes(runs: list[Run], labels: list[str]) -> list[str]:
    """One sentence per distinct finding, naming the runs: which reconstructed components they keep, and
    a player count the originals do not describe."""
    notes: dict[str, list[str]] = {}
    for label, run in zip(labels, runs, strict=True):
        spec = run.spec
        parts = reconstructed_parts(run)
        if parts:
            named = ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]
            text = (f"{spec.vocabulary.title}: the {named} are the reconstructed defaults of "
                    "docs/rules.md, not printed in the originals, so these figures are results for that "
                    "reconstruction, not findings about the published game (replace them in the config with "
                    "the printed values).")
            notes.setdefault(text, []).append(label)
        players = int(run.manifest.players)
        if spec.described_players is not None and players not in spec.described_players:
            counts = " and ".join(str(n) for n in spec.described_players)
            text = (f"{spec.vocabulary.title} with {players} players: the originals describe {counts} "
                    f"players only; {players} is simulated as docs/rules.md allows.")
            notes.setdefault(text, []).append(label)
    return [f"{text} ({', '.join(names)})" for text, names in notes.items()]
