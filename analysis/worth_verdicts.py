"""What is each component worth against what it says on it? Verdicts of a `balance values` run: each
component's causal worth in whole score points (analysis.causal_values) minus its face value (a component's
``points``, when it has one), judged against the worth margin (`Margins.worth`, 1 score point by default).

The components of a run are one family: each component's win-share value gets a normal interval at the
Bonferroni level over the components, and that interval is carried through the re-scoring curve of the
same control games (the smallest whole bonus that brings as much, analysis.handicaps.whole_bonus), so the
worth's bounds are whole points too. The curve is taken as known: it averages every control game of the
component, which is far more precise than the difference of two arms.
"""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import Any

import numpy as np
import pandas as pd

from analysis.causal_values import MIN_BASE_GAMES, ValuesRun, component_values
from analysis.figures import figure, whole_interval
from analysis.handicaps import BONUS_RANGE, BONUSES, whole_bonus
from analysis.verdicts import (
    ALPHA,
    BEYOND,
    DEFAULT_MARGINS,
    SMALL,
    TOO_FEW,
    UNDECIDED,
    WITHIN,
    Margins,
    Verdict,
    units,
)

#: a verdict without an estimate
_NONE = {"value": float("nan"), "low": float("nan"), "high": float("nan")}


def _whole(x: float) -> str:
    return figure(x, 0, sign=True) if math.isfinite(x) else "beyond the range" if x > 0 else "below the range"


def _units(x: float, unit: str) -> str:
    """Whole score units: "1 score point", "3 score points", "2 tokens" (points are "score points", never to
    be read as percentage points)."""
    text = units(x, unit)
    return text.replace(" ", " score ", 1) if unit == "points" else text


def worth_rows(run: ValuesRun) -> list[dict[str, Any]]:
    """Each component at the run's first position, seats averaged: its win-share value, the Bonferroni
    interval over the components, and its worth in whole score points with those bounds carried through the
    re-scoring curve; the face value where the component has ``points``."""
    first = min(position for position, _ in run.arms)
    chosen = sorted((k, a) for (position, k), a in run.arms.items() if position == first)
    z = NormalDist().inv_cdf(1 - ALPHA / (2 * max(len(chosen), 1)))
    rows = []
    for k, a in chosen:
        d = (a.treated[:, np.arange(run.players), np.arange(run.players)] - a.control).mean(axis=1)
        n = int(np.sum(~np.isnan(d)))
        value = float(np.nanmean(d)) if n else float("nan")
        half = z * float(np.nanstd(d, ddof=1)) / math.sqrt(n) if n > 1 else float("nan")
        row = {"component": str(run.components.loc[k, "component"]), "position": first, "n": n,
               "value": value, "ci_low": max(-1.0, value - half), "ci_high": min(1.0, value + half),
               "worth": float("nan"), "worth_low": float("nan"), "worth_high": float("nan"),
               "face": float(run.components.loc[k, "points"]) if "points" in run.components else None}
        curve = run.priced[(first, k)].curve  # the values table's curve, computed once
        if curve is not None and n >= MIN_BASE_GAMES:
            row.update(worth=whole_bonus(curve, value, BONUSES),
                       worth_low=whole_bonus(curve, row["ci_low"], BONUSES),
                       worth_high=whole_bonus(curve, row["ci_high"], BONUSES))
        rows.append(row)
    return rows


def judged_worth(table: pd.DataFrame, run: ValuesRun) -> pd.DataFrame:
    """`table` (component_values) with the worth interval of each seat-averaged row at the first position
    replaced by its verdict's (analysis.worth_verdicts.worth_rows: simultaneous over the components), so a
    component's worth has one interval on the page."""
    if table.empty:
        return table
    out = table.copy()
    for row in worth_rows(run):
        if not np.isfinite(row["worth"]):
            continue
        at = ((out["seat"].astype(str) == "all") & (out["position"] == row["position"])
              & (out["component"] == row["component"]))
        out.loc[at, ["points_equivalent", "pe_ci_low", "pe_ci_high"]] = (row["worth"], row["worth_low"],
                                                                         row["worth_high"])
    return out


def worth_table(run: ValuesRun) -> pd.DataFrame:
    """`component_values` of the run with its verdicts' worth intervals (`judged_worth`): what the report and
    the commands show."""
    return judged_worth(component_values(run), run)


def _status(row: dict[str, Any], margin: float) -> str:
    if row["n"] < MIN_BASE_GAMES or not math.isfinite(row["worth"]):
        return TOO_FEW
    face = row["face"] or 0.0
    low, high = row["worth_low"] - face, row["worth_high"] - face
    if low > margin or high < -margin:
        return BEYOND
    if low >= -margin and high <= margin:
        return SMALL if (low > 0 or high < 0) else WITHIN
    return UNDECIDED


def worth_verdicts(run: ValuesRun, margins: Margins = DEFAULT_MARGINS) -> list[Verdict]:
    """One verdict per component (key "worth:<component>"), worth minus face value in whole score points,
    and a first one (key "components") that names the most over- and under-valued."""
    unit = run.study.score_unit
    rows = worth_rows(run)
    out = []
    for row in rows:
        status = _status(row, margins.worth)
        out.append(_one(row, status, unit, margins))
    return [_headline(rows, out, unit, margins), *out]


