"""The workbench's "Show fair alternatives": `balance explore` on the tune form's space (an explore file the
page writes into the workspace's `tunes/`, docs/howto/explore.md), its progress from the command's own
lines (as a tune's), and its outcome: the confirmed elites, each with its sentence and its changes from the
draft, ready to apply one by one, or, when none was confirmed, why not in words.

Why a second module beside tuning.py: the tune recommends one config, the explore offers several distinct
ones, each with its own file and verdicts in the explore's summary.json; the form's rows, the refusals'
words and the differences from the draft are tuning.py's, shared.

How it plays is a `Plan`: the level the search plays at, the level an alternative must be fair at (the
explore's `judge`: refining and confirming play there) and the level above, at which each alternative is
checked (its `witness`). The page offers the plans with their estimates, the one that finishes in minutes
first (`offered`): the search at the fastest level, judged at the chosen one.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomlkit

from analysis import figures
from analysis.verdicts import STATUS_WORDS, pp
from sim.core.config import KeyPath, load_toml, path_text
from sim.core.errors import ConfigError
from sim.design.explore import SUMMARY, Settings, load_explore
from sim.workbench.drafts import Draft
from sim.workbench.keeping import Kept, tables_of
from sim.workbench.tuning import Dimension, differences, file_refusal, shown_value, write_checked
from sim.workbench.workspace import Refused

#: The [explore] table the page asks for, suited to a draft in a browser: minutes on 2 cores (measured in
#: docs/howto/explore.md, "In the workbench"); the default budget is SEARCH_GAMES for the search and what
#: refining, confirming and the witness may spend at most, about 223,000 games. Cells of length (6) by tie
#: rate (4), ranges from the draft's own figures (its length +-30%, ties 0 to three times its rate); 300 games
#: a design (the same seeds for every design) in batches of 24, the fairest quarter of the elites mutated
#: (fair designs are rare); the 12 fairest designs (2 a cell at most) played on to 2,000 games; at most 3
#: candidates confirmed on 20,000 fresh games each (looks at 5,000, 10,000 and 20,000: a 2 pp tolerance needs
#: that many), 3 elites wanted.
EXPLORE_DEFAULTS: dict[str, Any] = {
    "measures": ["length", "ties"], "cells": [6, 4], "games": 300, "batch": 24, "iso_sigma": 0.05,
    "focus": 0.25, "elites": 3, "refine": 12, "refine_per_cell": 2, "refine_games": 2000,
    "confirm_games": 20000, "tries": 3}
#: the search's games in the default budget (the base's and the batches'), before the reserve
SEARCH_GAMES = 120_000
#: an elite as a request names it: its cell ("7-2") or its file's stem ("elite-7-2")
_ELITE = re.compile(r"(?:elite-)?(\d{1,4}(?:-\d{1,4}){0,3})")


#: the skill levels from the weakest to the strongest: an alternative judged fair at one is checked at the
#: next (its witness)
LADDER = ("greedy", "expert", "search")
#: the level people play at: the lighter plan's judge for a chosen level off the ladder
PLAYED = "expert"
#: a plan whose estimate is within this finishes in minutes: the page offers it first
MINUTES = 15 * 60.0
#: what an explore spends besides its games, measured on a shared 2-core machine (240 greedy designs of a
#: 3-player draft of the shipped chit game, at 40 and at 300 games each: 25 s and 63 s of play): its start,
#: and each design's share of the scheduler, the archive and the hand-off to the workers
START_SECONDS, DESIGN_SECONDS = 10.0, 0.08
#: the smaller plan's [explore] keys: one alternative wanted, one candidate confirmed, half the designs
#: refined (the judging's games about halved)
SMALLER = {"elites": 1, "tries": 1, "refine": 6}


@dataclass(frozen=True)
class Plan:
    """How an explore plays: its search at `search`, its candidates judged fair at `judge` (refining and
    confirming play there), each alternative then checked at `witness` ("": not checked); `smaller`: one
    alternative wanted (SMALLER), for about half the judging's games."""

    name: str
    search: str
    judge: str
    witness: str = ""
    smaller: bool = False

    @property
    def words(self) -> str:
        """"searched with greedy, judged fair at expert, each alternative checked at search"."""
        head = (f"searched and judged fair at {self.judge}" if self.search == self.judge else
                f"searched with {self.search}, judged fair at {self.judge}")
        head += ", one alternative at most" if self.smaller else ""
        checked = "it" if self.smaller else "each alternative"
        return head + (f", {checked} checked at {self.witness}" if self.witness else "")


