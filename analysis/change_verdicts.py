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
from typing import Any

import numpy as np

from analysis.tally import SHARE_SCALE, mean_sd
from analysis.verdicts import (
    BEYOND,
    DEFAULT_MARGINS,
    MIN_GAMES,
    SMALL,
    TOO_FEW,
    UNDECIDED,
    WITHIN,
    Margins,
    Verdict,
    classify,
    family,
    family_estimate,
    games_to_decide,
    more_games_text,
    pp,
    pp_interval,
)

CHANGE_WORDS = {WITHIN: "no change, equivalent within the margin", SMALL: "a small change, within the margin",
                BEYOND: "changed beyond the margin", UNDECIDED: "undecided", TOO_FEW: "too few games"}


def _seat_changes(pair: dict[str, Any], k: int) -> tuple[np.ndarray, np.ndarray]:
    """Each seat's per-game change of win share (variant minus base): means and sds from the pair sums."""
    u, c, n = pair["units"], pair["cross"], int(pair["games"])
    moments = [mean_sd(n, int(u[s] - u[k + s]), int(c[s, s] + c[k + s, k + s] - 2 * c[s, k + s]), SHARE_SCALE)
               for s in range(k)]
    return np.array([m for m, _ in moments]), np.array([s for _, s in moments])


def _judged(key: str, question: str, topic: str, fam: Any, *, margin: float, margin_text: str, n: int,
            what: str, pace: float | None, unit: str = "pp") -> Verdict:
    status = classify(fam, margin)
    needed = games_to_decide(fam, margin) if status == UNDECIDED else None
    more = f"; {more_games_text(needed, n, pace)}" if needed is not None else ""
    far = int(np.nanargmax(np.abs(fam.value)))
    sentence = f"{topic}: {CHANGE_WORDS[status]} ({margin_text}): {what}{more}."
    return Verdict(key, question, status, sentence, **family_estimate(fam, far), unit=unit, margin=margin,
                   n=n, needed=needed, short=f"{what}{more}.")


def seat_change(pair: dict[str, Any], k: int, gap: dict[str, Any], margins: Margins,
                pace: float | None) -> Verdict:
    """Every seat's change of win rate as one family; the seat gap before and after, and fairer or not."""
    n = int(pair["games"])
    mean, sd = _seat_changes(pair, k)
    fair = 1 / k
    fam = family(mean, sd, np.full(k, float(n)), margins.seats, sd_design=math.sqrt(2 * fair * (1 - fair)))
    seats = "; ".join(f"seat {s} {pp(fam.value[s])} {pp_interval(fam.low[s], fam.high[s])}" for s in range(k))
    verdict = _judged("seats", "Did the seats get fairer?", "Seats", fam, margin=margins.seats,
                      margin_text=f"{margins.text('seats')} in any seat's win rate", n=n, what=seats,
                      pace=pace)
    verdict.sentence = verdict.sentence[:-1] + f". {gap_text(gap)}"
    verdict.short = verdict.short[:-1] + f". {gap_text(gap)}"
    verdict.detail = {"seat_changes": [{"seat": s, "change": float(fam.value[s]), "ci_low": float(fam.low[s]),
                                        "ci_high": float(fam.high[s])} for s in range(k)],
                      "gap_base": gap["base"], "gap_variant": gap["variant"], "gap_change": gap["change"],
                      "gap_ci_low": gap["low"], "gap_ci_high": gap["high"], "fairer": gap["fairer"]}
    return verdict


def gap_text(gap: dict[str, Any]) -> str:
    """"Seat gap 10.7 -> 6.2 pp: fairer (-4.5 pp [-6.1, -2.9])."."""
    words = {"fairer": "fairer", "less fair": "less fair", "same": "no change in fairness detected"}
    detect = (f"; a change of {100 * gap['detectable']:.1f} pp would have been detected"
              if gap["fairer"] == "same" and np.isfinite(gap["detectable"]) and gap["detectable"] > 0 else "")
    return (f"Seat gap (largest minus smallest seat win rate) {100 * gap['base']:.1f} -> "
            f"{100 * gap['variant']:.1f} pp: {words[gap['fairer']]} ({pp(gap['change'])} "
            f"{pp_interval(gap['low'], gap['high'])}){detect}.")


def gap_change(base: dict[str, Any], variant: dict[str, Any], compared: dict[str, Any]) -> dict[str, Any]:
    """The seat gap of both runs and its paired change (analysis.paired.compare_sums' ``d_gap``)."""
    def gap(c: dict[str, Any]) -> float:
        rates = c["seat_units"] / (c["seat_games"] * SHARE_SCALE)
        return float(rates.max() - rates.min())

    low, high = compared["d_gap_low"], compared["d_gap_high"]
    fairer = "fairer" if high < 0 else "less fair" if low > 0 else "same"
    detectable = 2.8 * (high - low) / (2 * 1.96) if np.isfinite(low) and np.isfinite(high) else float("nan")
    return {"base": gap(base), "variant": gap(variant), "change": compared["d_gap"], "low": low, "high": high,
            "fairer": fairer, "detectable": detectable}


