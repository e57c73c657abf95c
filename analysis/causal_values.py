"""Causal component values from a `balance values` run (docs/howto/values.md): what holding a component
changes, paired.

For each (position, component) and seat j the run holds, per base game g, the win share of j when j holds
the component (treatment) and when nobody does (control), played on from the same state with the same
generator. The value of the component for seat j is the mean over games of the paired difference
d[g, j] = treatment - control; for "all" seats, the mean over games of d[g, :] averaged over the seats.
Base games are independent, so the normal interval of a mean of per-game differences is valid whatever
the dependence between the arms and seats of one game (the per-game difference is the cluster). A row of
fewer than MIN_BASE_GAMES base games is not tested (no interval, no p-value: a normal interval of 4 games
is no 95% interval), and an interval never leaves [-1, 1], where a difference of win shares lies. A
position after the start holds only the games where the component is still in play then: its values are
conditional on that, with their own n.

**Point equivalents.** Scores are whole numbers, so a seat's re-scored win share moves only at whole-point
bonuses. The control games are re-scored with a whole bonus b added to seat j's final score (the game's
own tie-break, `ValuesStudy.shares`); g_j(b), the mean gain in j's win share, rises with b, and the point
equivalent is the smallest whole bonus with g_j(b) >= value (for a loss, the smallest whole penalty with
g_j(-b) <= value), with the gain it gives. Its interval is a percentile bootstrap over base games (value
and g resampled together, 400 draws, seeded; whole bounds): no new games.
**Powers** are priced the same way: the arms that hold the chit with its power removed give the value of
the same points without the power; the power is worth the difference, in win share and in points.
**Seat handicaps** (any run's games, analysis.handicaps): the whole bonus (or penalty) to seat j alone
that brings its win share closest to 1/N, with the share it gives.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from analysis.figures import bounds as bounds_of
from analysis.figures import figure, whole_interval
from analysis.game_analysis import analysis_of
from analysis.handicaps import BONUS_RANGE, BONUSES, seats_decide, whole_bonus
from analysis.runs import checked_manifest, read_table, spec_of
from analysis.stats import detectable_z, holm, mean_interval, normal_p
from sim.core.errors import ConfigError
from sim.core.game_spec import GameSpec
from sim.core.log_tables import ARMS_COLUMNS
from storage.run_dir import RunDirectory, manifest_study
from storage.run_record import RunManifest

BOOTSTRAP_DRAWS = 400
#: A row of fewer base games is not tested: no interval, no p-value, never significant ("too few games").
#: At 4 games a normal interval called +50 pp [+17.3, +82.7] from per-game differences [0, .667, .667,
#: .667] significant (an exact sign-flip test cannot go below p = 0.125 there) and printed per-seat
#: intervals outside [-1, 1].
MIN_BASE_GAMES = 30
ALPHA = 0.05  # the family-wise level of each table's significance (Holm)


@dataclass
class ValuesRun:
    """A `balance values` run: its manifest, the values table, the components priced and its game's
    spec (looked up from the manifest by `read_values_run`)."""

    path: Path
    manifest: RunManifest
    table: pd.DataFrame
    components: pd.DataFrame
    spec: GameSpec

    @property
    def game(self) -> str:
        return self.manifest.game

    @property
    def players(self) -> int:
        return self.manifest.players

    @property
    def study(self):
        return self.spec.values

    @cached_property
    def arms(self) -> dict:
        """Every (position, component)'s arms (module function `arms`), computed once."""
        return arms(self)

    @cached_property
    def priced(self) -> dict[tuple[int, int], Priced]:
        """Every figure that reads a (position, component)'s re-scoring curves (`_price`): its rows of
        `component_values`, its row of `power_values` and the curve `analysis.worth_verdicts` prices it
        on. The curves are computed once per (position, component), for all three, and not kept: a run of
        many base games and components would hold them all."""
        return {key: _price(self, key, a) for key, a in sorted(self.arms.items())}

    @property
    def rules(self):
        return self.spec.rules(self.manifest.config, self.players, str(self.path / "manifest.json"))

    @property
    def tie_break(self) -> str:
        return self.rules.tie_break

    @property
    def shares(self) -> Callable | None:
        """The game's re-scoring of win shares from the seats' scores (points equivalents), or None when
        it has none or the seats' scores do not decide this run (`seats_decide`)."""
        return analysis_of(self.spec).win_shares if seats_decide(self.rules) else None


