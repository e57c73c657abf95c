"""Two runs of a game compared figure by figure, from sums (docs/howto/scale.md): the differences the sweep
report and the report's "each run minus the first" table show, each with its 95% interval, computed from
whole-number sums that chunks of games add up exactly, so neither run is ever held whole.

- A run alone gives `run_sums`: its games, each seat's win-share sum and the seats' cross-products (in
  1/SHARE_SCALE), ties, games the tie-break decided, and the length's sum and square sum. These come from a
  per-game frame (`frame_sums`, `per_game`) or from a report tally (`common_sums`).
- Two runs that played the same games (same seeds, same game ids) are compared game by game: `pair_sums`
  of the two per-game frames joined on the game id holds the sums of the per-game differences and the
  cross-products of both runs' seat shares. A report pairs them chunk by chunk (`paired_tally`), each
  chunk's sums cached beside the variant's parts, keyed by both runs' parts, so a rebuilt report reads
  only the chunks that are new.
- Each frame may also carry every seat's share with tied wins shared (`shared_shares`, the game's own
  re-scoring of the logged scores): the pair sums then hold what the tie-break does in each run, game by
  game (a seat's share under the run's rule minus with tied wins shared), and its change between the runs
  (`tiebreak_sums`).

The seat gap (largest minus smallest seat win rate) is not a mean, so its interval comes from a
parametric bootstrap: draws of the seat win rates from the normal law their sums give (mean and
covariance; both runs jointly when paired), the gap difference computed on each draw.
"""

from __future__ import annotations

import hashlib
import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
from joblib import Parallel, delayed

from analysis import tally
from analysis._arrays import ints, seat_matrix
from analysis.game_analysis import analysis_of
from analysis.parts import cached_stats, prefix_ends, store_stats
from analysis.runs import read_table, spec_of
from analysis.stats import BOOTSTRAP, Z95, chi2_sf, diff_of_means_interval, mean_interval, normal_p, z_value
from analysis.tally import SHARE_SCALE, hist_moments, mean_sd, merge
from storage.backends import parallel_backend
from storage.run_dir import SUMMARIES

#: bump when the pair sums change: cached entries of another version are recomputed
PAIR_VERSION = 3  # 2: the count of games that differ (pair_sums' "differ"); 3: the tie-break's effect
#: the re-scoring rule that shares tied wins: what the tie-break is measured against
NEUTRAL_RULE = "shared"


