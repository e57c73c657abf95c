"""Balance by skill (`balance profile`, docs/howto/skill.md): every headline figure at each skill level side
by side, each with its n and 95% interval, and a flag, with its test, on every figure that differs between
levels ("depends on how well people play").

A profile folder holds ``profile.json`` and one self-play run directory per level (every seat plays the
level), all played with the same seed: game i has the same deal at every level, so the levels differ only
in how well the players play. With ``--values`` it also holds a `balance values` run per level.

**Figures.** Each seat's win rate (Wilson 95%, shared wins 1/k, as `analysis.seats.seat_win_rates`); the
start-player advantage (seat 0 minus the fair share 1/N, Wilson shifted, as
`analysis.seats.start_player_advantage`); how often the top is tied and how often the tie-break decided
(Wilson, as `analysis.ties.tie_stats`); the tie-break effect on each seat: its win share under the
configured rule minus its share with ties shared, the same games re-scored from the logged results (mean of
per-game differences, normal interval, as the games' `rescore_ties_from`); and, with values runs, each
component's value at each position averaged over seats (as the "all" rows of
`analysis.causal_values.component_values`).

**Test.** For one figure each game g gives a value x[g, l] at each level l (a seat's win share, a tie mark,
a per-game value difference). The differences to the first level, D[g] = x[g, 2:] - x[g, 1], are
independent across games (each game is its own seed) while their dependence inside a game (one deal, every
level) is in their covariance S. "Every level has the same mean" is tested with Hotelling's paired T² =
n mean(D)' S^-1 mean(D), referred to the F distribution on K-1 and n-K+1 degrees of freedom (the classical
repeated-measures test of K means; for large n the chi-square on K-1, and for two levels the square of the
paired t of the mean per-game difference). F rather than the chi-square because the chi-square rejected
up to 16-22% of seeded null samples at 10-30 games with 3-4 levels, F about 5% for a rate of 1/3. Fewer
than `MIN_PAIRED` games played at every level are not tested. One omnibus test per figure, not one per pair of
levels, keeps the family small and asks exactly the designer's question: does this conclusion change with
the players' skill? The start-player advantage is seat 0's win rate shifted by a constant, so the two share
one test.

**Family.** Holm over every figure's test in the section (headlines and component values alike): the
chance that the section flags any figure that in truth does not depend on the level stays at about 5%
(Holm holds it at 5% whatever the dependence between the tests, as far as each test holds its level). A figure
not flagged is "not significantly different", with the smallest difference between two levels that n
would have detected: 80% power at the family's Bonferroni level (5% / m two-sided, the strictest step of
Holm), from the largest standard error of a paired difference between two levels.

Pure functions: `per_game_figures`, `tiebreak_effect`, `component_per_game` (tables -> per-game values),
`figure_catalogue`, `skill_sums` and `skill_table_from` (`estimate_from`, `paired_test_from`),
`display_table`, `skill_chart`, `format_profile`; `read_profile` and `profile_report_parts` read a profile
folder for `balance report`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy.stats import f as f_distribution

from analysis import charts, figures
from analysis._arrays import floats, ints, seat_matrix
from analysis.adaptive_stop import adaptive_labels, adaptive_note
from analysis.causal_values import is_values_run, read_values_run
from analysis.game_analysis import analysis_of
from analysis.handicaps import seats_decide
from analysis.page import (
    COUNT,
    DIFFERENCE,
    DIFFERENCE_BOUND,
    NUMBER,
    NUMBER_BOUND,
    P_VALUE,
    TEST,
    TEXT,
    Section,
    declare,
    without_fixed_size,
)
from analysis.run_tally import read_run_tally
from analysis.runs import Run, read_table, run_snapshot, spec_of
from analysis.stats import (
    DETECTABLE_Z,
    Z95,
    holm,
    mean_interval,
    wilson_intervals,
    z_value,
)
from analysis.tally import merge
from sim.core.errors import ConfigError
from storage.run_dir import read_json_object

if TYPE_CHECKING:  # the page kit and matplotlib load only when a section or chart is made
    from matplotlib.figure import Figure

    from analysis.causal_values import ValuesRun
    from analysis.page import Section
    from analysis.runs import Run
    from sim.core.game_spec import GameSpec

PROFILE_MANIFEST = "profile.json"
ALPHA = 0.05  # family-wise level of the section's flags
#: z of 80% power (DETECTABLE_Z is the 5% two-sided z plus this)
POWER_Z = DETECTABLE_Z - Z95
DEPENDS = "depends on how well people play"
NOT_DIFFERENT = "not significantly different"
#: the tie-break rule whose re-scoring is the reference of the tie-break effect (every game has it)
NEUTRAL_RULE = "shared"
LONG_COLUMNS = ["game_id", "figure", "value"]
#: fewer paired games than this are not tested. In seeded null samples (2-4 levels) `paired_test_from`
#: rejected 2.7-6.4% at 5% for a rate of 1/3 from here on, a rare event (8%) up to 9.6% at 30-50 games and
#: 5% at 400; at 10 games up to 22% with the chi-square and 6% with F
MIN_PAIRED = 20


# ---- per-game values -----------------------------------------------------------------------------------
def per_game_figures(players: pd.DataFrame, games: pd.DataFrame,
                     effect: pd.DataFrame | None = None) -> pd.DataFrame:
    """The per-game values of one level's self-play run, long: ``game_id, figure, value``.

    Figures: ``seat s`` (seat s's logged win share: the configured tie-break, shared wins 1/k), ``tie``
    (1 when the top score is shared), ``decided`` (1 when the tie-break decided the winner) and, given
    ``effect`` (`tiebreak_effect`: game_id, seat, effect), ``tie-break seat s``. Game ids are the pairing
    key between levels, which all play the same seeds."""
    p = pd.DataFrame({"game_id": ints(players["game_id"]), "figure": "seat " + players["seat"].astype(str),
                      "value": floats(players["win_share"])})
    gid = ints(games["game_id"])
    parts = [p,
             pd.DataFrame({"game_id": gid, "figure": "tie",
                           "value": games["tie"].to_numpy(dtype=float, na_value=0.0)}),
             pd.DataFrame({"game_id": gid, "figure": "decided",
                           "value": games["decided_by_tiebreak"].to_numpy(dtype=float, na_value=0.0)})]
    if effect is not None and len(effect):
        parts.append(pd.DataFrame({"game_id": effect["game_id"].to_numpy(dtype=np.int64),
                                   "figure": "tie-break seat " + effect["seat"].astype(int).astype(str),
                                   "value": effect["effect"].to_numpy(dtype=float)}))
    return pd.concat(parts, ignore_index=True)[LONG_COLUMNS]


def tiebreak_effect(players: pd.DataFrame, shares: Callable[..., np.ndarray], columns: dict[str, str],
                    rule: str, neutral: str = NEUTRAL_RULE) -> pd.DataFrame:
    """What the configured tie-break rule does to each seat, game by game: its win share under ``rule``
    minus under ``neutral`` (ties shared), both re-scored from the logged final scores (and the game's
    other re-scoring columns, ``columns``: players-table column -> the name ``shares`` takes it by), as the
    games' re-scoring (`rescore_tally`) pairs the rules. ``game_id, seat, effect``."""
    seats, m = seat_matrix(players, ["score", *columns])
    extra = {columns[c]: m[c] for c in columns}
    d = shares(m["score"], extra, rule) - shares(m["score"], extra, neutral)
    gid = np.unique(ints(players["game_id"]))
    return pd.DataFrame({"game_id": np.repeat(gid, len(seats)), "seat": np.tile(seats, len(gid)),
                         "effect": d.reshape(-1)}).dropna()


def component_per_game(table: pd.DataFrame, components: pd.DataFrame, players: int) -> pd.DataFrame:
    """A values run's per-base-game component values, long: ``game_id, position, component, value``, the
    value being the seats' mean of (the seat's win share when it holds the component) minus (its share
    when nobody does), as `analysis.causal_values.component_values` averages "all" seats; games where some
    seat's arm is missing are left out, as there. ``components``: the run's components (label per index)."""
    t = table[table["component"].to_numpy(dtype=np.int64, na_value=-1) >= 0]
    key = ["game_id", "position", "component", "seat"]
    cols = pd.DataFrame({k: t[k].to_numpy(dtype=np.int64) for k in key})
    holder = t["holder"].to_numpy(dtype=np.int64)
    power = t["with_power"].to_numpy(dtype=bool, na_value=True)
    share = t["win_share"].to_numpy(dtype=float)
    control = cols[holder < 0].assign(control=share[holder < 0])
    own = (holder == cols["seat"].to_numpy()) & power
    treated = cols[own].assign(treated=share[own])
    both = treated.merge(control, on=key, how="inner")
    both["d"] = both["treated"] - both["control"]
    per = both.groupby(["game_id", "position", "component"], sort=True)["d"].agg(["mean", "count"])
    per = per[per["count"] == players].reset_index()
    labels = components["component"].astype(str).to_numpy()
    return pd.DataFrame({"game_id": per["game_id"].to_numpy(), "position": per["position"].to_numpy(),
                         "component": labels[per["component"].to_numpy()],
                         "value": per["mean"].to_numpy(dtype=float)})


def component_figures(per_game: pd.DataFrame) -> pd.DataFrame:
    """`component_per_game` in the long form of `per_game_figures` (figure ``value|position|label``)."""
    figure = ("value|" + per_game["position"].astype(str) + "|" + per_game["component"].astype(str))
    return pd.DataFrame({"game_id": per_game["game_id"].to_numpy(), "figure": figure.to_numpy(),
                         "value": per_game["value"].to_numpy()})[LONG_COLUMNS]


# ---- the figures ---------------------------------------------------------------------------------------
def figure_catalogue(players: int, tiebreak_rule: str | None, components: list[tuple[int, str]],
                     length: str = "turns") -> pd.DataFrame:
    """The section's rows, in order: ``figure`` (label), ``data`` (the per-game figure it reads), ``test``
    (its hypothesis: the start-player advantage shares seat 0's), ``kind`` (``rate`` or ``difference``,
    how it is printed), ``interval`` (``wilson`` for a rate, ``mean`` for a mean of differences),
    ``offset`` (added to the estimate: -1/N for the advantage) and ``group`` (``headline`` or
    ``component``). ``tiebreak_rule``: the configured rule (None: no tie-break effect rows, e.g. when it is
    the neutral rule itself); ``components``: (position, label) of the values runs' components."""
    rows = [{"figure": f"seat {s} win rate", "data": f"seat {s}", "test": f"seat {s}", "kind": "rate",
             "interval": "wilson", "offset": 0.0, "group": "headline"} for s in range(players)]
    rows.append({"figure": f"start-player advantage (seat 0 minus 1/{players})", "data": "seat 0",
                 "test": "seat 0", "kind": "difference", "interval": "wilson", "offset": -1.0 / players,
                 "group": "headline"})
    rows.append({"figure": "top score tied", "data": "tie", "test": "tie", "kind": "rate",
                 "interval": "wilson", "offset": 0.0, "group": "headline"})
    rows.append({"figure": "decided by the tie-break", "data": "decided", "test": "decided", "kind": "rate",
                 "interval": "wilson", "offset": 0.0, "group": "headline"})
    if tiebreak_rule is not None:
        rows += [{"figure": f"tie-break effect on seat {s} ({tiebreak_rule} minus shared ties)",
                  "data": f"tie-break seat {s}", "test": f"tie-break seat {s}", "kind": "difference",
                  "interval": "mean", "offset": 0.0, "group": "headline"} for s in range(players)]
    for position, label in components:
        where = "at the start" if position == 0 else f"after {position} {length}"
        key = f"value|{position}|{label}"
        rows.append({"figure": f"value of {label} {where} (all seats)", "data": key, "test": key,
                     "kind": "difference", "interval": "mean", "offset": 0.0, "group": "component"})
    return pd.DataFrame(rows, columns=["figure", "data", "test", "kind", "interval", "offset", "group"])


def estimate_from(sums: Any, interval: str, offset: float = 0.0) -> dict[str, float]:
    """One level's estimate of a figure from its per-game values' (n, sum, square sum): ``value, ci_low,
    ci_high, n``. ``wilson``: the Wilson 95% interval of the summed values over n games (a rate; shares
    summed as in analysis.seats), shifted by ``offset``; ``mean``: the normal 95% interval of the mean."""
    n, total, squares = int(sums[0]), float(sums[1]), float(sums[2])
    if n == 0:
        return {"value": math.nan, "ci_low": math.nan, "ci_high": math.nan, "n": 0}
    if interval == "wilson":
        low, high = wilson_intervals(total, n)
        return {"value": total / n + offset, "ci_low": float(low) + offset, "ci_high": float(high) + offset,
                "n": n}
    mean = total / n
    sd = math.sqrt(max(squares - n * mean * mean, 0.0) / (n - 1)) if n > 1 else math.nan
    low, high = mean_interval(mean, sd, n)
    return {"value": mean + offset, "ci_low": float(low) + offset, "ci_high": float(high) + offset, "n": n}


def f_sf(x: float, d1: float, d2: float) -> float:
    """P(F >= x) for F ~ F(d1, d2) (scipy's; an infinite statistic has tail 0)."""
    if not math.isfinite(x):
        return 0.0 if x > 0 else 1.0
    return float(f_distribution.sf(x, d1, d2)) if x > 0 else 1.0


def _difference_moments(n: int, total: np.ndarray, cross: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and covariance (ddof 1) of the per-game differences to the first level, from the levels'
    sums and cross-products over the n games played at every level."""
    k = len(total)
    contrast = np.hstack([-np.ones((k - 1, 1)), np.eye(k - 1)])  # row i: level i+1 minus level 0
    mean = contrast @ total / n
    cov = (contrast @ cross @ contrast.T - n * np.outer(mean, mean)) / (n - 1)
    return mean, np.atleast_2d(cov)


def paired_test_from(n: int, total: np.ndarray, cross: np.ndarray) -> dict[str, float]:
    """Do K levels have the same mean? From the levels' sums and cross-products over the n games played at
    every level (a (games, K) matrix's, one row per game).

    Hotelling's paired T² (module docstring): T² = n d' S^+ d on the per-game differences to the first
    level (d their mean, S their covariance, q = rank(S)), referred to F = T² (n - q) / (q (n - 1)) on q
    and n - q degrees of freedom: exact for normal differences, the chi-square on q for large n, and much
    closer to 5% than the chi-square at a few dozen games. A direction with no variance but a nonzero
    mean difference (every game moved by the same amount) is a certain difference (p = 0), as
    `analysis.stats.normal_p` treats a zero standard error. ``statistic`` (T²), ``f``, ``dof`` (q),
    ``dof2`` (n - q), ``p_value``, ``n``; NaN with fewer than two levels or `MIN_PAIRED` games."""
    k = len(total)
    out = {"statistic": math.nan, "f": math.nan, "dof": max(k - 1, 0), "dof2": math.nan,
           "p_value": math.nan, "n": n}
    if k < 2 or n < max(MIN_PAIRED, 2):
        return out
    mean, cov = _difference_moments(n, np.asarray(total, dtype=float), np.asarray(cross, dtype=float))
    eigval, eigvec = np.linalg.eigh(cov)
    scale = max(float(eigval.max()), 0.0)
    keep = eigval > max(scale * 1e-10, 1e-300)
    proj = eigvec.T @ mean
    q = int(keep.sum())
    if np.any(np.abs(proj[~keep]) > 1e-12):  # a constant shift along a direction without variance
        return {**out, "statistic": math.inf, "f": math.inf, "dof": max(q, 1), "dof2": n - max(q, 1),
                "p_value": 0.0}
    if q == 0:  # every game the same at every level
        return {**out, "statistic": 0.0, "f": 0.0, "dof": 0, "dof2": n, "p_value": 1.0}
    if n <= q:
        return {**out, "dof": q}
    t2 = float(n * np.sum(proj[keep] ** 2 / eigval[keep]))
    f = t2 * (n - q) / (q * (n - 1))
    return {"statistic": t2, "f": f, "dof": q, "dof2": n - q, "p_value": f_sf(f, q, n - q), "n": n}


def _pairs_from(n: int, total: np.ndarray, cross: np.ndarray) -> tuple[tuple[float, float, float], float]:
    """Last level minus first (paired: diff, low, high) and the largest standard error of a paired
    difference between any two levels (what the smallest detectable difference is judged on), from the
    levels' sums and cross-products over the n games played at every level."""
    k = len(total)

    def paired(i: int, j: int) -> tuple[float, float, float]:  # level j minus level i
        if n < 2:
            return math.nan, math.nan, math.nan
        mean = (total[j] - total[i]) / n
        squares = cross[j, j] + cross[i, i] - 2 * cross[i, j]
        sd = math.sqrt(max(squares - n * mean * mean, 0.0) / (n - 1))
        low, high = mean_interval(mean, sd, n)
        return float(mean), float(low), float(high)

    last = paired(0, k - 1)
    worst = math.nan
    for i in range(k):
        for j in range(i + 1, k):
            _, low, high = paired(i, j)
            se = (high - low) / (2 * Z95)
            if np.isfinite(se) and not se <= worst:
                worst = se
    return last, worst


def skill_sums(per_game: dict[str, pd.DataFrame],
               have: dict[str, list[str]] | None = None) -> dict[str, dict[str, Any]]:
    """What `skill_table_from` needs of some games, per figure (``data`` key of the catalogue): each
    level's (n, sum, square sum) of its values (``own``), and, keyed by the levels compared (``have``: by
    default the levels with a value of the figure here), the number of games with a value at each of them
    and the levels' sums and cross-products over those games (``paired``). Chunks of games give sums that
    add up to the sums of all of them, given the same ``have``."""
    levels = list(per_game)
    frames = [f.assign(level=level) for level, f in per_game.items() if len(f)]
    if not frames:
        return {}
    long = pd.concat(frames, ignore_index=True)
    wide = long.pivot_table(index=["figure", "game_id"], columns="level", values="value", aggfunc="first")
    out: dict[str, dict[str, Any]] = {}
    for figure in wide.index.get_level_values(0).unique():
        data = wide.loc[figure]
        compared = (have or {}).get(figure) or [lv for lv in levels
                                                if lv in data.columns and data[lv].notna().any()]
        own = {}
        for level in levels:
            if level in data.columns:
                v = data[level].to_numpy(dtype=float)
                v = v[np.isfinite(v)]
                own[level] = np.array([len(v), v.sum(), v @ v])
        present = [lv for lv in compared if lv in data.columns]
        matrix = data[present].dropna().to_numpy(dtype=float) if len(present) == len(compared) \
            else np.empty((0, len(compared)))
        out[figure] = {"own": own, "paired": {"|".join(compared): {
            "n": len(matrix), "S": matrix.sum(axis=0), "C": matrix.T @ matrix}}}
    return out


def skill_table_from(sums: dict[str, dict[str, Any]], catalogue: pd.DataFrame,
                     levels: list[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The section's figures and tests from the levels' merged `skill_sums` (levels in the order to show
    them).

    Returns (estimates, tests). ``estimates``: one row per catalogue figure and level, ``figure, group,
    kind, level, value, ci_low, ci_high, n`` (NaN and n = 0 where the level has no such data, e.g. no
    values run). ``tests``: one row per figure, ``figure, group, kind, levels`` (the levels compared: those
    with data), ``n_paired`` (games played at all of them), ``statistic, dof, p_value`` (`paired_test_from`),
    ``p_holm`` (Holm over the section's distinct hypotheses), ``depends_on_skill`` (p_holm <= 5%),
    ``difference, difference_ci_low, difference_ci_high`` (last compared level minus first, paired),
    ``detectable`` (the smallest difference between two levels n detects: 80% power at the family's
    Bonferroni level) and ``conclusion``."""
    estimates, tests, by_test = [], [], {}
    for row in catalogue.itertuples(index=False):
        none = {"own": {}, "paired": {"": {"n": 0, "S": np.zeros(0), "C": np.zeros((0, 0))}}}
        held = sums.get(row.data, none)
        ((key, paired),) = held["paired"].items()
        have = [lv for lv in key.split("|") if lv]
        for level in levels:
            own = held["own"].get(level, (0, 0.0, 0.0)) if level in have else (0, 0.0, 0.0)
            estimates.append({"figure": row.figure, "group": row.group, "kind": row.kind, "level": level,
                              **estimate_from(own, row.interval, row.offset)})
        n, total, cross = int(paired["n"]), np.asarray(paired["S"], float), np.asarray(paired["C"], float)
        if row.test not in by_test:  # one hypothesis, however many rows read it
            by_test[row.test] = paired_test_from(n, total, cross)
        (diff, low, high), worst = _pairs_from(n, total, cross) if len(have) >= 2 \
            else ((math.nan,) * 3, math.nan)
        tests.append({"figure": row.figure, "group": row.group, "kind": row.kind, "levels": ", ".join(have),
                      "n_paired": n, "test": row.test,
                      **{k: by_test[row.test][k] for k in ("statistic", "f", "dof", "dof2", "p_value")},
                      "difference": diff, "difference_ci_low": low, "difference_ci_high": high,
                      "se_max": worst})
    tests_frame = pd.DataFrame(tests)
    keys = list(by_test)
    adjusted = dict(zip(keys, holm([by_test[k]["p_value"] for k in keys]), strict=True))
    family = int(sum(np.isfinite(by_test[k]["p_value"]) for k in keys))
    if len(tests_frame):
        tests_frame["p_holm"] = tests_frame["test"].map(adjusted).astype(float)
        tests_frame["depends_on_skill"] = np.nan_to_num(tests_frame["p_holm"].to_numpy(), nan=1.0) <= ALPHA
        z = z_value(1 - ALPHA, max(family, 1)) + POWER_Z
        tests_frame["detectable"] = z * tests_frame.pop("se_max")
        tests_frame["conclusion"] = [
            DEPENDS if flag else NOT_DIFFERENT if np.isfinite(p)
            else "not tested (measured at one level only)" if "," not in compared
            else f"not tested (fewer than {MIN_PAIRED} games played at every level)"
            for flag, p, compared in zip(tests_frame["depends_on_skill"], tests_frame["p_value"],
                                         tests_frame["levels"], strict=True)]
        tests_frame = tests_frame.drop(columns=["test"])
    tests_frame.attrs["family"] = family
    return pd.DataFrame(estimates), tests_frame


# ---- showing it ------------------------------------------------------------------------------------------
def _cell(row: Any, kind: str) -> str:
    """"31.2% [29.1%, 33.3%]" for a rate, "+3.2 pp [+1.0, +5.4]" for a difference; "—" without data."""
    if not row.n:
        return "—"
    if kind == "rate":
        low, high = figures.bounds(100 * row.ci_low, 100 * row.ci_high, keep_off=())
        return f"{figures.figure(100 * row.value)}% [{low}%, {high}%]"
    if not np.isfinite(row.ci_low):
        return f"{figures.figure(100 * row.value, sign=True)} pp"
    return (f"{figures.figure(100 * row.value, sign=True)} pp "
            f"{figures.interval(100 * row.ci_low, 100 * row.ci_high, keep_off=(0.0,), sign=True)}")


def _test_text(t: Any) -> str:
    if not np.isfinite(t.p_value):
        return ""
    if not np.isfinite(t.statistic):
        return f"every game differs by the same amount (no variance): p = 0, n = {t.n_paired:,} paired games"
    return (f"Hotelling T² {t.statistic:.1f} (F {t.f:.2f} on {int(t.dof)} and {int(t.dof2):,} dof), "
            f"p = {t.p_value:.2g}, n = {t.n_paired:,} paired games")


def display_table(estimates: pd.DataFrame, tests: pd.DataFrame) -> pd.DataFrame:
    """The section's table as the page shows it: one row per figure, one column per level ("estimate
    [95% interval]"), the n of each level, the last level minus the first (paired), the test of "all
    levels equal", its Holm-adjusted p and the conclusion (with the smallest detectable difference when
    nothing was found)."""
    levels = list(dict.fromkeys(estimates["level"]))
    rows = []
    for t in tests.itertuples(index=False):
        mine = estimates[estimates["figure"] == t.figure]
        row: dict[str, Any] = {"figure": t.figure}
        for e in mine.itertuples(index=False):
            row[e.level] = _cell(e, t.kind)
        counts = [int(n) for n in mine["n"] if n]
        row["n per level"] = (f"{counts[0]:,}" if len(set(counts)) == 1
                              else " / ".join(f"{n:,}" for n in counts))
        diff = SimpleNamespace(value=t.difference, ci_low=t.difference_ci_low, ci_high=t.difference_ci_high,
                               n=t.n_paired)
        row["last minus first (paired)"] = _cell(diff, "difference") if np.isfinite(t.difference) else ""
        row["test: all levels equal"] = _test_text(t)
        row["Holm p"] = f"{t.p_holm:.2g}" if np.isfinite(t.p_holm) else ""
        conclusion = t.conclusion
        if conclusion == NOT_DIFFERENT and np.isfinite(t.detectable):
            conclusion += f" (would detect a difference of {100 * t.detectable:.1f} pp between two levels)"
        row["conclusion"] = conclusion
        rows.append(row)
    return pd.DataFrame(rows, columns=["figure", *levels, "n per level", "last minus first (paired)",
                                       "test: all levels equal", "Holm p", "conclusion"])


def seat_frame(estimates: pd.DataFrame) -> pd.DataFrame:
    """The seat win-rate rows of `skill_table_from`'s estimates as ``seat, level, win_rate, ci_low,
    ci_high``."""
    seats = estimates[estimates["figure"].str.fullmatch(r"seat \d+ win rate") & (estimates["n"] > 0)]
    return pd.DataFrame({"seat": seats["figure"].str.extract(r"seat (\d+)")[0].astype(int).to_numpy(),
                         "level": seats["level"].to_numpy(), "win_rate": seats["value"].to_numpy(),
                         "ci_low": seats["ci_low"].to_numpy(), "ci_high": seats["ci_high"].to_numpy()})


def skill_chart(estimates: pd.DataFrame, title: str, players: int) -> Figure:
    """Win rate of each seat at each level with its 95% interval, and the fair share 1/N."""
    return charts.grouped_bars(seat_frame(estimates), "seat", "win_rate", "ci_low", "ci_high", series="level",
                               title=title, xlabel="seat (0 = first to play)", ylabel="win rate (%)",
                               reference=1 / players, reference_label="fair share")


def format_profile(profile: Profile) -> str:
    """The headline rows as text (what `balance profile` prints): each figure per level, the verdict."""
    m = profile.manifest
    est, tests = profile.estimates, profile.tests
    lines = [f"{m['game']}, {m['players']} players, {m['config']}, seed {m['seed']}: balance by skill "
             f"(levels {', '.join(profile.levels)}; Holm over {tests.attrs.get('family', 0)} tests)"]
    shown = tests[tests["group"] == "headline"]
    width = max((len(f) for f in shown["figure"]), default=10)
    for t in shown.itertuples(index=False):
        mine = est[est["figure"] == t.figure]
        cells = "  ".join(f"{e.level} {_cell(e, t.kind)}" for e in mine.itertuples(index=False))
        mark = f"  * {DEPENDS} (Holm p = {t.p_holm:.2g})" if t.depends_on_skill else ""
        lines.append(f"  {t.figure:<{width}}  {cells}{mark}")
    flagged = tests[tests["group"] == "component"]
    if len(flagged):
        lines.append(f"  component values: {int(flagged['depends_on_skill'].sum())} of {len(flagged)} "
                     f"flagged ({DEPENDS}); the table is in the report")
    return "\n".join(lines)


# ---- reading a profile folder --------------------------------------------------------------------------
def is_profile(path: str | os.PathLike[str]) -> bool:
    return (Path(path) / PROFILE_MANIFEST).is_file()


def read_profile_manifest(folder: str | os.PathLike[str]) -> dict[str, Any]:
    return read_json_object(Path(folder) / PROFILE_MANIFEST, "profile manifest", ("levels",))


@dataclass
class Profile:
    """A profile folder read: its manifest, the levels' runs (with finished games), their values runs,
    the section's figures (`skill_table_from`) and the game's spec (looked up from the manifest)."""

    folder: Path
    manifest: dict[str, Any]
    runs: dict[str, Run]
    values: dict[str, ValuesRun]
    estimates: pd.DataFrame
    tests: pd.DataFrame
    spec: GameSpec

    @property
    def levels(self) -> list[str]:
        return list(self.runs)


def run_per_game(run: Run) -> tuple[pd.DataFrame, str | None]:
    """One level's per-game figures (`per_game_figures`, with the tie-break effect when the game can
    re-score and its configured rule is not the neutral one) and that rule (None without the effect)."""
    spec = run.spec
    study = spec.values
    rule = run.rules.tie_break
    effect = None
    shares = analysis_of(spec).win_shares
    if study is not None and shares is not None and rule != NEUTRAL_RULE \
            and NEUTRAL_RULE in spec.tie_breaks and seats_decide(run.rules):
        effect = tiebreak_effect(run.players, shares, study.columns_in(run.players.columns), rule)
    return per_game_figures(run.players, run.games, effect), (rule if effect is not None else None)


#: games of every level read at once by `read_profile` (its memory holds this many games per level)
PROFILE_WINDOW = 20_000


def read_profile(folder: str | os.PathLike[str]) -> Profile:
    """A profile folder, from its run directories' logs. Levels whose run has no finished game yet are
    left out; a profile with none is refused (ConfigError).

    The levels' games are paired by game id, so they are read together a window of `PROFILE_WINDOW`
    games at a time: each window's `skill_sums` (every level compared on every headline figure), merged,
    give the figures of all the games; memory holds one window of every level. The values runs (a few
    hundred base games each) are read whole."""
    folder = Path(folder)
    manifest = read_profile_manifest(folder)
    runs: dict[str, Any] = {}
    values: dict[str, ValuesRun] = {}
    for level in manifest["levels"]:
        run_dir = folder / level["run_dir"]
        if (run_dir / "manifest.json").is_file() and run_snapshot(run_dir).ranges:
            runs[level["name"]] = read_run_tally(run_dir)
        values_dir = level.get("values_dir")
        if values_dir and is_values_run(folder / values_dir) \
                and (folder / values_dir / "values.parquet").is_dir():
            try:
                values[level["name"]] = read_values_run(folder / values_dir)
            except ConfigError:  # no finished base game yet: that level has no component values
                pass
    if not runs:
        raise ConfigError(f"{folder}: the profile has no finished games yet")
    players = int(manifest["players"])
    spec = spec_of(manifest["game"])
    length = spec.vocabulary.length
    compared = list(runs)
    top = max(b for run in runs.values() for _, b in run.ranges)
    sums: dict[str, Any] = {}
    rules = set()
    for a in range(0, top, PROFILE_WINDOW):
        window = (a, a + PROFILE_WINDOW)
        frames = {}
        for name, run in runs.items():
            g = read_table(run.path, "games", run.ranges, games=window)
            if g.empty:
                frames[name] = pd.DataFrame(columns=LONG_COLUMNS)
                continue
            part = Run(run.path, run.manifest, g, read_table(run.path, "players", run.ranges, games=window),
                       pd.DataFrame(), spec=run.spec)
            frames[name], rule = run_per_game(part)
            rules.add(rule)
        figures = {f for frame in frames.values() for f in frame["figure"].unique()}
        sums = merge(sums, skill_sums(frames, have={f: compared for f in figures}))
    components = []
    per_level = {}
    for name, v in values.items():
        comp = component_per_game(v.table, v.components, v.players)
        per_level[name] = component_figures(comp)
        for pos, label in comp[["position", "component"]].drop_duplicates().itertuples(index=False):
            if (int(pos), str(label)) not in components:
                components.append((int(pos), str(label)))
    if per_level:
        sums.update(skill_sums({name: per_level.get(name, pd.DataFrame(columns=LONG_COLUMNS))
                                for name in runs if name in per_level}))
    rule = rules.pop() if len(rules) == 1 else None  # the levels share the config, so its rule
    components.sort(key=lambda c: c[0])  # by position (stable: the run's component order within one)
    catalogue = figure_catalogue(players, rule, components, length)
    estimates, tests = skill_table_from(sums, catalogue, compared)
    return Profile(folder, manifest, runs=runs, values=values, estimates=estimates, tests=tests, spec=spec)


def _tables(name: str, est: pd.DataFrame, tests: pd.DataFrame) -> list[tuple[str, str, pd.DataFrame]]:
    """The section's tables with their columns' kinds: the figures as the page shows them, the same as
    numbers, and the tests."""
    table = display_table(est, tests)
    numbers = est.rename(columns={"value": "estimate (share)"}).drop(columns=["kind"])
    shown = tests.rename(columns={"difference": "last_minus_first_share", "difference_ci_low": "ci_low",
                                  "difference_ci_high": "ci_high", "detectable": "detectable_share",
                                  "statistic": "hotelling_t2", "f": "f_statistic"}).drop(columns=["kind"])
    return [(name, "Balance by skill: every headline figure per level (95% intervals), the test of 'all "
                   "levels equal' (Holm over the section)",
             declare(table, dict.fromkeys(table.columns, TEXT))),  # every cell written as text
            (f"{name}_estimates", "The same figures as numbers, one row per figure and level (a rate or a "
                                  "difference of rates, as a fraction of one: 0.25 is 25%, 0.01 is 1 pp)",
             declare(numbers, {"figure": TEXT, "group": TEXT, "level": TEXT, "estimate (share)": NUMBER,
                               "ci_low": NUMBER_BOUND, "ci_high": NUMBER_BOUND, "n": COUNT})),
            (f"{name}_tests", "Tests of 'all levels equal', one row per figure (Holm over the section)",
             declare(shown, {"figure": TEXT, "group": TEXT, "levels": TEXT, "n_paired": COUNT,
                             "hotelling_t2": NUMBER, "f_statistic": NUMBER, "dof": NUMBER, "dof2": NUMBER,
                             "p_value": P_VALUE, "last_minus_first_share": DIFFERENCE,
                             "ci_low": DIFFERENCE_BOUND, "ci_high": DIFFERENCE_BOUND, "p_holm": P_VALUE,
                             "depends_on_skill": TEST, "detectable_share": DIFFERENCE, "conclusion": TEXT}))]


def _tested_parts(sec: Any, name: str, profile: Profile, n_text: str) -> None:
    """The section's findings: how they are tested, what depends on skill, the chart and the tables."""
    est, tests, players = profile.estimates, profile.tests, int(profile.manifest["players"])
    title = profile.spec.vocabulary.title
    family = tests.attrs.get("family", 0)
    sec.notes.append(
        "Each cell is the figure at that level with its 95% interval (rates: Wilson; differences: normal on "
        "the per-game values). Test of every row: do all levels agree? The games are paired by their seed, "
        "and the per-game differences between levels are tested together (Hotelling's paired T², referred "
        "to F on levels - 1 degrees of freedom; for two levels the paired t of the mean difference), so the "
        f"luck of the deal drops out of the comparison; rows with fewer than {MIN_PAIRED} games played at "
        "every level are not tested. The start-player advantage is seat 0's win rate minus a constant and "
        f"shares its test. Holm's adjustment runs over the {family} tests of this section: the chance that "
        f"any figure is flagged <b>{DEPENDS}</b> when in truth it is not stays at most 5%. A "
        "figure not flagged is <i>not significantly different</i>, with the smallest difference between "
        "two levels its n would have detected (80% power at the family's Bonferroni level).")
    flagged = tests[tests["depends_on_skill"]]
    sec.notes.append(f"<b>{DEPENDS}</b>: " + (", ".join(flagged["figure"]) if len(flagged) else "none")
                     + f" ({len(flagged)} of {len(tests)} figures).")
    if not profile.values:
        sec.notes.append("No component values: run the profile with <code>--values</code> for what each "
                         "component is worth at each level.")
    sec.charts.append((f"{name}_seat_win_rates",
                       f"Win rate by seat at each level with 95% intervals ({n_text}); dashed: fair share",
                       skill_chart(est, f"{title} {players}p: win rate by seat and skill level ({n_text})",
                                   players)))
    sec.tables += _tables(name, est, tests)


def _adaptive_parts(sec: Any, name: str, profile: Profile, n_text: str, stopped: set[str]) -> None:
    """The section's findings when levels were played until their verdicts were decided: the figures
    without fixed-size intervals or tests (the tests of "all levels equal" would overstate too), and
    where the valid answer stands: the verdicts' "stable at the top", confidence sequences."""
    est, players = profile.estimates, int(profile.manifest["players"])
    title = profile.spec.vocabulary.title
    sec.notes.append(adaptive_note(stopped) + " Whether the answers change with skill: the verdicts' "
                     "<i>stable at the top</i> above, which compares the two top levels with confidence "
                     "sequences.")
    points = est.assign(ci_low=est["value"], ci_high=est["value"])  # bars without whiskers
    sec.charts.append((f"{name}_seat_win_rates", f"Win rate by seat at each level ({n_text}); no intervals: "
                       "the levels stopped when their verdicts were decided; dashed: fair share",
                       skill_chart(points, f"{title} {players}p: win rate by seat and skill level ({n_text})",
                                   players)))
    sec.tables += [(table, caption, without_fixed_size(frame, stopped, every_run=True))
                   for table, caption, frame in _tables(name, est, profile.tests)
                   if table == f"{name}_estimates"]


def profile_report_parts(folder: str | os.PathLike[str],
                         name: str = "skill") -> tuple[Section, list[Run], list[str], dict[str, Any]]:
    """A profile folder's section "Balance by skill" for `balance report`: (Section, runs, labels,
    summary record)."""
    profile = read_profile(folder)
    m, est, tests = profile.manifest, profile.estimates, profile.tests
    players = int(m["players"])
    title = profile.spec.vocabulary.title
    counts = [r.n_games for r in profile.runs.values()]
    n_text = (f"n = {counts[0]:,} games per level" if len(set(counts)) == 1
              else f"n = {min(counts):,} to {max(counts):,} games per level")
    sec = Section(f"Balance by skill: {title}, {players} players ({profile.folder.name})", question="skill",
                  anchor=f"{name}")
    missing = [lv["name"] for lv in m["levels"] if lv["name"] not in profile.runs]
    sec.notes.append(
        f"Config <b>{m['config']}</b>; self-play at each level ({', '.join(profile.levels)}): every seat "
        f"plays the level; seed {m['seed']} at every level, so game i has the same deal at every level and "
        f"the levels differ only in how well the players play; {n_text}."
        + (f" Not played yet: {', '.join(missing)}." if missing else ""))
    stopped = adaptive_labels(profile.runs)
    if stopped:
        _adaptive_parts(sec, name, profile, n_text, stopped)
    else:
        _tested_parts(sec, name, profile, n_text)
    family = tests.attrs.get("family", 0)
    record = {"folder": str(profile.folder), "game": m["game"], "players": players, "config": m["config"],
              "seed": m["seed"], "levels": profile.levels, "family_tests": family, "alpha": ALPHA,
              "figures": est.to_dict(orient="records"), "tests": tests.to_dict(orient="records")}
    labels = [f"{profile.folder.name}/{lv['slug']}" for lv in m["levels"] if lv["name"] in profile.runs]
    return sec, list(profile.runs.values()), labels, record
