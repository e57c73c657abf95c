"""Confidence sequences and the statuses they decide: the statistics under every verdict (analysis.verdicts,
analysis.change_verdicts) and under the stopping rule of `--until-decided`.

A *family* is a set of means judged together against +-margin (the seats of a run, say). Each member gets
two normal-mixture confidence sequences (Waudby-Smith, Arnold, Wu, McAuliffe and Ramdas, "Time-uniform
central limit theory and asymptotic confidence sequences", Ann. Statist. 2024), valid at every number of
games at once, so a run may be looked at after every round and stopped as soon as it is decided:

- the *shown* interval, two-sided at alpha / m for m members (Bonferroni): it decides *beyond the margin*
  (an interval wholly outside +-margin) and *a real difference* (an interval that excludes 0). Calling a
  member beyond when it is not takes its lower bound failing above, or its upper bound failing below: at
  most alpha over the whole family;
- the *equivalence* interval, one-sided at alpha / m on each side (two-sided at 2 alpha / m): it decides
  *within the margin* (every member's interval inside +-margin). Calling a family within when a member is
  beyond takes that member's bound on its far side failing, one side only: at most alpha again. This is
  the two one-sided tests of equivalence testing (Schuirmann 1987), done with sequences.

Both are tightest where the decision is expected: the shown interval at a half-width of the margin, the
equivalence interval at half of it (a design chosen from the margin and a design sd, never from the data).

`forecast` answers "how many more games would decide it?" by simulating the rest of the run from what is
known now (the true means drawn around the estimates, the future games drawn around them). What its
number is worth is measured, not assumed: the sentence says how often such forecasts held in the error
study's replays (FORECAST_HELD; docs/explanation/statistics.md, scripts/error_study.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np

from analysis.bounded_sequences import best_bet
from analysis.bounded_sequences import bounds as bounded_bounds

ALPHA = 0.05
#: no verdict on fewer games: the confidence sequence's guarantee is asymptotic, and a handful of games
#: says nothing a designer should act on
MIN_GAMES = 200
#: "about N more games" is not said past this; the figure is then "more than" it
MOST_GAMES = 10_000_000
#: the continuations' quantile `forecast` gives by default
FORECAST_CHANCE = 0.8
#: how far the forecast's draws of the true means spread, in standard errors (1: the whole uncertainty of
#: the estimates; the value is chosen by the coverage study, scripts/sequential_study.py)
FORECAST_SPREAD = 0.25
#: the continuations' quantile a forecast states: the quantile whose games held in 80% of the loop's
#: forecasts at the audit's truth (0.9 pp off fair, 2 pp margin; scripts/sequential_study.py)
FORECAST_QUANTILE = 0.6
#: per question (a verdict's key; "changes" for a comparison's changes), the continuations' quantile a
#: forecast states and the spread of the draws of the true means; the seat gap's quantile is the one that
#: held in 80% at the newcomer's rates (scripts/gap_coverage.py). How often each held over the error
#: study's truths is FORECAST_HELD, which the sentence states
FORECAST_SETTINGS: dict[str, tuple[float, float]] = {
    "seats": (FORECAST_QUANTILE, FORECAST_SPREAD), "start": (FORECAST_QUANTILE, FORECAST_SPREAD),
    "tiebreak": (FORECAST_QUANTILE, FORECAST_SPREAD), "gap": (0.8, FORECAST_SPREAD),
    "changes": (FORECAST_QUANTILE, FORECAST_SPREAD)}
#: per question, the shares of the loop's forecasts "about N more games" that held (the question read
#: decided by N games in all) in the error study's replays, lowest and highest over its sources: 1,000
#: replays of three seats on drawn games and 1,000 on resampled games of expert players, each at truths
#: 0, 0.5, 0.9 and 1.25 times the margin, and 400 of a comparison (docs/explanation/statistics.md, "The
#: error study"). The sentence states them: no one quantile holds 80% at every truth, since a truth near
#: the margin makes every estimate look farther from it than it is
FORECAST_HELD: dict[str, tuple[float, float]] = {"seats": (0.589, 0.668), "start": (0.547, 0.554),
                                                 "tiebreak": (0.522, 0.616), "gap": (0.787, 0.787),
                                                 "changes": (0.587, 0.587)}


def forecast_held_text(question: str) -> str:
    """"such forecasts held in 52-62% of the error study's replays": what a forecast of `question` is
    worth, lowest and highest over the study's sources."""
    low, high = (round(100 * x) for x in FORECAST_HELD[question])
    shares = f"{low}%" if low == high else f"{low}-{high}%"
    return f"such forecasts held in {shares} of the error study's replays"