def is_values_run(path: str | os.PathLike[str]) -> bool:
    """Whether `path` holds a `balance values` run (a manifest that cannot be read is no values run: its
    reader as a self-play run refuses it, naming the file)."""
    return manifest_study(path) == "values"


def read_values_run(path: str | os.PathLike[str], allow_partial: bool = False) -> ValuesRun:
    """A values run directory (ConfigError when it is none, holds no finished base game, or has damaged
    parts and not `allow_partial`: storage/run_parts.py)."""
    path = Path(path)
    if not is_values_run(path):
        raise ConfigError(f"{path}: not a `balance values` run directory (manifest.json with study = values)")
    manifest = checked_manifest(path)
    if manifest.components is None:
        raise ConfigError(f"{path / 'manifest.json'}: components: missing (a values run's manifest has them)")
    if not (path / "values.parquet").is_dir():
        raise ConfigError(f"{path}: the values run holds no finished base game yet")
    table = read_table(path, "values", RunDirectory(path, ("values",)).intact(allow_partial))
    if table.empty:
        raise ConfigError(f"{path}: the values run holds no finished base game yet")
    components = pd.DataFrame(list(manifest.components))
    return ValuesRun(path, manifest, table, components, spec_of(manifest.game))


@dataclass
class Priced:
    """What one (position, component)'s re-scoring curves give (`ValuesRun.priced`): its rows of
    `component_values` (seat "all" first) and its row of `power_values` (None when no arm held it without
    its power), both before their table is judged as a family; and ``curve``, the seat-averaged mean gain
    in win share at each whole bonus over the control games (None for a run without re-scoring)."""

    values: list[dict[str, Any]]
    power: dict[str, Any] | None
    curve: np.ndarray | None


# ---- the arms as arrays --------------------------------------------------------------------------------
@dataclass
class Arms:
    """One (position, component)'s games as arrays over base games g: control[g, seat] and
    treated[g, holder, seat] win shares (NaN where not played), the control's scores and game-specific
    columns (for re-scoring), and stripped[g, holder, seat]: the holder kept the points, not the power."""

    control: np.ndarray
    treated: np.ndarray
    stripped: np.ndarray
    control_score: np.ndarray
    control_columns: dict[str, np.ndarray]


def _extra_columns(table: pd.DataFrame) -> list[str]:
    return [c for c in table.columns if c not in ARMS_COLUMNS]


