"""The learned models a run's seats played, in words for its provenance line (`balance summary`, the report's
list of runs): each model-playing agent's model file, its identity (a hash of its weights and of the config
it was trained on) and that config, from the manifest's `models` records (storage.run_record)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def models_text(models: Sequence[dict[str, Any]] | None, config_hash: str | None) -> str:
    """'; expert's model sim/<game>/models/expert-3p.json (identity 1a2b3c4d5e6f, trained on
    configs/<game>/base.toml)', one clause per model-playing agent, saying when the config it was trained on
    is not the run's; '' for a run without one (or made before runs recorded them)."""
    out = []
    for record in models or ():
        trained_on = record.get("trained_on") or "an unnamed config"
        other = record.get("trained_on_hash") != config_hash
        where = f"trained on another config, {trained_on}" if other else f"trained on {trained_on}"
        out.append(f"{record.get('agent', '?')}'s model {record.get('file', '?')} (identity "
                   f"{record.get('identity', '?')}, {where})")
    return "".join(f"; {clause}" for clause in out)

