"""Did a change of the rules make the game fairer? Paired verdicts of a variant against its base, played on
the same seeds (`balance compare`), from the two runs' pair sums (analysis.paired.pair_sums, merged over
chunks).

Game i of both runs was dealt from the same seed, so each question's change is the mean of per-game
differences, and the luck of the deal drops out. Each change is judged against the question's margin as in
analysis.verdicts (confidence sequences, simultaneous over the seats): *no change, equivalent within the
margin*, *a small change* (real, within the margin), *changed* (beyond the margin) or *undecided*. Whether
the seats got fairer is read off the seat gap (largest minus smallest seat win rate) before and after, with
the interval of its change (analysis.paired.compare_sums: a parametric bootstrap of the paired seat rates).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from scipy.stats import beta

from analysis.paired import NEUTRAL_RULE, paired_tally, same_games
from analysis.tally import SHARE_SCALE, hist_moments, mean_sd
from analysis.verdicts import (
    ALPHA,
    BEYOND,
    DEFAULT_MARGINS,
    FAIRER,
    LESS_FAIR,
    MIN_GAMES,
    SMALL,
    TOO_FEW,
    UNDECIDED,
    WITHIN,
    Family,
    Margins,
    Verdict,
    classify,
    deciding_members,
    error_split,
    family,
    family_estimate,
    intersected,
    more_games_text,
    pp,
    pp_interval,
    stated_forecasts,
)

CHANGE_WORDS = {WITHIN: "no change beyond the margin", SMALL: "a small change, within the margin",
                BEYOND: "changed beyond the margin", UNDECIDED: "undecided", TOO_FEW: "too few games",
                FAIRER: "fairer", LESS_FAIR: "less fair"}
#: what each judged family of a comparison is called in the error split
COMPARE_NAMES = {"gap": "the seat gap", "seats": "the seat changes", "start": "the start player",
                 "ties": "ties", "tiebreak": "what the tie-break does", "length": "length"}


#: the pair sums of a comparison's earlier looks, in game order
Looks = Sequence[dict[str, Any]]


def over_looks(make: Callable[[dict[str, Any]], Family], pair: dict[str, Any], looks: Looks) -> Family:
    """`make(pair)`'s family intersected with the same family at each earlier look (the pair sums of the
    first games, `looks`): the running intersection (analysis.sequences.intersected), so a verdict once
    decided stays decided."""
    return intersected(make(pair), [make(earlier) for earlier in looks])


#: the sds the tie and length sequences are planned for (per-game differences: tied or not, and a length
#: difference in the game's unit)
TIE_SD_DESIGN, LENGTH_SD_DESIGN = 0.3, 3.0
#: the sd the tie-break's change is planned for: a per-game difference of two runs' effects on a seat, each
#: about 0.2 (analysis.verdicts.tiebreak_family), on the same deals
TIEBREAK_SD_DESIGN = 0.3


def compare_split(margins: Margins, players: int = 3, fairer: bool = True,
                  tiebreak: bool = False) -> dict[str, float]:
    """The error split of a comparison: the seats question judges the seat gap and the seat changes; with
    two players (or without the gap: two levels compared) the seat changes alone, since two players' gap is
    twice one seat's distance from half, the same question asked with a wider interval. `tiebreak`: the
    ties question judges what the tie-break does (`tiebreak_change`), not how often ties happen."""
    gap = ["gap"] if fairer and players > 2 else []
    ties = "tiebreak" if tiebreak else "ties"
    judged = (gap + ["seats"] if margins.judges("seats") else []) + [
        ties if q == "ties" else q for q in ("start", "ties", "length") if margins.judges(q)]
    return error_split(judged)


def _seat_changes(pair: dict[str, Any], k: int) -> tuple[np.ndarray, np.ndarray]:
    """Each seat's per-game change of win share (variant minus base): means and sds from the pair sums."""
    weights = np.zeros((k, 2 * k), dtype=np.int64)
    weights[np.arange(k), np.arange(k)], weights[np.arange(k), k + np.arange(k)] = 1, -1
    return _contrast_moments(pair, weights)