def plans(skill: str, levels: list[str]) -> list[Plan]:
    """The plans offered at the chosen `skill` (the game offers `levels`), in the order they are preferred:
    the search at the fastest level judged at `skill` ("quick"; "smaller": one alternative at most), all at
    `skill` ("thorough"), each checked at the level above `skill`; and judged at the level below it,
    checked at `skill` ("lighter")."""
    fastest = next((lv for lv in LADDER if lv in levels), skill)
    above = _above(skill, levels)
    out = [Plan("quick", fastest, skill, above)]
    if skill != fastest:
        out += [Plan("smaller", fastest, skill, above, smaller=True), Plan("thorough", skill, skill, above)]
    lower = _below(skill, levels)
    if lower:
        out.append(Plan("lighter", fastest, lower, skill))
    return out


def _above(skill: str, levels: list[str]) -> str:
    """The level above `skill` the game offers, on the ladder ("": none, or `skill` is not on it)."""
    if skill not in LADDER:
        return ""
    return next((lv for lv in LADDER[LADDER.index(skill) + 1:] if lv in levels), "")


def _below(skill: str, levels: list[str]) -> str:
    """The level below `skill` the game offers: the one before it on the ladder, or for a level off the
    ladder the one people play ("": none, or `skill` is a seat list)."""
    if "," in skill:
        return ""
    if skill not in LADDER:
        return PLAYED if PLAYED in levels and PLAYED != skill else ""
    return next((lv for lv in reversed(LADDER[:LADDER.index(skill)]) if lv in levels), "")


def offered(guesses: list[tuple[Plan, dict[str, Any]]], skill: str) -> list[tuple[Plan, dict[str, Any]]]:
    """The plans (each with its estimate, in `plans`' order of preference) in the order the page offers
    them: first the most preferred judged at the chosen `skill` that finishes in minutes, else the most
    preferred that does, else the soonest; then the rest, the soonest first (a time unknown last)."""
    def soon(item: tuple[Plan, dict[str, Any]]) -> tuple:
        seconds = item[1]["seconds"]
        return seconds is None, seconds or 0.0

    def fits(item: tuple[Plan, dict[str, Any]]) -> bool:
        return item[1]["seconds"] is not None and item[1]["seconds"] <= MINUTES
    ranked = sorted(guesses, key=soon)
    best = next((g for g in guesses if fits(g) and g[0].judge == skill), None) or \
        next((g for g in guesses if fits(g)), None) or (ranked[0] if ranked else None)
    return [best, *(g for g in ranked if g is not best)] if best else []


def why_first(guesses: list[tuple[Plan, dict[str, Any]]], skill: str) -> str:
    """Why the first plan offered is first, when it is not the quick one at the chosen `skill` (the page's
    words before the plans), else ""."""
    if not guesses:
        return ""
    plan, guess = guesses[0]
    if guess["seconds"] is None or guess["seconds"] > MINUTES:
        return "None of these finishes in minutes on this machine."
    limit = f"{MINUTES / 60:.0f} min"
    if plan.judge != skill:
        return (f"Judged at {skill}, every plan takes more than {limit} on this machine now; the first "
                f"judges at {plan.judge} and checks each alternative at {plan.witness or skill}.")
    if plan.smaller:
        return (f"Wanting more alternatives, the search takes more than {limit} on this machine now; the "
                "first wants one.")
    return ""


def explore_table(given: dict[str, Any], plan: Plan | None = None) -> dict[str, Any]:
    """The explore file's [explore] table: the page's defaults (a smaller plan's SMALLER over them), with the
    keys a request gives instead, and the plan's judge and witness."""
    levels = {"judge": plan.judge, "witness": plan.witness} if plan else {}
    smaller = SMALLER if plan and plan.smaller else {}
    return {**EXPLORE_DEFAULTS, **smaller, **{k: v for k, v in given.items() if v is not None}, **levels}


def _settings(table: dict[str, Any]) -> Settings | None:
    """The explore's settings of `table`'s keys that decide its games (None: a key of the wrong type, which
    the file's check refuses by name)."""
    rounds = table["refine_games"]
    keys = {k: table[k] for k in ("games", "elites", "refine", "confirm_games", "tries", "judge", "witness",
                                  "witness_games") if k in table}
    try:
        return Settings(**keys, refine_games=(rounds,) if rounds else ())
    except TypeError:
        return None


