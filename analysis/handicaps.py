"""Seat handicaps from any run's games: each seat's win share re-scored with a whole bonus added to its
final score alone (the game's own tie-break, `ValuesStudy.shares`), summed chunk by chunk as whole numbers
(`handicap_tally`, merged exactly), and the whole bonus (or penalty) that brings a seat closest to the fair
share 1/N, 0 when none brings it closer than no bonus, with the share it gives and that share's 95% interval
(`handicap_from`). The game comes in as its spec: this module looks nothing up.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from analysis.sequences import family
from analysis.tally import SHARE_SCALE, mean_sd, share_units
from sim.core.game_spec import GameSpec

BONUS_RANGE = 40          # bonuses -40..40 points are tried (a larger one decides any game we measured)
BONUSES = np.arange(-BONUS_RANGE, BONUS_RANGE + 1, dtype=float)  # the whole bonuses a seat is re-scored at


def whole_bonus(curve: np.ndarray, target: float, bonuses: np.ndarray) -> float:
    """The whole bonus at which the nondecreasing `curve` (a seat's share or gain at each of `bonuses`, whole
    and ascending, holding 0) reaches `target`, searched outwards from 0: below the target at 0, the
    smallest bonus where the curve is at or above it; above it, the smallest penalty where the curve is at or
    below it; 0 when it is there at 0 (a plateau around 0 does not move it). Scores are whole, so the curve
    jumps at whole bonuses and nothing between two can be given. +-inf when the target lies outside the
    curve's range."""
    zero = int(np.flatnonzero(bonuses == 0)[0])
    at = curve[zero]
    if not np.isfinite(at) or not np.isfinite(target):
        return float("nan")
    if abs(at - target) <= 1e-12:
        return 0.0
    if at < target:
        up = np.flatnonzero(curve[zero:] >= target - 1e-12)
        return float(bonuses[zero + up[0]]) if len(up) else np.inf
    down = np.flatnonzero(curve[zero::-1] <= target + 1e-12)
    return float(bonuses[zero - down[0]]) if len(down) else -np.inf


def closest_bonus(curve: np.ndarray, target: float, bonuses: np.ndarray) -> float:
    """The whole bonus at which the nondecreasing `curve` (a seat's share at each of `bonuses`, whole and
    ascending, holding 0) comes closest to `target`; of equally close bonuses the smallest in size, so 0
    when no bonus gets closer than none. Scores are whole, so the curve jumps at whole bonuses and nothing
    between two can be given: the smallest bonus reaching the target may overshoot it by more than the one
    before falls short. +-inf when the closest is an end of the range and the curve has not reached the
    target there (a larger bonus might come closer); NaN when the curve at 0 or the target is not finite."""
    zero = int(np.flatnonzero(bonuses == 0)[0])
    if not np.isfinite(curve[zero]) or not np.isfinite(target):
        return float("nan")
    gap = np.abs(np.asarray(curve, dtype=float) - target)
    gap[~np.isfinite(gap)] = np.inf
    near = np.flatnonzero(gap <= gap.min() + 1e-12)
    k = int(near[np.argmin(np.abs(bonuses[near]))])  # ties: the smallest in size (of +-b, the penalty)
    if k == len(bonuses) - 1 and curve[k] < target - 1e-12:
        return np.inf
    if k == 0 and curve[k] > target + 1e-12:
        return -np.inf
    return float(bonuses[k])


def other_side(curve: np.ndarray, target: float, bonuses: np.ndarray, bonus: float) -> float:
    """The whole bonus nearest `bonus` at which the nondecreasing `curve` lies on the other side of
    `target` (at or past it): with `closest_bonus` it brackets the target. NaN when the curve is at the
    target at `bonus`, or never crosses it within the range."""
    if not np.isfinite(bonus):
        return float("nan")
    k = int(np.flatnonzero(bonuses == bonus)[0])
    if curve[k] < target - 1e-12:
        past = np.flatnonzero(curve[k + 1:] >= target - 1e-12)
        return float(bonuses[k + 1 + past[0]]) if len(past) else float("nan")
    if curve[k] > target + 1e-12:
        past = np.flatnonzero(curve[:k] <= target + 1e-12)
        return float(bonuses[past[-1]]) if len(past) else float("nan")
    return float("nan")


#: games re-scored at once by `handicap_tally` (its temporaries grow with games x seats)
HANDICAP_SLICE = 8192


def _breakpoints(score: np.ndarray, columns: dict[str, np.ndarray], shares: Callable, rule: str,
                 seat: int) -> tuple[np.ndarray, np.ndarray]:
    """A seat's breakpoints (the other seats' scores minus its own, sorted: (games, P - 1)) and its
    re-scored win share below them all, at each, between each two and above them all ((games, 2P - 1), in
    that order)."""
    games, players = score.shape
    cuts = np.sort(np.delete(score, seat, axis=1) - score[:, [seat]], axis=1)
    points = np.empty((games, 2 * players - 1))
    points[:, 0] = cuts[:, 0] - 0.5
    points[:, 1::2] = cuts
    points[:, 2:-1:2] = (cuts[:, :-1] + cuts[:, 1:]) / 2
    points[:, -1] = cuts[:, -1] + 0.5
    width = points.shape[1]
    stacked = np.repeat(score[None], width, axis=0)  # (point, game, seat)
    stacked[:, :, seat] += points.T
    cols = {n: np.broadcast_to(m, (width, *m.shape)).reshape(-1, players) for n, m in columns.items()}
    at = shares(stacked.reshape(-1, players), cols, rule).reshape(width, games, players)[:, :, seat].T
    return cuts, at


