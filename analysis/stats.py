"""Small statistics shared by every report: proportions with honest intervals."""

from __future__ import annotations

import math

import numpy as np

Z95 = 1.959963984540054


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion; successes may be fractional (shared wins count 1/k)."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


# ---------------------------------------------------------------------------------------------------------
# Vectorised intervals, the chi-square distribution and logistic regression (numpy only; scipy is not a
# dependency).


def wilson_intervals(successes, n, z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """Element-wise Wilson score intervals (the array form of ``wilson_interval``, with the bounds exactly 0
    at 0 successes and exactly 1 at n); n <= 0 gives [0, 1]."""
    successes = np.asarray(successes, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = successes / n
        denom = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(np.clip(p * (1 - p), 0.0, None) / n + z * z / (4 * n * n)) / denom
        low = np.where((n > 0) & (successes > 0), np.clip(centre - half, 0.0, None), 0.0)  # exact at 0
        high = np.where((n > 0) & (successes < n), np.clip(centre + half, None, 1.0), 1.0)  # ... and at n
    return low, high


def mean_interval(mean, sd, n, z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """Normal 95% interval of a mean from its sample sd and n (NaN where n < 2)."""
    mean, sd, n = (np.asarray(v, dtype=float) for v in (mean, sd, n))
    with np.errstate(divide="ignore", invalid="ignore"):
        half = np.where(n >= 2, z * sd / np.sqrt(n), np.nan)
    return mean - half, mean + half


def diff_of_means_interval(mean1, var1, n1, mean0, var0, n0, z: float = Z95):
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


def logistic_regression(X, y, ridge: float = 1e-3, max_iter: int = 100,
                        tol: float = 1e-10) -> tuple[np.ndarray, np.ndarray]:
    """Logistic regression of 0/1 ``y`` on the columns of ``X`` (include a column of ones for an intercept)
    by iteratively reweighted least squares (Newton), with a small ridge penalty ``ridge * |b|^2 / 2`` that
    keeps the fit finite under separation or collinearity. Returns (coef, stderr), the standard errors from
    the inverse penalized information matrix."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    if X.ndim != 2 or y.shape != (X.shape[0],):
        raise ValueError(f"logistic_regression: X must be (n, k) and y (n,), got {X.shape} and {y.shape}")
    k = X.shape[1]
    beta = np.zeros(k)
    penalty = ridge * np.eye(k)

    def objective(b: np.ndarray) -> float:
        eta = X @ b
        # negative log-likelihood: sum log(1 + e^eta) - y * eta, computed stably
        return float(np.sum(np.logaddexp(0.0, eta) - y * eta) + 0.5 * ridge * b @ b)

    current = objective(beta)
    for _ in range(max_iter):
        eta = X @ beta
        p = 0.5 * (1.0 + np.tanh(0.5 * eta))  # the logistic function without overflow
        w = p * (1.0 - p)
        hessian = X.T @ (X * w[:, None]) + penalty
        gradient = X.T @ (y - p) - ridge * beta
        step = np.linalg.solve(hessian, gradient)
        scale = 1.0
        while True:  # step halving: Newton on a convex objective, guarded against overshooting
            candidate = beta + scale * step
            value = objective(candidate)
            if value <= current + 1e-12 * abs(current) or scale < 1e-6:
                break
            scale /= 2.0
        beta, current = candidate, value
        if np.max(np.abs(scale * step)) < tol:
            break
    eta = X @ beta
    p = 0.5 * (1.0 + np.tanh(0.5 * eta))
    hessian = X.T @ (X * (p * (1.0 - p))[:, None]) + penalty
    stderr = np.sqrt(np.clip(np.diag(np.linalg.inv(hessian)), 0.0, None))
    return beta, stderr