def _contrast_moments(pair: dict[str, Any], weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Means and sds of per-game contrasts (rows of whole-number `weights` over the pair's 2k seat
    columns, the variant's seats first), exact from the pair sums."""
    u, c = np.asarray(pair["units"]).astype(object), np.asarray(pair["cross"]).astype(object)  # exact ints
    moments = [mean_sd(int(pair["games"]), int(w @ u), int(w @ c @ w), SHARE_SCALE) for w in weights]
    return np.array([m for m, _ in moments]), np.array([sd for _, sd in moments])


def _judged(key: str, question: str, topic: str, fam: Any, *, margin: float, margin_text: str, n: int,
            what: Any, pace: float | None, unit: str = "pp", described: str = "") -> Verdict:
    """A change judged against its margin: `what(members, eq)` says the named members' changes with the
    interval that decided them; `described` adds figures no test judged, labelled as such."""
    status = classify(fam, margin)
    named = deciding_members(fam, margin, status) or [int(np.nanargmax(np.abs(fam.value)))]
    eq = status in (WITHIN, SMALL)
    soon, needed = stated_forecasts(fam, margin, question="changes") if status == UNDECIDED else (None, None)
    more = f"; {more_games_text(needed, n, pace, 'changes')}" if status == UNDECIDED else ""
    said = what(named, eq) + more + (f". {described}" if described else "")
    sentence = f"{topic}: {CHANGE_WORDS[status]} ({margin_text}): {said}."
    return Verdict(key, question, status, sentence, **family_estimate(fam, named[0], status), unit=unit,
                   margin=margin, n=n, needed=needed, soon=soon, short=f"{said}.",
                   detail={"named": named, "alpha": fam.design.alpha},
                   forecast_key="changes" if status == UNDECIDED else None)


def _described(key: str, question: str, topic: str, fam: Any, *, n: int, what: str, unit: str = "pp",
               extra: str = "", why: str = "") -> Verdict:
    """A change not asked about (or, `why`, judged by another verdict): its figure and interval, no
    status."""
    said = f"{what} (a description, not judged: {why or f'--questions {key} judges it'}){extra}"
    return Verdict(key, question, "info", f"{topic}: {said}.", **family_estimate(fam, 0), unit=unit,
                   margin=None, n=n, short=f"{said}.")


def _seats_family(pair: dict[str, Any], k: int, margin: float, alpha: float) -> Any:
    """Every seat's per-game change of win share as one family of sequences."""
    mean, sd = _seat_changes(pair, k)
    fair = 1 / k
    return family(mean, sd, np.full(k, float(pair["games"])), margin, alpha,
                  sd_design=math.sqrt(2 * fair * (1 - fair)), within=(-1, 1))


def _start_family(pair: dict[str, Any], k: int, margin: float, alpha: float) -> Any:
    """The start player's (seat 0's) per-game change of win share."""
    mean, sd = _seat_changes(pair, k)
    return family(mean[:1], sd[:1], np.array([float(pair["games"])]), margin, alpha,
                  sd_design=math.sqrt(2 / k * (1 - 1 / k)), within=(-1, 1))


def seat_change(pair: dict[str, Any], k: int, margins: Margins, pace: float | None,
                alpha: float = ALPHA, looks: Looks = ()) -> Verdict:
    """Every seat's change of win rate as one family; the seats named are those that decided it. `looks`:
    the pair sums at the comparison's earlier looks (`over_looks`)."""
    n = int(pair["games"])
    fam = over_looks(lambda p: _seats_family(p, k, margins.seats, alpha), pair, looks)

    def what(named: list[int], eq: bool) -> str:
        low, high = fam.bounds(eq)
        return "; ".join(f"seat {s} {pp(fam.value[s])} {pp_interval(low[s], high[s], margins.seats)}"
                         for s in named)

    verdict = _judged("seats", "Did the seats' win rates change?", "Seats", fam, margin=margins.seats,
                      margin_text=f"{margins.text('seats')} in any seat's win rate", n=n, what=what,
                      pace=pace)
    verdict.detail["seat_changes"] = [{"seat": s, "change": float(fam.value[s]), "ci_low": float(fam.low[s]),
                                       "ci_high": float(fam.high[s])} for s in range(k)]
    return verdict


# ---- the seat gap: is the variant fairer? ---------------------------------------------------------------
#: the seat gap's sequences are tightest where a change of this many margins is told from none: a variant
#: worth comparing moves the gap by several pp, and "fairer" is decided once the interval leaves 0
GAP_PLANNED_MARGINS = 2.0


def _ordered(k: int) -> list[tuple[int, int]]:
    return [(i, j) for i in range(k) for j in range(k) if i != j]


def gap_weights(k: int) -> np.ndarray:
    """The seat gap's per-game contrasts as weights over a pair's 2k seat columns: every "(variant seat i -
    seat j) - (base seat a - seat b)", i != j and a != b ((i, j) major), then each seat's own change
    "variant seat i - base seat i"."""
    pairs = _ordered(k)
    weights = np.zeros((len(pairs) ** 2 + k, 2 * k), dtype=np.int64)
    for row, ((i, j), (a, b)) in enumerate((p, q) for p in pairs for q in pairs):
        weights[row, [i, j, k + a, k + b]] = (1, -1, -1, 1)
    for i in range(k):
        weights[len(pairs) ** 2 + i, [i, k + i]] = (1, -1)
    return weights


def gap_family(pair: dict[str, Any], k: int, margin: float, alpha: float) -> Any:
    """The contrasts of `gap_weights` as confidence sequences, two-sided at alpha / (k(k-1) + 1) each:
    the seat gap's change is bounded from them (`gap_bounds`) by k(k-1) one-sided bounds on each side and
    two of the seats' own changes, so the error rate is split that many ways, not over every contrast."""
    mean, sd = _contrast_moments(pair, gap_weights(k))
    return family(mean, sd, np.full(len(mean), float(pair["games"])), GAP_PLANNED_MARGINS * margin, alpha,
                  sd_design=2 / math.sqrt(k), members=len(_ordered(k)) + 1, within=(-2, 2))


def gap_loadings(pair: dict[str, Any], k: int) -> np.ndarray:
    """One game's contrasts (`gap_weights`) as combinations of 2k independent unit normals: the
    contrasts' weights times a square root of the seat shares' per-game covariance, so the forecast moves
    them together as the games do."""
    n = int(pair["games"])
    mean = np.asarray(pair["units"], dtype=float) / (n * SHARE_SCALE)
    cov = np.asarray(pair["cross"], dtype=float) / (n * SHARE_SCALE**2) - np.outer(mean, mean)
    values, vectors = np.linalg.eigh(cov)
    return gap_weights(k) @ (vectors * np.sqrt(np.clip(values, 0.0, None)))


def gap_bounds(low: np.ndarray, high: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Bounds on (variant gap - base gap), gap = largest minus smallest seat win rate, from bounds L, U on
    the contrasts X[ij, ab] = (V_i - V_j) - (B_a - B_b) and the seats' own changes D_i = V_i - B_i (last
    axis, as `gap_weights`).

    Upper: for the variant's extremes (I, J), gap_V - gap_B <= X[IJ, ab] for every (a, b), as gap_B >=
    B_a - B_b; so min_ab max_ij U[ij, ab] >= the change whenever U[IJ, ab] holds for every (a, b). Lower:
    for the base's extremes (A, Z), the change >= X[ij, AZ] for every (i, j); so max_ij min_ab L[ij, ab]
    <= the change whenever L[ij, AZ] holds for every (i, j). Each side rests on k(k-1) one-sided bounds.
    Both are intersected with [min D - max D, max D - min D], which holds when the bounds of the largest
    and the smallest true D hold (exact on identical games: every D is 0)."""
    m = k * (k - 1)
    grid = (*low.shape[:-1], m, m)
    L, U = low[..., : m * m].reshape(grid), high[..., : m * m].reshape(grid)
    dl, du = low[..., m * m:], high[..., m * m:]
    lower = np.maximum(L.min(axis=-1).max(axis=-1), dl.min(axis=-1) - du.max(axis=-1))
    upper = np.minimum(U.max(axis=-2).min(axis=-1), du.max(axis=-1) - dl.min(axis=-1))
    return lower, upper


def gap_status(lower: Any, upper: Any, margin: float) -> Any:
    """Fairer (the whole interval of the change below 0), less fair (above 0), no change beyond the margin
    (inside +-margin, holding 0), else undecided; vectorised."""
    within = (lower >= -margin) & (upper <= margin)
    return np.where(upper < 0, FAIRER, np.where(lower > 0, LESS_FAIR, np.where(within, WITHIN, UNDECIDED)))


def gap_decider(fam: Any, k: int, margin: float) -> Any:
    """`decide(means, games) -> bool array` for the forecast: whether the seat gap would be decided with
    these contrast means at that many games (the family's sds held)."""
    def decide(mean: np.ndarray, size: float) -> np.ndarray:
        below, above = fam.design.halves(fam.value, fam.sd, size)  # at the estimates, every draw alike
        return gap_status(*gap_bounds(mean - below, mean + above, k), margin) != UNDECIDED
    return decide


def _gap(c: dict[str, Any]) -> float:
    rates = c["seat_units"] / (c["seat_games"] * SHARE_SCALE)
    return float(rates.max() - rates.min())


def _gap_numbers(base: dict[str, Any], variant: dict[str, Any], lower: float, upper: float,
                 margin: float | None = None) -> str:
    """"11.2 -> 5.0 pp, -6.2 pp [-9.0, -3.1]" (bounds kept off 0 and the `margin` it was judged at)."""
    change = _gap(variant) - _gap(base)
    return (f"{100 * _gap(base):.1f} -> {100 * _gap(variant):.1f} pp, {pp(change)} "
            f"{pp_interval(lower, upper, margin)}")


def gap_verdict(pair: dict[str, Any], k: int, base: dict[str, Any], variant: dict[str, Any], *,
                margins: Margins, pace: float | None, alpha: float = ALPHA, looks: Looks = ()) -> Verdict:
    """Is the variant fairer? The seat gap (largest minus smallest seat win rate) before and after, with
    the confidence sequence of its change (`gap_family`, `gap_bounds`)."""
    n = int(pair["games"])
    fam = over_looks(lambda p: gap_family(p, k, margins.seats, alpha), pair, looks)
    lower, upper = (float(x) for x in gap_bounds(fam.low, fam.high, k))
    change = _gap(variant) - _gap(base)
    status = str(gap_status(lower, upper, margins.seats)) if n >= MIN_GAMES else TOO_FEW
    m = margins.text("seats")
    soon = needed = None
    if status == UNDECIDED:
        decide = gap_decider(fam, k, margins.seats)
        soon, needed = stated_forecasts(fam, margins.seats, decide=decide, loadings=gap_loadings(pair, k),
                                        question="gap")
    numbers = _gap_numbers(base, variant, lower, upper, margins.seats)
    words = {FAIRER: f"fairer, {numbers}", LESS_FAIR: f"less fair, {numbers}",
             WITHIN: f"no change in fairness beyond the {m} margin, {numbers}",
             UNDECIDED: f"undecided, {numbers}; {more_games_text(needed, n, pace, 'gap')}",
             TOO_FEW: f"too few games ({n:,} paired; at least {MIN_GAMES} are needed)"}
    said = words[status]
    sentence = (f"Seat gap: {said} (the seat gap is the largest minus the smallest seat win rate). "
                f"n = {n:,} games.")
    return Verdict("gap", "Is the variant fairer?", status, sentence, value=change, low=lower, high=upper,
                   unit="pp", margin=margins.seats, n=n, needed=needed, soon=soon,
                   short=f"{said}.", forecast_key="gap" if status == UNDECIDED else None,
                   detail={"gap_base": _gap(base), "gap_variant": _gap(variant), "gap_change": change,
                           "gap_ci_low": lower, "gap_ci_high": upper, "alpha": alpha})


def start_change(pair: dict[str, Any], k: int, margins: Margins, pace: float | None,
                 alpha: float = ALPHA, looks: Looks = ()) -> Verdict:
    """The start player's (seat 0's) change of win rate."""
    n = int(pair["games"])
    fam = over_looks(lambda p: _start_family(p, k, margins.start, alpha), pair, looks)
    question, topic = "Did the start player's advantage change?", "Start player (seat 0)"

    def what(_: list[int], eq: bool) -> str:
        low, high = fam.bounds(eq)
        return f"{pp(fam.value[0])} {pp_interval(low[0], high[0], margins.start)}"

    if not margins.judges("start"):
        return _described("start", question, topic, fam, n=n, what=what([0], False))
    return _judged("start", question, topic, fam, margin=margins.start, margin_text=margins.text("start"),
                   n=n, what=what, pace=pace)


def _difference_family(sums: Any, margin: float, design: float, alpha: float,
                       within: tuple[float, float] = (-math.inf, math.inf)) -> Any:
    """One per-game difference's sequence; `within`: the values one difference can take (a tie's: -1 to 1;
    a length's: unbounded)."""
    n, total, squares = (int(x) for x in sums)
    mean, sd = mean_sd(n, total, squares)
    return family(np.array([mean]), np.array([sd]), np.array([float(n)]), margin, alpha, sd_design=design,
                  within=within)


def tie_change(pair: dict[str, Any], base: dict[str, Any], variant: dict[str, Any], margins: Margins,
               pace: float | None, alpha: float = ALPHA, looks: Looks = (), judged: bool = True) -> Verdict:
    """The change of how often the top score is tied; how often the tie-break decides, described. Not
    `judged`: described only, what the tie-break does being the judged answer (`tiebreak_change`)."""
    fam = over_looks(lambda p: _difference_family(p["tie"], margins.ties, TIE_SD_DESIGN, alpha, (-1, 1)),
                     pair, looks)

    def rate(c: dict[str, Any], which: int = 0) -> float:  # tied (0) or decided by the tie-break (1)
        return int(c["ties"][which]) / int(c["games"])

    def what(_: list[int], eq: bool) -> str:
        low, high = fam.bounds(eq)
        return (f"tied {100 * rate(base):.1f}% -> {100 * rate(variant):.1f}% of games, "
                f"{pp(fam.value[0])} {pp_interval(low[0], high[0], margins.ties)}")

    described = ""
    if not all(int(c["ties"][0]) == int(c["ties"][1]) for c in (base, variant)):
        described = (f"Decided by the tie-break: {100 * rate(base, 1):.1f}% -> {100 * rate(variant, 1):.1f}% "
                     "of games (a description: no test judged this change)")
    question, topic = "Did ties change?", "Ties"
    if not (judged and margins.judges("ties")):
        why = "" if judged or not margins.judges("ties") else \
            "what the tie-break does is the judged answer, not how often ties happen"
        return _described("ties", question, topic, fam, n=int(pair["games"]), what=what([0], False),
                          extra=f". {described}" if described else "", why=why)
    return _judged("ties", question, topic, fam, margin=margins.ties, margin_text=margins.text("ties"),
                   n=int(pair["games"]), what=what, pace=pace, described=described)


def tiebreak_family(pair: dict[str, Any], margin: float, alpha: float) -> Any:
    """What the tie-break does, its change game by game (the pair sums' ``tiebreak``,
    analysis.paired.tiebreak_sums): per seat, the mean of the per-game differences of its effect (its share
    under the rule minus with tied wins shared, the variant's minus the base's), one family over the seats.
    Each effect lies in [-1, 1], so a difference in [-2, 2]: the bounded sequences' range."""
    t = pair["tiebreak"]
    games = np.asarray(t["games"])
    moments = [mean_sd(int(games[s]), int(t["change"][s]), int(t["change_squares"][s]), SHARE_SCALE)
               for s in range(len(games))]
    return family(np.array([m for m, _ in moments]), np.array([sd for _, sd in moments]),
                  games.astype(float), margin, alpha, sd_design=TIEBREAK_SD_DESIGN, within=(-2, 2))


def tiebreak_change(pair: dict[str, Any], margins: Margins, pace: float | None, alpha: float = ALPHA,
                    looks: Looks = ()) -> Verdict:
    """Does the tie-break do the same in both runs? Each seat's tie-break effect (its win rate under the
    rule minus with tied wins shared, the same games re-scored, as analysis.verdicts.tie_verdict judges one
    run's) compared game by game, against the tie-break margin; the seats named are those that decided it.
    `looks`: the pair sums at the earlier looks (`over_looks`)."""
    fam = over_looks(lambda p: tiebreak_family(p, margins.tiebreak, alpha), pair,
                     [p for p in looks if "tiebreak" in p])
    t = pair["tiebreak"]

    def effect(side: str, s: int) -> float:
        return int(t[side][s]) / max(1, int(t["games"][s])) / SHARE_SCALE

    def what(named: list[int], eq: bool) -> str:
        low, high = fam.bounds(eq)
        return "; ".join(f"seat {s} {pp(effect('base', s))} -> {pp(effect('variant', s))} against sharing "
                         f"tied wins, {pp(fam.value[s])} {pp_interval(low[s], high[s], margins.tiebreak)}"
                         for s in named)

    verdict = _judged("tiebreak", "Does the tie-break do the same?", "Tie-break", fam,
                      margin=margins.tiebreak,
                      margin_text=f"{margins.text('tiebreak')} in what it does to any seat's win rate",
                      n=int(pair["games"]), what=what, pace=pace)
    verdict.detail["seat_changes"] = [{"seat": s, "change": float(fam.value[s]), "ci_low": float(fam.low[s]),
                                       "ci_high": float(fam.high[s]), "base": effect("base", s),
                                       "variant": effect("variant", s)} for s in range(len(fam.value))]
    return verdict


def length_change(pair: dict[str, Any], base: dict[str, Any], variant: dict[str, Any], unit: str, *,
                  margins: Margins, pace: float | None, alpha: float = ALPHA, looks: Looks = ()) -> Verdict:
    """The change of the mean game length, in the game's own unit."""
    fam = over_looks(lambda p: _difference_family(p["length"], margins.length, LENGTH_SD_DESIGN, alpha),
                     pair, looks)

    def mean(c: dict[str, Any]) -> float:
        n, total, _ = hist_moments(c["length"])
        return total / max(n, 1)

    def what(_: list[int], eq: bool) -> str:
        low, high = fam.bounds(eq)
        return (f"{mean(base):.1f} -> {mean(variant):.1f} {unit}, {fam.value[0]:+.2f} "
                f"[{low[0]:+.2f}, {high[0]:+.2f}]")

    question, topic = "Did game length change?", "Length"
    if not margins.judges("length"):
        return _described("length", question, topic, fam, n=int(pair["games"]), what=what([0], False),
                          unit=unit)
    return _judged("length", question, topic, fam, margin=margins.length,
                   margin_text=f"{margins.length:g} {unit[:-1] if margins.length == 1 else unit}",
                   n=int(pair["games"]), what=what, pace=pace, unit=unit)


def change_verdicts(base: dict[str, Any], variant: dict[str, Any], pair: dict[str, Any], unit: str,
                    margins: Margins = DEFAULT_MARGINS, pace: float | None = None, *,
                    fairer: bool = True, looks: list[dict[str, Any]] = (),
                    tiebreak: bool = False) -> list[Verdict]:
    """Every paired verdict of a variant's common tally against its base's, from their pair sums: is it
    fairer (the seat gap), the seats' changes, the start player, ties, length; the asked questions
    judged at their share of the error rate (`compare_split`), the others described. `fairer`: False leaves
    the seat gap out (comparing levels of play, not rules). `tiebreak` (and the pair sums hold it): the ties
    question judges what the tie-break does (`tiebreak_change`), the tie rate's change described."""
    k = len(pair["units"]) // 2  # the variant's seats, then the base's (pair["seats"] adds up over chunks)
    if int(pair["games"]) < MIN_GAMES:
        return [Verdict("gap", "Is the variant fairer?", TOO_FEW,
                        f"Seat gap: too few games for a verdict ({int(pair['games']):,} paired; at least "
                        f"{MIN_GAMES} are needed).", value=float("nan"), low=float("nan"), high=float("nan"),
                        unit="pp", margin=None, n=int(pair["games"]))]
    unchanged = no_game_changed(pair, fairer)
    if unchanged is not None:
        return [unchanged]
    tiebreak = tiebreak and "tiebreak" in pair
    split = compare_split(margins, k, fairer, tiebreak)
    verdicts = []
    if margins.judges("seats") and "gap" in split:
        verdicts.append(gap_verdict(pair, k, base, variant, margins=margins, pace=pace, alpha=split["gap"],
                                    looks=looks))
    if margins.judges("seats"):
        verdicts.append(seat_change(pair, k, margins, pace, split.get("seats", ALPHA), looks=looks))
    if fairer and (k == 2 or not margins.judges("seats")):  # the gap described: two players' is a seat's
        verdicts.append(_described_seats(pair, k, base, variant, margins.judges("seats")))
    verdicts += [start_change(pair, k, margins, pace, split.get("start", ALPHA), looks=looks),
                 tie_change(pair, base, variant, margins, pace=pace, alpha=split.get("ties", ALPHA),
                            looks=looks, judged=not tiebreak)]
    if tiebreak and margins.judges("ties"):
        verdicts.append(tiebreak_change(pair, margins, pace, split["tiebreak"], looks=looks))
    verdicts += [length_change(pair, base, variant, unit, margins=margins, pace=pace,
                               alpha=split.get("length", ALPHA), looks=looks)]
    return with_games_differing(verdicts, pair)


#: the chance that a bound on how often games differ fails (one-sided)
DIFFER_ALPHA = 0.05


def differ_bound(differ: int, games: int) -> float:
    """The one-sided 95% upper bound on the share of games that differ, from `differ` of `games` paired
    games (Clopper-Pearson; with none, 1 - 0.05^(1/games), about 3 / games)."""
    if differ >= games:
        return 1.0
    return float(beta.ppf(1 - DIFFER_ALPHA, differ + 1, games - differ))


def no_game_changed(pair: dict[str, Any], fairer: bool = True) -> Verdict | None:
    """When no paired game came out differently (pair sums' "differ", analysis.paired.games_differ), the one
    answer to give: a description that says so, not a verdict on fairness (no game can show which way a
    change goes that no agent used); None when games differ or the count is unknown."""
    n = int(pair["games"])
    if "differ" not in pair or int(pair["differ"][0]) > 0 or n == 0:
        return None
    bound = differ_bound(0, n)
    what = ("no agent at this level used what the variant changes" if fairer else
            "the two levels played every game alike")
    sentence = (f"0 of {n:,} paired games differ: {what}, so there is no fairness verdict to give (games "
                f"that differ would be at most {100 * bound:.2g}% of all, one-sided 95% bound). n = {n:,} "
                "games.")
    return Verdict("gap" if fairer else "seats", "Did any game change?", "info", sentence, value=0.0,
                   low=0.0, high=bound, unit="share", margin=None, n=n,
                   short=f"{what} (games that differ would be at most {100 * bound:.2g}% of all).",
                   detail={"games_differ": 0, "differ_bound": bound})


def with_games_differing(verdicts: list[Verdict], pair: dict[str, Any]) -> list[Verdict]:
    """The verdicts with how many paired games came out differently in their details, and said after the
    first one's n when fewer than a tenth differ (the verdicts rest on those games alone)."""
    if "differ" not in pair or not verdicts:
        return verdicts
    n, differ = int(pair["games"]), int(pair["differ"][0])
    for verdict in verdicts:
        verdict.detail["games_differ"] = differ
    if differ < n / 10:
        first = verdicts[0]
        first.sentence = (first.sentence.removesuffix(".") + f", of which {differ:,} differ (the changes "
                          f"rest on these {differ:,} games alone).")
    return verdicts


def _described_seats(pair: dict[str, Any], k: int, base: dict[str, Any], variant: dict[str, Any],
                     seats_judged: bool = False) -> Verdict:
    """The seat gap as a description, when the seats are not asked."""
    n = int(pair["games"])
    fam = gap_family(pair, k, 0.02, ALPHA)
    lower, upper = (float(x) for x in gap_bounds(fam.low, fam.high, k))
    change = _gap(variant) - _gap(base)
    why = ("with two players the gap is twice a seat's distance from half: the seats' changes above judge it"
           if k == 2 and seats_judged else "not judged: --questions seats judges it")
    said = f"{_gap_numbers(base, variant, lower, upper)} (a description, {why})"
    return Verdict("gap", "Is the variant fairer?", "info", f"Seat gap: {said}. n = {n:,} games.",
                   value=change, low=lower, high=upper, unit="pp", margin=None, n=n, short=f"{said}.")


def games_if_unchanged(pair: dict[str, Any], margins: Margins = DEFAULT_MARGINS,
                       tiebreak: bool = False) -> int:
    """The plan of a paired comparison without the seat gap (two levels of play on the same deals): the
    games in all at which every judged change's equivalence interval would lie inside its margin were
    every change exactly 0, at the observed sds of the per-game differences (as
    sim.app.until_decided.games_if_no_difference plans one run). MOST_GAMES + 1 when none up to it would.
    `tiebreak`: the ties question judges what the tie-break does, as `change_verdicts`'."""
    k = len(pair["units"]) // 2
    tiebreak = tiebreak and "tiebreak" in pair
    split = compare_split(margins, k, fairer=False, tiebreak=tiebreak)
    families = []
    if margins.judges("seats"):
        families.append((_seats_family(pair, k, margins.seats, split["seats"]), margins.seats))
    if margins.judges("start"):
        families.append((_start_family(pair, k, margins.start, split["start"]), margins.start))
    if margins.judges("ties") and tiebreak:
        families.append((tiebreak_family(pair, margins.tiebreak, split["tiebreak"]), margins.tiebreak))
    elif margins.judges("ties"):
        families.append((_difference_family(pair["tie"], margins.ties, TIE_SD_DESIGN, split["ties"], (-1, 1)),
                         margins.ties))
    if margins.judges("length"):
        families.append((_difference_family(pair["length"], margins.length, LENGTH_SD_DESIGN,
                                            split["length"]), margins.length))
    need = MIN_GAMES
    for fam, margin in families:
        for sd in fam.sd:
            need = max(need, fam.design.games_for(margin, float(sd)))
    return need


def stable_at_top(strongest: Any, second: Any, margins: Margins = DEFAULT_MARGINS) -> list[Verdict]:
    """Is every answer stable at the top of a skill profile? The paired verdicts of the strongest level's
    run (RunTally) against the second strongest's, which played the same deals: stable where every
    change is equivalent within its margin (intersected over the looks both runs record); the tie-break
    judged on what it does (`tiebreak_judged`)."""
    if not same_games(strongest, second):
        return []
    pair, looks = pair_with_looks(strongest, second)
    unit = strongest.spec.vocabulary.length
    return change_verdicts(second.common, strongest.common, pair, unit, margins, fairer=False, looks=looks,
                           tiebreak=tiebreak_judged(strongest, second))


def tiebreak_judged(*runs: Any) -> bool:
    """Whether what the tie-break does is judged between runs (RunTally each): every run re-scores its
    games with tied wins shared against the same configured rule, and that rule is not sharing them (as
    analysis.verdicts.tiebreak_family judges one run's)."""
    rules = set()
    for run in runs:
        rescore = run.own.get("rescore")
        if rescore is None or NEUTRAL_RULE not in rescore["rules"]:
            return False
        rules.add(frozenset(rescore["reference"]))
    return len(rules) == 1 and NEUTRAL_RULE not in next(iter(rules))


def top_pair(strongest: Any, second: Any) -> dict[str, Any] | None:
    """The pair sums of the two top levels of a profile (RunTally each), or None when they did not play
    the same deals."""
    if not same_games(strongest, second):
        return None
    return paired_tally(strongest, second, strongest.spec.vocabulary.length)[0]


def pair_with_looks(variant: Any, base: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The pair sums of two runs (RunTally each) that played the same games, and the pair sums of their
    first games at every look both manifests record below the games in hand (the running intersection's
    earlier looks, `over_looks`)."""
    cuts: dict[int, Any] = dict.fromkeys(sorted(set(base.manifest.looks) & set(variant.manifest.looks)))
    pair, _ = paired_tally(variant, base, variant.spec.vocabulary.length, cuts=cuts)
    return pair, [cuts[n] for n in cuts if cuts[n] is not None and n < int(pair["games"])]


#: what each answer of a profile is called in the stable-at-the-top sentence
STABLE_NAMES = {"seats": "the seats' win rates", "start": "the start player's win rate", "ties": "ties",
                "tiebreak": "what the tie-break does", "length": "game length"}


_PLURAL = {"the seats' win rates", "ties"}


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _plural(names: list[str]) -> bool:
    return len(names) > 1 or names[0] in _PLURAL


def stable_text(verdicts: list[Verdict], top: str, below: str) -> str:
    """Which answers `below` and `top` agree on (their paired change equivalent within its margin), which
    still move (changed beyond the margin from one to the other) and which are open, in words no stronger
    than the test: two levels agreeing within a margin, at the stated error rate, not "for every strong
    player"."""
    if not verdicts:
        return f"Stable at the top: not judged ({top} and {below} did not play the same deals)."
    judged = [v for v in verdicts if v.status != "info"]
    if not judged:
        return "Stable at the top: not judged (no question was asked)."

    def names(*statuses: str) -> list[str]:
        return [STABLE_NAMES.get(v.key, v.key) for v in judged if v.status in statuses]

    held, moved, open_ = names(WITHIN, SMALL), names(BEYOND), names(UNDECIDED, TOO_FEW)
    hold = f"{below} and {top} agree on {_listed(held)} within the margin" if held else ""
    if moved:
        said = (f"Not stable at the top: {_listed(moved)} still {'move' if _plural(moved) else 'moves'} "
                f"from {below} to {top} (changed beyond the margin), so stronger play may move "
                f"{'them' if _plural(moved) else 'it'} further")
        rest = [part for part in (hold, f"undecided: {_listed(open_)}" if open_ else "") if part]
        return said + ("; " + "; ".join(rest) if rest else "") + "."
    if open_:
        return (f"Stable at the top: undecided for {_listed(open_)} (more games of {below} and {top} would "
                f"decide {'them' if _plural(open_) else 'it'})" + (f"; {hold}" if hold else "") + ".")
    return f"Stable at the top: every answer asked agrees: {hold}."


# ---- the comparison's answer in one sentence ------------------------------------------------------------
def level_text(agents: Sequence[str]) -> str:
    """Who played, as the lead sentence names the level: "at expert" (one agent in every seat), "with
    greedy,random,random" (mixed)."""
    agents = [str(a) for a in agents]
    return f"at {agents[0]}" if len(set(agents)) == 1 else f"with {','.join(agents)}"


def _own_seat(v: Verdict) -> tuple[int, float, float, float]:
    """The seat a config's own seats verdict rests on (the first it named, else the farthest from the fair
    share) with its difference from the fair share and the interval that decided the verdict."""
    seats = v.detail["seats"]
    named = v.detail.get("named_seats") or [max(range(len(seats)), key=lambda s: abs(seats[s]["difference"]))]
    row = seats[named[0]]
    eq = v.status in (WITHIN, SMALL)
    low, high = (row["equivalence_low"], row["equivalence_high"]) if eq else (row["ci_low"], row["ci_high"])
    return named[0], row["difference"], low, high


def _own_seats_text(v: Verdict) -> str:
    """A config's own seats in a few words with their intervals: every seat that made it unfair, else the
    one that decided (or still holds open) the verdict: "seat 1 +10.3 pp [+4.2, +16.3]"."""
    if v.status == BEYOND:
        rows = [v.detail["seats"][s] for s in v.detail["named_seats"]]
        return ", ".join(f"seat {r['seat']} {pp(r['difference'])} "
                         f"{pp_interval(r['ci_low'], r['ci_high'], v.margin)}" for r in rows)
    seat, value, low, high = _own_seat(v)
    return f"seat {seat} {pp(value)} {pp_interval(low, high, v.margin)}"


def _own_status_text(v: Verdict) -> str:
    """How a config's own seats verdict reads beside the other's: "fair within the 2 pp margin (nearest to
    it: seat 0 +1.1 pp [-0.9, +1.8])"."""
    m = f"{100 * v.margin:g} pp" if v.margin is not None else ""
    if v.status == WITHIN:
        return f"fair within the {m} margin (nearest to it: {_own_seats_text(v)})"
    if v.status == SMALL:
        return f"within the {m} margin, by a small real difference ({_own_seats_text(v)})"
    if v.status == UNDECIDED:
        return f"undecided at the {m} margin ({_own_seats_text(v)})"
    return "not judged (its seats are a description)" if v.status == "info" else "not judged (too few games)"


def _change_text(verdicts: Sequence[Verdict]) -> str:
    """What the comparison's own verdicts say of the change, in a clause: the seat gap's verdict, or (two
    players, or the gap not judged) the seats' changes; no game differing, said as such."""
    if verdicts and verdicts[0].question == "Did any game change?":
        return (f"no paired game of {verdicts[0].n:,} came out differently, so the variant changed nothing "
                "here")
    gap = next((v for v in verdicts if v.key == "gap" and v.status != "info"), None)
    if gap is not None and gap.status != TOO_FEW:
        numbers = (f"{100 * gap.detail['gap_base']:.1f} -> {100 * gap.detail['gap_variant']:.1f} pp, "
                   f"{pp(gap.value)} {pp_interval(gap.low, gap.high, gap.margin)}")
        said = {FAIRER: "the seat gap narrowed", LESS_FAIR: "the seat gap widened",
                WITHIN: f"the seat gap did not change beyond the {100 * gap.margin:g} pp margin",
                UNDECIDED: "whether the seat gap changed is undecided"}[gap.status]
        return f"{said} ({numbers})"
    seats = next((v for v in verdicts if v.key == "seats" and v.status not in ("info", TOO_FEW)), None)
    if seats is None:
        return "the change is not judged (too few paired games, or the seats not asked)"
    s = seats.detail["named"][0]
    said = {WITHIN: f"no seat's win rate changed beyond the {100 * seats.margin:g} pp margin",
            SMALL: f"the seats' win rates changed, by less than the {100 * seats.margin:g} pp margin",
            BEYOND: f"the seats' win rates changed beyond the {100 * seats.margin:g} pp margin",
            UNDECIDED: "whether the seats' win rates changed is undecided"}[seats.status]
    return f"{said} (seat {s} {pp(seats.value)} {pp_interval(seats.low, seats.high, seats.margin)})"


def fairness_lead(base: Verdict, variant: Verdict, verdicts: Sequence[Verdict], level: str) -> str:
    """The comparison's answer in one sentence when either config is unfair on its own: the variant's own
    seats verdict first (analysis.verdicts.seat_verdict of its run alone), then the base's, then what the
    change did (`verdicts`, the comparison's paired ones), each with its interval, and n; `level`
    (`level_text`) names who played. "" when neither config is unfair: the change verdicts lead then.

    A change that leaves the gap as it was reads "no change in fairness" on its own, though both configs may
    be unfair; this sentence says that first."""
    if BEYOND not in (base.status, variant.status):
        return ""
    fair = f"the fair share of {100 * variant.detail['fair_share']:.1f}%"
    change = _change_text(verdicts)
    if variant.status == BEYOND:
        head = f"The variant is unfair {level}: {_own_seats_text(variant)} against {fair}"
        other = (f"the base is unfair too ({_own_seats_text(base)})" if base.status == BEYOND else
                 f"the base is {_own_status_text(base)}")
        said = f"{head}; {other}; {change}"
    elif variant.status in (WITHIN, SMALL):
        said = (f"The variant fixes the base's unfairness {level}: the base is unfair "
                f"({_own_seats_text(base)} against {fair}), the variant {_own_status_text(variant)}; "
                f"{change}")
    else:
        said = (f"The base is unfair {level} ({_own_seats_text(base)} against {fair}); the variant is "
                f"{_own_status_text(variant)}; {change}")
    n = f"{base.n:,} games each" if base.n == variant.n else f"{base.n:,} base, {variant.n:,} variant games"
    return (f"{said}. n = {n}; each config's seats judged on its own run at the {100 * variant.margin:g} pp "
            "margin, the change paired game by game.")
