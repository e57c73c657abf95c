"""Confidence sequences for the mean of a bounded outcome that hold at every number of games, however few,
from a run's sums alone (n, the sum and the sum of squares of each game's value): the intervals under every
verdict on win rates and their changes (analysis.sequences).

Why not the normal-mixture sequence alone: it is asymptotic, and built on the observed sd, so 200 paired
games that happen to be identical give it an interval of width 0, a certainty 200 games cannot give. This one
is an empirical-Bernstein sequence (Waudby-Smith and Ramdas, "Estimating means of bounded random variables by
betting", JRSS B 2024; Howard, Ramdas, McAuliffe and Sekhon, "Time-uniform, nonparametric, nonasymptotic
confidence sequences", Ann. Statist. 2021): for games' values y in [0, 1] with mean mu, any bet lambda in
[0, 1) and any centre c in [0, 1] fixed before the games,

    exp(lambda * sum(y - mu) - psi(lambda) * sum((y - c)^2)),  psi(lambda) = -log(1 - lambda) - lambda,

is a nonnegative supermartingale (Fan, Grama and Liu 2015: exp(l x - psi(l) x^2) <= 1 + l x for x >= -1), and
so is any fixed mixture of them over lambda. Ville's inequality then makes {mu : mixture < 1/alpha} a lower
confidence sequence at level alpha, valid at every n at once; the upper one is the same for 1 - y. The centre
is the value of "no difference" (the fair share, or 0 for a change), known before any game, so the sums a
tally keeps are all it needs: any chunking, --jobs or backend gives the same interval. With no spread at all
the interval still has width about log(1/alpha) / (lambda n): what n games can show.

The mixture's weights sit on a geometric grid of bets, gathered around the bet that is best at the games a
verdict is planned for (`best_bet`), as the normal mixture is tightest there.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

#: the largest bet (psi grows without bound towards 1)
BET_MOST = 0.8
#: the grid of bets, each sqrt(2) below the last, down to about 1e-6 (a bet for tens of millions of games)
BETS = BET_MOST * 2.0 ** (-np.arange(40) / 2)
#: how widely the mixture's weight spreads around the planned bet, in grid steps (a normal on the log scale):
#: about a factor 8 in games either way before a weight halves twice
BET_SPREAD = 3.0
#: bets whose log weight is this far below the largest are left out of the mixture (the rest renormalised:
#: a mixture of fewer bets is as valid, and the bound moves by less than 1e-4 of the range)
_WEIGHT_FLOOR = -8.0
#: Newton steps of a bound (it converges quadratically from the left, `lower_bound`)
_STEPS = 12


def best_bet(sd: float, games: float, alpha: float) -> float:
    """The bet that makes a one-sided bound at level `alpha` tightest after `games` games of sd `sd` (on the
    [0, 1] scale): sqrt(2 log(1/alpha) / (sd^2 games)), kept within the grid."""
    if not (sd > 0 and games > 0):
        return BET_MOST
    bet = math.sqrt(2 * math.log(1 / alpha) / (sd * sd * games))
    return float(min(BET_MOST, max(BETS[-1], bet)))


def log_weights(bet: float) -> np.ndarray:
    """The log weights over BETS of the mixture planned around `bet`: a discretised normal on the grid's
    index, normalised to sum 1, -inf for the bets whose weight is negligible (`_WEIGHT_FLOOR`)."""
    where = 2 * math.log2(BET_MOST / bet)
    logw = -0.5 * ((np.arange(len(BETS)) - where) / BET_SPREAD) ** 2
    logw = np.where(logw - logw.max() > _WEIGHT_FLOOR, logw, -np.inf)
    top = logw.max()
    return logw - (top + math.log(np.exp(logw - top).sum()))


def _log_mixture(mu: np.ndarray, n: np.ndarray, total: np.ndarray, spread: np.ndarray, bets: np.ndarray,
                 logw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """log of the mixture at mean `mu`, after n games with sum `total` and centred square sum `spread`
    (each row its own log weights `logw` over `bets`), and its derivative in mu."""
    psi = -np.log1p(-bets) - bets
    exponent = logw + bets * (total - n * mu)[..., None] - psi * spread[..., None]
    top = exponent.max(axis=-1)
    weights = np.exp(exponent - top[..., None])
    mass = weights.sum(axis=-1)
    return top + np.log(mass), -n * (weights * bets).sum(axis=-1) / mass


def lower_bound(n: Any, total: Any, spread: Any, alpha: Any, logw: np.ndarray) -> np.ndarray:
    """The lower confidence sequence of the mean of values in [0, 1] at level `alpha` (one-sided), from n,
    the values' sum and their square sum about the centre, with the mixture's log weights `logw` (over
    BETS, last axis); vectorised over rows. 0 where it says nothing.

    The bound is where the log mixture, convex and falling in mu, crosses log(1/alpha). Newton's steps from
    the observed mean (where the mixture is below 1/alpha) land left of the crossing and then climb to it
    from the left: every iterate is a valid, slightly lower, bound, and _STEPS of them reach it to within
    1e-9 of the range."""
    n, total, spread, alpha = np.broadcast_arrays(*(np.asarray(x, dtype=float)
                                                    for x in (n, total, spread, alpha)))
    level = np.log(1 / alpha)
    used = np.isfinite(logw).reshape(-1, len(BETS)).any(axis=0)  # the bets some row weighs
    bets, logw = BETS[used], logw[..., used]
    some = n > 0
    mean = np.where(some, total / np.where(some, n, 1), 0.0)
    mu = mean.copy()
    for _ in range(_STEPS):
        value, slope = _log_mixture(mu, n, total, spread, bets=bets, logw=logw)
        with np.errstate(divide="ignore", invalid="ignore"):
            step = np.where(slope < 0, (value - level) / slope, 0.0)
        mu = np.clip(mu - step, -1.0, mean)
    return np.where(some, np.clip(mu, 0.0, mean), 0.0)


def bounds(mean: Any, sd: Any, n: Any, outcome: tuple[float, float],
           sides: list[tuple[float, float]]) -> list[tuple[np.ndarray, np.ndarray]]:
    """For each (one-sided level, planned bet) of `sides`, (low, high): the lower and upper sequences at
    that level each, for means of games' values in `outcome` = (a, b) with a <= 0 <= b (differences, centred
    on 0: no difference), from each member's mean, sample sd and n (the sums a tally keeps); vectorised,
    every side and bound solved together. The full range where there are no games."""
    a, b = outcome
    width = b - a
    mean, sd, n = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (mean, sd, n)))
    known = np.where(np.isfinite(mean), mean, 0.0)
    spread_sd = np.where(np.isfinite(sd) & (n > 1), sd, 0.0)
    spread = ((n - 1).clip(0) * spread_sd**2 + n * known**2) / width**2  # about the centre, 0
    total = n * (known - a) / width
    shape = mean.shape
    rows = [(n, total, spread, np.full(shape, alpha), np.broadcast_to(log_weights(bet), (*shape, len(BETS))))
            for alpha, bet in sides]
    rows += [(n, n - total, spread, alpha, logw) for n, _, spread, alpha, logw in list(rows)]  # 1 - y
    stacked = [np.concatenate([np.reshape(r[i], (-1, *r[i].shape[len(shape):])) for r in rows])
               for i in range(5)]
    low = lower_bound(*stacked).reshape(2, len(sides), *shape)
    return [(a + width * low[0, i], a + width * (1 - low[1, i])) for i in range(len(sides))]