def arms(run: ValuesRun) -> dict[tuple[int, int], Arms]:
    """Every (position, component) of the run as Arms, over the same base games (their union)."""
    t = run.table
    t = t[t["component"].to_numpy() >= 0]
    players = run.players
    games, g = np.unique(t["game_id"].to_numpy(), return_inverse=True)
    position = t["position"].to_numpy().astype(np.int64)
    component = t["component"].to_numpy().astype(np.int64)
    holder = t["holder"].to_numpy().astype(np.int64)
    seat = t["seat"].to_numpy().astype(np.int64)
    power = t["with_power"].to_numpy().astype(bool)
    arm = np.where(holder < 0, 0, np.where(power, 1 + holder, 1 + players + holder))
    positions, p = np.unique(position, return_inverse=True)
    n_comp = len(run.components)
    shape = (len(games), len(positions), n_comp, 1 + 2 * players, players)
    share = np.full(shape, np.nan)
    share[g, p, component, arm, seat] = t["win_share"].to_numpy(dtype=float)
    control_rows = arm == 0
    score = np.full(shape[:3] + (players,), np.nan)
    score[g[control_rows], p[control_rows], component[control_rows], seat[control_rows]] = (
        t["score"].to_numpy(dtype=float)[control_rows])
    extra = {}
    for name in _extra_columns(t):
        m = np.full(shape[:3] + (players,), np.nan)
        m[g[control_rows], p[control_rows], component[control_rows], seat[control_rows]] = (
            t[name].to_numpy(dtype=float)[control_rows])
        extra[name] = m
    out = {}
    for pi, pos in enumerate(positions):
        for k in range(n_comp):
            control = share[:, pi, k, 0]
            played = ~np.isnan(control).any(axis=1)
            if not played.any():
                continue
            out[(int(pos), k)] = Arms(control[played], share[played, pi, k, 1:1 + players],
                                      share[played, pi, k, 1 + players:], score[played, pi, k],
                                      {n: m[played, pi, k] for n, m in extra.items()})
    return out


def _own(matrix: np.ndarray) -> np.ndarray:
    """matrix[g, holder, seat] -> [g, j]: seat j's share when j is the holder."""
    j = np.arange(matrix.shape[1])
    return matrix[:, j, j]


# ---- re-scoring with a bonus ---------------------------------------------------------------------------
def bonus_gains(score: np.ndarray, columns: dict[str, np.ndarray], shares: Callable, rule: str,
                bonuses: np.ndarray) -> np.ndarray:
    """gain[g, j, b]: seat j's win share in game g with bonuses[b] added to its score, minus its share
    with none (the game's tie-break `rule`)."""
    games, players = score.shape
    base = shares(score, columns, rule)
    gains = np.empty((games, players, len(bonuses)))
    for j in range(players):
        stacked = np.repeat(score[None], len(bonuses), axis=0)  # (b, g, seats)
        stacked[:, :, j] += bonuses[:, None]
        cols = {n: np.broadcast_to(m, stacked.shape).reshape(-1, players) for n, m in columns.items()}
        won = shares(stacked.reshape(-1, players), cols, rule).reshape(len(bonuses), games, players)
        gains[:, j, :] = (won[:, :, j] - base[None, :, j]).T
    return gains


def invert(curve: np.ndarray, target: np.ndarray, bonuses: np.ndarray) -> np.ndarray:
    """For each row r, `whole_bonus` of curve[r] (gains over `bonuses`, symmetric about 0, curve 0 at 0) and
    target[r]: a gain is met by the smallest whole bonus that brings it, a loss by the smallest whole
    penalty, and 0 by 0. +-inf when the target lies outside the curve's range."""
    curve = np.atleast_2d(curve)
    target = np.broadcast_to(np.asarray(target, dtype=float), curve.shape[:1])
    return np.array([whole_bonus(curve[r], target[r], bonuses) for r in range(len(target))])


