"""The workbench's "fix it": a tune of the components a designer picks (`balance tune` on a tune file the
page writes into the workspace's `tunes/`), its progress from the command's own lines, and its outcome: the
recommended config's differences from the draft, with the confirmed verdict, ready to apply.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomlkit

from sim.config import KeyPath, path_text
from sim.design.tune import TUNE_MANIFEST, check_budget
from sim.design.tune_file import load_tune
from sim.errors import ConfigError
from sim.workbench.drafts import Draft
from sim.workbench.workspace import Refused

#: a tune's progress line: "... 16,500 of 30,000 games ..."
_SPENT = re.compile(r"([\d,]+) of ([\d,]+) games")


@dataclass
class Dimension:
    """One row of the page's tune form: every value `pattern` matches, between `low` and `high`."""

    pattern: str
    low: int | float
    high: int | float


def confirm_games(budget: int) -> int:
    """The fresh games that confirm the recommendation: a fifth of the budget, 2,000 to 20,000."""
    return max(2000, min(20000, budget // 5))


def write_tune_file(path: Path, draft: Draft, run: dict[str, Any], dimensions: list[Dimension],
                    tolerance: float) -> Any:
    """A tune file of the draft (`base` relative to `path`), checked as `balance tune` checks it before
    anything runs; Refused at the tune form with the command line's message. Returns the tune as read."""
    if not dimensions:
        raise Refused("tune: name at least one value to tune, e.g. chits.blue[*].points from 1 to 8", "tune")
    confirm = confirm_games(run["budget"])
    what = ", ".join(d.pattern for d in dimensions)
    data = {"description": f"workbench tune of {draft.path.name}: {what}",
            "base": f"../{draft.path.name}", "players": run["players"], "agents": run["agents"],
            "seed": run["seed"], "budget": run["budget"],
            "space": {d.pattern: {"min": d.low, "max": d.high} for d in dimensions},
            "target": {"tolerance": tolerance},
            "search": {"confirm_games": confirm}, "racing": {"confirm_games": confirm}}
    made = not path.parent.exists()
    path.parent.mkdir(exist_ok=True)
    path.write_text(tomlkit.dumps(data))
    try:
        tune = load_tune(path)
        if tune.method != "model":  # a race's budget, checked by `balance tune` before it plays
            check_budget(tune)
        return tune
    except ConfigError as err:
        path.unlink()
        if made:
            path.parent.rmdir()  # a refused tune leaves no trace
        message = str(err)
        raise Refused(message, "budget" if ": budget: " in message else "tune") from None


@dataclass
class Outcome:
    """What a finished tune recommends: its statement (target met or missed, on fresh games), and the
    values that differ from the draft (path -> (draft's, recommended))."""

    statement: str
    met: bool
    changes: dict[KeyPath, tuple[Any, Any]]

    @property
    def rows(self) -> list[tuple[str, str, str]]:
        return [(path_text(p), _shown(a), _shown(b)) for p, (a, b) in self.changes.items()]


def _shown(value: Any) -> str:
    return json.dumps(value) if not isinstance(value, str) else value


def outcome(folder: Path, draft_config: dict[str, Any]) -> Outcome | None:
    """The outcome of the tune in `folder` (a racing tune's tune.json or a model search's search.json),
    or None if it recommended nothing."""
    racing, model = folder / TUNE_MANIFEST, folder / "search.json"
    if racing.is_file():
        state = json.loads(racing.read_text())
        statement, met = state.get("statement", ""), bool(state.get("met"))
    elif model.is_file():
        state = json.loads(model.read_text())
        rec = state.get("recommended")
        if not rec:
            return None
        confirm = rec["confirm"][state["agents"]]
        statement, met = confirm["statement"], bool(confirm["met"])
    else:
        return None
    recommended = folder / "recommended.toml"
    if not recommended.is_file():
        return None
    config = tomlkit.parse(recommended.read_text()).unwrap()
    return Outcome(statement, met, differences(draft_config, config))


def differences(a: Any, b: Any, at: KeyPath = ()) -> dict[KeyPath, tuple[Any, Any]]:
    """Every value that differs between two configs of the same shape, by its path (tables by key,
    arrays of tables by index; anything else compared whole)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out: dict[KeyPath, tuple[Any, Any]] = {}
        for key in [k for k in a if k in b]:
            if key not in ("description", "game"):
                out.update(differences(a[key], b[key], (*at, key)))
        return out
    tables = isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and \
        all(isinstance(x, dict) for x in a + b)
    if tables:
        out = {}
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            out.update(differences(x, y, (*at, i)))
        return out
    return {} if a == b else {at: (a, b)}


def spent(log: str) -> tuple[int, int] | None:
    """The games a tune has spent of its budget, from its last progress line."""
    found = _SPENT.findall(log)
    if not found:
        return None
    done, budget = found[-1]
    return int(done.replace(",", "")), int(budget.replace(",", ""))
