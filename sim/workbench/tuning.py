"""The workbench's "fix it": a tune of the components a designer picks (`balance tune` on a tune file the
page writes into the workspace's `tunes/`), its progress from the command's own lines, and its outcome: the
recommended config's differences from the draft, with the confirmed verdict, ready to apply.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import tomlkit

from sim.core.config import ANY_INDEX, WILD, KeyPath, parse_key, parse_pattern, path_text
from sim.core.errors import ConfigError
from sim.design.tune import TUNE_MANIFEST, check_budget
from sim.design.tune_file import load_tune
from sim.workbench.drafts import Draft
from sim.workbench.workspace import Refused

#: what a study file's check reads of it (`write_checked`)
_Read = TypeVar("_Read")
#: a tune's progress line: "... 16,500 of 30,000 games ..."
_SPENT = re.compile(r"([\d,]+) of ([\d,]+) games")


@dataclass
class Dimension:
    """One row of the page's tune form: every value `pattern` matches, between `low` and `high`; `row` is
    its row on the form (from 1; 0: not known)."""

    pattern: str
    low: int | float
    high: int | float
    row: int = 0


def confirm_games(budget: int) -> int:
    """The fresh games that confirm the recommendation: a fifth of the budget, 2,000 to 20,000."""
    return max(2000, min(20000, budget // 5))


def write_tune_file(path: Path, draft: Draft, run: dict[str, Any], dimensions: list[Dimension],
                    tolerance: float) -> Any:
    """A tune file of the draft (`base` relative to `path`), checked as `balance tune` checks it before
    anything runs; Refused at the tune form with the command line's message. Returns the tune as read."""
    if not dimensions:
        raise Refused("tune: name at least one value to tune, e.g. chits.blue[*].points from 1 to 8", "tune",
                      {"row": 1, "inputs": ["pattern"]})
    confirm = confirm_games(run["budget"])
    what = ", ".join(d.pattern for d in dimensions)
    data = {"description": f"workbench tune of {draft.path.name}: {what}",
            "base": f"../{draft.path.name}", "players": run["players"], "agents": run["agents"],
            "seed": run["seed"], "budget": run["budget"],
            "space": {d.pattern: {"min": d.low, "max": d.high} for d in dimensions},
            "target": {"tolerance": tolerance},
            "search": {"confirm_games": confirm}, "racing": {"confirm_games": confirm}}
    try:
        return write_checked(path, tomlkit.dumps(data), _checked_tune)
    except ConfigError as err:  # a refused tune leaves no trace
        raise file_refusal(str(err), path, dimensions) from None


def _checked_tune(path: Path) -> Any:
    """The tune file at `path` as `balance tune` reads and checks it before anything runs."""
    tune = load_tune(path)
    if tune.method != "model":  # a race's budget, checked by `balance tune` before it plays
        check_budget(tune)
    return tune


def write_new(path: Path, text: str) -> None:
    """`text` as a new file at `path`, never over one already there (Refused at the tune form)."""
    try:
        with path.open("x") as f:
            f.write(text)
    except FileExistsError:
        raise Refused(f"{path.name} exists already in tunes/ and was left as it is; ask again for a new "
                      "name", "tune") from None


def write_checked(path: Path, text: str, check: Callable[[Path], _Read]) -> _Read:
    """A study file the page writes (a tune or explore file): `text` as a new file at `path` (`write_new`:
    never over one already there), its folder made if missing, and what `check(path)` reads of it. When the
    check refuses (a ConfigError), the file and the folder made here are removed, so a refused study leaves
    no trace, and the refusal is raised again for the caller to word."""
    made = not path.parent.exists()
    path.parent.mkdir(exist_ok=True)
    write_new(path, text)
    try:
        return check(path)
    except ConfigError:
        path.unlink()
        if made:
            path.parent.rmdir()
        raise


def file_refusal(message: str, path: Path, dimensions: list[Dimension]) -> Refused:
    """The command line's refusal (`message`) of a tune or explore file the page wrote at `path` (and has
    removed), in the form's words: at the budget, at the row of the space it is about, or at the tune form.
    """
    if not message.startswith(str(path)):
        return Refused(message, "tune")
    said = message.removeprefix(str(path))  # the file is the workbench's, and is gone: the form's words
    if said.startswith(": budget: "):
        return Refused(said.removeprefix(": "), "budget")
    at = located(said, dimensions)
    return Refused(_worded(said, at), "tune", at)