#: the quantile each next round of --until-decided plays to
ROUND_QUANTILE = 0.15

WITHIN, SMALL, BEYOND, UNDECIDED, TOO_FEW = "within", "small", "beyond", "undecided", "too_few"
#: the seat gap's answers in `balance compare` (is the variant fairer?)
FAIRER, LESS_FAIR = "fairer", "less_fair"
DECIDED = (WITHIN, SMALL, BEYOND, FAIRER, LESS_FAIR)


def z_two_sided(alpha: float) -> float:
    return NormalDist().inv_cdf(1 - alpha / 2)


def planned_games(sd: float, width: float, alpha: float) -> float:
    """The games at which a sequence is made tightest: those a single fixed-size interval at `alpha`
    needs to reach half-width `width` (chosen from the margin, never from the data)."""
    return max(float(MIN_GAMES), (z_two_sided(alpha) * sd / width) ** 2)


def half_width(sd: Any, n: Any, alpha: float, planned: float) -> np.ndarray:
    """Half-width of the two-sided normal-mixture confidence sequence of a mean after n observations of
    sample sd `sd`, tightest near `planned` observations (Waudby-Smith et al. 2024, the asymptotic Robbins
    sequence): sd * sqrt(2 (n r + 1) / (n^2 r) * log(sqrt(n r + 1) / alpha))."""
    sd, n = np.asarray(sd, dtype=float), np.asarray(n, dtype=float)
    rho2 = (-2 * math.log(alpha) + math.log(-2 * math.log(alpha) + 1)) / planned
    with np.errstate(divide="ignore", invalid="ignore"):
        return sd * np.sqrt(2 * (n * rho2 + 1) / (n * n * rho2) * np.log(np.sqrt(n * rho2 + 1) / alpha))


def games_for(width: float, sd: float, alpha: float, planned: float) -> int:
    """The fewest games whose sequence half-width is at most `width` (MOST_GAMES + 1 when none up to it)."""
    if width <= 0 or not math.isfinite(width) or not math.isfinite(sd):
        return MOST_GAMES + 1
    if sd == 0:
        return MIN_GAMES
    lo, hi = 2, MOST_GAMES
    if half_width(sd, hi, alpha, planned) > width:
        return MOST_GAMES + 1
    while lo < hi:
        mid = (lo + hi) // 2
        if half_width(sd, mid, alpha, planned) <= width:
            hi = mid
        else:
            lo = mid + 1
    return lo


