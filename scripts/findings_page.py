"""The figures of docs/findings.md, read from the outputs of scripts/findings.py's commands, and the page
filled from its template (scripts/findings.md.j2, Jinja2). Verdicts are quoted as the tool words them
(summary.json's sentences); every other number is read here from a report, a values run (through the
analysis API), a sweep's, profile's or tune's output. A sentence of the template whose truth depends on
the figures chooses its words from them or states its condition with `require(...)`, which stops the
regeneration naming the sentence when new figures no longer bear it out.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import jinja2
import numpy as np
import pandas as pd
from findings_identity import render_block

from analysis.causal_values import component_values, group_values, power_values, read_values_run
from analysis.stats import wilson_intervals
from analysis.verdicts import BEYOND, SMALL, TOO_FEW, UNDECIDED, WITHIN
from analysis.worth_verdicts import worth_verdicts
from storage.run_dir import load_manifest


class Unsupported(Exception):
    """A sentence of the template that the new figures no longer bear out."""


def require(condition: bool, sentence: str) -> str:
    """Template helper: nothing when `condition` holds, else stop, naming the sentence to rewrite."""
    if not condition:
        raise Unsupported(f"findings: the figures no longer support \"{sentence}\": rewrite it in "
                          "scripts/findings.md.j2")
    return ""


#: a worth verdict's status as the page's table words it (the tool's words, without the sign)
WORTH_WORD = {WITHIN: "priced right", SMALL: "priced right", BEYOND: "mispriced", UNDECIDED: "undecided",
              TOO_FEW: "too few games"}


# ---- number formats ----------------------------------------------------------------------------------------
def pct(x: float, digits: int = 1) -> str:
    """A share as a percentage: 0.436 -> "43.6%"."""
    return f"{100 * x:.{digits}f}%"


def pp(x: float) -> str:
    """A difference of shares in percentage points: 0.103 -> "+10.3 pp"."""
    return f"{100 * x:+.1f} pp"


def ci(low: float, high: float, signed: bool = True) -> str:
    """An interval of shares, in percentage points or percent (the unit is the figure's): "[+6.5, +14.1]"."""
    return f"[{100 * low:+.1f}, {100 * high:+.1f}]" if signed else f"[{100 * low:.1f}, {100 * high:.1f}]"


def count(x: float) -> str:
    """A count with thousands separators: 20000 -> "20,000"."""
    return f"{int(x):,}"


def said(verdict: dict) -> str:
    """A verdict's sentence as the tool prints it, without the clock time it adds (this run's pace: not a
    figure of the game)."""
    return re.sub(r"; about [^;()]*? at this run's pace", "", verdict["sentence"])


def _json(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise SystemExit(f"findings: {path} is missing: run `make findings` (or its step) first")
    return json.loads(path.read_text())


def _verdicts(summary: dict, folder: str) -> dict[str, dict]:
    """The verdicts of the run of a report whose directory ends in `folder`, by question."""
    labels = [r["label"] for r in summary["runs"] if str(r["run"]).rstrip("/").endswith(folder)]
    labels += [key for key in summary["verdicts"] if key.endswith(folder)]  # a profile's level, a values run
    if not labels:
        raise SystemExit(f"findings: the demo report has no verdicts of {folder}: run `make findings`")
    label = labels[0]
    return {v["question"]: v for v in summary["verdicts"][label]}


# ---- the demo ---------------------------------------------------------------------------------------------
def demo(out: Path) -> dict[str, Any]:
    """`make demo`'s verdicts: the 3-player Kamakura profile (greedy, expert), its stability at the top,
    4-player Sakura (greedy) and the components of the short values run."""
    summary = _json(out / "reports" / "demo" / "summary.json")
    profile = summary["profiles"][0]
    levels = {level: _verdicts(summary, f"demo-profile-kamakura-3p/{level}") for level in profile["levels"]}
    values = _verdicts(summary, "demo-values-kamakura-3p")
    return {"levels": levels, "stable": profile["stable_at_top"],
            "stable_by": {v["question"]: v for v in profile["stable_at_top"]["verdicts"]},
            "sakura": _verdicts(summary, "demo-sakura-4p"), "valued": values,
            "worth": {q.split(":", 1)[1]: v for q, v in values.items() if q.startswith("worth:")}}


# ---- values -----------------------------------------------------------------------------------------------
def unchanged_games(folder: Path) -> dict[str, dict[str, int]]:
    """For each component without a power: the rows of its arms' games (base game, position, seat) and how
    many differ from the control game with the holder's score raised by the component's points (score or
    game length): 0 means holding it changed no move."""
    table = pd.read_parquet(folder / "values.parquet")
    components = load_manifest(folder / "manifest.json").components or ()
    keys = ["game_id", "position", "seat"]
    out = {}
    for k, c in enumerate(components):
        if c.get("power", 1) or "points" not in c:
            continue
        rows = table[table["component"] == k]
        control = rows[rows["holder"] == -1].set_index(keys)
        arms = rows[rows["holder"] >= 0].join(control[["score", "last_turn"]], on=keys, rsuffix="_control")
        expected = arms["score_control"] + np.where(arms["seat"] == arms["holder"], c["points"], 0)
        differ = (arms["score"] != expected) | (arms["last_turn"] != arms["last_turn_control"])
        out[c["component"]] = {"rows": len(arms), "differ": int(differ.sum())}
    return out


def kamakura_values(folder: Path) -> dict[str, Any]:
    """What holding each Kamakura chit kind from the start is worth (seats averaged), its powers, its
    worth verdicts and the check that a chit without a power changes no move."""
    run = read_values_run(folder)
    table = component_values(run)
    start = table[(table["position"] == 0) & (table["seat"].astype(str) == "all")]
    powers = power_values(run)
    worth = {v.key.split(":", 1)[1]: v for v in worth_verdicts(run)[1:]}
    return {"start": {r["component"]: r for r in start.to_dict(orient="records")},
            "powers": powers.to_dict(orient="records"), "worth": worth,
            "n": int(run.table["game_id"].nunique()), "positions": run.manifest.positions,
            "games": len(run.table.drop_duplicates(["game_id", "position", "component", "holder",
                                                    "with_power"])),
            "unchanged": unchanged_games(folder), "unchanged_words": _blue_words(worth)}


def _blue_words(worth: dict[str, Any]) -> str:
    """What the long run says of the chits without a power: their worth verdicts, in a clause."""
    blue = {name: v for name, v in worth.items() if v.detail.get("face") is not None and "power" not in name}
    said = [f"{name.split(' (')[0]} is {WORTH_WORD[v.status]} ({v.detail['worth']:.0f} "
            f"[{v.detail['worth_low']:.0f}, {v.detail['worth_high']:.0f}] "
            f"against a face of {v.detail['face']:.0f})"
            for name, v in blue.items()]
    return "; ".join(said)


def sakura_values(folder: Path) -> dict[str, Any]:
    """What each Sakura garden and painter action is worth to the holder of its cards (pooled)."""
    run = read_values_run(folder)
    groups = []
    for attribute in run.study.groups:
        for r in group_values(run, attribute).to_dict(orient="records"):
            half = (r["ci_high"] - r["ci_low"]) / 2
            groups.append({**r, "kind": attribute, "action": r[attribute], "half": half})
    return {"groups": groups, "n": int(run.table["game_id"].nunique()), "cards": len(run.components),
            "games": len(run.table.drop_duplicates(["game_id", "position", "component", "holder"])),
            "significant": sorted((g for g in groups if g["significant"]), key=lambda g: g["value"]),
            "halves": (min(g["half"] for g in groups), max(g["half"] for g in groups))}


# ---- readings sweeps --------------------------------------------------------------------------------------
def sweep(folder: Path) -> dict[str, Any]:
    """A readings sweep's report: per variant and player count its seat win rates (the base) or each seat's
    paired change from the base, and whether the tool's joint test of the seats marks it (Holm over the
    sweep)."""
    summary = _json(folder / "report" / "summary.json")
    variants: dict[str, dict[int, dict]] = {}
    for r in summary["runs"]:
        changes = r.get("seat_changes") or []
        variants.setdefault(r["variant"], {})[r["players"]] = {
            "n": r["n"], "start_adv": r["start_adv"], "start_low": r["start_adv_low"],
            "start_high": r["start_adv_high"], "rates": [s[0] for s in r["seat_rates"]],
            "changes": [{"value": c[0], "low": c[1], "high": c[2]} for c in changes],
            "marked": bool(r.get("mark_seats")), "tie_rate": r["tie_rate"], "differ": _count_or_none(r),
            "unchanged": bool(changes) and all(c[0] == c[1] == c[2] == 0 for c in changes)}
    players = sorted({p for runs in variants.values() for p in runs})
    return {"sweep": summary["sweep"], "variants": variants, "players": players, "runs": len(summary["runs"]),
            "games": sum(r["n"] for r in summary["runs"]),
            "tested": sum(1 for r in summary["runs"] if not r["is_base"])}


def _count_or_none(run: dict) -> int | None:
    """How many of a variant's paired games came out differently from the base's (the sweep report's
    `games_differ`); None for the base, or where the games were not paired."""
    differ = run.get("games_differ")
    return None if differ is None or differ != differ else int(differ)  # NaN: the base's row


def paired_cell(entry: dict | None) -> str:
    """A sweep table's cell for a variant that few games may tell from the base: "0 of N paired games
    differ" as the sweep report says it when none does, else the seats' paired changes (`seat_cell`) and
    how many of the paired games differ, the games they rest on."""
    if entry is None or entry["differ"] is None:
        return seat_cell(entry)
    if entry["differ"] == 0:
        return f"0 of {count(entry['n'])} paired games differ"
    same = all(c["value"] == c["low"] == c["high"] == 0 for c in entry["changes"])  # no seat's wins moved
    cell = "no seat's wins changed" if same else _changes_cell(entry)
    return f"{cell} ({count(entry['differ'])} of {count(entry['n'])} games differ)"


def _changes_cell(entry: dict) -> str:
    """The seats' paired changes as the verdicts say them: the first with its interval rounded outward
    and kept off 0 (a change of a few hundredths of a pp reads "[-0.1, +0.1]", not "[-0.0, +0.0]"), and
    no "-0.0"."""
    from analysis.verdicts import pp as pp_said
    from analysis.verdicts import pp_interval

    first, *rest = entry["changes"]
    said = [pp_said(c["value"]).removesuffix(" pp") for c in (first, *rest)]  # the table's unit is pp
    cells = [f"{said[0]} {pp_interval(first['low'], first['high'])}", *said[1:]]
    return ", ".join(cells) + (" *" if entry["marked"] else "")


def seat_cell(entry: dict | None) -> str:
    """A sweep table's cell: the seats' changes in pp, the first with its interval, `*` when the seats'
    joint test marks the change; the base's own rates in percent."""
    if entry is None:
        return "(not played)"
    if not entry["changes"]:
        return ", ".join(f"{100 * r:.1f}%" for r in entry["rates"])
    first, *rest = entry["changes"]
    if first["low"] == first["high"] == first["value"] and all(c["value"] == 0 for c in rest):
        return "no game changed"
    cells = [f"{100 * first['value']:+.1f} {ci(first['low'], first['high'])}"]
    return ", ".join(cells + [f"{100 * c['value']:+.1f}" for c in rest]) + (" *" if entry["marked"] else "")


# ---- balance by skill -------------------------------------------------------------------------------------
def profile(folder: Path) -> dict[str, Any]:
    """A profile's figures per level (value and interval) and whether each depends on skill (Holm)."""
    p = _json(folder / "report" / "summary.json")["profiles"][0]
    figures: dict[str, dict[str, dict]] = {}
    for f in p["figures"]:
        figures.setdefault(f["figure"], {})[f["level"]] = f
    return {"levels": p["levels"], "figures": figures, "tests": {t["figure"]: t for t in p["tests"]},
            "players": p["players"], "n": p["figures"][0]["n"], "seed": p["seed"],
            "family": p["family_tests"]}


def skill_cell(p: dict, figure: str) -> str:
    """A skill table's cell: the figure at each level with its interval, `*` when it depends on skill."""
    by_level, difference = p["figures"][figure], figure.startswith(("start-player", "tie-break"))
    cells = [(pp(f["value"]) + " " + ci(f["ci_low"], f["ci_high"])) if difference else
             (pct(f["value"]) + " " + ci(f["ci_low"], f["ci_high"], signed=False))
             for f in (by_level[level] for level in p["levels"])]
    return " / ".join(cells) + (" *" if p["tests"][figure]["depends_on_skill"] else "")


# ---- tuning -----------------------------------------------------------------------------------------------
def race(folder: Path) -> dict[str, Any]:
    """A racing tune (tune.json): its statement, recommendation, confirmation and games spent, and the
    win rates of seats 0 and 1 over the candidates that played at least 2,000 games, by seat 1's move."""
    t = _json(folder / "tune.json")
    confirm = t["confirm"]
    low, high = wilson_intervals(confirm["wins"], [confirm["games"]] * len(confirm["wins"]))
    by_move: dict[int, dict[str, list[float]]] = {}
    for c in t["candidates"]:
        if c.get("games", 0) >= 2000:
            entry = by_move.setdefault(c["values"][0], {"seat0": [], "seat1": []})
            entry["seat0"].append(c["wins"][0] / c["games"])
            entry["seat1"].append(c["wins"][1] / c["games"])
    return {"tune": t, "values": next(c["values"] for c in t["candidates"] if c["slug"] == t["recommended"]),
            "confirm": confirm, "rates": [{"rate": w / confirm["games"], "low": lo, "high": hi}
                                          for w, lo, hi in zip(confirm["wins"], low, high, strict=True)],
            "by_move": by_move, "open": [c for c in t["candidates"] if c.get("dropped_round") is None]}


def model_tune(folder: Path) -> dict[str, Any]:
    """A model-search tune with its random-search baseline (search.json): each one's confirmation on
    fresh games (seats' win rates with their Wilson intervals) and its trials."""
    s = _json(folder / "search.json")
    out: dict[str, Any] = {"search": s, "changes": s.get("changes")}
    studies = (("tpe", "model", s["recommended"]), ("random", "random", s["baseline_confirmed"]))
    for key, study, entry in studies:
        if entry is None or study not in s["studies"]:
            raise SystemExit(f"findings: {folder}: no {study} study; run the tune with and without "
                             "--baseline random")
        confirm = entry["confirm"][s["agents"]]
        low, high = wilson_intervals(confirm["wins"], [confirm["games"]] * len(confirm["wins"]))
        out[key] = {"confirm": confirm, "trials": len(s["studies"][study]["records"]),
                    "rates": [{"rate": w / confirm["games"], "low": lo, "high": hi}
                              for w, lo, hi in zip(confirm["wins"], low, high, strict=True)]}
    return out


# ---- the balance sheets -----------------------------------------------------------------------------------
def sheet(folder: Path) -> dict[str, Any]:
    """A balance sheet's answer: its sentences, one row per table, its levels and the wall time its games
    took (every level run's sessions)."""
    from analysis.sheet_report import sheet_lead
    from analysis.verdicts import parse_margins
    from sim.design.sheet import read_sheet_manifest, sheet_frame_of, sheet_seconds

    if not (folder / "sheet.json").is_file():
        raise SystemExit(f"findings: {folder}: no balance sheet; run `make findings`")
    sheet_file = read_sheet_manifest(folder)  # sheet.json, the sheet's own record
    frame = sheet_frame_of(folder, parse_margins(None, "seats,start,ties"))
    return {"lead": sheet_lead(frame), "rows": frame.to_dict(orient="records"),
            "levels": sheet_file["levels"], "games": sheet_file["games"], "seconds": sheet_seconds(folder)}


# ---- the page ---------------------------------------------------------------------------------------------
def context(out: Path) -> dict[str, Any]:
    """Every figure of the page, by section."""
    return {"demo": demo(out),
            "kamakura_values": kamakura_values(out / "values-kamakura-3p"),
            "sakura_values": sakura_values(out / "values-sakura-4p"),
            "kamakura_sweep": sweep(out / "sweep-kamakura-readings"),
            "sakura_sweep": sweep(out / "sweep-sakura-readings"),
            "voluntary_sweep": sweep(out / "sweep-kamakura-voluntary-pass"),
            "profiles": {3: profile(out / "demo-profile-kamakura-3p"),
                         4: profile(out / "profile-kamakura-4p")},
            "order": race(out / "tune-order-chits"),
            "order_shared": race(out / "tune-order-chits-shared-ties"),
            "chits": model_tune(out / "tune-chit-points"),
            "sheets": {"kamakura": sheet(out / "sheet-kamakura"), "sakura": sheet(out / "sheet-sakura")}}


def render(out: Path, template: Path, plan: list, block: dict[str, Any], chart: Path | None = None) -> str:
    """The page: the template filled from the outputs under `out`, with the plan's commands (by step name)
    and the identities that made them; copies the values report's chart to `chart`."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(template.parent),
                             undefined=jinja2.StrictUndefined,
                             keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True)
    env.globals.update(worth_word=WORTH_WORD, require=require, pct=pct, pp=pp, ci=ci, count=count, said=said,
                       seat_cell=seat_cell, paired_cell=paired_cell,
                       skill_cell=skill_cell, abs=abs, min=min, max=max, len=len)
    try:
        page = env.get_template(template.name).render(
            **context(out), cmd={s.name: s.shown() for s in plan}, identity=block,
            identity_block=render_block(block))
    except Unsupported as err:
        raise SystemExit(str(err)) from None
    if chart is not None:
        shutil.copyfile(out / "reports" / "values-kamakura-3p" / "charts" / "values_0_chart.png", chart)
    return page