def default_budget(table: dict[str, Any]) -> int:
    """SEARCH_GAMES and what the stages after the search may spend at most, `table`'s way (the file's own
    reserve, `Settings.reserve`); a bad key leaves SEARCH_GAMES, and the file's check refuses it by name."""
    settings = _settings(table)
    try:
        return SEARCH_GAMES + max(0, settings.reserve()) if settings else SEARCH_GAMES
    except TypeError:
        return SEARCH_GAMES


def overhead(table: dict[str, Any], budget: int) -> float:
    """The seconds an explore of `table` and `budget` spends besides its games, at most: its start and each
    design it searches or refines (START_SECONDS, DESIGN_SECONDS)."""
    settings = _settings(table)
    try:
        searched = max(0, budget - max(0, settings.reserve())) // max(1, settings.games) if settings else 0
        refined = settings.refine * len(settings.refine_games) if settings else 0
    except TypeError:
        return START_SECONDS
    return START_SECONDS + DESIGN_SECONDS * (searched + refined)


def stages(table: dict[str, Any], budget: int, plan: Plan) -> list[tuple[str, int]]:
    """The most games the explore of `table` and `budget` plays at each of the plan's levels, the search's
    first: the budget less the stages after the search; refining and confirming at the judge; the witness's
    games of each alternative."""
    settings = _settings(table)
    try:
        reserve = max(0, settings.reserve()) if settings else 0
    except TypeError:
        reserve = 0
    witness = settings.witness_games * settings.elites if settings and settings.witness and \
        settings.confirm_games else 0
    out: dict[str, int] = {}  # a level's stages together: the search and the judging of the same level
    for level, games in ((plan.search, max(0, budget - reserve)), (plan.judge, reserve - witness),
                         (plan.witness, witness)):
        if level and games > 0:
            out[level] = out.get(level, 0) + games
    return list(out.items())


def write_explore_file(path: Path, draft: Draft, run: dict[str, Any], dimensions: list[Dimension],
                       explore: dict[str, Any], kept: list[Kept] | None = None) -> Any:
    """An explore file of the draft (`base` relative to `path`; `run`: players, agents, seed, budget,
    tolerance; `kept`: the design rules kept, its [[constraints]]), checked as `balance explore` checks it
    before anything runs; Refused at the form's field (the budget, a row of the space, `explore` for a key
    of the [explore] table, `keep` for a kept rule no design can meet) with the command line's message, and
    nothing left written. Returns (the tune, the settings) as read."""
    if not dimensions:
        raise Refused("explore: name at least one value to vary in the tune form, e.g. chits.blue[*].points "
                      "from 1 to 8", "tune", {"row": 1, "inputs": ["pattern"]})
    what = ", ".join(d.pattern for d in dimensions)
    tables, owners = tables_of(kept or [])
    data = {"description": f"workbench explore of {draft.path.name}: {what}",
            "base": f"../{draft.path.name}", "players": run["players"], "agents": run["agents"],
            "seed": run["seed"], "budget": run["budget"],
            "space": {d.pattern: {"min": d.low, "max": d.high} for d in dimensions},
            **({"constraints": tables} if tables else {}),
            "target": {"tolerance": run["tolerance"]}, "explore": explore}
    try:
        return write_checked(path, tomlkit.dumps(data), load_explore)
    except ConfigError as err:  # a refused explore leaves no trace
        said = str(err).removeprefix(f"{path}: ")
        if said.startswith("explore."):  # a key of the [explore] table the request gave
            raise Refused(said, "explore") from None
        if said.startswith("constraints"):
            raise kept_refusal(said, owners) from None
        raise file_refusal(str(err), path, dimensions) from None


#: a refusal of the explore file's constraint: its index, and what is wrong
_CONSTRAINT = re.compile(r"constraints(?:\[(\d+)\])?[^:]*: (.*)", re.S)