def _scores_compare(score: np.ndarray) -> bool:
    """Whether `_breakpoints` applies: every seat present and at least two."""
    return score.shape[1] >= 2 and not np.isnan(score).any()


def seat_shares_by_bonus(score: np.ndarray, columns: dict[str, np.ndarray], shares: Callable, rule: str, *,
                         seat: int, bonuses: np.ndarray) -> np.ndarray:
    """(bonuses, games): `seat`'s win share with each bonus added to its score alone, the games re-scored.

    A re-scoring compares scores: a seat's share depends on its bonus only through which of the other
    scores its own lies above, on or below. So each game is re-scored at its breakpoints (the other
    seats' scores minus the seat's) and once inside each interval between them, 2P - 1 re-scorings
    instead of one per bonus, and every bonus takes the share of its breakpoint or interval. Games with a
    missing seat (NaN) are re-scored at every bonus."""
    if not _scores_compare(score):
        out = np.empty((len(bonuses), len(score)))
        for b, bonus in enumerate(bonuses):
            moved = score.copy()
            moved[:, seat] += bonus
            out[b] = shares(moved, columns, rule)[:, seat]
        return out
    cuts, at = _breakpoints(score, columns, shares, rule, seat)
    below = (cuts[None, :, :] < bonuses[:, None, None]).sum(axis=2)  # (bonus, game)
    on = (cuts[None, :, :] == bonuses[:, None, None]).any(axis=2)
    return np.take_along_axis(at.T, 2 * below + on, axis=0)


def _bonus_sums(cuts: np.ndarray, units: np.ndarray, reach: int) -> tuple[np.ndarray, np.ndarray]:
    """Sum and square sum over the games of a seat's share (units: (games, 2P - 1) at `_breakpoints`) at
    each whole bonus -reach..reach, whole-number breakpoints given: each breakpoint and interval covers a
    range of bonuses, added over it by a difference array, so the cost grows with the seats, not with the
    bonuses."""
    games, width = units.shape
    low = np.empty((games, width), dtype=np.int64)
    high = np.empty((games, width), dtype=np.int64)
    c = cuts.astype(np.int64)
    low[:, 0], high[:, 0] = -reach, c[:, 0] - 1  # below every breakpoint
    low[:, 1::2], high[:, 1::2] = c, c  # on a breakpoint (the first of equal ones)
    low[:, 3::2][c[:, 1:] == c[:, :-1]] = reach + 1
    low[:, 2:-1:2], high[:, 2:-1:2] = c[:, :-1] + 1, c[:, 1:] - 1  # between two
    low[:, -1], high[:, -1] = c[:, -1] + 1, reach  # above them all
    low, high = np.maximum(low, -reach), np.minimum(high, reach)
    keep = low <= high
    start, stop = (low[keep] + reach), (high[keep] + reach + 1)
    size = 2 * reach + 2
    out = []
    for weights in (units[keep].astype(float), units[keep].astype(float) ** 2):
        diff = np.bincount(start, weights, minlength=size) - np.bincount(stop, weights, minlength=size)
        out.append(np.rint(np.cumsum(diff)[:-1]).astype(np.int64))
    return out[0], out[1]


def handicap_tally(score: np.ndarray, columns: dict[str, np.ndarray], shares: Callable,
                   rule: str) -> dict[str, Any]:
    """What `handicap_from` needs of some games (score: (games, seats)), as whole numbers: per seat and
    bonus (-BONUS_RANGE..BONUS_RANGE points added to that seat's score alone) the sum and square sum
    over the games of the seat's re-scored win share (`seat_shares_by_bonus`), in 1/SHARE_SCALE."""
    games, players = score.shape
    units = np.zeros((players, len(BONUSES)), dtype=np.int64)
    squares = np.zeros((players, len(BONUSES)), dtype=np.int64)
    whole = _scores_compare(score) and bool(np.all(score == np.round(score)))
    for lo in range(0, games, HANDICAP_SLICE):
        part = score[lo:lo + HANDICAP_SLICE]
        cols_part = {n: m[lo:lo + HANDICAP_SLICE] for n, m in columns.items()}
        for j in range(players):
            if whole:  # whole-number scores: each breakpoint's and interval's bonuses at once
                cuts, at = _breakpoints(part, cols_part, shares, rule, j)
                total, square = _bonus_sums(cuts, share_units(at), BONUS_RANGE)
            else:
                won = share_units(seat_shares_by_bonus(part, cols_part, shares, rule, seat=j,
                                                       bonuses=BONUSES))
                total, square = won.sum(axis=1), (won * won).sum(axis=1)
            units[j] += total
            squares[j] += square
    return {"games": games, "units": units, "squares": squares}


