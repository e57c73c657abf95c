"""Several runs of a game given to one report: each run minus the first of its game and player count, with
its 95% interval, paired game by game when the runs share game ids (game i of both has the seed of
(seed, i) when their seeds agree), and Holm over the whole table (analysis.sweep_report's comparisons).

Rows that are one finding are shown and tested once: when the tie-break decided every tie of both runs,
"decided by the tie-break" is "top score tied" game by game, one merged row. Runs whose agents or rule
readings differ are flagged, at the top and in each of their rows: their difference is not the rules'
alone.
"""

from __future__ import annotations

import html
from typing import Any

import numpy as np
import pandas as pd

from analysis.adaptive_stop import adaptive_labels, adaptive_note
from analysis.figures import figure
from analysis.page import TEXT, Section, declare
from analysis.paired import common_sums, compare_sums, paired_tally, same_games
from analysis.readings import rule_readings
from analysis.run_tally import RunTally
from analysis.stats import holm
from analysis.sweep_report import TESTED
from sim.core.errors import ConfigError

_LABELS = {"start_adv": ("start-player advantage", "pp"), "gap": ("largest seat gap", "pp"),
           "tie_rate": ("top score tied", "pp"), "tiebreak_rate": ("decided by the tie-break", "pp"),
           "tie_decided": ("top score tied (every tie decided by the tie-break)", "pp"),
           "length": ("game length", None)}


def _agents(run: Any) -> str:
    """The run's agents as text (resolved, with their defaults, when the manifest has them; one name when
    every seat plays the same)."""
    m = run.manifest
    agents = list(m.resolved_agents or m.agents)
    return agents[0] if len(set(agents)) == 1 else ",".join(agents)


def _readings(run: Any) -> dict[str, Any]:
    try:
        return rule_readings(run)
    except (ConfigError, AttributeError, KeyError):  # rules not readable from this manifest: none compared
        return {}


def differences_in_play(run: Any, base: Any) -> str:
    """What besides the rules differs between a run and its base: "agents differ: greedy vs random — the
    difference is the players', not the rules'" and the rule readings that differ ('' when none)."""
    notes = []
    if _agents(run) != _agents(base):
        notes.append(f"agents differ: {_agents(run)} vs {_agents(base)} — the difference is the players', "
                     "not the rules'")
    mine, theirs = _readings(run), _readings(base)
    read = [f"{k} = {mine[k]} vs {theirs[k]}" for k in mine if k in theirs and mine[k] != theirs[k]]
    if read:
        notes.append(f"rules read differently: {', '.join(read)} (docs/rules.md reads them two ways) "
                     "— part of the difference is how the rules are read")
    return "; ".join(notes)


def variant_rows(runs: dict[str, RunTally], length: str, jobs: int = 1,
                 backend: str = "loky") -> pd.DataFrame:
    """Each run after the first minus the first (`runs` of one game and player count): ``run, base,
    metric, difference, ci_low, ci_high, paired, p_value, p_holm, significant, differs``. From the runs'
    tallies, and, for runs that played the same games, their pair sums chunk by chunk (analysis.paired).
    When every tie of both runs was decided by the tie-break, ``tie_decided`` stands for both tie rows.
    ``differs``: what besides the rules differs (`differences_in_play`)."""
    labels = list(runs)
    base_label = labels[0]
    base = runs[base_label]
    rows = []
    for label in labels[1:]:
        run = runs[label]
        # paired only when game i of both was dealt from the same seed (else independent games)
        pair = paired_tally(run, base, length, jobs, backend)[0] if same_games(run, base) else None
        cmp = compare_sums(common_sums(run.common), common_sums(base.common), pair)
        merged = bool(cmp["tie_is_decided"])
        differs = differences_in_play(run, base)
        for metric in TESTED:
            if merged and metric == "tiebreak_rate":
                continue  # the same games as the ties: one finding, tested once
            rows.append({"run": label, "base": base_label,
                         "metric": "tie_decided" if merged and metric == "tie_rate" else metric,
                         "difference": cmp[f"d_{metric}"], "ci_low": cmp[f"d_{metric}_low"],
                         "ci_high": cmp[f"d_{metric}_high"], "paired": bool(cmp["paired"]),
                         "p_value": cmp[f"p_{metric}"], "differs": differs})
    out = pd.DataFrame(rows)
    if not out.empty:
        out["p_holm"] = holm(out["p_value"].to_numpy(dtype=float))
        out["significant"] = np.nan_to_num(out["p_holm"].to_numpy(dtype=float), nan=1.0) <= 0.05
    return out


