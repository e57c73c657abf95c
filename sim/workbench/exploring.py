"""The workbench's "Show fair alternatives": `balance explore` on the tune form's space (an explore file the
page writes into the workspace's `tunes/`, docs/howto/explore.md), its progress from the command's own
lines (as a tune's), and its outcome: the confirmed elites, each with its sentence and its changes from the
draft, ready to apply one by one, or, when none was confirmed, why not in words.

Why a second module beside tuning.py: the tune recommends one config, the explore offers several distinct
ones, each with its own file and verdicts in the explore's summary.json; the form's rows, the refusals'
words and the differences from the draft are tuning.py's, shared.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomlkit

from analysis import figures
from sim.core.config import KeyPath, load_toml, path_text
from sim.core.errors import ConfigError
from sim.design.explore import SUMMARY, Settings, load_explore
from sim.workbench.drafts import Draft
from sim.workbench.tuning import Dimension, differences, file_refusal, shown_value, write_checked
from sim.workbench.workspace import Refused

#: The [explore] table the page asks for, suited to a draft in a browser: a few minutes on 2 cores (measured
#: in docs/howto/explore.md, "In the workbench"); the default budget is SEARCH_GAMES for the search and what
#: refining and confirming may spend at most, about 220,000 games. Cells of length (6) by tie rate (4), ranges
#: from the draft's own figures (its length +-30%, ties 0 to three times its rate); 300 games a design (the
#: same seeds for every design) in batches of 24, the fairest quarter of the elites mutated (fair designs are
#: rare); the 12 fairest designs (2 a cell at most) played on to 2,000 games; at most 3 candidates confirmed
#: on 20,000 fresh games each (looks at 5,000, 10,000 and 20,000: a 2 pp tolerance needs that many), 3 elites
#: wanted.
EXPLORE_DEFAULTS: dict[str, Any] = {
    "measures": ["length", "ties"], "cells": [6, 4], "games": 300, "batch": 24, "iso_sigma": 0.05,
    "focus": 0.25, "elites": 3, "refine": 12, "refine_per_cell": 2, "refine_games": 2000,
    "confirm_games": 20000, "tries": 3}
#: the search's games in the default budget (the base's and the batches'), before the reserve
SEARCH_GAMES = 120_000
#: an elite as a request names it: its cell ("7-2") or its file's stem ("elite-7-2")
_ELITE = re.compile(r"(?:elite-)?(\d{1,4}(?:-\d{1,4}){0,3})")


def explore_table(given: dict[str, Any]) -> dict[str, Any]:
    """The explore file's [explore] table: the page's defaults, with the keys a request gives instead."""
    return {**EXPLORE_DEFAULTS, **{k: v for k, v in given.items() if v is not None}}


def default_budget(table: dict[str, Any]) -> int:
    """SEARCH_GAMES and what the stages after the search may spend at most, `table`'s way (the file's own
    reserve, `Settings.reserve`); a bad key leaves SEARCH_GAMES, and the file's check refuses it by name."""
    rounds = table["refine_games"]
    try:
        settings = Settings(games=table["games"], elites=table["elites"], refine=table["refine"],
                            refine_games=(rounds,) if rounds else (), confirm_games=table["confirm_games"],
                            tries=table["tries"])
        return SEARCH_GAMES + max(0, settings.reserve())
    except TypeError:
        return SEARCH_GAMES


def write_explore_file(path: Path, draft: Draft, run: dict[str, Any], dimensions: list[Dimension],
                       explore: dict[str, Any]) -> Any:
    """An explore file of the draft (`base` relative to `path`; `run`: players, agents, seed, budget,
    tolerance), checked as `balance explore` checks it before anything runs; Refused at the form's field
    (the budget, a row of the space, `explore` for a key of the [explore] table) with the command line's
    message, and nothing left written. Returns (the tune, the settings) as read."""
    if not dimensions:
        raise Refused("explore: name at least one value to vary in the tune form, e.g. chits.blue[*].points "
                      "from 1 to 8", "tune", {"row": 1, "inputs": ["pattern"]})
    what = ", ".join(d.pattern for d in dimensions)
    data = {"description": f"workbench explore of {draft.path.name}: {what}",
            "base": f"../{draft.path.name}", "players": run["players"], "agents": run["agents"],
            "seed": run["seed"], "budget": run["budget"],
            "space": {d.pattern: {"min": d.low, "max": d.high} for d in dimensions},
            "target": {"tolerance": run["tolerance"]}, "explore": explore}
    try:
        return write_checked(path, tomlkit.dumps(data), load_explore)
    except ConfigError as err:  # a refused explore leaves no trace
        said = str(err).removeprefix(f"{path}: ")
        if said.startswith("explore."):  # a key of the [explore] table the request gave
            raise Refused(said, "explore") from None
        raise file_refusal(str(err), path, dimensions) from None


