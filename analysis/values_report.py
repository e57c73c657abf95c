"""The report's component section for `balance values` runs: the causal values (analysis.causal_values) as
tables and a chart, led by the seat-averaged value of each component at each position, then what each
power is worth, the values by component group, and each seat's values; summary.json's
``component_values``.
"""

from __future__ import annotations

import html

import numpy as np
import pandas as pd

from analysis import charts
from analysis.causal_values import MIN_BASE_GAMES, ValuesRun, group_values, power_values
from analysis.figures import figure, interval, whole_interval
from analysis.page import COUNT, TEXT, Section, declare
from analysis.worth_verdicts import worth_table

SUMMARY_KEYS = ("component", "position", "seat", "value", "ci_low", "ci_high", "n", "points_equivalent",
                "pe_ci_low", "pe_ci_high", "significant", "tested", "pe_gain")


def _pp(v: float) -> str:
    return "" if not np.isfinite(v) else figure(100 * v, sign=True)


def _pp_interval(low: float, high: float) -> str:
    """Rounded outward, a bound never shown on 0 when it lies off it (analysis.figures)."""
    return ("not estimable" if not (np.isfinite(low) and np.isfinite(high))
            else interval(100 * low, 100 * high, keep_off=(0.0,), sign=True))


def _pts(v: float) -> str:
    """A whole number of score points (tokens) with its sign: worth and handicaps are whole bonuses."""
    return "" if not np.isfinite(v) else figure(v, 0, sign=True)


def _pts_interval(low: float, high: float) -> str:
    """Whole bounds; an infinite one (beyond the bonus range) in words, "[at least +7]"."""
    return "not estimable" if np.isnan(low) or np.isnan(high) else whole_interval(low, high, sign=True)


def _where(position: int, unit: str) -> str:
    """The position column: a value after the start holds only the games where the component is still in
    play then (conditional, its n beside it)."""
    return "start" if position == 0 else f"after {position} {unit}, where still in play"


def _too_few(tested: pd.Series, n: pd.Series, cells: list[str]) -> list[str]:
    """`cells`, with "too few games (n = 4)" where a row was not tested (causal_values.MIN_BASE_GAMES)."""
    return [c if t else f"too few games (n = {int(k):,})" for c, t, k in zip(cells, tested, n, strict=True)]


def _declared(frame: pd.DataFrame) -> pd.DataFrame:
    """A values table with its columns' kinds: the cells written as text here, the counts of base games
    and of a group's components."""
    return declare(frame, {c: COUNT if c in ("Base games", "Components") else TEXT for c in frame.columns})


def _judged(rows: pd.DataFrame) -> dict[str, list[str]]:
    """The columns every values table ends with: n, detectable, Holm p and significance ("not tested" below
    the minimum n)."""
    return {"Base games": rows["n"].astype(int).to_numpy(),
            "Detectable (pp)": [f"{100 * v:.1f}" if np.isfinite(v) else "" for v in rows["detectable"]],
            "Holm p": [f"{p:.2g}" if np.isfinite(p) else "" for p in rows["p_holm"]],
            "Significant": ["yes" if s else "no" if t else "not tested"
                            for s, t in zip(rows["significant"], rows["tested"], strict=True)]}


def _family_text(rows: pd.DataFrame) -> str:
    """A table caption's family: "Holm over its 46 tested rows; detectable at 5%/46"."""
    m = int(rows["tested"].sum())
    return f"Holm over its {m} tested rows; detectable at 5%/{max(m, 1)}"


def values_table(rows: pd.DataFrame, score: str, unit: str) -> pd.DataFrame:
    """The component rows as the page shows them, with human headers and units in the headers."""
    tested, n = rows["tested"], rows["n"]
    out = pd.DataFrame({
        "Component": rows["component"].to_numpy(),
        "Position": [_where(int(p), unit) for p in rows["position"]],
        "Win share change (pp)": [_pp(v) for v in rows["value"]],
        "95% interval (pp)": _too_few(tested, n, [_pp_interval(lo, hi) for lo, hi in
                                                  zip(rows["ci_low"], rows["ci_high"], strict=True)]),
        f"Worth in {score}": [_pts(v) for v in rows["points_equivalent"]],
        "Change that bonus gives (pp)": [_pp(v) for v in rows["pe_gain"]],
        f"95% interval ({score})": _too_few(tested, n, [
            _pts_interval(lo, hi) for lo, hi in zip(rows["pe_ci_low"], rows["pe_ci_high"], strict=True)]),
        **_judged(rows),
    })
    if "seat" in rows and (rows["seat"].astype(str) != "all").any():
        out.insert(1, "Seat", rows["seat"].astype(str).to_numpy())
    return _declared(out)


def powers_table(powers: pd.DataFrame, score: str) -> pd.DataFrame:
    """`analysis.causal_values.power_values` as the page shows it."""
    tested, n = powers["tested"], powers["n"]
    return _declared(pd.DataFrame({
        "Component": powers["component"],
        "Power's worth (pp)": [_pp(v) for v in powers["power_value"]],
        "95% interval (pp)": _too_few(tested, n, [_pp_interval(lo, hi) for lo, hi in
                                                  zip(powers["ci_low"], powers["ci_high"], strict=True)]),
        f"In {score}": [_pts(v) for v in powers.get("power_points", pd.Series(np.nan, powers.index))],
        f"95% interval ({score})": _too_few(tested, n, [_pts_interval(lo, hi) for lo, hi in zip(
            powers.get("pp_ci_low", pd.Series(np.nan, powers.index)),
            powers.get("pp_ci_high", pd.Series(np.nan, powers.index)), strict=True)]),
        **_judged(powers)}))