def handicap_from(tally: dict[str, Any]) -> pd.DataFrame:
    """The whole points each seat would need added to its final score (negative: taken away) to bring its
    win share closest to the fair share 1/N, from a (merged) `handicap_tally`. Scores are whole, so a seat's
    re-scored share jumps at whole bonuses: the handicap is the whole bonus whose mean share lies closest to
    1/N (`closest_bonus`; 0 when no bonus gets closer than none), which may fall short of 1/N or pass it.

    Columns ``seat, handicap_points, share_at_handicap, share_ci_low, share_ci_high, ci_low, ci_high,
    other_points, share_at_other, other_ci_low, other_ci_high, n``: the share the handicap gives and its
    95% interval over games, a confidence sequence (`share_sequences`; the share is a mean of per-game
    win shares of the same games);
    ci_low, ci_high the handicap's 95% interval, whole, by test inversion: the same search on the upper and
    on the lower bound of the share's interval at every bonus (widened to hold the handicap; NaN where that
    leaves the bonus range); other_* the whole bonus nearest the handicap on the other side of 1/N
    (`other_side`) and its share, so the two bracket the fair share (NaN when the handicap gives 1/N)."""
    n = int(tally["games"])
    players = tally["units"].shape[0]
    fair = 1.0 / players
    rows = []
    for j in range(players):
        moments = [mean_sd(n, int(u), int(q), SHARE_SCALE)
                   for u, q in zip(tally["units"][j], tally["squares"][j], strict=True)]
        mean = np.array([m for m, _ in moments])
        bounds = share_sequences(mean, np.array([sd for _, sd in moments]), n, fair)
        value = closest_bonus(mean, fair, BONUSES)
        other = other_side(mean, fair, BONUSES, value)
        # the share rises with the bonus, the bonus closest to 1/N falls: a higher bound needs less
        low, high = closest_bonus(bounds[1], fair, BONUSES), closest_bonus(bounds[0], fair, BONUSES)
        if np.all(np.isfinite(bounds)) and np.all(np.isfinite([low, high, value])):
            low, high = min(low, value), max(high, value)
        else:
            low, high = float("nan"), float("nan")
        rows.append({"seat": j, "handicap_points": float(value),
                     **_share_at(mean, bounds, value, names=HANDICAP_NAMES),
                     "ci_low": float(low), "ci_high": float(high),
                     "other_points": other,
                     **_share_at(mean, bounds, other, names=OTHER_NAMES),
                     "n": n})
    return pd.DataFrame(rows)


HANDICAP_NAMES = ("share_at_handicap", "share_ci_low", "share_ci_high")
OTHER_NAMES = ("share_at_other", "other_ci_low", "other_ci_high")


def share_sequences(mean: np.ndarray, sd: np.ndarray, n: int, fair: float) -> np.ndarray:
    """(2, bonuses): each bonus's mean re-scored share's 95% interval, a confidence sequence of a share in
    [0, 1] (analysis.sequences, bounded: valid however the run was stopped, a fixed-size interval is not
    after --until-decided), each bonus on its own; NaN with fewer than two games."""
    if n < 2:
        return np.full((2, len(mean)), np.nan)
    fam = family(mean - fair, sd, np.full(len(mean), float(n)), 0.02, 0.05, members=1,
                 sd_design=math.sqrt(fair * (1 - fair)), within=(-fair, 1 - fair))
    return np.array([fam.low + fair, fam.high + fair])


def _share_at(mean: np.ndarray, bounds: np.ndarray, bonus: float, *,
              names: tuple[str, ...]) -> dict[str, float]:
    """The mean share at a whole `bonus` and its interval (`bounds`: lows and highs, within [0, 1]), under
    `names`; NaN for a bonus that is not finite."""
    if not np.isfinite(bonus):
        return dict.fromkeys(names, float("nan"))
    k = int(bonus) + BONUS_RANGE
    low, high = np.clip(bounds[:, k], 0.0, 1.0)
    return dict(zip(names, (float(mean[k]), float(low), float(high)), strict=True))


def seats_decide(rules) -> bool:
    """Whether a run's seats' scores alone decide its winners, so that re-scoring them with a bonus is
    the run's rule: a game's rules may say not (`seats_decide` false: a neutral painter competes for the
    win, so the fair share is no longer 1/N); then no points figure is given."""
    return bool(getattr(rules, "seats_decide", True))


def handicap_table(held: dict[str, Any] | None, spec: GameSpec) -> pd.DataFrame | None:
    """`handicap_from` of a run's merged handicap sums (`analysis.run_tally.run_handicap_tally` of each
    chunk; the report's tally holds them, `analysis.run_tally.RunTally.handicap`), in the game's score
    unit (``attrs["unit"]``: points, tokens); None without sums (a game without a re-scoring rule, or a run
    its seats' scores do not decide, `seats_decide`)."""
    if not held:
        return None
    out = handicap_from(held)
    study = spec.values
    if study is not None:
        out.attrs["unit"] = study.score_unit  # the game's own score unit: points, tokens
    return out