@dataclass
class Elite:
    """A confirmed elite of a finished explore: its cell, its sentence (how it plays on its confirmation
    games), and the values it sets that differ from the draft now (path -> (draft's, the elite's)); `problem`
    when its file cannot be read (its draft renamed, say)."""

    cell: str
    sentence: str
    changes: dict[KeyPath, tuple[Any, Any]] = field(default_factory=dict)
    problem: str = ""

    @property
    def rows(self) -> list[tuple[str, str, str]]:
        return [(path_text(p), shown_value(a), shown_value(b)) for p, (a, b) in self.changes.items()]


@dataclass
class Explored:
    """What a finished explore offers: its confirmed elites, or (none) why not, in words; the games it
    spent in all (searching, refining, confirming) of its budget; the candidates it judged on fresh games
    (`tried`) and the elites replayed at a second level (`replayed`), each judged at its own 5%."""

    elites: list[Elite]
    none_why: str = ""
    spent: tuple[int, int] | None = None
    tried: int = 0
    replayed: int = 0


def explored(folder: Path, draft_config: dict[str, Any]) -> Explored | None:
    """The outcome of the explore in `folder` (its summary.json and elite files), the changes measured from
    `draft_config`; None before the explore has written its summary."""
    summary_path = folder / SUMMARY
    if not summary_path.is_file():
        return None
    summary = json.loads(summary_path.read_text())
    elites = []
    for e in summary.get("elites") or []:
        cell = "-".join(str(c) for c in e["cell"])
        sentence = str(e.get("sentence", "")).removeprefix(f"{e['slug']}: ")
        try:
            elites.append(Elite(cell, sentence, differences(draft_config, elite_config(folder, cell))))
        except (ConfigError, Refused) as err:
            elites.append(Elite(cell, sentence, problem=str(err)))
    spent = (int(summary["games"]), int(summary["budget"])) if "games" in summary else None
    return Explored(elites, "" if elites else none_why(summary), spent, tried=len(summary.get("tried") or []),
                    replayed=sum("also" in e for e in summary.get("elites") or []))


def elite_config(folder: Path, elite: str) -> dict[str, Any]:
    """The config of the explore's elite `elite` (its cell, "7-2", or file stem) as the command line reads
    its file (the draft it extends, with its keys); Refused, naming the elite, when the explore in `folder`
    confirmed no such elite."""
    found = _ELITE.fullmatch(elite)
    summary_path = folder / SUMMARY
    summary = json.loads(summary_path.read_text()) if summary_path.is_file() else {}
    cells = ["-".join(str(c) for c in e["cell"]) for e in summary.get("elites") or []]
    if found is None or found.group(1) not in cells:
        offered = ", ".join(cells) if cells else "none was confirmed"
        raise Refused(f"elite: {elite!r} is no elite of this explore (its elites: {offered})", "elite")
    return load_toml(folder / f"elite-{found.group(1)}.toml")[0]


def none_why(s: dict[str, Any]) -> str:
    """Why an explore confirmed no elite, from its summary: the nearest candidate tried and why it was not
    offered, else the search's fairest design and the room the confirmation left."""
    tol = f"{100 * s['tolerance']:g} pp"
    said = f"No design was confirmed fair within the {tol} tolerance"
    tried = s.get("tried") or []
    if tried:
        near = min(tried, key=lambda t: t["confirmation"]["seat_dev"])
        return (f"{said}: {len(tried)} candidate(s) tried on fresh games; the nearest, {near['slug']}, was "
                f"not offered: {near['reason']}.")
    best = s.get("best")
    if not best:
        return f"{said}: the search played no design the game accepts."
    confirm = s.get("settings", {}).get("confirm_games", 0)
    if not confirm:
        room = "the explore confirms nothing (confirm_games = 0)"
    elif s["room"] <= 0:
        room = (f"the seats' interval on {confirm:,} fresh games is wider than the {tol} tolerance, so no "
                "design could be confirmed (more confirmation games or a larger tolerance would let one)")
    else:
        room = (f"no refined design came within {100 * s['room']:.2f} pp (the {tol} tolerance less the "
                f"confirmation's interval at {confirm:,} games), so none was tried on fresh games")
    off = figures.interval(100 * best["seat_dev_low"], 100 * best["seat_dev_high"],
                           keep_off=(0.0, 100 * s["tolerance"]))  # never on the tolerance it lies off
    return (f"{said}: {room}. The search's fairest design was {figures.figure(100 * best['seat_dev'])} pp "
            f"off {off} on {best['games']:,} "
            f"games (batch {best['iteration']}, design {best['slot']}); a longer budget, a wider space or a "
            "larger tolerance may find one.")
