"""The game-independent statistics every report and design command shares (numpy only; scipy is not a
dependency): proportions with honest intervals (Wilson, one or element-wise), normal intervals and tests of
a mean and of a difference of means, the chi-square distribution, the tuner's simultaneous seat deviation
(`z_value`, `seat_deviation`) and Holm's adjustment for families of flags (`holm`). The figures computed
from whole-number sums (a clustered difference of means, the seat gap) are `analysis.tally`'s and
`analysis.paired`'s.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import numpy.typing as npt

Z95 = 1.959963984540054
#: the z of 80% power: a test at two-sided z has 80% power against a true value of z + POWER_Z standard errors
POWER_Z = 0.8416212335729143
#: a 5% two-sided test has 80% power against a true value of DETECTABLE_Z standard errors
DETECTABLE_Z = Z95 + POWER_Z


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion; successes may be fractional (shared wins count 1/k). The
    bounds hold the estimate, exactly 0 at 0 successes and exactly 1 at n: rounding alone once put the
    lower bound 5.6e-17 above a rate of 0, and a chart's error bar below it then had a negative length."""
    if n <= 0:
        return (0.0, 1.0)
    p = min(max(successes / n, 0.0), 1.0)
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    low = 0.0 if successes <= 0 else min(p, max(0.0, centre - half))
    high = 1.0 if successes >= n else max(p, min(1.0, centre + half))
    return (low, high)


# ---------------------------------------------------------------------------------------------------------
# Vectorised intervals, the chi-square distribution and logistic regression.