def kept_refusal(said: str, owners: list[Kept]) -> Refused:
    """`balance explore`'s refusal of a kept rule (`said`, after the file's name) in the page's words, at
    the `keep` field, naming the rule (`owners`: the rule of each constraint, by index) and what to do."""
    found = _CONSTRAINT.match(said)
    index, what = (found.group(1), found.group(2)) if found else (None, said)
    rules = [owners[int(index)]] if index is not None and int(index) < len(owners) else \
        list(dict.fromkeys(owners))
    named = "; ".join(f"\u201c{k.words}\u201d" for k in rules)
    return Refused(f"keep: no design within the rows' ranges keeps {named}: {what}. Widen the rows, or "
                   f"untick the rule to search without it", "keep", {"rules": [k.name for k in rules]})


@dataclass
class Elite:
    """A confirmed elite of a finished explore: its cell, its sentence (how it plays on its confirmation
    games), and the values it sets that differ from the draft now (path -> (draft's, the elite's)); `problem`
    when its file cannot be read (its draft renamed, say)."""

    cell: str
    sentence: str
    changes: dict[KeyPath, tuple[Any, Any]] = field(default_factory=dict)
    problem: str = ""
    #: the level its fairness was judged at and the search's: "fair at expert (within 2 pp, n = 12,000);
    #: searched with greedy"
    judged: str = ""
    #: its check at the level above (the witness's verdict), in words, and whether it held (None: none)
    witness: str = ""
    witness_fair: bool | None = None

    @property
    def rows(self) -> list[tuple[str, str, str]]:
        return [(path_text(p), shown_value(a), shown_value(b)) for p, (a, b) in self.changes.items()]

    @property
    def judged_parts(self) -> tuple[str, str]:
        """("fair at expert", "(within 2 pp, n = 12,000); searched with greedy"): the badge and the rest."""
        head, _, rest = self.judged.partition(" (")
        return head, f"({rest}" if rest else ""

    @property
    def witness_parts(self) -> tuple[str, str]:
        """("checked at search on 1,000 fresh games", "fair within 2 pp there too"), as the card shows it."""
        head, _, rest = self.witness.partition(": ")
        return head, rest


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
        levels = {"judged": judged_words(summary, e), **witness_words(summary, e)}
        try:
            elites.append(Elite(cell, sentence, differences(draft_config, elite_config(folder, cell)),
                                **levels))
        except (ConfigError, Refused) as err:
            elites.append(Elite(cell, sentence, problem=str(err), **levels))
    spent = (int(summary["games"]), int(summary["budget"])) if "games" in summary else None
    return Explored(elites, "" if elites else none_why(summary), spent, tried=len(summary.get("tried") or []),
                    replayed=sum(_witness(e) is not None for e in summary.get("elites") or []))


def judged_words(summary: dict[str, Any], e: dict[str, Any]) -> str:
    """The level an elite was judged fair at and the search's, from the explore's summary: "fair at expert
    (within 2 pp, n = 12,000); searched with greedy" (an older summary without the judge's level: the
    confirmation's, else the search's)."""
    search = summary.get("search_agents") or summary.get("agents") or "?"
    judge = summary.get("judge_agents") or summary.get("confirm_agents") or search
    tol = f"{100 * float(summary.get('tolerance', 0)):g} pp"
    n = f", n = {int(e['n']):,}" if "n" in e else ""
    return f"fair at {judge} (within {tol}{n}); searched with {search}"


def witness_words(summary: dict[str, Any], e: dict[str, Any]) -> dict[str, Any]:
    """An elite's check at the level above the judge's (its `witness` record, or an older summary's
    `also`), in words, with whether it held: {} when it was not checked."""
    w = _witness(e)
    if w is None:
        return {}
    tol = f"{100 * float(summary.get('tolerance', 0)):g} pp"
    status = str(w.get("status", ""))
    fair = bool(w.get("fair")) if "fair" in w else None
    verdict = f"fair within {tol} there too" if fair else STATUS_WORDS.get(status, status or "not judged")
    c = w.get("confirmation") or {}
    far = f"; the largest deviation seat {c['seat']} {pp(c['deviation'])}" if not fair and "deviation" in c \
        and "seat" in c else ""
    n = f" on {int(w['n']):,} fresh games" if "n" in w else ""
    return {"witness": f"checked at {w.get('agents', '?')}{n}: {verdict}{far}", "witness_fair": fair}


def _witness(e: dict[str, Any]) -> dict[str, Any] | None:
    found = e.get("witness", e.get("also"))
    return found if isinstance(found, dict) else None


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
