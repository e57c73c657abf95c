"""The report's component section for `balance values` runs: the causal values (analysis.values) as
tables and a chart, led by the seat-averaged value of each component at each position, then what each
power is worth, the values by component group, and each seat's values; summary.json's
``component_values``.
"""

from __future__ import annotations

import html

import numpy as np
import pandas as pd

from analysis import charts
from analysis.page import Section
from analysis.values import ValuesRun, component_values, group_values, power_values
from sim import games

SUMMARY_KEYS = ("component", "position", "seat", "value", "ci_low", "ci_high", "n", "points_equivalent",
                "pe_ci_low", "pe_ci_high", "significant")


def _pp(v: float) -> str:
    return "" if not np.isfinite(v) else f"{100 * v:+.1f}"


def _pp_interval(low: float, high: float) -> str:
    return "not estimable" if not (np.isfinite(low) and np.isfinite(high)) else f"[{_pp(low)}, {_pp(high)}]"


def _pts(v: float) -> str:
    return "" if not np.isfinite(v) else f"{v:+.2f}"


def _pts_interval(low: float, high: float) -> str:
    return "not estimable" if not (np.isfinite(low) and np.isfinite(high)) else f"[{_pts(low)}, {_pts(high)}]"


def _where(position: int, unit: str) -> str:
    return "start" if position == 0 else f"after {position} {unit}"


def values_table(rows: pd.DataFrame, score: str, unit: str) -> pd.DataFrame:
    """The component rows as the page shows them, with human headers and units in the headers."""
    out = pd.DataFrame({
        "Component": rows["component"].to_numpy(),
        "Position": [_where(int(p), unit) for p in rows["position"]],
        "Win share change (pp)": [_pp(v) for v in rows["value"]],
        "95% interval (pp)": [_pp_interval(lo, hi)
                              for lo, hi in zip(rows["ci_low"], rows["ci_high"], strict=True)],
        f"Worth in {score}": [_pts(v) for v in rows["points_equivalent"]],
        f"95% interval ({score})": [_pts_interval(lo, hi)
                                    for lo, hi in zip(rows["pe_ci_low"], rows["pe_ci_high"], strict=True)],
        "Base games": rows["n"].astype(int).to_numpy(),
        "Detectable (pp)": [f"{100 * v:.1f}" if np.isfinite(v) else "" for v in rows["detectable"]],
        "Holm p": [f"{p:.2g}" if np.isfinite(p) else "" for p in rows["p_holm"]],
        "Significant": np.where(rows["significant"], "yes", "no"),
    })
    if "seat" in rows and (rows["seat"].astype(str) != "all").any():
        out.insert(1, "Seat", rows["seat"].astype(str).to_numpy())
    return out