def wilson_intervals(successes: npt.ArrayLike, n: npt.ArrayLike,
                     z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """Element-wise Wilson score intervals (the array form of ``wilson_interval``, with the bounds exactly 0
    at 0 successes and exactly 1 at n); n <= 0 gives [0, 1]."""
    successes = np.asarray(successes, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = successes / n
        denom = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(np.clip(p * (1 - p), 0.0, None) / n + z * z / (4 * n * n)) / denom
        low = np.where((n > 0) & (successes > 0), np.clip(np.fmin(centre - half, p), 0.0, None),
                       0.0)  # exact at 0, and never above the estimate
        high = np.where((n > 0) & (successes < n), np.clip(np.fmax(centre + half, p), None, 1.0),
                        1.0)  # exact at n, never below it
    return low, high


def mean_interval(mean: npt.ArrayLike, sd: npt.ArrayLike, n: npt.ArrayLike,
                  z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """Normal 95% interval of a mean from its sample sd and n (NaN where n < 2)."""
    mean, sd, n = (np.asarray(v, dtype=float) for v in (mean, sd, n))
    with np.errstate(divide="ignore", invalid="ignore"):
        half = np.where(n >= 2, z * sd / np.sqrt(n), np.nan)
    return mean - half, mean + half


def diff_of_means_interval(mean1: npt.ArrayLike, var1: npt.ArrayLike, n1: npt.ArrayLike, mean0: npt.ArrayLike,
                           var0: npt.ArrayLike, n0: npt.ArrayLike,
                           z: float = Z95) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Difference mean1 - mean0 of two independent samples with its normal 95% interval, using each
    group's own sample variance (Welch). Returns (diff, low, high); NaN where a group has fewer than 2."""
    mean1, var1, n1, mean0, var0, n0 = (np.asarray(v, dtype=float)
                                        for v in (mean1, var1, n1, mean0, var0, n0))
    diff = mean1 - mean0
    with np.errstate(divide="ignore", invalid="ignore"):
        se = np.sqrt(var1 / n1 + var0 / n0)
    se = np.where((n1 >= 2) & (n0 >= 2), se, np.nan)
    return diff, diff - z * se, diff + z * se


def _gamma_series(a: float, x: float) -> float:
    """Regularized lower incomplete gamma P(a, x) by its series (converges fast for x < a + 1)."""
    term = total = 1.0 / a
    ap = a
    for _ in range(10_000):
        ap += 1.0
        term *= x / ap
        total += term
        if abs(term) < abs(total) * 1e-16:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


def _gamma_continued_fraction(a: float, x: float) -> float:
    """Regularized upper incomplete gamma Q(a, x) by its continued fraction (modified Lentz; x >= a + 1)."""
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            break
    return math.exp(-x + a * math.log(x) - math.lgamma(a)) * h


def gammaincc(a: float, x: float) -> float:
    """Regularized upper incomplete gamma function Q(a, x) = Gamma(a, x) / Gamma(a), a > 0."""
    if a <= 0:
        raise ValueError(f"gammaincc needs a > 0, got {a}")
    if x <= 0:
        return 1.0
    if x < a + 1.0:
        return max(0.0, 1.0 - _gamma_series(a, x))
    return _gamma_continued_fraction(a, x)


def chi2_sf(x: float, dof: float) -> float:
    """Survival function of the chi-square distribution: P(X >= x) for X ~ chi2(dof)."""
    if not math.isfinite(x):
        return 0.0 if x > 0 else 1.0
    return gammaincc(dof / 2.0, x / 2.0)


#: Draws of a bootstrap of the seat gap (the largest gap between seat win rates: 1 minus Ludii's "Balance";
#: analysis.paired draws it from the seat sums).
BOOTSTRAP = 2000


# ---------------------------------------------------------------------------------------------------------
# The tuner's objective (`balance tune`): every seat's deviation from the fair share at once.


def z_value(confidence: float, sides: int = 1) -> float:
    """Two-sided normal quantile for `confidence` shared (Bonferroni) among `sides` intervals."""
    return NormalDist().inv_cdf(1 - (1 - confidence) / (2 * sides))


def _wilson(successes: np.ndarray, n: float, z: float) -> tuple[np.ndarray, np.ndarray]:
    return wilson_intervals(successes, np.full(len(successes), n), z)


def seat_deviation(wins: npt.ArrayLike, games: int, confidence: float = 0.95) -> dict[str, float]:
    """The objective from per-seat win counts (summed win shares) of `games` games: ``value`` =
    max_s |wins_s / games - 1/seats| with ``low`` and ``high`` bounds that hold for all seats at once
    with probability `confidence` (Wilson intervals, Bonferroni over the seats)."""
    wins = np.asarray(wins, dtype=float)
    k = len(wins)
    fair = 1.0 / k
    if games <= 0:
        return {"value": math.nan, "low": 0.0, "high": 1.0 - fair}
    rates = wins / games
    low, high = _wilson(wins, games, z_value(confidence, k))
    return {"value": float(np.max(np.abs(rates - fair))),
            "low": float(np.max(np.maximum(0.0, np.maximum(low - fair, fair - high)))),
            "high": float(np.max(np.maximum(fair - low, high - fair)))}


# ---- families of flags ----------------------------------------------------------------------------------
def holm(p_values: npt.ArrayLike) -> np.ndarray:
    """Holm's step-down adjustment of a family of p-values: reject H_i at level alpha when the adjusted
    p-value is <= alpha, and the chance of any false rejection in the family stays <= alpha whatever the
    dependence between the tests. NaN p-values are left NaN and do not count in the family."""
    p = np.asarray(p_values, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(np.isfinite(p))
    m = len(ok)
    if m == 0:
        return out
    order = ok[np.argsort(p[ok], kind="stable")]
    scaled = (m - np.arange(m)) * p[order]
    out[order] = np.minimum(1.0, np.maximum.accumulate(scaled))
    return out


def normal_p(estimate: float, se: float) -> float:
    """Two-sided p-value of "the true value is 0" for a normal estimate with standard error `se` (NaN
    when se is not finite; a zero se gives 1 for a zero estimate and 0 otherwise)."""
    if not np.isfinite(se) or not np.isfinite(estimate):
        return float("nan")
    if se == 0:
        return 1.0 if estimate == 0 else 0.0
    return math.erfc(abs(estimate) / se / math.sqrt(2))


def mean_test_p(mean: npt.ArrayLike, sd: npt.ArrayLike, n: npt.ArrayLike, mu0: npt.ArrayLike) -> np.ndarray:
    """Two-sided p-value of "the population mean is mu0" from a sample mean, sd and n (normal, large n:
    `normal_p` of mean - mu0 with standard error sd / sqrt(n)). NaN where n < 2; a zero sd gives 1 when the
    mean is mu0 and 0 when it is not."""
    mean, sd, n, mu0 = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (mean, sd, n, mu0)))
    with np.errstate(divide="ignore", invalid="ignore"):
        se = sd / np.sqrt(n)
    p = np.array([normal_p(m - m0, e) if k >= 2 else np.nan
                  for m, m0, e, k in zip(mean.ravel(), mu0.ravel(), se.ravel(), n.ravel(), strict=True)])
    return p.reshape(mean.shape)


def detectable_z(family: int, alpha: float = 0.05) -> float:
    """How many standard errors a true value needs to be detected with 80% power by a two-sided test at
    the Bonferroni level of a family of `family` tests (alpha / family, the first and strictest step of
    Holm): 'detectable' at the level the family's correction uses, not at an unadjusted alpha."""
    return z_value(1 - alpha, max(int(family), 1)) + POWER_Z


def interval_family(value: npt.ArrayLike, low: npt.ArrayLike, high: npt.ArrayLike,
                    alpha: float = 0.05) -> dict[str, np.ndarray]:
    """A table's rows of estimates with 95% intervals judged as one family: each row's two-sided p-value of
    "the true value is 0" (normal, the standard error read off the interval's width), Holm-adjusted over the
    rows with a finite interval, and ``significant`` (adjusted p <= alpha): the chance that any row whose
    true value is 0 is called significant stays <= alpha, however many rows the table has. ``detectable``:
    the smallest true value a row's n detects with 80% power at the family's Bonferroni level (alpha / m
    two-sided, `detectable_z`), m = ``family``, the rows tested."""
    value, low, high = (np.asarray(x, dtype=float) for x in (value, low, high))
    se = (high - low) / (2 * Z95)
    p = np.array([normal_p(v, e) for v, e in zip(value, se, strict=True)])
    adjusted = holm(p)
    family = int(np.isfinite(p).sum())
    return {"p_value": p, "p_holm": adjusted, "significant": np.nan_to_num(adjusted, nan=1.0) <= alpha,
            "detectable": detectable_z(family, alpha) * se, "family": np.full(len(p), family)}