#: where `balance tune` says a refused tune file is wrong, after the file's name (sim.design.tune_file)
_SPACE_KEY = re.compile(r': space\.("(?:[^"\\]|\\.)*")(?:\.(min|max))?: (.*)', re.S)
_TWICE = re.compile(r": space: names (\S+) twice")
_CANDIDATE = re.compile(r" \((?:candidate (?P<label>.*?)|every searched value at its "
                        r"(?P<end>lowest|highest), repaired)\): (?P<path>[^\s:]+): (?P<what>.*)", re.S)

#: what the game says of a key a row's pattern names when it is not there, or holds no number
_NAMES_NO_NUMBER = re.compile(r"unknown key|is not in|has no key|is not a table|is not an array|"
                              r"must be an? (?:table|string|array|boolean|list|dict)\b")


def located(said: str, dimensions: list[Dimension]) -> dict[str, Any] | None:
    """The row of the tune form (and its inputs) that `balance tune`'s refusal of the tune file is about
    (`said`: its message after the file's name), when the message tells: a space key's min, max or range,
    a key named twice, or a candidate (or a model search's extreme one) the game refuses at a key one row
    names. None when it does not."""
    dimensions = [d for d in dimensions if d.row]  # rows the form numbered
    if found := _SPACE_KEY.match(said):
        key, end, what = json.loads(found.group(1)), found.group(2), found.group(3)
        row = next((d for d in dimensions if d.pattern == key), None)
        if row is None:
            return None
        inputs = [end] if end else ["min", "max"] if "a space key takes at most" in what else ["pattern"]
        return {"row": row.row, "inputs": inputs}
    if found := _TWICE.match(said):  # the later row names again what an earlier one does
        rows = [d for d in dimensions if _covers(d.pattern, found.group(1))]
        return {"row": rows[-1].row, "inputs": ["pattern"]} if rows else None
    if found := _CANDIDATE.match(said):
        path = found.group("path")
        row = next((d for d in dimensions if _covers(d.pattern, path)), None)
        if row is None:
            return None
        if _NAMES_NO_NUMBER.search(found.group("what")):
            return {"row": row.row, "inputs": ["pattern"]}  # it names what is not there, or no number
        if found.group("end"):
            return {"row": row.row, "inputs": ["min" if found.group("end") == "lowest" else "max"]}
        value = re.search(rf"(?:^|, ){re.escape(path)} = ([^,]*)", found.group("label") or "")
        ends = [name for name, end in (("min", row.low), ("max", row.high))
                if value and value.group(1).strip() == json.dumps(end)]
        return {"row": row.row, "inputs": ends or ["min", "max"]}
    return None


def _worded(said: str, at: dict[str, Any] | None) -> str:
    """`balance tune`'s refusal of the page's tune file (`said`, after the file's name) in the form's words:
    the row it is about, when known, and no advice about keys the form does not have (skip_invalid)."""
    said = re.sub(r" \(set skip_invalid = true [^)]*\)$", "", said)
    if at is None:
        return f"tune{said}"
    found = _SPACE_KEY.match(said)
    if found:  # the row's own values: its pattern, and its min or max
        end = f", {found.group(2)}" if found.group(2) else ""
        return f"tune row {at['row']} ({json.loads(found.group(1))}){end}: {found.group(3)}"
    return f"tune row {at['row']}{said}"


def _covers(pattern: str, path: str) -> bool:
    """Whether the config key `path` is one `pattern` names, or a table on its way (an unknown key)."""
    try:
        want, got = parse_pattern(pattern, "", ""), parse_key(path, "", "")
    except ConfigError:
        return False
    return all(w == g or (w == ANY_INDEX and isinstance(g, int)) or (w == WILD and isinstance(g, str))
               for w, g in zip(want, got, strict=False))


@dataclass
class Outcome:
    """What a finished tune recommends: its statement (target met or missed, on fresh games), and the
    values that differ from the draft (path -> (draft's, recommended))."""

    statement: str
    met: bool
    changes: dict[KeyPath, tuple[Any, Any]]

    @property
    def rows(self) -> list[tuple[str, str, str]]:
        return [(path_text(p), shown_value(a), shown_value(b)) for p, (a, b) in self.changes.items()]


def shown_value(value: Any) -> str:
    """A value as the diff tables show it: a string as is, anything else as JSON."""
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