def values_section(runs: dict[str, ValuesRun]) -> tuple[Section, list[dict]]:
    """One section over every values run given to the report; returns it and summary.json's
    ``component_values`` records (one per component, position and seat, "all" = averaged over seats)."""
    sec = Section("What each component is worth: causal values by paired intervention", question="components",
                  anchor="components")
    records: list[dict] = []
    for i, (label, run) in enumerate(runs.items()):
        key = f"values_{i}"
        table = component_values(run)
        unit = games.spec(run.game).vocabulary.length
        score = run.study.score_unit
        n_base = run.table["game_id"].nunique()
        everyone = table[table["seat"].astype(str) == "all"]
        sec.notes.append(
            f"<b>{html.escape(label)}</b>: {html.escape(str(run.path))} — {run.game}, {run.players} players, "
            f"agents {html.escape(','.join(run.manifest['agents']))}, seed {run.manifest['seed']}, "
            f"n = {n_base:,} base games, "
            f"positions {', '.join(_where(p, unit) for p in run.manifest['positions'])}.")
        sec.notes.append(
            "Each value is what holding the component <i>causes</i>: from the same position and the same "
            "seeds, one seat holds it against nobody holding it (the component off the board), and the "
            "difference of that seat's win share is averaged over base games (paired; the interval is the "
            "normal one of the mean of per-game differences, so the dependence of one game's arms and seats "
            "is accounted for). Win shares are in percentage points (pp); 'worth in "
            f"{score}' is the bonus that, added to the seat's final score in the same control games "
            "(re-scored, no new games), raises its win share as much (bootstrap interval over base games). "
            "Significance is Holm-adjusted over each table; 'detectable' is the smallest true value a 5% "
            "test detects with 80% power at this n.")
        shown = everyone.sort_values(["position", "value"], ascending=[True, False])
        sec.tables.append((key, f"{label}: value of each component, averaged over seats",
                           values_table(shown, score, unit)))
        first = everyone[everyone["position"] == everyone["position"].min()].copy()
        first = first.sort_values("value", ascending=False)
        sec.charts.append((f"{key}_chart", f"{label}: value of each component at the "
                           f"{_where(int(first['position'].min()), unit)}, averaged over seats "
                           f"(n = {int(first['n'].max()):,} base games)",
                           charts.grouped_bars(first, "component", "value", "ci_low", "ci_high", None,
                                               f"What holding each component causes ({label}, "
                                               f"n = {int(first['n'].max()):,} base games)",
                                               "win share change (percentage points)", "", horizontal=True,
                                               reference=0.0, reference_label="no effect")))
        powers = power_values(run)
        if not powers.empty:
            sec.tables.append((f"{key}_powers", f"{label}: what each power is worth at the start "
                               "(holding the chit against holding the same points without its power)",
                               pd.DataFrame({
                                   "Component": powers["component"],
                                   "Power's worth (pp)": [_pp(v) for v in powers["power_value"]],
                                   "95% interval (pp)": [_pp_interval(lo, hi) for lo, hi in
                                                         zip(powers["ci_low"], powers["ci_high"],
                                                             strict=True)],
                                   f"In {score}": [_pts(v) for v in powers["power_points"]],
                                   f"95% interval ({score})": [_pts_interval(lo, hi) for lo, hi in
                                                               zip(powers["pp_ci_low"], powers["pp_ci_high"],
                                                                   strict=True)],
                                   "Base games": powers["n"].astype(int),
                                   "Holm p": [f"{p:.2g}" for p in powers["p_holm"]],
                                   "Significant": np.where(powers["significant"], "yes", "no")})))
        for attribute in run.study.groups:
            grouped = group_values(run, attribute)
            if grouped.empty:
                continue
            grouped = grouped.sort_values(["position", "value"], ascending=[True, False])
            sec.tables.append((f"{key}_by_{attribute}", f"{label}: values by {attribute}, averaged "
                               f"over the {attribute}'s components and the seats",
                               pd.DataFrame({
                                   attribute.capitalize(): grouped[attribute].astype(str),
                                   "Position": [_where(int(p), unit) for p in grouped["position"]],
                                   "Components": grouped["components"].astype(int),
                                   "Win share change (pp)": [_pp(v) for v in grouped["value"]],
                                   "95% interval (pp)": [_pp_interval(lo, hi) for lo, hi in
                                                         zip(grouped["ci_low"], grouped["ci_high"],
                                                             strict=True)],
                                   "Base games": grouped["n"].astype(int),
                                   "Detectable (pp)": [f"{100 * v:.1f}" for v in grouped["detectable"]],
                                   "Holm p": [f"{p:.2g}" for p in grouped["p_holm"]],
                                   "Significant": np.where(grouped["significant"], "yes", "no")})))
        seats = table[table["seat"].astype(str) != "all"].sort_values(["position", "component_index", "seat"])
        sec.tables.append((f"{key}_seats", f"{label}: value of each component for each seat",
                           values_table(seats, score, unit)))
        for r in table.to_dict(orient="records"):
            records.append({**{k: r[k] for k in SUMMARY_KEYS}, "run": label})
    return sec, records
