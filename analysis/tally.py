"""Mergeable sufficient statistics (docs/howto/scale.md): what a report figure keeps of one chunk of games,
combined exactly with the other chunks', so a figure over any number of games holds one chunk in memory.

A tally is a nested dict whose leaves are numbers, numpy arrays, `Hist` histograms and sets of names.
`merge` adds numbers and arrays (zero-padded to a common shape first: arrays are indexed by seat, type or
value, and a chunk may not reach the largest), adds histograms bin by bin and unites sets. Whole numbers
merge exactly whatever the order, so every figure below is computed from integers: win shares are counted
in 1/SHARE_SCALE (a 1/k share of k <= 7 winners is a whole number of 420ths), scores, turns and counts are
integers already.

What the figures need beyond counts and sums:
- quantiles (a median, quartiles) and histogram charts come from exact integer histograms (`Hist`), so
  `hist_distribution` gives the same numbers as numpy on the samples;
- a difference of means with a cluster-robust interval (holders of a chit against the others, players of
  one game being one cluster) comes from per-cluster cross-products (`comparison_sums`), which make the
  sandwich estimator's meat a quadratic form (`comparison_from_sums`: statsmodels' cluster-robust
  OLS slope, as the tests check).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from analysis.stats import Z95, mean_interval

#: bump when a report tally's layout or meaning changes: cached tallies of another version are recomputed
REPORT_VERSION = 1
SHARE_SCALE = 420  # lcm(1..7): a 1/k share of a win, k <= 7 winners, is a whole number of 1/420ths


def share_units(share: np.ndarray) -> np.ndarray:
    """Win shares as whole numbers of 1/SHARE_SCALE (NaN, a missing seat, counts 0)."""
    return np.rint(np.nan_to_num(np.asarray(share, dtype=float)) * SHARE_SCALE).astype(np.int64)


# ---- histograms -----------------------------------------------------------------------------------------
@dataclass
class Hist:
    """Counts of integer values: ``counts[..., i]`` is how often ``offset + i`` occurred (leading axes, if
    any, are groups such as seats)."""

    offset: int
    counts: np.ndarray

    @property
    def values(self) -> np.ndarray:
        return np.arange(self.offset, self.offset + self.counts.shape[-1])

    def group(self, i: int) -> Hist:
        """The histogram of one group (a row of a 2-D histogram)."""
        return Hist(self.offset, self.counts[i])


def hist(values: np.ndarray, groups: np.ndarray | None = None, n_groups: int = 0) -> Hist:
    """The histogram of integer `values` (NaN left out), optionally per group (0..n_groups-1)."""
    values = np.asarray(values)
    keep = ~np.isnan(values) if values.dtype.kind == "f" else np.ones(len(values), dtype=bool)
    v = values[keep].astype(np.int64)
    lo = int(v.min()) if len(v) else 0
    span = int(v.max()) - lo + 1 if len(v) else 1
    if groups is None:
        return Hist(lo, np.bincount(v - lo, minlength=span).astype(np.int64))
    g = np.asarray(groups)[keep].astype(np.int64)
    flat = np.bincount(g * span + (v - lo), minlength=n_groups * span).astype(np.int64)
    return Hist(lo, flat.reshape(n_groups, span))


def _merge_hist(a: Hist, b: Hist) -> Hist:
    lo = min(a.offset, b.offset)
    hi = max(a.offset + a.counts.shape[-1], b.offset + b.counts.shape[-1])
    lead = tuple(max(x, y) for x, y in zip(a.counts.shape[:-1], b.counts.shape[:-1], strict=True))
    out = np.zeros((*lead, hi - lo), dtype=np.int64)
    for h in (a, b):
        index = tuple(slice(0, s) for s in h.counts.shape[:-1])
        out[(*index, slice(h.offset - lo, h.offset - lo + h.counts.shape[-1]))] += h.counts
    return Hist(lo, out)


def hist_count(h: Hist, value: int) -> int:
    """How often `value` occurred (a 1-D histogram)."""
    i = value - h.offset
    return int(h.counts[i]) if 0 <= i < h.counts.shape[-1] else 0


def hist_quantiles(h: Hist, qs: list[float]) -> list[float]:
    """numpy's default (linear) quantiles of the samples a 1-D histogram counts."""
    cum = np.cumsum(h.counts)
    n = int(cum[-1]) if len(cum) else 0
    out = []
    for q in qs:
        pos = (n - 1) * q
        below = math.floor(pos)
        i = int(np.searchsorted(cum, below, side="right"))
        j = int(np.searchsorted(cum, min(below + 1, n - 1), side="right"))
        x0, x1 = h.offset + i, h.offset + j
        out.append(float(x0 + (pos - below) * (x1 - x0)))
    return out