def start_change(pair: dict[str, Any], k: int, margins: Margins, pace: float | None) -> Verdict:
    """The start player's (seat 0's) change of win rate."""
    n = int(pair["games"])
    mean, sd = _seat_changes(pair, k)
    fam = family(mean[:1], sd[:1], np.array([float(n)]), margins.start,
                 sd_design=math.sqrt(2 / k * (1 - 1 / k)))
    return _judged("start", "Did the start player's advantage change?", "Start player (seat 0)", fam,
                   margin=margins.start, margin_text=margins.text("start"), n=n,
                   what=f"{pp(fam.value[0])} {pp_interval(fam.low[0], fam.high[0])}", pace=pace)


def _difference_family(sums: Any, margin: float, design: float) -> Any:
    n, total, squares = (int(x) for x in sums)
    mean, sd = mean_sd(n, total, squares)
    return family(np.array([mean]), np.array([sd]), np.array([float(n)]), margin, sd_design=design)


def tie_change(pair: dict[str, Any], base: dict[str, Any], variant: dict[str, Any], margins: Margins,
               pace: float | None) -> Verdict:
    """The change of how often the top score is tied (and decided by the tie-break, when that differs)."""
    fam = _difference_family(pair["tie"], margins.ties, 0.3)

    def rate(c: dict[str, Any], which: int = 0) -> float:  # tied (0) or decided by the tie-break (1)
        return int(c["ties"][which]) / int(c["games"])

    what = (f"tied {100 * rate(base):.1f}% -> {100 * rate(variant):.1f}% of games, "
            f"{pp(fam.value[0])} {pp_interval(fam.low[0], fam.high[0])}")
    if not all(int(c["ties"][0]) == int(c["ties"][1]) for c in (base, variant)):
        what += f"; decided by the tie-break {100 * rate(base, 1):.1f}% -> {100 * rate(variant, 1):.1f}%"
    return _judged("ties", "Did ties change?", "Ties", fam, margin=margins.ties,
                   margin_text=margins.text("ties"), n=int(pair["games"]), what=what, pace=pace)


def length_change(pair: dict[str, Any], base: dict[str, Any], variant: dict[str, Any], unit: str, *,
                  margins: Margins, pace: float | None) -> Verdict:
    """The change of the mean game length, in the game's own unit."""
    from analysis.tally import hist_moments

    fam = _difference_family(pair["length"], margins.length, 3.0)

    def mean(c: dict[str, Any]) -> float:
        n, total, _ = hist_moments(c["length"])
        return total / max(n, 1)

    what = (f"{mean(base):.1f} -> {mean(variant):.1f} {unit}, {fam.value[0]:+.2f} "
            f"[{fam.low[0]:+.2f}, {fam.high[0]:+.2f}]")
    return _judged("length", "Did game length change?", "Length", fam, margin=margins.length,
                   margin_text=f"{margins.length:g} {unit[:-1] if margins.length == 1 else unit}",
                   n=int(pair["games"]), what=what, pace=pace, unit=unit)


def change_verdicts(base: dict[str, Any], variant: dict[str, Any], pair: dict[str, Any], unit: str,
                    margins: Margins = DEFAULT_MARGINS, pace: float | None = None) -> list[Verdict]:
    """Every paired verdict of a variant's common tally against its base's, from their pair sums."""
    from analysis.paired import common_sums, compare_sums

    k = len(pair["units"]) // 2  # the variant's seats, then the base's (pair["seats"] adds up over chunks)
    if int(pair["games"]) < MIN_GAMES:
        return [Verdict("seats", "Did the seats get fairer?", TOO_FEW,
                        f"Seats: too few games for a verdict ({int(pair['games']):,} paired; at least "
                        f"{MIN_GAMES} are needed).", value=float("nan"), low=float("nan"), high=float("nan"),
                        unit="pp", margin=None, n=int(pair["games"]))]
    compared = compare_sums(common_sums(variant), common_sums(base), pair)
    gap = gap_change(base, variant, compared)
    return [seat_change(pair, k, gap, margins, pace), start_change(pair, k, margins, pace),
            tie_change(pair, base, variant, margins, pace),
            length_change(pair, base, variant, unit, margins=margins, pace=pace)]


def stable_at_top(strongest: Any, second: Any, margins: Margins = DEFAULT_MARGINS) -> list[Verdict]:
    """Is every answer stable at the top of a skill profile? The paired verdicts of the strongest level's
    run (RunTally) against the second strongest's, which played the same deals: stable where every
    change is equivalent within its margin."""
    from analysis.paired import paired_tally, same_games

    if not same_games(strongest, second):
        return []
    unit = strongest.spec.vocabulary.length
    pair, _ = paired_tally(strongest, second, unit)
    return change_verdicts(second.common, strongest.common, pair, unit, margins)


def stable_text(verdicts: list[Verdict], top: str, below: str) -> str:
    """One sentence: stable at the top or not, and what moves."""
    if not verdicts:
        return f"Stable at the top: not judged ({top} and {below} did not play the same deals)."
    moved = [v.sentence.split(":")[0] for v in verdicts if v.status == BEYOND]
    open_ = [v.sentence.split(":")[0] for v in verdicts if v.status in (UNDECIDED, TOO_FEW)]
    if not moved and not open_:
        return (f"Stable at the top: every answer is the same for {below} and {top}, equivalent within its "
                "margin, so better play would not change them.")
    if moved:
        return (f"Not stable at the top: from {below} to {top} these answers change beyond the margin: "
                f"{', '.join(moved)}; stronger play may move them further.")
    return f"Stable at the top: undecided for {', '.join(open_)} (more games per level would decide it)."