def groups_table(grouped: pd.DataFrame, attribute: str, unit: str) -> pd.DataFrame:
    """`analysis.causal_values.group_values` by `attribute` as the page shows it."""
    tested, n = grouped["tested"], grouped["n"]
    return _declared(pd.DataFrame({
        attribute.capitalize(): grouped[attribute].astype(str),
        "Position": [_where(int(p), unit) for p in grouped["position"]],
        "Components": grouped["components"].astype(int),
        "Win share change (pp)": [_pp(v) for v in grouped["value"]],
        "95% interval (pp)": _too_few(tested, n, [_pp_interval(lo, hi) for lo, hi in
                                                  zip(grouped["ci_low"], grouped["ci_high"], strict=True)]),
        **_judged(grouped)}))


def _method_note(score: str) -> str:
    return (
        "Each value is what holding the component <i>causes</i>: from the same position and the same "
        "seeds, one seat holds it against nobody holding it (the component off the board), and the "
        "difference of that seat's win share is averaged over base games (paired; the interval is the "
        "normal one of the mean of per-game differences, so the dependence of one game's arms and seats "
        "is accounted for). Win shares are in percentage points (pp). A row of fewer than "
        f"{MIN_BASE_GAMES} base games is not tested: too few games for an interval or a p-value. A value "
        "after t turns is conditional: it holds only the base games where the component was still in play "
        f"then (the game not over, a chit of the kind on the board), with their n. 'Worth in {score}' is the"
        f" smallest whole bonus (scores are whole, so the share moves only at whole {score}) that, added to "
        "the seat's final score in the same control games (re-scored, no new games), raises its win share "
        "at least as much, beside the change that bonus gives (bootstrap interval over base games, whole "
        "bounds; at the first position, averaged over seats, the verdicts' interval instead, simultaneous "
        "over the components, so each component's worth reads the same here and in its verdict). "
        "Significance is Holm-adjusted over each table (Holm's correction for testing many rows at "
        "once keeps the chance of any false 'significant' in the table at 5%); 'detectable' is the smallest "
        "true value a two-sided test at the family's Bonferroni level (5% divided by the m tested rows named "
        "in each table's title, Holm's first step) detects with 80% power at this n.")


def _chart(key: str, label: str, everyone: pd.DataFrame, unit: str) -> tuple:
    """The chart of the first position's seat-averaged values."""
    first = everyone[everyone["position"] == everyone["position"].min()].copy()
    first = first.sort_values("value", ascending=False)
    n_max = int(first["n"].max())
    position = int(first["position"].min())
    where = ("start" if position == 0 else
             f"position after {position} {unit}, among the games where each is still in play")
    return (f"{key}_chart", f"{label}: value of each component at the {where}, averaged over seats "
            f"(n = {n_max:,} base games{' at most' if position else ''})",
            charts.grouped_bars(first, "component", "value", "ci_low", "ci_high", series=None,
                                title=f"What holding each component causes ({label}, "
                                f"n = {n_max:,} base games)",
                                xlabel="win share change (percentage points)", ylabel="", horizontal=True,
                                reference=0.0, reference_label="no effect"))


def values_section(runs: dict[str, ValuesRun]) -> tuple[Section, list[dict]]:
    """One section over every values run given to the report; returns it and summary.json's
    ``component_values`` records (one per component, position and seat, "all" = averaged over seats)."""
    sec = Section("What each component is worth: causal values by paired intervention", question="components",
                  anchor="components")
    records: list[dict] = []
    for i, (label, run) in enumerate(runs.items()):
        key = f"values_{i}"
        table = worth_table(run)
        unit = run.spec.vocabulary.length
        score = run.study.score_unit
        n_base = run.table["game_id"].nunique()
        everyone = table[table["seat"].astype(str) == "all"]
        sec.notes.append(
            f"<b>{html.escape(label)}</b>: {html.escape(str(run.path))} — {run.game}, {run.players} players, "
            f"agents {html.escape(','.join(run.manifest.agents))}, seed {run.manifest.seed}, "
            f"n = {n_base:,} base games, "
            f"positions {', '.join(_where(p, unit) for p in run.manifest.positions)}.")
        sec.notes.append(_method_note(score))
        shown = everyone.sort_values(["position", "value"], ascending=[True, False])
        sec.tables.append((key, f"{label}: value of each component, averaged over seats "
                           f"({_family_text(shown)})", values_table(shown, score, unit)))
        sec.charts.append(_chart(key, label, everyone, unit))
        powers = power_values(run)
        if not powers.empty:
            sec.tables.append((f"{key}_powers", f"{label}: what each power is worth at the start "
                               "(holding the chit against holding the same points without its power; "
                               f"{_family_text(powers)})", powers_table(powers, score)))
        for attribute in run.study.groups:
            grouped = group_values(run, attribute)
            if grouped.empty:
                continue
            grouped = grouped.sort_values(["position", "value"], ascending=[True, False])
            sec.tables.append((f"{key}_by_{attribute}", f"{label}: values by {attribute}, averaged "
                               f"over the {attribute}'s components and the seats ({_family_text(grouped)})",
                               groups_table(grouped, attribute, unit)))
        seats = table[table["seat"].astype(str) != "all"].sort_values(["position", "component_index", "seat"])
        sec.tables.append((f"{key}_seats", f"{label}: value of each component for each seat "
                           f"({_family_text(seats)})", values_table(seats, score, unit)))
        for r in table.to_dict(orient="records"):
            records.append({**{k: r[k] for k in SUMMARY_KEYS}, "run": label})
    return sec, records
