"""The comparison report of a sweep (`balance sweep`): per variant, player count and agents the
start-player advantage, the largest gap between seat win rates (Ludii's "Balance" is 1 minus this gap), tie
rate and tie-break share, game length and the spread of the component values (chits, cards: the game's
registry entry, `GameAnalysis.component_values`), each with its n and a 95% interval; charts of each metric
against the swept parameters; variants whose difference from the base is significant at 95% are marked.

The figures come from the runs' merged tallies (`run_figures`, analysis.run_tally) and from sums
(`compare_runs` of two `per_game` frames, analysis.paired), `sweep_table` judges them; `build_sweep_report`
reads the sweep folder (sweep.json and its run directories) chunk by chunk and writes the page with
`analysis.report_page.write_report`.

Variants of a sweep play the same game seeds (game i of every variant starts from the seed of (seed, i)),
so a variant and the base are compared game by game when both runs have the same seed and games (paired
differences, their sums read window by window; a paired parametric bootstrap for the seat gap);
otherwise as independent samples.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from analysis import charts, figures
from analysis.game_analysis import analysis_of
from analysis.page import (
    BOUND,
    COUNT,
    DIFFERENCE,
    DIFFERENCE_BOUND,
    NUMBER,
    P_VALUE,
    SHARE,
    SHARE_BOUND,
    TEST,
    TEXT,
    Section,
    declare,
    interval,
    pct,
)
from analysis.paired import (
    common_sums,
    compare_sums,
    frame_sums,
    pair_sums,
    paired_tally,
    same_games,
    seat_gap_from_sums,
)
from analysis.report_page import write_report
from analysis.run_tally import (
    RunTally,
    read_run_tally,
    seat_equality_test,
    start_player_advantage,
    tie_stats,
)
from analysis.runs import spec_of
from analysis.stats import (
    holm,
    mean_interval,
    wilson_intervals,
)
from analysis.tally import SHARE_SCALE, mean_sd
from sim.core.errors import ConfigError
from sim.core.game_spec import GameSpec

#: Metrics of a run that the report compares and charts: (key, label, percent?).
METRICS: tuple[tuple[str, str, bool], ...] = (
    ("start_adv", "start-player advantage", True),
    ("gap", "seat gap (max - min seat win rate)", True),
    ("tie_rate", "top score tied", True),
    ("tiebreak_rate", "decided by the tie-break", True),
    ("length", "game length", False),
    ("value_spread", "spread of chit/card values", True),
)
#: Metrics compared with the base (value_spread has no interval: it is shown, not tested).
TESTED = ("start_adv", "gap", "tie_rate", "tiebreak_rate", "length")
#: The sweep's family: the tested metrics and the joint test of every seat's change (``p_seats``: the seat
#: changes sum to 0, so they are one finding, tested once, not seat by seat).
FAMILY = (*TESTED, "seats")


def share_matrix(frame: pd.DataFrame) -> np.ndarray:
    """The (games, seats) win-share matrix of a `per_game` frame (missing seats count 0)."""
    cols = [c for c in frame.columns if c.startswith("share_")]
    return np.nan_to_num(frame[cols].to_numpy(dtype=float), nan=0.0)


# ---- component values (chits, cards: the game's registry entry) --------------------------------------
def value_spread(spec: GameSpec, run: RunTally) -> dict[str, Any]:
    """How unequal the components are: the win added by each component the game prices
    (`GameAnalysis.component_values`, from the run's tally: one row per ``item`` with ``win_added, ci_low,
    ci_high``); ``spread`` (max minus min), the most and least valuable with their intervals: ``spread,
    max_item, max_value, max_low, max_high, min_item, min_value, min_low, min_high``. NaN (and "" items)
    for a game without component values."""
    empty = {"spread": np.nan, "max_item": "", "max_value": np.nan, "max_low": np.nan, "max_high": np.nan,
             "min_item": "", "min_value": np.nan, "min_low": np.nan, "min_high": np.nan}
    values_of = analysis_of(spec).component_values
    if values_of is None or not run.own:
        return empty
    table = values_of(run.own, run.manifest.config)
    items, low, high = table["item"], table["ci_low"], table["ci_high"]
    values = table["win_added"].to_numpy(dtype=float)
    if not np.isfinite(values).any():
        return empty
    hi, lo = int(np.nanargmax(values)), int(np.nanargmin(values))
    return {"spread": float(values[hi] - values[lo]),
            "max_item": items.iloc[hi], "max_value": float(values[hi]), "max_low": float(low.iloc[hi]),
            "max_high": float(high.iloc[hi]),
            "min_item": items.iloc[lo], "min_value": float(values[lo]), "min_low": float(low.iloc[lo]),
            "min_high": float(high.iloc[lo])}


# ---- one run ----------------------------------------------------------------------------------------------
def run_figures(spec: GameSpec, run: RunTally) -> dict[str, Any]:
    """Every metric of one run of a game (its GameSpec), flat, from the run's merged tally
    (analysis.run_tally): ``n``, seat win rates (``seat_rates``: list of (rate, low, high)), ``start_adv``
    with ``_low/_high``, ``gap`` with ``_low/_high``, ``chi2_p`` (all seats equal), ``tie_rate``,
    ``tiebreak_rate`` (share of all games the tie-break decided), ``length`` (mean game length in the
    game's unit, `Vocabulary.length`) each with ``_low/_high``, and the value spread (`value_spread`)."""
    c = run.common
    sums = common_sums(c)
    n = int(c["games"])
    units = sums["units"]
    adv = start_player_advantage(c)
    gap = seat_gap_from_sums(n, units, sums["cross"])
    ties = tie_stats(c)
    rates = units / (n * SHARE_SCALE)
    low, high = wilson_intervals(units / SHARE_SCALE, np.full(len(units), n))
    count, total, squares = (int(x) for x in sums["length"])
    length_mean, length_sd = mean_sd(count, total, squares)
    l_low, l_high = mean_interval(length_mean, length_sd, count)
    out = {"n": n, "seat_rates": [(float(r), float(a), float(b)) for r, a, b in zip(rates, low, high,
                                                                                    strict=True)],
           "start_adv": adv["value"], "start_adv_low": adv["ci_low"], "start_adv_high": adv["ci_high"],
           "gap": gap["value"], "gap_low": gap["ci_low"], "gap_high": gap["ci_high"],
           "gap_max_seat": gap["max_seat"], "gap_min_seat": gap["min_seat"],
           "chi2_p": seat_equality_test(c)["p_value"],
           "tie_rate": ties["top_tied_rate"], "tie_rate_low": ties["top_tied_ci_low"],
           "tie_rate_high": ties["top_tied_ci_high"],
           "tiebreak_rate": ties["decided_by_tiebreak_rate"],
           "tiebreak_rate_low": ties["decided_by_tiebreak_ci_low"],
           "tiebreak_rate_high": ties["decided_by_tiebreak_ci_high"],
           "length": length_mean, "length_low": float(l_low), "length_high": float(l_high)}
    spread = value_spread(spec, run)
    out["value_spread"] = spread.pop("spread")
    out["value_spread_low"] = out["value_spread_high"] = out["value_spread"]
    out.update({f"value_{k}": v for k, v in spread.items()})
    return out


def compare_runs(variant: pd.DataFrame, base: pd.DataFrame, paired: bool | None = None,
                 seed: int = 0) -> dict[str, float]:
    """Differences variant minus base of the tested metrics (`TESTED`), from two `per_game` frames, each
    as ``d_<metric>, d_<metric>_low, d_<metric>_high``, ``p_<metric>`` (two-sided: normal for the mean
    differences, from the bootstrap samples for the seat gap) and ``sig_<metric>`` (this one interval
    excludes 0; `sweep_table` judges the family of all marks with Holm); ``seat_changes``: per seat
    (change, low, high, p) of its win rate (`seat_table` judges that family with Holm).
    ``paired`` (default: when both hold the same game ids) compares game by game. Computed from the
    frames' sums (analysis.paired.compare_sums), as the report computes it chunk by chunk."""
    if paired is None:
        paired = len(variant) == len(base) and np.array_equal(variant["game_id"].to_numpy(),
                                                              base["game_id"].to_numpy())
    return compare_sums(frame_sums(variant), frame_sums(base), pair_sums(variant, base) if paired else None,
                        seed)


# ---- the sweep table --------------------------------------------------------------------------------------
def sweep_table(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Runs of a sweep (dicts of ``variant, players, agents`` plus `run_figures` and, for non-base
    variants, `compare_runs` keys) as one frame, with ``holm_<metric>`` (each difference's p-value
    Holm-adjusted over the whole family: every non-base run and test of `FAMILY` of the sweep),
    ``mark_<metric>`` (holm <= 5%) and ``differs_from_base``: the marked metrics ("" for none, "(base)"
    for the base itself).
    A variant whose ties and the base's were all decided by the tie-break (``tie_is_decided``) has its
    tie-break difference tested once, as the tie difference (the same games). The chance that a sweep marks
    any difference that is truly 0 stays <= 5%, however many variants."""
    frame = pd.DataFrame(rows)
    cells = [(i, m) for i, row in enumerate(rows) if not row.get("is_base") for m in FAMILY
             if f"p_{m}" in row and not (m == "tiebreak_rate" and row.get("tie_is_decided"))]
    adjusted = holm([rows[i][f"p_{m}"] for i, m in cells]) if cells else np.array([])
    for m in FAMILY:
        frame[f"holm_{m}"] = np.nan
        frame[f"mark_{m}"] = False
    for (i, m), q in zip(cells, adjusted, strict=True):
        frame.loc[i, f"holm_{m}"] = q
        frame.loc[i, f"mark_{m}"] = bool(q <= 0.05)
    frame["differs_from_base"] = ["(base)" if row.get("is_base") else
                                  ", ".join(m for m in FAMILY if frame.loc[i, f"mark_{m}"])
                                  for i, row in enumerate(rows)]
    return frame


def _figure_text(value: float, low: float, high: float, percent: bool, diff: float | None = None,
                 d_low: float | None = None, d_high: float | None = None, sig: bool = False) -> str:
    if percent:
        text = f"{pct(value)} {interval(low, high)}"
    else:
        text = f"{figures.figure(value, 2)} {figures.interval(low, high, 2, keep_off=())}"
    if diff is not None and np.isfinite(diff):
        scale, unit = (100, " pp") if percent else (1, "")
        shown = figures.interval(scale * d_low, scale * d_high, keep_off=(0.0,), sign=True)
        text += (f"; vs base {figures.figure(scale * diff, sign=True)}{unit} {shown}"
                 + (" *" if sig else ""))
    return text


def display_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The sweep table as the report shows it: one text cell per metric, "value [95% interval]; vs base
    difference [interval]" with * where the difference is marked (Holm over the sweep, `sweep_table`)."""
    rows = []
    for r in frame.to_dict(orient="records"):
        row = {"variant": r["variant"], "players": r["players"], "agents": r["agents"], "games": r["n"]}
        for key, label, percent in METRICS:
            if key == "value_spread":
                row["value spread (max - min win added)"] = "" if not np.isfinite(r["value_spread"]) else (
                    f"{pct(r['value_spread'])} (max {r['value_max_item']} {pct(r['value_max_value'])}, "
                    f"min {r['value_min_item']} {pct(r['value_min_value'])})")
                continue
            has = not r.get("is_base") and f"d_{key}" in r
            merged = has and key == "tiebreak_rate" and bool(r.get("tie_is_decided"))
            diff = r.get(f"d_{key}") if has and not merged else None
            row[label] = _figure_text(r[key], r[f"{key}_low"], r[f"{key}_high"], percent, diff=diff,
                                      d_low=r.get(f"d_{key}_low"), d_high=r.get(f"d_{key}_high"),
                                      sig=bool(r.get(f"mark_{key}")))
            if merged:
                row[label] += "; vs base: as top score tied (every tie decided by the tie-break)"
        row["seats equal? (chi-square p)"] = f"{r['chi2_p']:.3g}"
        row["seats changed? (joint test)"] = _seats_text(r)
        row["differs from base (Holm, 5%)"] = r["differs_from_base"]
        rows.append(row)
    return pd.DataFrame(rows)


def _seats_text(r: dict[str, Any]) -> str:
    """A variant's joint test of its seat changes: "chi-square 12.3 on 2 dof, Holm p 0.004 *"."""
    if r.get("is_base") or not np.isfinite(r.get("seat_chi2", np.nan)):
        return ""
    return (f"chi-square {r['seat_chi2']:.1f} on {int(r['seat_dof'])} dof, Holm p {r['holm_seats']:.2g}"
            + (" *" if r.get("mark_seats") else ""))


def seat_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Seat win rates of every run, long: ``variant, players, agents, seat, win_rate, ci_low, ci_high``,
    and for a variant its change from the base's seat (`compare_runs`: paired when both played the same
    games) ``change, change_ci_low, change_ci_high`` (NaN for the base): a description. The seats'
    changes sum to 0 (each game's shares sum to 1), so whether they changed is one joint test per variant
    (``p_seats``, judged with the sweep's family by `sweep_table`), not one test per seat."""
    rows = []
    for r in frame.to_dict(orient="records"):
        changes = r.get("seat_changes")
        changes = changes if isinstance(changes, list) else []
        for seat, (rate, low, high) in enumerate(r["seat_rates"]):
            change = changes[seat] if seat < len(changes) else (np.nan,) * 4
            rows.append({"variant": r["variant"], "players": r["players"], "agents": r["agents"],
                         "seat": seat, "win_rate": rate, "ci_low": low, "ci_high": high,
                         "change": change[0], "change_ci_low": change[1], "change_ci_high": change[2]})
    return pd.DataFrame(rows)


def _series(frame: pd.DataFrame, extra: list[str]) -> pd.Series:
    many_agents = frame["agents"].nunique() > 1
    parts = frame["players"].astype(str) + "p"
    if many_agents:
        parts = parts + " " + frame["agents"].astype(str)
    for col in extra:
        parts = parts + ", " + col.split(".")[-1] + "=" + frame[col].astype(str)
    return parts


def _order(values: pd.Series, choices: list[Any]) -> pd.Series:
    """Position of each value among a grid key's choices (values not among them last)."""
    texts = [json.dumps(c) if isinstance(c, list | dict) else c for c in choices]
    return values.map(lambda v: texts.index(v) if v in texts else len(texts))


def metric_charts(frame: pd.DataFrame, grid: dict[str, list[Any]], n_text: str,
                  spec: GameSpec) -> list[tuple]:
    """Charts of each metric against each swept grid key (x: the key's value in the variant's config, in
    the grid's order; one bar per player count and value of the other grid keys), and against the named
    variants; game length in the game's unit (`Vocabulary.length`)."""
    out = []
    unit = spec.vocabulary.length
    n_short = n_text.replace(" games per run", "/run")
    grid_keys = list(grid)
    grid_rows = frame[~frame["named"] | frame["is_base"]] if grid_keys else frame.iloc[0:0]
    for key in grid_keys:
        others = [k for k in grid_keys if k != key]
        part = grid_rows.assign(_pos=_order(grid_rows[f"value:{key}"], grid[key]))
        part = part.sort_values(["_pos", *(f"value:{k}" for k in others), "players"], kind="stable")
        part["x"] = part[f"value:{key}"].astype(str)
        part["series"] = _series(part.rename(columns={f"value:{k}": k for k in others}), others)
        for metric, label, percent in METRICS:
            if part[metric].isna().all():
                continue
            ylabel = f"{label} ({'%' if percent else unit})"
            name = f"sweep_{metric}_vs_{_file_part(key)}"
            fig = charts.grouped_bars(part, category="x", value=metric, low=f"{metric}_low",
                                      high=f"{metric}_high", series="series",
                                      title=f"{label} vs {key} ({n_short})", xlabel=key, ylabel=ylabel,
                                      percent=percent, reference=0.0 if metric == "start_adv" else None)
            out.append((name, f"{label} against {key}, 95% intervals ({n_text})", fig))
    named = frame[frame["named"] | frame["is_base"]]
    if frame["named"].any():
        part = named.copy()
        part["series"] = _series(part, [])
        for metric, label, percent in METRICS:
            if part[metric].isna().all():
                continue
            ylabel = f"{label} ({'%' if percent else unit})"
            fig = charts.grouped_bars(part, category="variant", value=metric, low=f"{metric}_low",
                                      high=f"{metric}_high", series="series",
                                      title=f"{label} by variant ({n_short})", xlabel="variant",
                                      ylabel=ylabel, percent=percent,
                                      reference=0.0 if metric == "start_adv" else None)
            out.append((f"sweep_{metric}_by_variant", f"{label} by named variant, 95% intervals ({n_text})",
                        fig))
    return out


def _file_part(key: str) -> str:
    return "".join(c if c.isalnum() or c in "_-" else "_" for c in key)


# ---- reading a sweep folder and writing the page -----------------------------------------------------------
def read_sweep_manifest(folder: str | os.PathLike[str]) -> dict[str, Any]:
    path = Path(folder) / "sweep.json"
    if not path.is_file():
        raise ConfigError(f"{folder}: not a sweep folder (no sweep.json)")
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as err:
        raise ConfigError(f"{path}: unreadable sweep manifest ({err})") from None


def sweep_rows(folder: str | os.PathLike[str], manifest: dict[str, Any], jobs: int = 1,
               backend: str = "loky") -> tuple[list[dict], list[RunTally], int]:
    """Figures of every run of a sweep folder, compared with the base run of the same player count and
    agents, from the runs' tallies chunk by chunk (analysis.run_tally) and, for runs that played the same
    games as their base, their pair sums chunk by chunk (analysis.paired), every chunk's cached beside its
    parts: a sweep rebuilt after some runs grew reads only their new parts. Returns (rows, runs, chunks
    read from parts)."""
    folder = Path(folder)
    bases: dict[tuple[int, str], RunTally] = {}
    rows, runs, read = [], [], 0
    variants = sorted(manifest["variants"], key=lambda v: not v["is_base"])  # the base first
    for v in variants:
        for r in v["runs"]:
            run = read_run_tally(folder / r["dir"], jobs=jobs, backend=backend)
            read += run.parts_read
            spec = run.spec
            figures = run_figures(spec, run)
            key = (r["players"], r["agents"])
            row = {"variant": v["name"], "slug": v["slug"], "named": v["named"], "is_base": v["is_base"],
                   "overrides": ", ".join(f"{k} = {json.dumps(x)}" for k, x in v["overrides"].items()),
                   "players": r["players"], "agents": r["agents"], "run": str(run.path), **figures}
            for k, value in v.get("values", {}).items():
                row[f"value:{k}"] = json.dumps(value) if isinstance(value, list | dict) else value
            if v["is_base"]:
                bases[key] = run
            elif key in bases:
                base = bases[key]
                pair = None
                if same_games(run, base):
                    pair, windows = paired_tally(run, base, spec.vocabulary.length, jobs, backend)
                    read += windows
                row.update(compare_sums(common_sums(run.common), common_sums(base.common), pair))
                if pair is not None and "differ" in pair:
                    row["games_differ"] = int(pair["differ"][0])
            rows.append(row)
            runs.append(run)
    return rows, runs, read


#: How the sweep's comparison table is judged (its page note).
COMPARISON_NOTE = (
    "Each figure has its 95% interval. A variant is compared with the base (no overrides) at the same player "
    "count and agents: the difference and its 95% interval (game by game when both played the same games; "
    "the seat gap by a paired parametric bootstrap); * marks a difference that stays significant at 5% after "
    "Holm's adjustment over every variant and metric of the sweep, so the chance of marking any difference "
    "that is truly 0 stays at most 5% however many variants there are (the family: every variant's metrics "
    "and its joint test of the seat changes; where the tie-break decided every tie of the variant and of the "
    "base, the tie-break row is the tie row, tested once). The seat gap (largest minus smallest seat win "
    "rate) is 1 minus Ludii's Balance; its interval bounds it from simultaneous intervals of every pairwise "
    "seat difference (it reaches 0 when no two seats can be told apart); ties count by the configured "
    "tie-break (shared wins as 1/k).")


def build_sweep_report(folder: str | os.PathLike[str], out: str | os.PathLike[str] | None = None,
                       jobs: int = 1, backend: str = "loky") -> Path:
    """Read a sweep folder (sweep.json and its finished runs) and write ``report/index.html`` in it (or at
    ``out``), with summary.json and the tables as CSV."""
    folder = Path(folder)
    manifest = read_sweep_manifest(folder)
    spec = spec_of(manifest["game"])  # the game sweep.json names
    rows, runs, _ = sweep_rows(folder, manifest, jobs, backend)
    frame = sweep_table(rows)
    n_text = f"n = {int(frame['n'].min()):,} to {int(frame['n'].max()):,} games per run" \
        if frame["n"].nunique() > 1 else f"n = {int(frame['n'].iloc[0]):,} games per run"
    labels = [f"{r['variant']} {r['players']}p" + (f" {r['agents']}" if frame["agents"].nunique() > 1 else "")
              for r in rows]
    head = _comparison_section(manifest, spec, frame, len(rows))
    sec = Section("Sweep: metrics against the swept parameters")
    sec.notes.append("Bars: the metric per variant, whiskers its 95% interval. The spread of chit or card "
                     "values (largest minus smallest win added) is a point estimate, without whiskers.")
    grid = manifest.get("grid") or {k: [] for k in manifest["grid_keys"]}
    sec.charts += metric_charts(frame, grid, n_text, spec)
    seats = _seats_section(frame)
    raw_cols = [c for c in frame.columns if c not in ("seat_rates", "seat_changes")]
    seats.tables.append(("sweep_figures", "Every figure as numbers (also in summary.json)",
                         declare(frame[raw_cols], figure_kinds(manifest))))
    sections = [head, sec, seats]
    summary = {"sweep": {k: manifest[k] for k in ("sweep_file", "base", "game", "players", "agents", "games",
                                                  "seed", "grid_keys")},
               "runs": frame.drop(columns=["seat_rates"], errors="ignore").assign(
                   seat_rates=[[list(x) for x in s] for s in frame["seat_rates"]],
                   seat_changes=[[list(x) for x in s] if isinstance(s, list) else None
                                 for s in frame.get("seat_changes", [None] * len(frame))]
               ).to_dict(orient="records")}
    target = Path(out) if out else folder / "report"
    return write_report(sections, runs, labels, summary, target, title="Sweep report")


#: what each metric of METRICS is: a share, or a difference of shares (seat 0 minus the fair share, the
#: largest minus the smallest seat, the most minus the least valuable component), or the game's length
_METRIC_KINDS = {"start_adv": DIFFERENCE, "gap": DIFFERENCE, "tie_rate": SHARE, "tiebreak_rate": SHARE,
                 "length": NUMBER, "value_spread": DIFFERENCE}


def figure_kinds(manifest: dict[str, Any]) -> dict[str, str]:
    """The kinds of the columns of the sweep's figures (`sweep_rows` as `sweep_table` lays them out): each
    metric with its interval, its difference from the base with its interval and test, and the run's
    labels and swept values."""
    kinds = {"variant": TEXT, "slug": TEXT, "named": TEXT, "is_base": TEXT, "overrides": TEXT,
             "players": COUNT, "agents": TEXT, "run": TEXT, "n": COUNT, "gap_max_seat": TEXT,
             "gap_min_seat": TEXT, "chi2_p": P_VALUE, "paired": TEXT, "tie_is_decided": TEXT,
             "seat_chi2": NUMBER, "seat_dof": COUNT, "p_seats": P_VALUE, "differs_from_base": TEXT,
             "games_differ": COUNT,
             "value_max_item": TEXT, "value_min_item": TEXT}
    for extreme in ("max", "min"):
        kinds |= {f"value_{extreme}_value": DIFFERENCE, f"value_{extreme}_low": DIFFERENCE_BOUND,
                  f"value_{extreme}_high": DIFFERENCE_BOUND}
    for key, kind in _METRIC_KINDS.items():
        change = NUMBER if kind == NUMBER else DIFFERENCE
        kinds |= {key: kind, f"{key}_low": kind + BOUND, f"{key}_high": kind + BOUND, f"d_{key}": change,
                  f"d_{key}_low": change + BOUND, f"d_{key}_high": change + BOUND, f"p_{key}": P_VALUE,
                  f"sig_{key}": TEST}
    for key in FAMILY:
        kinds |= {f"holm_{key}": P_VALUE, f"mark_{key}": TEST}
    kinds |= {f"value:{k}": TEXT for v in manifest["variants"] for k in v.get("values", {})}
    return kinds


def _comparison_section(manifest: dict[str, Any], spec: GameSpec, frame: pd.DataFrame,
                        runs: int) -> Section:
    """The sweep, the variants that differ from the base, the variants and the comparison table."""
    game = manifest["game"]
    unit = spec.vocabulary.length
    total = int(frame["n"].sum())
    sec = Section(f"Sweep: {manifest['sweep_file']}")
    sec.notes.append(f"Base config <b>{manifest['base']}</b> ({game}); players {manifest['players']}; "
                     f"agents {', '.join(manifest['agents'])}; {manifest['games']:,} games per run, seed "
                     f"{manifest['seed']} (every variant plays the same game seeds); "
                     f"{len(manifest['variants'])} variants, {runs} runs, {total:,} games in all.")
    if manifest.get("description"):
        sec.notes.append(manifest["description"])
    if manifest["grid_keys"]:
        sec.notes.append("Swept (grid): " + ", ".join(f"<b>{k}</b>" for k in manifest["grid_keys"]) + ".")
    sec.notes.append(COMPARISON_NOTE)
    for r in frame.to_dict(orient="records"):
        if not r.get("is_base") and r.get("games_differ") == 0:
            sec.notes.append(f"<b>{r['variant']}</b> ({r['players']}p, {r['agents']}): 0 of {int(r['n']):,} "
                             "paired games differ from the base's: no agent at this level used what the "
                             "variant changes, so its differences say nothing about the change.")
    flagged = frame[(frame["differs_from_base"] != "") & ~frame["is_base"]]
    for r in flagged.to_dict(orient="records"):
        sec.notes.append(f"<b>{r['variant']}</b> ({r['players']}p): differs from the base in "
                         f"{r['differs_from_base']}.")
    variants_table = pd.DataFrame([{"variant": v["name"], "overrides": ", ".join(
        f"{k} = {json.dumps(x)}" for k, x in v["overrides"].items()) or "(none: the base)",
        "also named": ", ".join(v["aliases"]), "config": v["config_file"]} for v in manifest["variants"]])
    sec.tables.append(("sweep_variants", "Variants (each config file is standalone: `balance simulate` "
                       "accepts it)", declare(variants_table, dict.fromkeys(variants_table.columns, TEXT))))
    shown = display_table(frame)
    sec.tables.append(("sweep_comparison", f"Every run: figures with 95% intervals, and the difference from "
                       f"the base (* significant); game length in {unit}",
                       declare(shown, {**dict.fromkeys(shown.columns, TEXT), "players": COUNT,
                                       "games": COUNT})))
    return sec


def _seats_section(frame: pd.DataFrame) -> Section:
    """Every run's seat win rates, and each variant's change from the base's."""
    sec = Section("Sweep: seat win rates of every run")
    seats = seat_table(frame)
    sec.notes.append("Each variant's seat win rate minus the base's at the same seat and player count "
                     "(change), with its 95% interval, game by game when both played the same games: a "
                     "description. The changes sum to 0 (every game's win shares sum to 1), so whether the "
                     "seats changed at all is one joint test per variant (a Wald chi-square on all seats' "
                     "changes but one, their covariance from the games), in the comparison table's 'seats "
                     "changed?' column, judged with the sweep's other differences (Holm).")
    sec.tables.append(("sweep_seat_win_rates", "Seat win rates (seat 0 = start player), Wilson 95%, and "
                       "the change from the base (paired)",
                       declare(seats, {"variant": TEXT, "players": COUNT, "agents": TEXT, "seat": TEXT,
                                       "win_rate": SHARE, "ci_low": SHARE_BOUND, "ci_high": SHARE_BOUND,
                                       "change": DIFFERENCE, "change_ci_low": DIFFERENCE_BOUND,
                                       "change_ci_high": DIFFERENCE_BOUND})))
    return sec