def _bootstrap_weights(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.multinomial(n, np.full(n, 1.0 / n), size=BOOTSTRAP_DRAWS).astype(float) / n


def _mean_row(diff: np.ndarray) -> dict:
    """value, ci_low, ci_high, n, se, p_value and ``tested`` of per-game differences of win shares: the
    normal interval (within [-1, 1], where such a difference lies) and p-value from MIN_BASE_GAMES games on,
    NaN below (not tested). ``detectable`` is set by the table's family (`_judge`)."""
    n = int(np.sum(~np.isnan(diff)))
    mean = float(np.nanmean(diff)) if n else float("nan")
    if n < MIN_BASE_GAMES:
        return {"value": mean, "ci_low": np.nan, "ci_high": np.nan, "n": n, "se": np.nan,
                "p_value": np.nan, "tested": False}
    sd = float(np.nanstd(diff, ddof=1))
    low, high = mean_interval(mean, sd, n)
    se = sd / np.sqrt(n)
    low, high = np.clip([low, high], -1.0, 1.0)
    return {"value": mean, "ci_low": float(low), "ci_high": float(high), "n": n, "se": se,
            "p_value": normal_p(mean, se), "tested": True}


def _judge(out: pd.DataFrame, mask: np.ndarray | None = None) -> None:
    """Judge the rows of `out` (those of `mask`) as one family, in place: ``p_holm`` (Holm over its tested
    rows), ``significant`` (p_holm <= ALPHA), ``family`` (m, the rows tested) and ``detectable``: the
    smallest true value detected with 80% power at the family's Bonferroni level ALPHA / m two-sided
    (Holm's first step), so 'detectable' is at the level significance is judged at."""
    mask = np.ones(len(out), dtype=bool) if mask is None else np.asarray(mask, dtype=bool)
    p = out.loc[mask, "p_value"].to_numpy(dtype=float)
    family = int(np.isfinite(p).sum())
    out.loc[mask, "p_holm"] = holm(p)
    out.loc[mask, "family"] = family
    out.loc[mask, "detectable"] = detectable_z(family, ALPHA) * out.loc[mask, "se"].to_numpy(dtype=float)
    out["significant"] = np.nan_to_num(out["p_holm"].to_numpy(dtype=float), nan=1.0) <= ALPHA


def _percentiles(drawn: np.ndarray) -> tuple[float, float]:
    """The bootstrap's 2.5 and 97.5 percentiles of whole bonuses, as whole bonuses (the draws at or just
    outside them); NaN when more than 5% of draws fell off the bonus range (the figure is then not
    estimable from these games)."""
    finite = drawn[np.isfinite(drawn)]
    if finite.size < 0.95 * drawn.size or not finite.size:
        return float("nan"), float("nan")
    return (float(np.percentile(finite, 2.5, method="lower")),
            float(np.percentile(finite, 97.5, method="higher")))


def _equivalent(diff: np.ndarray, gains: np.ndarray, weights: np.ndarray, bonuses: np.ndarray) -> dict:
    """Point equivalent of mean(diff) on the curve mean(gains) (games x bonuses): the smallest whole bonus
    (or penalty) whose gain reaches it, the gain that bonus gives (``pe_gain``), and from MIN_BASE_GAMES
    games on a bootstrap percentile interval over the games (weights: draws x games; whole bounds)."""
    curve = gains.mean(axis=0)
    value = invert(curve, np.array([diff.mean()]), bonuses)[0]
    gain = float(curve[int(value) + BONUS_RANGE]) if np.isfinite(value) else float("nan")
    low = high = float("nan")
    if len(diff) >= MIN_BASE_GAMES:
        low, high = _percentiles(invert(weights @ gains, weights @ diff, bonuses))
    return {"points_equivalent": float(value), "pe_gain": gain, "pe_ci_low": low, "pe_ci_high": high}


def _price(run: ValuesRun, key: tuple[int, int], a: Arms) -> Priced:
    """One (position, component)'s figures that read its re-scoring curves, from one `bonus_gains` of its
    control games (under the run's tie-break; none when the run has no re-scoring, `ValuesRun.shares`)."""
    shares = run.shares
    gains = None if shares is None else bonus_gains(a.control_score, a.control_columns, shares, run.tie_break,
                                                    BONUSES)
    return Priced(values=_value_rows(run, key, a, gains), power=_power_row(run, key, a, gains),
                  curve=None if gains is None else gains.mean(axis=1).mean(axis=0))


def _value_rows(run: ValuesRun, key: tuple[int, int], a: Arms, gains: np.ndarray | None) -> list[dict]:
    """`component_values`' rows of one (position, component), seat "all" first, before judging."""
    position, k = key
    d = _own(a.treated) - a.control  # (g, j)
    weights = _bootstrap_weights(len(d), seed=1000 * position + k)
    label = run.components.loc[k, "component"]
    per_seat = [("all", d.mean(axis=1), None if gains is None else gains.mean(axis=1))]
    per_seat += [(j, d[:, j], None if gains is None else gains[:, j]) for j in range(run.players)]
    rows = []
    for seat, diff, g in per_seat:
        row = {"component": label, "component_index": k, "position": position, "seat": seat,
               **_mean_row(diff)}
        row.update(_equivalent(diff, g, weights, BONUSES) if g is not None else
                   {"points_equivalent": np.nan, "pe_gain": np.nan, "pe_ci_low": np.nan,
                    "pe_ci_high": np.nan})
        rows.append(row)
    return rows


def component_values(run: ValuesRun) -> pd.DataFrame:
    """One row per (component, position, seat) with seat "all" first: ``component, position, seat, value,
    ci_low, ci_high, n, se, p_value, tested, detectable, points_equivalent, pe_gain, pe_ci_low, pe_ci_high,
    p_holm, family, significant`` plus the component's attributes. Holm runs over the tested "all" rows of
    the run (one family) and, separately, over the tested per-seat rows (`_judge`). Rows after the start
    hold the games where the component is still in play then (their n)."""
    out = pd.DataFrame([row for priced in run.priced.values() for row in priced.values])
    if out.empty:
        return out
    is_all = (out["seat"].astype(str) == "all").to_numpy()
    for mask in (is_all, ~is_all):
        _judge(out, mask)
    attrs = (run.components.drop(columns=["component"]).reset_index()
             .rename(columns={"index": "component_index"}))
    return out.merge(attrs, on="component_index", how="left")


def _power_row(run: ValuesRun, key: tuple[int, int], a: Arms, gains: np.ndarray | None) -> dict | None:
    """`power_values`' row of one (position, component), before judging; None when no arm held it without
    its power."""
    position, k = key
    stripped = _own(a.stripped)  # (g, j): played for one seat a game (the game's values kernel)
    played = ~np.isnan(stripped)
    keep = played.any(axis=1)
    if not keep.any():
        return None
    seat = played[keep].argmax(axis=1)
    rows_k = np.flatnonzero(keep)
    held = (_own(a.treated) - a.control)[rows_k, seat]
    bare = (stripped - a.control)[rows_k, seat]
    row = {"component": run.components.loc[k, "component"], "component_index": k, "position": position,
           **_mean_row(held - bare)}
    row["power_value"] = row.pop("value")
    if gains is not None:
        mine = gains[keep][np.arange(len(seat)), seat]  # the holder's own curve in each game
        curve = mine.mean(axis=0)
        weights = _bootstrap_weights(len(held), seed=7 + k)
        points = invert(np.stack([curve, curve]), np.array([held.mean(), bare.mean()]), BONUSES)
        low = high = float("nan")
        with np.errstate(invalid="ignore"):  # both beyond the curve's range (inf - inf): no figure, NaN
            if row["tested"]:
                drawn_curve = weights @ mine
                drawn = (invert(drawn_curve, weights @ held, BONUSES)
                         - invert(drawn_curve, weights @ bare, BONUSES))
                low, high = _percentiles(np.where(np.isnan(drawn), np.inf, drawn))
            row.update(power_points=float(points[0] - points[1]), pp_ci_low=low, pp_ci_high=high)
    return row


def power_values(run: ValuesRun) -> pd.DataFrame:
    """What each power is worth at the first position: the component's value minus that of the same chit
    held without its power, for the seat that holds it powerless in each game (the values kernel rotates it,
    base game id modulo the players, so over the games the mean is the seat average), in win share and in
    points (the difference of the two whole point equivalents on that seat's re-scoring curve, bootstrap
    interval from MIN_BASE_GAMES games on). One row per component with a power: ``component, position,
    power_value, ci_low, ci_high, n, tested, power_points, pp_ci_low, pp_ci_high, p_holm, family,
    detectable, significant``."""
    out = pd.DataFrame([priced.power for priced in run.priced.values() if priced.power is not None])
    if not out.empty:
        _judge(out)
    return out


def group_values(run: ValuesRun, attribute: str) -> pd.DataFrame:
    """Values aggregated by a component attribute (e.g. a card's garden action), averaged over seats: per
    base game, the mean of the seat-averaged differences over the group's components, then the mean over
    games with its normal interval (from MIN_BASE_GAMES games on). ``attribute (its value), position,
    value, ci_low, ci_high, n, tested, components, p_value, detectable, p_holm, family, significant``."""
    by_position: dict[int, dict[object, list[np.ndarray]]] = {}
    for (position, k), a in run.arms.items():
        d = (_own(a.treated) - a.control).mean(axis=1)
        group = run.components.loc[k, attribute]
        by_position.setdefault(position, {}).setdefault(group, []).append(d)
    rows = []
    for position, groups in sorted(by_position.items()):
        for group, diffs in groups.items():
            if len({len(x) for x in diffs}) != 1:
                continue  # components played in different games: not averaged per game
            per_game = np.mean(np.stack(diffs), axis=0)
            rows.append({attribute: group, "position": position, "components": len(diffs),
                         **_mean_row(per_game)})
    out = pd.DataFrame(rows)
    if not out.empty:
        _judge(out)
    return out


def where_measured(position: int, length: str) -> str:
    """Where a row's values were measured, in words: at the start, or after t turns (rounds) among the
    games where the component is still in play then (a conditional value, with its own n)."""
    if position == 0:
        return "at the start"
    return f"after {position} {length}, among the games where the component is still in play"


def _value_text(r: Any, score: str) -> str:
    """One "all" row of `component_values` as `format_values` prints it."""
    if not r.tested:
        return f"{figure(100 * r.value, sign=True):>6}  too few games (n = {r.n:,})"
    pe = ""
    if np.isfinite(r.points_equivalent):
        bounds = ("" if np.isnan(r.pe_ci_low) or np.isnan(r.pe_ci_high)
                  else f" {whole_interval(r.pe_ci_low, r.pe_ci_high, sign=True)}")
        pe = (f"  = {figure(r.points_equivalent, 0, sign=True)} {score}{bounds} "
              f"(gives {figure(100 * r.pe_gain, sign=True)})")
    low, high = bounds_of(100 * r.ci_low, 100 * r.ci_high, keep_off=(0.0,), sign=True)
    return (f"{figure(100 * r.value, sign=True):>6} [{low:>6}, {high:>6}]"
            f"{'*' if r.significant else ' '}  n = {r.n:,}{pe}")


def format_values(run: ValuesRun, table: pd.DataFrame | None = None) -> str:
    """The seat-averaged values at each position as text (what `balance values` prints), of `table` (None:
    `component_values(run)`; the commands give it with the verdicts' worth intervals,
    analysis.worth_verdicts.judged_worth)."""
    table = component_values(run) if table is None else table
    score = run.study.score_unit
    length = run.spec.vocabulary.length
    everyone = table[table["seat"].astype(str) == "all"]
    family = int(everyone["tested"].sum())
    lines = [f"{run.game}, {run.players} players, agents {','.join(run.manifest.agents)}: what holding "
             f"each component changes in a seat's win share (paired; percentage points, 95% interval), "
             f"averaged over seats; * = significant after Holm over the table's {family} tested rows; "
             f"fewer than {MIN_BASE_GAMES} base games: too few games, not tested; worth in {score}: the "
             f"smallest whole bonus that does as much, and the change it gives"]
    for position, rows in everyone.groupby("position", sort=True):
        lines.append(f"\n{where_measured(int(position), length)} (n base games per row, at most "
                     f"{int(rows['n'].max()):,})")
        width = max(len(c) for c in rows["component"])
        for r in rows.itertuples():
            lines.append(f"  {r.component:<{width}}  {_value_text(r, score)}")
    return "\n".join(lines)