def hist_moments(h: Hist) -> tuple[int, int, int]:
    """n, sum and sum of squares of the samples of a 1-D histogram, as whole numbers."""
    values = [int(v) for v in h.values]
    counts = [int(c) for c in h.counts]
    return (sum(counts), sum(c * v for c, v in zip(counts, values, strict=True)),
            sum(c * v * v for c, v in zip(counts, values, strict=True)))


def mean_sd(n: int, total: int, squares: int, scale: int = 1) -> tuple[float, float]:
    """Mean and sample sd from whole-number sums (units of 1/scale): the spread is exact, so a constant
    sample has sd exactly 0, as np.std gives."""
    if n == 0:
        return float("nan"), float("nan")
    spread = n * squares - total * total  # n * sum (x - mean)^2, an exact Python integer
    sd = math.sqrt(spread / (n * (n - 1))) / scale if n > 1 else float("nan")
    return total / (n * scale), sd


def hist_distribution(h: Hist) -> dict[str, float]:
    """n, mean, sd, 95% interval of the mean, min, quartiles and max of the samples a 1-D histogram counts
    (the same figures as those computed on the samples themselves)."""
    n, total, squares = hist_moments(h)
    if n == 0:
        return {"n": 0, **{k: float("nan") for k in
                           ("mean", "sd", "ci_low", "ci_high", "min", "q25", "median", "q75", "max")}}
    mean, sd = mean_sd(n, total, squares)
    low, high = mean_interval(mean, sd, n)
    q25, median, q75 = hist_quantiles(h, [0.25, 0.5, 0.75])
    present = np.flatnonzero(h.counts)
    return {"n": n, "mean": mean, "sd": sd, "ci_low": float(low), "ci_high": float(high),
            "min": float(h.offset + present[0]), "q25": q25, "median": median, "q75": q75,
            "max": float(h.offset + present[-1])}


def hist_table(h: Hist, name: str, unit: str = "games") -> pd.DataFrame:
    """A histogram-ready table: each value that occurred, how often, and its share."""
    present = np.flatnonzero(h.counts)
    counts = h.counts[present]
    total = counts.sum()
    return pd.DataFrame({name: (h.offset + present).astype(np.int64), unit: counts,
                         "share": counts / total if total else np.zeros(len(counts))})