def _one(row: dict[str, Any], status: str, unit: str, margins: Margins) -> Verdict:
    name, face = row["component"], row["face"]
    n = row["n"]
    if status == TOO_FEW:
        text = (f"{name}: too few base games for a verdict (n = {n:,}; at least {MIN_BASE_GAMES})"
                if n < MIN_BASE_GAMES else f"{name}: its worth lies beyond the {BONUS_RANGE}-{unit} range")
        return Verdict(f"worth:{name}", "What is it worth?", status, text + ".", **_NONE, unit=unit,
                       margin=margins.worth, n=n)
    span = whole_interval(row["worth_low"], row["worth_high"])  # as the values table shows it
    worth = (f"worth {_units(row['worth'], unit)} {span}" if row["worth"] >= 0
             else f"worth {_whole(row['worth'])} {unit} {span}")
    if face is None:
        text = f"{name}: {worth} (n = {n:,} base games)."
        diff, low, high = row["worth"], row["worth_low"], row["worth_high"]
    else:
        diff, low, high = row["worth"] - face, row["worth_low"] - face, row["worth_high"] - face
        words = {WITHIN: "priced right", SMALL: "priced right, within the margin",
                 UNDECIDED: "undecided",
                 BEYOND: (f"over-valued: it gives {_units(diff, unit)} more than its face"
                          if diff > 0 else f"under-valued: it gives {_units(diff, unit)} less than its face")}
        text = (f"{name}: {worth}, face value {face:.0f}; {words[status]} (worth minus face {_whole(diff)} "
                f"{whole_interval(low, high, sign=True)}, margin {_units(margins.worth, unit)}; "
                f"n = {n:,} base games).")
    short = (f"worth {figure(row['worth'], 0)} {span} against a face of {face:.0f}: {_whole(diff)} "
             f"{whole_interval(low, high, sign=True)} {unit}." if face is not None else "")
    detail = {"component": name, "worth": row["worth"], "worth_low": row["worth_low"],
              "worth_high": row["worth_high"], "face": face, "value": row["value"]}
    return Verdict(f"worth:{name}", "What is it worth?", status, text, value=diff, low=low, high=high,
                   unit=unit, margin=margins.worth, n=n, short=short, detail=detail)


def _headline(rows: list[dict[str, Any]], verdicts: list[Verdict], unit: str, margins: Margins) -> Verdict:
    """The components' verdict in one sentence: how many are priced right, and the most over- and
    under-valued, by their worth minus face value."""
    judged = [(r, v) for r, v in zip(rows, verdicts, strict=True)
              if r["face"] is not None and v.status != TOO_FEW]
    n = max((r["n"] for r in rows), default=0)
    if not judged:
        text = f"Components: no face values to judge against, or too few base games (n = {n:,})."
        return Verdict("components", "Which components are mispriced?", TOO_FEW, text, **_NONE, unit=unit,
                       margin=margins.worth, n=n)
    counts = {s: sum(v.status == s for _, v in judged) for s in (WITHIN, SMALL, BEYOND, UNDECIDED)}
    top = max(judged, key=lambda rv: rv[1].value)
    bottom = min(judged, key=lambda rv: rv[1].value)
    parts = [f"{counts[WITHIN] + counts[SMALL]} of {len(judged)} priced right within "
             f"{_units(margins.worth, unit)}, {counts[BEYOND]} mispriced, {counts[UNDECIDED]} undecided"]
    if top[1].value > 0:
        parts.append(f"the most over-valued (worth most above its face) is {top[0]['component']}, "
                     f"{_whole(top[1].value)} {whole_interval(top[1].low, top[1].high, sign=True)} {unit}")
    if bottom[1].value < 0:
        parts.append(f"the most under-valued is {bottom[0]['component']}, {_whole(bottom[1].value)} "
                     f"{whole_interval(bottom[1].low, bottom[1].high, sign=True)} {unit}")
    status = BEYOND if counts[BEYOND] else UNDECIDED if counts[UNDECIDED] else WITHIN
    text = (f"Components: {'; '.join(parts)} (worth in whole {unit} minus face value, intervals "
            f"simultaneous over the {len(rows)} components; n = {n:,} base games).")
    return Verdict("components", "Which components are mispriced?", status, text, value=top[1].value,
                   low=top[1].low, high=top[1].high, unit=unit, margin=margins.worth, n=n)


def format_worth(run: ValuesRun, margins: Margins = DEFAULT_MARGINS) -> str:
    """The component verdicts as `balance values` and `balance summary` print them: the headline, then
    one line per component, the mispriced first."""
    head, *rest = worth_verdicts(run, margins)
    order = {BEYOND: 0, UNDECIDED: 1, SMALL: 2, WITHIN: 3, TOO_FEW: 4}
    rest = sorted(rest, key=lambda v: (order.get(v.status, 5),
                                       -abs(v.value) if math.isfinite(v.value) else 0.0))
    return "\n".join([head.sentence, *(f"  {v.sentence}" for v in rest)])