def _frame(rows: pd.DataFrame, length: str) -> pd.DataFrame:
    """`variant_rows` as the page shows them."""
    def shown(value: float, metric: str) -> str:
        unit = _LABELS[metric][1]
        return "" if not np.isfinite(value) else (figure(100 * value, sign=True) if unit
                                                   else figure(value, 2, sign=True))

    frame = pd.DataFrame({
        "Run": rows["run"], "Minus": rows["base"],
        "Figure": [f"{_LABELS[m][0]} ({_LABELS[m][1] or length})" for m in rows["metric"]],
        "Difference": [shown(v, m) for v, m in zip(rows["difference"], rows["metric"], strict=True)],
        "95% interval": [f"[{shown(lo, m)}, {shown(hi, m)}]" for lo, hi, m in
                         zip(rows["ci_low"], rows["ci_high"], rows["metric"], strict=True)],
        "Paired": np.where(rows["paired"], "yes (same seeds)", "no"),
        "Holm p": [f"{p:.2g}" if np.isfinite(p) else "" for p in rows["p_holm"]],
        "Significant": np.where(rows["significant"], "yes", "no")})
    if (rows["differs"] != "").any():
        frame["Not the rules alone"] = rows["differs"].to_numpy()
    return declare(frame, dict.fromkeys(frame.columns, TEXT))  # every cell written as text above


def variant_section(title: str, runs: dict[str, RunTally], length: str, jobs: int = 1,
                    backend: str = "loky") -> Section | None:
    """The "variant minus base" section of a game's runs, per player count with two runs or more."""
    by_players: dict[int, dict[str, RunTally]] = {}
    for label, run in runs.items():
        by_players.setdefault(int(run.manifest.players), {})[label] = run
    tables, warnings, stopped = [], [], set()
    for players, group in sorted(by_players.items()):
        if len(group) < 2:
            continue
        rows = variant_rows(group, length, jobs, backend)
        frame = _frame(rows, length)
        if adaptive_labels(group):  # a run stopped on its own data: no fixed-size interval or test
            stopped |= adaptive_labels(group)
            frame = frame.drop(columns=["95% interval", "Holm p", "Significant"])
        for (run, base), text in rows.groupby(["run", "base"], sort=False)["differs"].first().items():
            if text:
                warnings.append(f"<b>{html.escape(run)}</b> minus <b>{html.escape(base)}</b> ({players} "
                                f"players): {html.escape(text)}.")
        tables.append((players, frame))
    if not tables:
        return None
    sec = Section(f"{title}: each run minus the first")
    if stopped:
        sec.notes.append(adaptive_note(stopped))
    if warnings:
        sec.notes.append("<b>Warning: not a comparison of rules alone.</b> " + " ".join(warnings))
    sec.notes.append("Differences of each run from the first run of the same player count: percentage points "
                     "(pp) for rates, the game's own unit for length. Paired game by game when the two runs "
                     "share their seeds (game i of each was dealt from the same seed), which removes the "
                     "luck of the deal from the difference; else the runs' games are independent. The seat "
                     "gap's interval is a parametric bootstrap (normal draws of the seat rates). When the "
                     "tie-break decided every tie of both runs, the tie and tie-break rows are the same "
                     "games and are shown and tested as one row. Significance: Holm over the whole table.")
    for players, frame in tables:
        sec.tables.append((f"variants_{title.lower()}_{players}p", f"{players} players: run minus the first",
                           frame))
    return sec