# ---- per game --------------------------------------------------------------------------------------------
def per_game(games: pd.DataFrame, players: pd.DataFrame, length: str,
             shared: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per game, by game_id: ``game_id, share_0 .. share_{k-1}`` (each seat's win share under the
    configured tie-break, shared wins 1/k), ``score_0 .. score_{k-1}`` when the players table has scores,
    ``tie`` (top score shared), ``decided`` (the tie-break decided) and ``length`` (the games table's column
    named `length`: the game's `Vocabulary.length`); with `shared` (`shared_shares`), its columns
    ``shared_0 ..`` too."""
    p = players[["game_id", "seat", "win_share"]].astype({"game_id": "int64", "seat": "int64",
                                                            "win_share": "float64"})
    shares = p.pivot(index="game_id", columns="seat", values="win_share").sort_index()
    shares.columns = [f"share_{int(c)}" for c in shares.columns]
    if "score" in players.columns:
        scores = players.pivot(index="game_id", columns="seat", values="score").sort_index()
        scores.columns = [f"score_{int(c)}" for c in scores.columns]
        shares = shares.join(scores.astype(float))
    g = pd.DataFrame({"game_id": games["game_id"].to_numpy(dtype=np.int64),
                      "tie": games["tie"].to_numpy(dtype=float, na_value=0.0),
                      "decided": games["decided_by_tiebreak"].to_numpy(dtype=float, na_value=0.0),
                      "length": games[length].to_numpy(dtype=float, na_value=np.nan)}).set_index("game_id")
    out = shares.join(g, how="inner")
    if shared is not None:
        out = out.join(shared.set_index("game_id"), how="inner")
    return out.reset_index()


def shared_shares(players: pd.DataFrame, shares: Callable[..., np.ndarray],
                  columns: dict[str, str]) -> pd.DataFrame:
    """Each seat's win share with tied wins shared, game by game: the game's own re-scoring (`shares`,
    its `GameAnalysis.win_shares`) of the logged scores under NEUTRAL_RULE, handed the players-table
    `columns` it takes (column -> its name there). ``game_id, shared_0 .. shared_{k-1}``: what a seat's
    share under the tie-break is measured against, as a run's re-scoring tally does."""
    seats, m = seat_matrix(players, ["score", *columns])
    neutral = shares(m["score"], {columns[c]: m[c] for c in columns}, NEUTRAL_RULE)
    out = pd.DataFrame(neutral, columns=[f"shared_{int(s)}" for s in seats])
    out.insert(0, "game_id", np.unique(ints(players["game_id"])))
    return out


def games_differ(variant: pd.DataFrame, base: pd.DataFrame) -> int:
    """How many of the paired games (rows of two per-game frames aligned game by game) came out
    differently: any seat's win share or score, the tie, the tie-break's decision or the length."""
    cols = [c for c in variant.columns if c != "game_id" and c in base.columns]
    v, b = variant[cols].to_numpy(dtype=float), base[cols].to_numpy(dtype=float)
    same = (v == b) | (np.isnan(v) & np.isnan(b))
    return int((~same.all(axis=1)).sum())


# ---- sums of one run, and of two runs game by game -------------------------------------------------------
def _shares(frame: pd.DataFrame) -> np.ndarray:
    cols = [c for c in frame.columns if c.startswith("share_")]
    return np.rint(np.nan_to_num(frame[cols].to_numpy(dtype=float), nan=0.0) * SHARE_SCALE).astype(np.int64)


def _length(frame: pd.DataFrame) -> np.ndarray:
    return frame["length"].to_numpy(dtype=float)


def frame_sums(frame: pd.DataFrame) -> dict[str, Any]:
    """`run_sums` of a per-game frame (`per_game`)."""
    u = _shares(frame)
    length = _length(frame)
    known = length[~np.isnan(length)].astype(np.int64)
    return {"games": len(frame), "units": u.sum(axis=0), "cross": u.T @ u,
            "tie": int(frame["tie"].to_numpy(dtype=float).sum()),
            "decided": int(frame["decided"].to_numpy(dtype=float).sum()),
            "length": np.array([len(known), int(known.sum()), int(known @ known)])}


def common_sums(c: dict[str, Any]) -> dict[str, Any]:
    """`run_sums` of a report's common tally (analysis.run_tally.common_tally)."""
    return {"games": int(c["games"]), "units": c["seat_units"], "cross": c["seat_cross"],
            "tie": int(c["ties"][0]), "decided": int(c["ties"][1]),
            "length": np.array(hist_moments(c["length"]))}


def pair_sums(variant: pd.DataFrame, base: pd.DataFrame) -> dict[str, Any]:
    """The sums of two per-game frames compared game by game (inner join on game_id): pairs; the cross-
    products of both runs' seat shares side by side (variant's seats first); how many games came out
    differently (`games_differ`); and the sum and square sum of the per-game differences of ties, tie-break
    decisions and length."""
    joined = variant.merge(base, on="game_id", suffixes=("_v", "_b"))
    v = joined.rename(columns=lambda c: c[:-2] if c.endswith("_v") else c)
    b = joined.rename(columns=lambda c: c[:-2] if c.endswith("_b") else c)
    v = v[[c for c in v.columns if not c.endswith("_b")]]
    b = b[[c for c in b.columns if not c.endswith("_v")]]
    both = np.hstack([_shares(v), _shares(b)])
    out: dict[str, Any] = {"games": len(joined), "seats": np.array([_shares(v).shape[1]]),
                           "units": both.sum(axis=0), "cross": both.T @ both,
                           "differ": np.array([games_differ(v, b)])}
    for name in ("tie", "decided"):
        d = (v[name].to_numpy(dtype=float) - b[name].to_numpy(dtype=float)).astype(np.int64)
        out[name] = np.array([len(d), int(d.sum()), int(d @ d)])
    d = _length(v) - _length(b)
    d = d[~np.isnan(d)].astype(np.int64)
    out["length"] = np.array([len(d), int(d.sum()), int(d @ d)])
    effect = tiebreak_sums(v, b)
    if effect is not None:
        out["tiebreak"] = effect
    return out


def _effect_units(frame: pd.DataFrame) -> tuple[list[str], np.ndarray] | None:
    """(seats, per-game tie-break effect): each seat's share minus its share with tied wins shared, in
    1/SHARE_SCALE (NaN where either is missing); None unless the frame has both columns of every seat."""
    seats = [c.removeprefix("share_") for c in frame.columns if c.startswith("share_")]
    if not seats or not all(f"shared_{s}" in frame.columns for s in seats):
        return None
    share, shared = (frame[[f"{name}_{s}" for s in seats]].to_numpy(dtype=float)
                     for name in ("share", "shared"))
    return seats, np.rint(share * SHARE_SCALE) - np.rint(shared * SHARE_SCALE)


def tiebreak_sums(variant: pd.DataFrame, base: pd.DataFrame) -> dict[str, np.ndarray] | None:
    """What the tie-break does in two per-game frames aligned game by game, each with `shared_shares`'
    columns: per seat, e = its share under its run's rule minus its share with tied wins shared (the same
    game re-scored), in 1/SHARE_SCALE. ``games`` (per seat, the games both runs know it in), ``variant``
    and ``base`` (each run's sum of e) and ``change``, ``change_squares`` (the sum and square sum of the
    per-game difference, the variant's e minus the base's). None unless both frames carry the shared shares
    of the same seats."""
    sides = [_effect_units(frame) for frame in (variant, base)]
    if sides[0] is None or sides[1] is None or sides[0][0] != sides[1][0]:
        return None
    (_, ev), (_, eb) = sides
    known = ~(np.isnan(ev) | np.isnan(eb))
    uv, ub = (np.where(known, e, 0.0).astype(np.int64) for e in (ev, eb))
    d = uv - ub
    return {"games": known.sum(axis=0).astype(np.int64), "variant": uv.sum(axis=0), "base": ub.sum(axis=0),
            "change": d.sum(axis=0), "change_squares": (d * d).sum(axis=0)}


def seat_gap_from_sums(n: int, units: np.ndarray, cross: np.ndarray,
                       confidence: float = 0.95) -> dict[str, Any]:
    """The largest gap between seat win rates, ``max - min`` of the seat means, from a run's sums (its
    games, seat share sums and cross-products in 1/SHARE_SCALE): ``value, ci_low, ci_high, n, max_seat,
    min_seat``. Ludii's Balance metric is 1 minus this gap.

    The interval comes from simultaneous intervals of every pairwise difference of seat rates: each
    difference p_i - p_j is a mean of per-game differences (paired: the seats share the games), whose mean
    and sd come from the sums exactly, with a normal interval at ``1 - (1 - confidence) / pairs``
    (Bonferroni over the k(k-1)/2 pairs). When all of them hold, which happens with probability at least
    `confidence`, the gap ``max_ij (p_i - p_j)`` lies between the largest lower bound (at least 0) and the
    largest upper bound. A percentile bootstrap never covered a true gap of 0: the sample max - min is
    biased upward, worst when seats are equal; this interval reaches 0 whenever no pair can be told
    apart."""
    k = len(units)
    rates = units / (n * SHARE_SCALE) if n else np.full(k, np.nan)
    value = float(rates.max() - rates.min()) if n else float("nan")
    low = high = float("nan")
    if n > 1 and k > 1:
        i, j = np.triu_indices(k, 1)
        moments = [mean_sd(n, int(units[a] - units[b]), int(cross[a, a] + cross[b, b] - 2 * cross[a, b]),
                           SHARE_SCALE) for a, b in zip(i, j, strict=True)]
        mean = np.array([m for m, _ in moments])
        half = z_value(confidence, len(i)) * np.array([sd for _, sd in moments]) / math.sqrt(n)
        abs_low = np.where((mean - half > 0) | (mean + half < 0), np.abs(mean) - half, 0.0)
        abs_high = np.abs(mean) + half
        low, high = float(max(0.0, abs_low.max())), float(abs_high.max())
    return {"value": value, "ci_low": low, "ci_high": high, "n": n,
            "max_seat": int(np.argmax(rates)) if n else -1, "min_seat": int(np.argmin(rates)) if n else -1}


# ---- the comparison ------------------------------------------------------------------------------------
def _paired(n: int, total: float, squares: float, scale: int = 1, shift: float = 0.0) -> tuple:
    """Mean of per-game differences (whole-number sums, units 1/scale) minus `shift`, normal interval."""
    if n < 2:
        return np.nan, np.nan, np.nan
    mean, sd = mean_sd(n, int(total), int(squares), scale)
    low, high = mean_interval(mean, sd, n)
    return mean - shift, float(low) - shift, float(high) - shift


def _welch(a: tuple, b: tuple, scale: int = 1) -> tuple:
    """Welch's difference of means from each sample's (n, sum, square sum)."""
    (na, sa, qa), (nb, sb, qb) = a, b
    if na < 2 or nb < 2:
        return np.nan, np.nan, np.nan
    ma, sda = mean_sd(int(na), int(sa), int(qa), scale)
    mb, sdb = mean_sd(int(nb), int(sb), int(qb), scale)
    diff, low, high = diff_of_means_interval(mean1=ma, var1=sda ** 2, n1=na, mean0=mb, var0=sdb ** 2, n0=nb)
    return float(diff), float(low), float(high)


def _gap_draws(n: int, units: np.ndarray, cross: np.ndarray, draws: int,
               rng: np.random.Generator) -> np.ndarray:
    """Draws of the seat win rates (columns) from the normal law of their means: mean units/n, covariance
    the sample covariance of the per-game shares over n."""
    mean = units / (n * SHARE_SCALE)
    cov = (cross / SHARE_SCALE ** 2 - n * np.outer(mean, mean)) / (n - 1) / n
    return rng.multivariate_normal(mean, cov, size=draws, method="eigh", check_valid="ignore")


def every_tie_decided(variant: dict[str, Any], base: dict[str, Any],
                      pair: dict[str, Any] | None = None) -> bool:
    """Whether the tie-break decided every tie of both runs (their `run_sums`; and the `pair_sums` agree):
    then "decided by the tie-break" is "top score tied" game by game, one finding, not two. A decided game
    is a tied one, so equal counts of ties and decided games mean the same games."""
    same = all(int(run["tie"]) == int(run["decided"]) for run in (variant, base))
    if pair is not None:
        same = same and np.array_equal(np.asarray(pair["tie"]), np.asarray(pair["decided"]))
    return bool(same)


def _wald(mean: np.ndarray, cov: np.ndarray) -> tuple[float, int, float]:
    """Wald chi-square of "every mean is 0" from means and their covariance (pseudo-inverse, on its rank):
    (statistic, degrees of freedom, p-value). No variance at all: p 1 when every mean is 0, else 0."""
    if not (np.all(np.isfinite(mean)) and np.all(np.isfinite(cov))):
        return float("nan"), 0, float("nan")
    scale = float(np.abs(cov).max()) if cov.size else 0.0
    dof = int(np.linalg.matrix_rank(cov, tol=1e-12 * scale)) if scale > 0 else 0
    if dof == 0:
        zero = bool(np.allclose(mean, 0.0, atol=1e-15))
        return (0.0, 0, 1.0) if zero else (float("inf"), 0, 0.0)
    stat = float(mean @ np.linalg.pinv(cov, rcond=1e-12, hermitian=True) @ mean)
    return stat, dof, chi2_sf(stat, dof)


def seat_change_test(variant: dict[str, Any], base: dict[str, Any],
                     pair: dict[str, Any] | None = None) -> tuple[float, int, float]:
    """One joint test of "no seat's win rate changed" (the seats' changes sum to 0, as each game's shares sum
    to 1, so they are one finding, not k): the Wald chi-square of the first k - 1 seats' changes, their
    covariance from the cross-products in the sums (game by game with `pair`; else the two runs' own,
    added). (statistic, degrees of freedom, p-value); NaN when the runs' seat counts differ or n < 2."""
    k = len(variant["units"])
    if len(base["units"]) != k or k < 2:
        return float("nan"), 0, float("nan")
    if pair is not None:
        n = int(pair["games"])
        if n < 2:
            return float("nan"), 0, float("nan")
        contrast = np.hstack([np.eye(k), -np.eye(k)])[: k - 1]  # seat s of the variant minus of the base
        mean = contrast @ pair["units"] / (n * SHARE_SCALE)
        second = contrast @ (pair["cross"] / SHARE_SCALE ** 2) @ contrast.T
        cov = (second - n * np.outer(mean, mean)) / (n - 1) / n
        return _wald(mean, cov)
    parts = []
    for run in (variant, base):
        n = int(run["games"])
        if n < 2:
            return float("nan"), 0, float("nan")
        m = run["units"][: k - 1] / (n * SHARE_SCALE)
        second = run["cross"][: k - 1, : k - 1] / SHARE_SCALE ** 2
        parts.append((m, (second - n * np.outer(m, m)) / (n - 1) / n))
    return _wald(parts[0][0] - parts[1][0], parts[0][1] + parts[1][1])


def compare_sums(variant: dict[str, Any], base: dict[str, Any], pair: dict[str, Any] | None = None,
                 seed: int = 0) -> dict[str, Any]:
    """`analysis.sweep_report.compare_runs` from sums: each run's `run_sums` and, for two runs that
    played the same games, their `pair_sums` (the comparison is then game by game). Besides each figure's
    difference: ``tie_is_decided`` (`every_tie_decided`: the tie and tie-break rows are one finding) and
    the joint test of the seat changes (`seat_change_test`): ``seat_chi2, seat_dof, p_seats``."""
    kv, kb = len(variant["units"]), len(base["units"])
    k = min(kv, kb)
    fair_v, fair_b = 1.0 / kv, 1.0 / kb
    paired = pair is not None
    out: dict[str, Any] = {"paired": paired}
    diffs: dict[str, tuple] = {}
    if paired:
        n = int(pair["games"])
        u, c = pair["units"], pair["cross"]

        def seat_diff(s: int) -> tuple:  # seat s of the variant minus seat s of the base, per game
            i, j = s, kv + s
            return (u[i] - u[j], c[i, i] + c[j, j] - 2 * c[i, j])

        total, squares = seat_diff(0)
        diffs["start_adv"] = _paired(n, total, squares, SHARE_SCALE, fair_v - fair_b)
        for name, key in (("tie_rate", "tie"), ("tiebreak_rate", "decided"), ("length", "length")):
            diffs[name] = _paired(*(int(x) for x in pair[key]))
        changes = [_paired(n, *seat_diff(s), SHARE_SCALE) for s in range(k)]
    else:
        def moments(run: dict[str, Any], s: int) -> tuple:
            return (int(run["games"]), int(run["units"][s]), int(run["cross"][s, s]))

        d0 = _welch(moments(variant, 0), moments(base, 0), SHARE_SCALE)
        shift = fair_v - fair_b
        diffs["start_adv"] = (d0[0] - shift, d0[1] - shift, d0[2] - shift)
        for name, key in (("tie_rate", "tie"), ("tiebreak_rate", "decided")):
            diffs[name] = _welch((variant["games"], variant[key], variant[key]),
                                 (base["games"], base[key], base[key]))
        diffs["length"] = _welch(tuple(variant["length"]), tuple(base["length"]))
        changes = [_welch(moments(variant, s), moments(base, s), SHARE_SCALE) for s in range(k)]
    out["seat_changes"] = [(change, lo, hi, normal_p(change, (hi - lo) / (2 * Z95)))
                           for change, lo, hi in changes]  # each seat described; tested jointly below
    out["seat_chi2"], out["seat_dof"], out["p_seats"] = seat_change_test(variant, base, pair)
    out["tie_is_decided"] = every_tie_decided(variant, base, pair)
    # the seat gap: max - min of the seat win rates, its difference by a parametric bootstrap
    rv = variant["units"] / (variant["games"] * SHARE_SCALE)
    rb = base["units"] / (base["games"] * SHARE_SCALE)
    gap = float((rv.max() - rv.min()) - (rb.max() - rb.min()))
    rng = np.random.default_rng(seed)
    if paired and int(pair["games"]) > 1:
        drawn = _gap_draws(int(pair["games"]), pair["units"], pair["cross"], BOOTSTRAP, rng)
        gv, gb = drawn[:, :kv], drawn[:, kv:]
        d = (gv.max(axis=1) - gv.min(axis=1)) - (gb.max(axis=1) - gb.min(axis=1))
    elif not paired and variant["games"] > 1 and base["games"] > 1:
        gv = _gap_draws(int(variant["games"]), variant["units"], variant["cross"], BOOTSTRAP, rng)
        gb = _gap_draws(int(base["games"]), base["units"], base["cross"], BOOTSTRAP,
                        np.random.default_rng(seed + 1))
        d = (gv.max(axis=1) - gv.min(axis=1)) - (gb.max(axis=1) - gb.min(axis=1))
    else:
        d = np.array([])
    low, high = np.nanpercentile(d, [2.5, 97.5]) if len(d) else (np.nan, np.nan)
    diffs["gap"] = (gap, float(low), float(high))
    for key, (value, lo, hi) in diffs.items():
        out[f"d_{key}"], out[f"d_{key}_low"], out[f"d_{key}_high"] = value, lo, hi
        out[f"sig_{key}"] = bool(np.isfinite(lo) and (lo > 0 or hi < 0))
        if key == "gap":
            finite = d[np.isfinite(d)]
            out["p_gap"] = float(min(1.0, 2 * min(np.mean(finite <= 0), np.mean(finite >= 0)))) \
                if len(finite) else float("nan")
        else:
            out[f"p_{key}"] = normal_p(value, (hi - lo) / (2 * Z95))  # the interval is value +- Z95 se
    return out


# ---- two runs by parts ---------------------------------------------------------------------------------
def same_games(variant: Any, base: Any) -> bool:
    """Whether two runs (RunTally or Snapshot-like: manifest, and `ranges` or games) played the same games:
    the same seed and the same game ids, so game i of each was dealt from the same seed."""
    return (variant.manifest.seed == base.manifest.seed
            and _ids(variant) == _ids(base))


def _ids(run: Any) -> list[tuple[int, int]]:
    """A run's game ids as merged ranges."""
    merged: list[list[int]] = []
    for a, b in sorted(run.ranges):
        if merged and merged[-1][1] == a:
            merged[-1][1] = b
        else:
            merged.append([a, b])
    return [(a, b) for a, b in merged]


def _window_key(variant: Path, base: Path, a: int, b: int) -> dict[str, Any]:
    """What a window's cached pair sums must match: both runs' parts holding its games (size, mtime)."""
    key: dict[str, Any] = {"version": PAIR_VERSION}
    for side, run in (("variant", variant), ("base", base)):
        parts = []
        for table in ("games", "players"):
            for part in sorted((run / f"{table}.parquet").glob("part-*.parquet")):
                start, end = (int(x) for x in part.name[len("part-"):-len(".parquet")].split("-"))
                if start < b and a < end:
                    stat = part.stat()
                    parts.append([table, part.name, stat.st_size, stat.st_mtime_ns])
        key[side] = parts
    return key


def _logged(run: Path, names: list[str], a: int, b: int) -> list[str]:
    """Those of `names` that every players part of a run holding games a..b-1 logs (a column added to the
    logs later is missing from older parts)."""
    have = set(names)
    for part in (run / "players.parquet").glob("part-*.parquet"):
        start, end = (int(x) for x in part.name[len("part-"):-len(".parquet")].split("-"))
        if start < b and a < end:
            have &= set(pq.read_schema(part).names)
    return [n for n in names if n in have]


def _rescoring(game: str | None) -> tuple[Callable[..., np.ndarray] | None, dict[str, str]]:
    """The game's re-scoring of win shares and the players-table columns it takes (column -> its name
    there), when it can re-score with tied wins shared; (None, {}) otherwise or without a game."""
    if game is None:
        return None, {}
    spec = spec_of(game)
    shares = analysis_of(spec).win_shares
    if shares is None or NEUTRAL_RULE not in spec.tie_breaks:
        return None, {}
    return shares, dict(spec.values.player_columns) if spec.values is not None else {}


def pair_window(variant: str, base: str, a: int, b: int, length: str, cache: bool = True,
                game: str | None = None) -> tuple[str, bool]:
    """The pair sums of games a..b-1 of two runs, from the cache in the variant's run directory when both
    runs' parts are unchanged, else from the parts (and cached): (sums as text, whether parts were read).
    `game`: the runs' game, whose re-scoring with tied wins shared gives the tie-break's effect (None:
    left out)."""
    v, bs = Path(variant), Path(base)
    tag = hashlib.sha1(os.fspath(bs.resolve()).encode()).hexdigest()[:12]
    cached = v / SUMMARIES / f"pair-{tag}-{a:010d}-{b:010d}.json"
    key = {**_window_key(v, bs, a, b), "rescored": game}
    held = cached_stats(cached, key) if cache else None
    if held is not None:
        return held, False
    frames = []
    shares, columns = _rescoring(game)
    for run in (v, bs):
        games = read_table(run, "games", columns=["game_id", "tie", "decided_by_tiebreak", length],
                           games=(a, b))
        extra = {c: columns[c] for c in _logged(run, list(columns), a, b)}
        players = read_table(run, "players", columns=["game_id", "seat", "win_share", "score", *extra],
                             games=(a, b))
        shared = shared_shares(players, shares, extra) if shares is not None else None
        frames.append(per_game(games, players, length, shared))
    text = tally.dumps(pair_sums(*frames))
    if cache:
        store_stats(cached, key, text)
    return text, True


def paired_tally(variant: Any, base: Any, length: str, jobs: int = 1, backend: str = "loky",
                 cache: bool = True, cuts: dict[int, Any] | None = None) -> tuple[dict[str, Any], int]:
    """The pair sums of two runs that played the same games (`same_games`), window by window over the
    variant's chunks, `jobs` at a time: (sums, windows read from parts). `cuts`: game counts (its keys)
    whose first games' pair sums are wanted too; each one the windows end at exactly gets them."""
    games = {getattr(getattr(run, "spec", None), "name", None) for run in (variant, base)}
    game = games.pop() if len(games) == 1 else None  # both runs' game: the tie-break's effect re-scored
    tasks = [delayed(pair_window)(os.fspath(variant.path), os.fspath(base.path), a, b, length=length,
                                  cache=cache, game=game)
             for a, b in sorted(variant.ranges)]
    if jobs > 1 and len(tasks) > 1:
        with parallel_backend(backend, jobs):
            results = list(Parallel(n_jobs=jobs)(tasks))
    else:
        results = [task[0](*task[1], **task[2]) for task in tasks]
    total, read = None, 0
    for end, (text, was_read) in zip(prefix_ends(sorted(variant.ranges)), results, strict=True):
        total = merge(total, tally.loads(text))
        read += was_read
        if cuts is not None and end is not None and end in cuts:  # the windows hold the first `end` games
            cuts[end] = total
    return total, read