# ---- merging and storing --------------------------------------------------------------------------------
def _pad_add(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.shape == b.shape:
        return a + b
    shape = tuple(max(x, y) for x, y in zip(a.shape, b.shape, strict=True))
    out = np.zeros(shape, dtype=np.result_type(a, b))
    for x in (a, b):
        out[tuple(slice(0, s) for s in x.shape)] += x
    return out


def merge(a: Any, b: Any) -> Any:
    """Two tallies of disjoint games combined: numbers and arrays added, histograms added bin by bin, sets
    united, dicts merged key by key (a key only one side has is taken as it is)."""
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(a, dict):
        out = dict(a)
        for key, value in b.items():
            out[key] = merge(out[key], value) if key in out else value
        return out
    if isinstance(a, Hist):
        return _merge_hist(a, b)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return _pad_add(np.asarray(a), np.asarray(b))
    if isinstance(a, set | frozenset):
        return set(a) | set(b)
    return a + b


def merge_all(tallies: list[Any]) -> Any:
    out = None
    for t in tallies:
        out = merge(out, t)
    return out


def _encode(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _encode(v) for k, v in value.items()}
    if isinstance(value, Hist):
        return {"__hist__": value.offset, "counts": _encode(value.counts)}
    if isinstance(value, np.ndarray):
        return {"__array__": value.dtype.str, "shape": list(value.shape), "data": value.ravel().tolist()}
    if isinstance(value, set | frozenset):
        return {"__set__": sorted(value)}
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    return value


def _decode(value: Any) -> Any:
    if isinstance(value, dict):
        if "__hist__" in value:
            return Hist(int(value["__hist__"]), _decode(value["counts"]))
        if "__array__" in value:
            return np.array(value["data"], dtype=np.dtype(value["__array__"])).reshape(value["shape"])
        if "__set__" in value:
            return set(value["__set__"])
        return {k: _decode(v) for k, v in value.items()}
    return value


def dumps(tally: Any) -> str:
    return json.dumps(_encode(tally))


def loads(text: str) -> Any:
    return _decode(json.loads(text))


# ---- a difference of means, cluster-robust, from sums ---------------------------------------------------
#: per row: n (observations), n1 (flagged), y, y1 (sums of y), games (clusters with an observation) and the
#: cross-products over clusters of A = sum x y, B = sum x, C = sum y, D = observations in the cluster
COMPARISON_KEYS = ("n", "n1", "y", "y1", "games", "AA", "AB", "AC", "AD", "BB", "BC", "BD", "CC", "CD", "DD")


def comparison_sums(flags: np.ndarray, y: np.ndarray, game: np.ndarray, n_games: int,
                    eligible: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """The sums behind `comparison_from_sums` for each row of `flags` (k, N) bool over observations with
    whole-number outcomes `y` (N,) (win shares in 1/SHARE_SCALE) in clusters `game` (N,) 0..n_games-1;
    `eligible` (k, N) restricts a row to some observations (default: all)."""
    flags = np.asarray(flags, dtype=bool)
    k = flags.shape[0]
    y = np.asarray(y, dtype=np.int64)
    out = {key: np.zeros(k, dtype=np.int64) for key in COMPARISON_KEYS}
    for row in range(k):
        keep = np.ones(len(y), dtype=bool) if eligible is None else np.asarray(eligible[row], dtype=bool)
        x, yy, g = flags[row][keep].astype(np.int64), y[keep], game[keep]
        a = np.bincount(g, weights=x * yy, minlength=n_games).astype(np.int64)
        b = np.bincount(g, weights=x, minlength=n_games).astype(np.int64)
        c = np.bincount(g, weights=yy, minlength=n_games).astype(np.int64)
        d = np.bincount(g, minlength=n_games).astype(np.int64)
        sums = {"n": len(yy), "n1": int(x.sum()), "y": int(yy.sum()), "y1": int((x * yy).sum()),
                "games": int((d > 0).sum()), "AA": a @ a, "AB": a @ b, "AC": a @ c, "AD": a @ d,
                "BB": b @ b, "BC": b @ c, "BD": b @ d, "CC": c @ c, "CD": c @ d, "DD": d @ d}
        for key, value in sums.items():
            out[key][row] = value
    return out


def comparison_from_sums(s: dict[str, np.ndarray], scale: int = SHARE_SCALE,
                         z: float = Z95) -> dict[str, np.ndarray]:
    """For each row of `comparison_sums`' flags: ``n1, m1`` and ``n0, m0`` (count and mean of y over the
    flagged and the unflagged observations) and their difference ``diff`` with a normal interval ``low,
    high`` whose standard error is cluster-robust (the players of one game are not independent: when one
    holds a chit and wins, the others lose). NaN where a group is empty (its mean, the difference) or
    fewer than two clusters hold an observation (the interval).

    The cluster score of the fit y = a + b x is sum (x - p)(y - m(x)) over the cluster = A + B (p (m1 - m0)
    - m1) - p C + p m0 D, with p = n1 / n, so its sum of squares over clusters is a quadratic form in the
    cross-products; the small-sample factor is CR1's G/(G-1) (N-1)/(N-2), as statsmodels' "cluster"."""
    k = len(s["n"])
    out = {name: np.full(k, np.nan) for name in ("n1", "m1", "n0", "m0", "diff", "low", "high")}
    for row in range(k):
        n, n1 = int(s["n"][row]), int(s["n1"][row])
        y, y1 = int(s["y"][row]) / scale, int(s["y1"][row]) / scale
        out["n1"][row], out["n0"][row] = n1, n - n1
        m1 = y1 / n1 if n1 else np.nan
        m0 = (y - y1) / (n - n1) if n1 < n else np.nan
        out["m1"][row], out["m0"][row] = m1, m0
        if n1 == 0 or n1 == n:
            continue
        out["diff"][row] = m1 - m0
        g = int(s["games"][row])
        if g < 2:
            continue
        # the weights of (A, B, C, D) times D = scale n n1 n0 are whole numbers, so the quadratic form is
        # exact in Python integers (a float form loses the digits of a near-zero meat to cancellation)
        n0, y1_units = n - n1, int(s["y1"][row])
        y0_units = int(s["y"][row]) - y1_units
        w = (n * n1 * n0, -(y1_units * n0 * n0 + y0_units * n1 * n1), -n1 * n1 * n0, n1 * n1 * y0_units)
        cross = [[int(s[a + b][row]) if a + b in s else int(s[b + a][row]) for b in "ABCD"] for a in "ABCD"]
        form = sum(w[i] * cross[i][j] * w[j] for i in range(4) for j in range(4))
        meat = max(form, 0) / (scale * n * n1 * n0) ** 2
        centred = n1 * (n - n1) / n  # sum (x - p)^2
        factor = g / (g - 1) * (n - 1) / (n - 2)
        se = math.sqrt(factor * meat) / centred
        out["low"][row], out["high"][row] = m1 - m0 - z * se, m1 - m0 + z * se
    return out