@dataclass
class Design:
    """How a family's sequences are built: the family's error rate, its members, the sd they are planned
    for and the margin; each sequence's level and the games it is tightest at follow from these.
    `outcome`: the range (a, b) of one game's value, a <= 0 <= b, for a bounded outcome (a win share's
    difference from the fair share, a change of win share): its sequences are then the empirical-Bernstein
    ones of analysis.bounded_sequences, valid at every n; None (a length) keeps the normal mixture."""

    alpha: float
    members: int
    sd: float
    margin: float
    outcome: tuple[float, float] | None = None

    @property
    def alpha_each(self) -> float:
        """The shown intervals' two-sided level per member (Bonferroni)."""
        return self.alpha / self.members

    @property
    def planned(self) -> float:
        return planned_games(max(self.sd, 1e-9), self.margin, self.alpha_each)

    @property
    def eq_alpha(self) -> float:
        """The equivalence intervals' two-sided level per member: one-sided alpha / m on each side."""
        return min(2 * self.alpha_each, 0.5)

    @property
    def eq_planned(self) -> float:
        return planned_games(max(self.sd, 1e-9), self.margin / 2, self.eq_alpha)

    def half(self, sd: Any, n: Any) -> np.ndarray:
        return half_width(sd, n, self.alpha_each, self.planned)

    def eq_half(self, sd: Any, n: Any) -> np.ndarray:
        return half_width(sd, n, self.eq_alpha, self.eq_planned)

    def intervals(self, mean: Any, sd: Any, n: Any) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
        """((low, high) of the shown sequences, (low, high) of the equivalence ones) at these means, sds
        and games; vectorised."""
        levels = [(self.alpha_each, self.planned), (self.eq_alpha, self.eq_planned)]
        mean = np.asarray(mean, dtype=float)
        if self.outcome is None:
            halves = [half_width(sd, n, alpha, planned) for alpha, planned in levels]
            return tuple((mean - half, mean + half) for half in halves)
        a, b = self.outcome
        scale = max(self.sd, 1e-9) / (b - a)
        sides = [(alpha / 2, best_bet(scale, planned, alpha / 2)) for alpha, planned in levels]
        return tuple(bounded_bounds(mean, sd, n, self.outcome, sides))

    def interval(self, mean: Any, sd: Any, n: Any, eq: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """(low, high) of the shown sequences (`eq`: the equivalence ones), as `intervals`."""
        return self.intervals(mean, sd, n)[1 if eq else 0]

    def halves(self, mean: Any, sd: Any, n: Any, eq: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """(below, above): how far the sequences reach either side of the means (`interval`)."""
        low, high = self.interval(mean, sd, n, eq)
        return np.asarray(mean) - low, high - np.asarray(mean)

    def games_for(self, width: float, sd: float, eq: bool = True) -> int:
        """The fewest games at which a member with no difference and sd `sd` has an interval reaching at
        most `width` either side (MOST_GAMES + 1 when none up to it does): the plan's games."""
        if self.outcome is None:
            alpha, planned = (self.eq_alpha, self.eq_planned) if eq else (self.alpha_each, self.planned)
            return games_for(width, sd, alpha, planned)
        if width <= 0 or not math.isfinite(width) or not math.isfinite(sd):
            return MOST_GAMES + 1

        def reach(games: int) -> float:
            below, above = self.halves(0.0, sd, float(games), eq)
            return float(max(below, above))

        if reach(MOST_GAMES) > width:
            return MOST_GAMES + 1
        lo, hi = 2, MOST_GAMES
        while lo < hi:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if reach(mid) <= width else (mid + 1, hi)
        return max(MIN_GAMES, lo)


@dataclass
class Family:
    """Estimates judged together: their values, sds and games, the shown interval bounds (`low`, `high`)
    and the equivalence bounds (`eq_low`, `eq_high`), and how they were built."""

    value: np.ndarray
    sd: np.ndarray
    n: np.ndarray
    low: np.ndarray
    high: np.ndarray
    eq_low: np.ndarray
    eq_high: np.ndarray
    design: Design

    def bounds(self, eq: bool) -> tuple[np.ndarray, np.ndarray]:
        """(low, high): the equivalence bounds when `eq`, else the shown ones."""
        return (self.eq_low, self.eq_high) if eq else (self.low, self.high)


def family(mean: Any, sd: Any, n: Any, margin: float, alpha: float = ALPHA,
           sd_design: float | None = None, members: int | None = None,
           within: tuple[float, float] = (-math.inf, math.inf)) -> Family:
    """Simultaneous confidence sequences of several means at a family error rate `alpha` (module
    docstring), planned for a standard deviation `sd_design` (default: the largest sd here). `members`:
    how many of them the error rate is split over (default: all; fewer where a question's bound needs
    only some of them to hold, as the seat gap's does). `within`: the values one game's value can take (a
    win share's difference from a fair share of 1/3 lies in [-1/3, 2/3]); when both ends are finite the
    sequences are the bounded ones (analysis.bounded_sequences: valid at every n, never of width 0 while
    games can still differ), and the bounds are cut to it."""
    mean, sd, n = (np.atleast_1d(np.asarray(x, dtype=float)) for x in (mean, sd, n))
    design_sd = sd_design if sd_design is not None else float(np.nanmax(sd)) if len(sd) else 0.5
    lo, hi = within
    outcome = (float(lo), float(hi)) if math.isfinite(lo) and math.isfinite(hi) else None
    design = Design(alpha=alpha, members=members or max(1, len(mean)), sd=design_sd, margin=margin,
                    outcome=outcome)
    (low, high), (eq_low, eq_high) = design.intervals(mean, sd, n)
    return Family(value=mean, sd=sd, n=n, low=np.clip(low, lo, hi), high=np.clip(high, lo, hi),
                  eq_low=np.clip(eq_low, lo, hi), eq_high=np.clip(eq_high, lo, hi), design=design)


def intersected(now: Family, earlier: list[Family]) -> Family:
    """The running intersection of a family's sequences: each bound tightened by the same sequence's at the
    run's earlier looks (`RunManifest.looks`). A confidence sequence covers at every n at once, so the
    intersection covers whenever the sequence does, and a verdict once decided is never withdrawn by the
    same run, looked at again or extended. A member whose intersection is empty (the sequence has missed,
    which it does in at most alpha of runs) keeps its bounds of now."""
    bounds = [now.low, now.high, now.eq_low, now.eq_high]
    for old in earlier:
        if old.value.shape != now.value.shape:
            continue
        low, high = np.maximum(bounds[0], old.low), np.minimum(bounds[1], old.high)
        eq_low, eq_high = np.maximum(bounds[2], old.eq_low), np.minimum(bounds[3], old.eq_high)
        keep = (low <= high) & (eq_low <= eq_high)
        bounds = [np.where(keep, new, cur) for new, cur in zip((low, high, eq_low, eq_high), bounds,
                                                               strict=True)]
    return Family(value=now.value, sd=now.sd, n=now.n, low=bounds[0], high=bounds[1], eq_low=bounds[2],
                  eq_high=bounds[3], design=now.design)


def statuses(value: np.ndarray, shown: tuple[np.ndarray, np.ndarray], eq: tuple[np.ndarray, np.ndarray],
             margin: float) -> np.ndarray:
    """The status of families of differences against +-margin, vectorised over leading axes (the last
    axis holds the members): beyond, within, small or undecided (module docstring), from the shown and the
    equivalence intervals' (low, high) bounds."""
    beyond, inside = _decisions(shown, eq, margin)
    low, high = shown
    real = ((low > 0) | (high < 0)).any(axis=-1)
    out = np.where(beyond, BEYOND, np.where(inside, np.where(real, SMALL, WITHIN), UNDECIDED))
    return out.astype(object)


def _decisions(shown: tuple[np.ndarray, np.ndarray], eq: tuple[np.ndarray, np.ndarray],
               margin: float) -> tuple[np.ndarray, np.ndarray]:
    """(beyond, inside) per family: a shown interval wholly outside +-margin; every equivalence interval
    inside it."""
    (low, high), (eq_low, eq_high) = shown, eq
    beyond = ((low > margin) | (high < -margin)).any(axis=-1)
    inside = ((eq_low >= -margin) & (eq_high <= margin)).all(axis=-1)
    return beyond, inside


def classify(fam: Family, margin: float) -> str:
    """The status of a family of differences against +-margin (module docstring); too few games below
    MIN_GAMES."""
    if len(fam.n) == 0 or np.nanmin(fam.n) < MIN_GAMES or not np.all(np.isfinite(fam.low)):
        return TOO_FEW
    return str(statuses(fam.value, (fam.low, fam.high), (fam.eq_low, fam.eq_high), margin)[()])


def deciding_members(fam: Family, margin: float, status: str) -> list[int]:
    """The members whose intervals decided `status`: for beyond, those wholly outside the margin (largest
    distance first); for within or small, the member nearest its margin (the one that decided last); for
    undecided, the members still straddling a margin."""
    if status == BEYOND:
        out = np.flatnonzero((fam.low > margin) | (fam.high < -margin))
        return sorted(out.tolist(), key=lambda i: -abs(fam.value[i]))
    if status in (WITHIN, SMALL):
        reach = np.maximum(fam.eq_high, -fam.eq_low)
        return [int(np.nanargmax(reach))]
    if status == UNDECIDED:
        open_ = np.flatnonzero(~((fam.eq_low >= -margin) & (fam.eq_high <= margin)))
        return sorted(open_.tolist(), key=lambda i: -abs(fam.value[i]))
    return [int(np.nanargmax(np.abs(fam.value)))] if len(fam.value) else []


# ---- the forecast ---------------------------------------------------------------------------------------
#: future sizes the forecast looks at: the games in hand times these factors
_GRID = np.unique(np.round(np.geomspace(1.0, 256.0, 161), 4))[1:]


#: sizes whose sequences a forecast computes in one call (most forecasts decide within a few dozen)
_SIZES_AT_ONCE = 24


def _reach(fam: Family, sd: np.ndarray, sizes: np.ndarray) -> list[tuple[np.ndarray, ...]]:
    """Per size, (below, above, eq_below, eq_above): how far the shown and equivalence sequences reach
    either side of the family's estimates at that many games."""
    shown, eq = fam.design.intervals(fam.value[None, :], sd[None, :], sizes[:, None])
    parts = (fam.value - shown[0], shown[1] - fam.value, fam.value - eq[0], eq[1] - fam.value)
    return [tuple(p[j] for p in parts) for j in range(len(sizes))]


def forecast_draws(members: int) -> int:
    """How many continuations a forecast simulates: 2,000, fewer for a family of hundreds of members (the
    seat gap's contrasts at 5 or 6 seats) so that a forecast takes about a second."""
    return max(400, min(2000, 300_000 // max(1, members)))


def forecast(fam: Family, margin: float, chance: float = FORECAST_CHANCE, draws: int | None = None,
             decide: Any = None) -> int | None:
    """The games in all by which the family is decided in `chance` of the ways the run can go on
    (`forecasts`, one chance)."""
    return forecasts(fam, margin, (chance,), draws, decide)[0]


def stated_forecasts(fam: Family, margin: float, decide: Any = None, loadings: np.ndarray | None = None,
                     question: str = "seats") -> tuple[int | None, int | None]:
    """(the next round's target, the stated forecast): the continuations' ROUND_QUANTILE and the
    question's quantile of FORECAST_SETTINGS (drawn at its spread), the latter said with how often such
    forecasts held in the error study (FORECAST_HELD)."""
    quantile, spread = FORECAST_SETTINGS[question]
    soon, needed = forecasts(fam, margin, (ROUND_QUANTILE, quantile), decide=decide, loadings=loadings,
                             spread=spread)
    return soon, needed


def forecasts(fam: Family, margin: float, chances: tuple[float, ...] = (ROUND_QUANTILE, FORECAST_QUANTILE),
              draws: int | None = None, decide: Any = None, spread: float = FORECAST_SPREAD,
              loadings: np.ndarray | None = None) -> list[int | None]:
    """The games in all by which the family is decided in each of `chances` of the ways the run can go on
    (None when that is past 256 times the games in hand, or past MOST_GAMES).

    The rest of the run is simulated from what is known now: each member's true mean is drawn from the
    normal around its estimate (its standard error at the games in hand), then the future games' mean
    around it, and the family's status is read at future sizes on a fine grid; a chance's quantile of the
    first decided size is its forecast. `decide(value, n) -> bool array` replaces the status test (for a
    question that is not a plain family, such as the seat gap). `loadings` (members x r): one game's
    member values as combinations of r independent unit normals, where the members share their sums (the
    seat gap's contrasts); by default each member varies on its own. Seeded by the games in hand: the
    same tally gives the same forecast."""
    n0 = float(np.nanmin(fam.n))
    if not np.isfinite(n0) or n0 < 2:
        return [None for _ in chances]
    draws = draws or forecast_draws(len(fam.value))
    rng = np.random.default_rng([int(n0), len(fam.value), 46])
    sd = np.where(np.isfinite(fam.sd), fam.sd, 0.0)
    shape = (draws, len(sd))
    centred = len(sd) > 1 and abs(float(np.nansum(fam.value))) < 1e-9  # shares of one game: sum 0

    def noise() -> np.ndarray:  # one game's deviations of the members from their means, per draw
        if loadings is not None:
            return rng.standard_normal((draws, loadings.shape[1])) @ loadings.T
        z = rng.standard_normal(shape)
        if centred:  # the members' sum stays 0, each with unit variance
            z = (z - z.mean(axis=1, keepdims=True)) * math.sqrt(len(sd) / (len(sd) - 1))
        return z * sd

    truth = fam.value + spread * noise() / math.sqrt(n0)
    sizes = n0 * _GRID
    total = fam.value * n0  # the running sums, per draw
    total = np.broadcast_to(total, truth.shape).copy()
    first = np.full(draws, np.inf)
    have = n0


    reach: list = []  # the sequences' reach either side at the estimates, every draw alike, by size
    for i, size in enumerate(sizes):
        step = size - have
        total += truth * step + noise() * math.sqrt(step)
        have = size
        mean = total / size
        if decide is None:
            if i == len(reach):  # the next sizes' reach in one vectorised call
                reach += _reach(fam, sd, sizes[i:i + _SIZES_AT_ONCE])
            below, above, eq_below, eq_above = reach[i]
            beyond, inside = _decisions((mean - below, mean + above), (mean - eq_below, mean + eq_above),
                                        margin)
            done = beyond | inside
        else:
            done = decide(mean, size)
        first = np.where(np.isinf(first) & done, size, first)
        if np.mean(np.isfinite(first)) >= max(chances):
            break
    ordered = np.sort(first)
    out: list[int | None] = []
    for chance in chances:
        at = float(ordered[max(0, math.ceil(chance * draws) - 1)])
        out.append(int(math.ceil(at)) if np.isfinite(at) and at <= MOST_GAMES else None)
    return out
