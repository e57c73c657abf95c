"""The answer in a designer's words: one verdict per headline question, from a run's merged tally.

Each question (are the seats fair, does the start player gain, whom does the tie-break favour) is judged
against a margin the designer sets (`Margins`, `--margin`) by an equivalence test on simultaneous
intervals:

- *fair within the margin*: every interval lies inside +-margin (and holds 0);
- *a small difference*: every interval inside +-margin, but one excludes 0;
- *unfair* (beyond the margin): one interval lies wholly outside +-margin;
- *undecided*: otherwise, with the games that would decide it at the current estimates;
- *too few games*: below `MIN_GAMES`, no verdict at all.

The intervals are confidence sequences (Waudby-Smith, Arnold, Wu, McAuliffe and Ramdas, "Time-uniform
central limit theory and asymptotic confidence sequences", Ann. Statist. 2024, the normal-mixture
boundary): they hold at every number of games at once, so a designer may look after every chunk, extend a
run that was undecided, or stop as soon as it is decided (`--until-decided`) without raising the error
rate. A seat's interval is computed from whole-number sums of the per-game win shares (analysis.tally), so
any chunking gives the same verdict; the seats are one family (Bonferroni over the seats).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import KW_ONLY, dataclass, field, replace
from typing import Any

import numpy as np

from analysis import figures
from analysis.handicaps import BONUS_RANGE
from analysis.questions import DEFAULT_QUESTIONS, QUESTIONS, parse_questions
from analysis.seats import fair_share
from analysis.sequences import (  # noqa: F401  (the names verdicts have always offered)
    ALPHA,
    BEYOND,
    DECIDED,
    FAIRER,
    LESS_FAIR,
    MIN_GAMES,
    MOST_GAMES,
    SMALL,
    TOO_FEW,
    UNDECIDED,
    WITHIN,
    Family,
    classify,
    deciding_members,
    family,
    forecast,
    forecast_held_text,
    forecasts,
    games_for,
    half_width,
    intersected,
    planned_games,
    stated_forecasts,
)
from analysis.tally import SHARE_SCALE, hist_distribution, mean_sd
from analysis.ties import count_rates
from sim.core.errors import ConfigError
from storage.run_record import RunManifest


@dataclass(frozen=True)
class Margins:
    """What is asked and what difference matters, per question: win-rate differences as shares (0.02 = 2
    percentage points), game length in the game's own unit, a component's worth in score points; `asked`,
    the questions judged against their margins (analysis.questions), which share the report's error rate
    between them (`alpha`)."""

    seats: float = 0.02
    start: float = 0.02
    tiebreak: float = 0.02
    ties: float = 0.02
    length: float = 1.0
    worth: float = 1.0
    asked: tuple[str, ...] = DEFAULT_QUESTIONS

    #: the questions whose margin is a win rate (given in percentage points on the command line)
    RATES = ("seats", "start", "tiebreak", "ties")

    def text(self, key: str) -> str:
        value = getattr(self, key)
        return f"{_num(100 * value)} pp" if key in self.RATES else _num(value)

    def judges(self, question: str) -> bool:
        """Whether `question` (one of analysis.questions.QUESTIONS; "tiebreak" is the ties question) is
        judged against its margin, not only described."""
        return ("ties" if question == "tiebreak" else question) in self.asked


DEFAULT_MARGINS = Margins()
#: every question judged (what the tests of each verdict's words use)
EVERY_QUESTION = Margins(asked=QUESTIONS)


def _num(x: float) -> str:
    return f"{x:g}"


#: the bounds of --margin, said in its help: a win-rate margin in percentage points, from the first to below
#: the second (a smaller one asks for more games than any run plays); a length or worth margin, in its unit
MARGIN_PP = (0.01, 100)
MARGIN_UNITS = (1e-6, 1e6)


def parse_margins(text: str | None, questions: str | None = None) -> Margins:
    """`--margin` and `--questions`: one number (percentage points of win rate, for every win-rate
    question: ``2`` or ``2pp``) or ``key=value`` pairs (``seats=2,start=1,length=1,worth=1``), and the
    questions asked (analysis.questions.parse_questions); ConfigError on anything else."""
    margins = Margins(asked=parse_questions(questions))
    if text is None or not text.strip():
        return margins
    keys = [f for f in Margins.__dataclass_fields__ if f != "asked"]
    for part in (p.strip() for p in text.split(",")):
        key, _, value = part.rpartition("=")
        key = key.strip()
        if key and key not in keys:
            raise ConfigError(f"--margin: unknown question {key!r}; known: {', '.join(keys)}")
        raw = value.strip().removesuffix("pp").strip()
        try:
            number = float(raw)
        except ValueError:
            raise ConfigError(f"--margin: expected a number, e.g. 2 (percentage points) or seats=2, "
                              f"got {part!r}") from None
        if not math.isfinite(number) or number <= 0:
            raise ConfigError(f"--margin: must be a positive number, got {part!r}")
        for name in [key] if key else Margins.RATES:
            if name in Margins.RATES and not MARGIN_PP[0] <= number < MARGIN_PP[1]:
                raise ConfigError(f"--margin: {name} is in percentage points of win rate (2 = 2 pp), from "
                                  f"{MARGIN_PP[0]:g} to below {MARGIN_PP[1]:g}, got {number:g}")
            if name not in Margins.RATES and not MARGIN_UNITS[0] <= number <= MARGIN_UNITS[1]:
                raise ConfigError(f"--margin: {name} must be from {MARGIN_UNITS[0]:g} to "
                                  f"{MARGIN_UNITS[1]:g}, got {number:g}")
            margins = replace(margins, **{name: number / 100 if name in Margins.RATES else number})
    return margins


def error_split(judged: list[str]) -> dict[str, float]:
    """The report's error rate (ALPHA) split evenly over the judged families, by key: the chance that any
    judged verdict of the report is wrong is at most ALPHA (Bonferroni over the questions)."""
    return {key: ALPHA / len(judged) for key in judged} if judged else {}


def split_text(split: dict[str, float], names: dict[str, str]) -> str:
    """"5% in all: 2.5% for the seat gap, 2.5% for the seat changes"."""
    if not split:
        return "no question judged against a margin"
    parts = ", ".join(f"{_pct(a)} for {names.get(k, k)}" for k, a in split.items())
    return f"{_pct(sum(split.values()))} in all: {parts}"


def _pct(a: float) -> str:
    return f"{100 * a:.3g}%"


# ---- verdicts -------------------------------------------------------------------------------------------
@dataclass
class Verdict:
    """One headline question answered: its status, a sentence that leads with the answer, the estimate
    and its interval (``unit``: "pp" for win-rate differences, else the game's unit), the margin, n, and
    for an undecided one the games in all that would decide it."""

    key: str
    question: str
    status: str
    sentence: str
    _: KW_ONLY
    value: float
    low: float
    high: float
    unit: str
    margin: float | None
    n: int
    needed: int | None = None
    anchor: str = ""
    detail: dict[str, Any] = field(default_factory=dict)
    short: str = ""  # the evidence in a few words, for a card beside the status badge (default: sentence)
    soon: int | None = None  # undecided: the games in all that decide it in half the ways the run goes on
    forecast_key: str | None = None  # undecided: whose forecasts' record it states (FORECAST_HELD's key)

    @property
    def brief(self) -> str:
        """The card's text: the topic, then the short evidence (or the sentence without its n)."""
        if self.short:
            return f"{self.sentence.partition(':')[0]}: {self.short}"
        return re.sub(r" n = [\d,]+ (base )?games\.$", "", self.sentence)

    @property
    def decided(self) -> bool:
        return self.status in DECIDED or self.status == "info"

    def record(self) -> dict[str, Any]:
        """The verdict as summary.json holds it."""
        return {"question": self.key, "status": self.status, "sentence": self.sentence, "value": self.value,
                "ci_low": self.low, "ci_high": self.high, "unit": self.unit, "margin": self.margin,
                "n": self.n, "games_to_decide": self.needed, **self.detail}


def family_estimate(fam: Family, i: int, status: str = "") -> dict[str, float]:
    """A verdict's estimate and the interval that decided it: the family's `i`-th value with its
    equivalence bounds for a verdict within the margin, else its shown bounds."""
    low, high = fam.bounds(status in (WITHIN, SMALL))
    return {"value": float(fam.value[i]), "low": float(low[i]), "high": float(high[i])}


def interval_detail(fam: Family, i: int) -> dict[str, float]:
    """Both intervals of member `i` for summary.json: the shown one and the equivalence one."""
    return {"shown_low": float(fam.low[i]), "shown_high": float(fam.high[i]),
            "equivalence_low": float(fam.eq_low[i]), "equivalence_high": float(fam.eq_high[i]),
            "alpha": fam.design.alpha}


STATUS_WORDS = {WITHIN: "fair within the margin", SMALL: "a small difference, within the margin",
                BEYOND: "unfair", UNDECIDED: "undecided", TOO_FEW: "too few games"}


def pp(share: float, sign: bool = True) -> str:
    """A difference of win rates in percentage points: "+4.9 pp"."""
    share = round(100 * share, 1) + 0.0  # no "-0.0"
    return f"{share:+.1f} pp" if sign else f"{share:.1f} pp"


def _kept_off(margin: float | None) -> tuple[float, ...]:
    """What a bound in pp is kept off (analysis.figures): 0 and +-`margin`; 0 alone for a description
    (no margin: nothing was decided against one, and extra decimals on every whole pp would only blur)."""
    return (0.0,) if margin is None else (0.0, 100 * margin, -100 * margin)


def pp_interval(low: float, high: float, margin: float | None = None) -> str:
    """A difference's interval in signed pp, rounded outward and never on 0 or the margin it lies off
    (analysis.figures): "[+2.04, +4.6]"; a bound cut at what a win rate can be stays there."""
    return figures.interval(100 * low, 100 * high, keep_off=_kept_off(margin), sign=True,
                            edges=figures.SHARE_EDGES)


def against(value: float, low: float, high: float, what: str = "the fair share",
            margin: float | None = None) -> str:
    """A difference with its interval in words: "10.7 pp [7.6, 13.8] above the fair share", the figure
    and its interval in the same sense; signed when the interval holds 0. Bounds rounded outward, never on
    0 or the margin they lie off (analysis.figures)."""
    off, edges = _kept_off(margin), figures.SHARE_EDGES
    if low > 0:
        shown = figures.interval(100 * low, 100 * high, keep_off=off, edges=edges)
        return f"{figures.figure(100 * value)} pp {shown} above {what}"
    if high < 0:
        shown = figures.interval(-100 * high, -100 * low, keep_off=off, edges=edges)
        return f"{figures.figure(-100 * value)} pp {shown} below {what}"
    return f"{pp(value)} {pp_interval(low, high, margin)} against {what}"


def more_games_text(needed: int | None, n: int, seconds_per_game: float | None,
                    question: str = "seats") -> str:
    """"about 6,100 more games would decide it (such forecasts held in 59% of the error study's replays;
    about 40 s at this run's pace)": `needed` is a forecast (analysis.sequences.stated_forecasts) of the
    games in all, None past what it can see; `question` says how often its forecasts held."""
    if needed is None or needed > MOST_GAMES:
        return ("more than 256 times the games in hand would be needed to decide it (the estimate sits "
                "near the margin)")
    more = about(max(needed - n, 1))
    when = f"; about {duration(more * seconds_per_game)} at this run's pace" if seconds_per_game else ""
    return f"about {more:,} more games would decide it ({forecast_held_text(question)}{when})"


def duration(seconds: float) -> str:
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    if seconds < 5400:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"


def share_moments(n: int, units: int, squares: int, fair: float) -> tuple[float, float]:
    """Mean of (win share - fair) and its sd, from a seat's whole-number sums (1/SHARE_SCALE)."""
    mean, sd = mean_sd(n, int(units), int(squares), SHARE_SCALE)
    return mean - fair, sd


def seat_family(c: dict, fair: float, margin: float, alpha: float = ALPHA) -> Family:
    """Every seat's win rate minus the fair share, as one family (a common tally's sums)."""
    k = len(c["seat_games"])
    moments = [share_moments(int(c["seat_games"][s]), c["seat_units"][s], c["seat_squares"][s], fair)
               for s in range(k)]
    design = math.sqrt(fair * (1 - fair))
    return family(np.array([m for m, _ in moments]), np.array([s for _, s in moments]),
                  c["seat_games"].astype(float), margin, alpha, sd_design=design, within=(-fair, 1 - fair))


def _seat_words(s: int, rate: float, fam: Family, i: int, share: str, eq: bool = False) -> str:
    low, high = (fam.eq_low[i], fam.eq_high[i]) if eq else (fam.low[i], fam.high[i])
    said = against(fam.value[i], low, high, share, fam.design.margin)
    return f"seat {s} wins {100 * rate:.1f}% of games, {said}"


def seat_verdict(c: dict, fair: float, margins: Margins, seconds_per_game: float | None = None,
                 handicap: Any = None, alpha: float | None = None, looks: Sequence[dict] = ()) -> Verdict:
    """Are the seats fair? Every seat's win rate against the fair share, within `margins.seats`; the
    seats named are those whose intervals decided the status. `looks`: the common tallies of the run's
    earlier looks, whose sequences the intervals are intersected with (`intersected`)."""
    alpha = _alpha(margins, "seats", alpha)
    if not margins.judges("seats"):
        return _described_seats(c, fair, alpha)
    fam = intersected(seat_family(c, fair, margins.seats, alpha),
                      [seat_family(t, fair, margins.seats, alpha) for t in looks])
    status = classify(fam, margins.seats)
    n = int(c["games"])
    named = deciding_members(fam, margins.seats, status)
    m = margins.text("seats")
    rates = fam.value + fair
    share = f"the fair share of {100 * fair:.1f}%"
    short_share = f"{100 * fair:.1f}%"
    eq = status in (WITHIN, SMALL)
    first = named[0] if named else int(np.nanargmax(np.abs(fam.value)))
    soon, needed = (stated_forecasts(fam, margins.seats, question="seats") if status == UNDECIDED
                    else (None, None))
    if status == TOO_FEW:
        sentence = f"Seats: too few games for a verdict ({n:,}; at least {MIN_GAMES} are needed)."
    elif status == BEYOND:
        said = "; ".join(f"seat {s} is {'favoured' if fam.value[s] > 0 else 'disadvantaged'}: it wins "
                         f"{100 * rates[s]:.1f}% of games, "
                         f"{against(fam.value[s], *_bounds(fam, s, False), share, margins.seats)}"
                         for s in named)
        sentence = f"Seats: unfair beyond the {m} margin. {said[0].upper()}{said[1:]}."
    elif eq:
        small = "" if status == WITHIN else " The difference is real but smaller than the margin."
        nearest = _seat_words(first, rates[first], fam, first, share, eq=True)
        sentence = (f"Seats: fair within the {m} margin. Every seat's equivalence interval lies within {m} "
                    f"of {share} (the nearest to its margin: {nearest}).{small}")
    else:
        said = _seat_words(first, rates[first], fam, first, share)
        sentence = (f"Seats: undecided at the {m} margin: {said}; "
                    f"{more_games_text(needed, n, seconds_per_game, 'seats')}.")
    evens, evens_short = (handicap_texts(handicap, first, margins.seats)
                          if status in (BEYOND, SMALL, UNDECIDED) else ("", ""))
    sentence += (f" {evens}" if evens else "") + f" n = {n:,} games."
    short = "; ".join(f"seat {s} wins {100 * rates[s]:.1f}%, "
                      f"{against(fam.value[s], *_bounds(fam, s, eq), short_share, margins.seats)}"
                      for s in (named if status == BEYOND else [first]))
    short += (f"; {more_games_text(needed, n, seconds_per_game, 'seats')}"
              if needed is not None or status == UNDECIDED
              else "") + "." + (f" {evens_short}" if evens_short else "")
    detail = {"seats": [{"seat": s, "win_rate": float(rates[s]), "difference": float(fam.value[s]),
                         "ci_low": float(fam.low[s]), "ci_high": float(fam.high[s]),
                         "equivalence_low": float(fam.eq_low[s]), "equivalence_high": float(fam.eq_high[s])}
                        for s in range(len(rates))], "fair_share": fair, "named_seats": named,
              "favoured_seat": int(np.nanargmax(fam.value)), "alpha": alpha}
    return Verdict("seats", "Are the seats fair?", status, sentence, **family_estimate(fam, first, status),
                   unit="pp", margin=margins.seats, n=n, needed=needed, soon=soon, detail=detail,
                   forecast_key="seats" if status == UNDECIDED else None,
                   short=short if status != TOO_FEW else "")


def _bounds(fam: Family, i: int, eq: bool) -> tuple[float, float]:
    low, high = fam.bounds(eq)
    return float(low[i]), float(high[i])


def _described_seats(c: dict, fair: float, alpha: float) -> Verdict:
    """The seats as a description (not asked): the farthest seat with its interval, no status."""
    n = int(c["games"])
    fam = seat_family(c, fair, 0.02, ALPHA)
    far = int(np.nanargmax(np.abs(fam.value))) if n else 0
    rate = float(fam.value[far] + fair)
    share = f"the fair share of {100 * fair:.1f}%"
    words = _seat_words(far, rate, fam, far, share)
    sentence = f"Seats: {words} (a description, not judged: --questions seats judges it). n = {n:,} games."
    return Verdict("seats", "Are the seats fair?", "info", sentence, **family_estimate(fam, far), unit="pp",
                   margin=None, n=n)


def units(x: float, unit: str) -> str:
    """A whole number of score units in words: "1 point", "3 points", "2 tokens"."""
    return f"{abs(x):.0f} {unit[:-1] if abs(x) == 1 and unit.endswith('s') else unit}"


def about(games: int) -> int:
    """An estimate of games, to two significant digits from 100 on."""
    return int(float(f"{games:.2g}")) if games >= 100 else games


def handicap_texts(handicap: Any, seat: int | None = None,
                   margin: float = Margins.seats) -> tuple[str, str]:
    """One seat's handicap from a seat handicap table (analysis.handicaps.handicap_from: the whole bonus
    that brings the seat closest to the fair share 1/N), as a sentence naming the seat and in a few words
    ("Handicap: -2 points to seat 1 (then 33.0%)."). `seat`: the seat to describe (None: the one needing the
    largest bonus). Where no whole bonus brings it within `margin` of the fair share, the sentence says so
    with the two bonuses either side of it; ("", "") without a table or a figure for the seat."""
    if handicap is None or len(handicap) == 0:
        return "", ""
    values = handicap["handicap_points"].to_numpy(dtype=float)
    j = int(np.nanargmax(np.abs(values))) if seat is None and np.any(~np.isnan(values)) else seat
    if j is None or np.isnan(values[j]):
        return "", ""
    r, unit = handicap.iloc[j], str(handicap.attrs.get("unit", "points"))
    if np.isinf(r.handicap_points):
        return (f"No bonus within {units(BONUS_RANGE, unit)} either way brings seat {j} to the fair share.",
                f"Handicap: none within {units(BONUS_RANGE, unit)} for seat {j}.")
    bonus, then = float(r.handicap_points), share_text(r.share_at_handicap, r.share_ci_low, r.share_ci_high)
    other = (f"{share_text(r.share_at_other, r.other_ci_low, r.other_ci_high)} with "
             f"{signed_units(r.other_points, unit)}" if np.isfinite(r.other_points) else "")
    whole = f"whole-{unit[:-1] if unit.endswith('s') else unit}"
    if abs(r.share_at_handicap - 1 / len(handicap)) > margin + 1e-12:
        given = [(bonus, f"{then} with {signed_units(bonus, unit)}"), (r.other_points, other)]
        within = f"within {_num(100 * margin)} pp"
        shares = ", ".join(t for _, t in sorted(given) if t)
        return (f"No {whole} handicap brings seat {j} {within} of the fair share: it wins {shares}.",
                f"Handicap: none brings seat {j} {within}.")
    if bonus == 0:
        return (f"No {whole} handicap brings seat {j} closer to the fair share than none (it wins {then}"
                + (f"; {other}" if other else "") + ").", "")
    points, sign = units(bonus, unit), "+" if bonus > 0 else "-"
    short = f"Handicap: {sign}{points} to seat {j} (then {100 * r.share_at_handicap:.1f}%)."
    if bonus > 0:
        return (f"A bonus of {points} to seat {j}'s final score brings it closest to the fair share (it then "
                f"wins {then}).", short)
    return (f"Taking {points} from seat {j}'s final score brings it closest to the fair share (it then wins "
            f"{then}).", short)


def share_text(share: float, low: float, high: float) -> str:
    """A win rate with its 95% interval: "29.7% [28.9, 30.5]"."""
    bounds = (f" {figures.interval(100 * low, 100 * high, keep_off=(), edges=figures.SHARE_EDGES)}"
              if np.isfinite(low) and np.isfinite(high) else "")  # rounded outward (analysis.figures)
    return f"{figures.figure(100 * share)}%{bounds}"


def signed_units(x: float, unit: str) -> str:
    """A whole bonus in score units with its sign: "-1 point", "0 points", "+2 tokens"."""
    return ("-" if x < 0 else "+" if x > 0 else "") + units(x, unit)


def start_family(c: dict, fair: float, margin: float, alpha: float = ALPHA) -> Family:
    """Seat 0's win rate minus the fair share (a common tally's sums), as a family of one."""
    mean, sd = share_moments(int(c["seat_games"][0]), c["seat_units"][0], c["seat_squares"][0], fair)
    return family(np.array([mean]), np.array([sd]), np.array([float(c["seat_games"][0])]), margin, alpha,
                  sd_design=math.sqrt(fair * (1 - fair)), within=(-fair, 1 - fair))


def tiebreak_family(rescore: dict | None, margin: float, alpha: float = ALPHA) -> Family | None:
    """Each seat's win rate under the configured tie-break minus under shared wins, the same games
    re-scored (a game's re-scoring tally), as one family; None when there is nothing to judge (no
    re-scoring, or tied wins are shared)."""
    if rescore is None or "shared" not in rescore["rules"] or next(iter(rescore["reference"])) == "shared":
        return None
    games, t = rescore["seat_games"], rescore["rules"]["shared"]  # shared minus the configured rule
    moments = [mean_sd(int(games[s]), -int(t["change"][s]), int(t["change_squares"][s]), SHARE_SCALE)
               for s in range(len(games))]
    return family(np.array([m for m, _ in moments]), np.array([s for _, s in moments]), games.astype(float),
                  margin, alpha, sd_design=0.2, within=(-1, 1))


#: what each judged family of a self-play run is called in the error split
FAMILY_NAMES = {"seats": "the seats", "start": "the start player", "tiebreak": "the tie-break",
                "gap": "the seat gap", "ties": "ties", "length": "length"}


def run_split(margins: Margins, rescore: dict | None = None) -> dict[str, float]:
    """The error split of a self-play run's verdicts over the asked questions that can be judged in a
    single run (a run's length has nothing to be fair to); the tie-break keeps its share even in a run
    whose ties are shared (then nothing is judged there), so the split does not depend on the config."""
    keys = {"seats": "seats", "start": "start", "ties": "tiebreak"}
    return error_split([keys[q] for q in margins.asked if q in keys])


def _alpha(margins: Margins, key: str, alpha: float | None) -> float:
    return alpha if alpha is not None else run_split(margins).get(key, ALPHA)


def judged_families(c: dict, fair: float, margins: Margins, rescore: dict | None) -> dict[str, tuple]:
    """Every asked question judged against a margin, by key: (its family, its margin), each at its share
    of the error rate. What the verdicts and the stopping rule of --until-decided both judge."""
    split = run_split(margins)
    out = {}
    if "seats" in split:
        out["seats"] = (seat_family(c, fair, margins.seats, split["seats"]), margins.seats)
    if "start" in split:
        out["start"] = (start_family(c, fair, margins.start, split["start"]), margins.start)
    tie = tiebreak_family(rescore, margins.tiebreak, split.get("tiebreak", ALPHA))
    if "tiebreak" in split and tie is not None:
        out["tiebreak"] = (tie, margins.tiebreak)
    return out


def start_verdict(c: dict, fair: float, margins: Margins, seconds_per_game: float | None = None,
                  alpha: float | None = None, looks: Sequence[dict] = ()) -> Verdict:
    """Does the start player (seat 0) gain? Its win rate minus the fair share, within `margins.start`
    when asked, else a description with its interval; `looks` as `seat_verdict`'s."""
    each = _alpha(margins, "start", alpha)
    fam = intersected(start_family(c, fair, margins.start, each),
                      [start_family(t, fair, margins.start, each) for t in looks])
    mean = float(fam.value[0])
    n = int(c["games"])
    m = margins.text("start")
    rate = 100 * (mean + fair)
    if not margins.judges("start"):
        gap = against(mean, float(fam.low[0]), float(fam.high[0]))
        return Verdict("start", "Does the start player gain?", "info",
                       f"Start player (seat 0): it wins {rate:.1f}%, {gap} (a description, not judged: "
                       f"--questions start judges it). n = {n:,} games.", **family_estimate(fam, 0),
                       unit="pp", margin=None, n=n)
    status = classify(fam, margins.start)
    gap = against(mean, *_bounds(fam, 0, status in (WITHIN, SMALL)), margin=margins.start)
    side = "an advantage" if mean > 0 else "a disadvantage"
    words = {TOO_FEW: f"too few games for a verdict ({n:,}; at least {MIN_GAMES} are needed)",
             BEYOND: f"{side} beyond the {m} margin: it wins {rate:.1f}%, {gap}",
             WITHIN: f"no advantage or disadvantage beyond the {m} margin: it wins {rate:.1f}%, {gap}",
             SMALL: f"a small {side.split()[-1]}, within the {m} margin: it wins {rate:.1f}%, {gap}",
             UNDECIDED: f"undecided at the {m} margin: it wins {rate:.1f}%, {gap}"}
    soon, needed = (stated_forecasts(fam, margins.start, question="start") if status == UNDECIDED
                    else (None, None))
    more = f"; {more_games_text(needed, n, seconds_per_game, 'start')}" if status == UNDECIDED else ""
    sentence = f"Start player (seat 0): {words[status]}{more}. n = {n:,} games."
    short = f"wins {rate:.1f}%, {gap}{more}." if status != TOO_FEW else ""
    return Verdict("start", "Does the start player gain?", status, sentence,
                   **family_estimate(fam, 0, status), unit="pp", margin=margins.start, n=n, needed=needed,
                   soon=soon, short=short, detail={**interval_detail(fam, 0), "sign": int(np.sign(mean))},
                   forecast_key="start" if status == UNDECIDED else None)


def tie_verdict(c: dict, rescore: dict | None, configured: str, rule_ref: str, *, margins: Margins,
                seconds_per_game: float | None = None, alpha: float | None = None,
                looks: Sequence[dict | None] = ()) -> Verdict:
    """How often ties decide (the tie rate's interval a confidence sequence, `rate_sequence`), and whom the
    configured tie-break favours: each seat's win rate under the
    run's rule minus under shared wins (the same games re-scored, paired), one family over the seats; the
    seats named are those whose intervals decided it. `looks`: the re-scoring tallies of the run's earlier
    looks (`seat_verdict`)."""
    n = int(c["games"])
    counts = count_rates(n, {"tied": int(c["ties"][0]), "decided": int(c["ties"][1])})
    counts["tied_ci_low"], counts["tied_ci_high"] = rate_sequence(int(c["ties"][0]), n)
    same = int(c["ties"][0]) == int(c["ties"][1])
    often = (f"the top score is tied in {100 * counts['tied_rate']:.1f}% of games "
             f"[{100 * counts['tied_ci_low']:.1f}%, {100 * counts['tied_ci_high']:.1f}%]"
             + ("" if counts["tied"] == 0 else "; the tie-break decides every one of them" if same else
                f", and the tie-break decides {100 * counts['decided_rate']:.1f}%"))
    detail = {"tie_rate": counts["tied_rate"], "tie_ci_low": counts["tied_ci_low"],
              "tie_ci_high": counts["tied_ci_high"], "rule": configured}
    each = _alpha(margins, "tiebreak", alpha)
    fam = tiebreak_family(rescore, margins.tiebreak, each)
    if fam is not None:
        earlier = (tiebreak_family(t, margins.tiebreak, each) for t in looks)
        fam = intersected(fam, [f for f in earlier if f is not None])
    question = "How often do ties decide, and whom does the tie-break favour?"
    if fam is None or not margins.judges("ties"):
        if fam is None:
            why = "tied wins are shared (no tie-break)" if configured == "shared" else "no re-scoring"
        else:
            big = int(np.nanargmax(np.abs(fam.value)))
            why = (f"the tie-break ({configured}) moves seat {big} by {pp(fam.value[big])} "
                   f"{pp_interval(fam.low[big], fam.high[big])} against sharing tied wins (a description, "
                   "not judged: --questions ties judges it)")
        return Verdict("ties", question, "info", f"Ties: {often}; {why} ({rule_ref}). n = {n:,} games.",
                       value=counts["tied_rate"], low=counts["tied_ci_low"], high=counts["tied_ci_high"],
                       unit="share", margin=None, n=n, detail=detail)
    k = len(fam.value)
    status = classify(fam, margins.tiebreak)
    named = deciding_members(fam, margins.tiebreak, status) or [int(np.nanargmax(np.abs(fam.value)))]
    eq = status in (WITHIN, SMALL)
    m = margins.text("tiebreak")

    def effect(s: int) -> str:  # signed, as its interval: "seat 0: -2.4 pp [-2.7, -2.1]"
        return (f"seat {s}: {pp(fam.value[s])} {pp_interval(*_bounds(fam, s, eq), margin=margins.tiebreak)} "
                "against sharing tied wins")

    effects = "; ".join(effect(s) for s in named)
    lead = named[0]
    toward = "favours" if fam.value[lead] > 0 else "works against"
    words = {TOO_FEW: "too few games to say whom it favours",
             BEYOND: f"the tie-break ({configured}) {toward} seat {lead} beyond the {m} margin: {effects}",
             WITHIN: f"the tie-break ({configured}) moves no seat's win rate by more than {m} (the "
                     f"nearest to its margin: {effects})",
             SMALL: f"the tie-break ({configured}) moves seats a little, within the {m} margin: {effects}",
             UNDECIDED: f"whether the tie-break ({configured}) moves a seat by more than {m} is undecided: "
                        f"{effects}"}
    soon, needed = (stated_forecasts(fam, margins.tiebreak, question="tiebreak") if status == UNDECIDED
                    else (None, None))
    more = f"; {more_games_text(needed, n, seconds_per_game, 'tiebreak')}" if status == UNDECIDED else ""
    sentence = f"Ties: {often}; {words[status]}{more} ({rule_ref}). n = {n:,} games."
    short = (f"tied in {100 * counts['tied_rate']:.1f}% of games; the tie-break ({configured}, {rule_ref}): "
             f"{effects}{more}.")
    detail["tiebreak_effect"] = [{"seat": s, "difference": float(fam.value[s]), "ci_low": float(fam.low[s]),
                                  "ci_high": float(fam.high[s])} for s in range(k)]
    detail["named_seats"] = named
    return Verdict("tiebreak", question, status, sentence, **family_estimate(fam, lead, status), unit="pp",
                   margin=margins.tiebreak, n=n, needed=needed, soon=soon, detail=detail,
                   short=short if status != TOO_FEW else "",
                   forecast_key="tiebreak" if status == UNDECIDED else None)


#: the sds the descriptions' sequences are planned for: a rate's (a tie rate near 10%) and a length's, in
#: its unit (a description has no margin: its sequence is planned as a verdict's at the default margin)
RATE_SD_DESIGN, LENGTH_SD_DESIGN = 0.3, 3.0


def rate_sequence(count: int, n: int, alpha: float = ALPHA) -> tuple[float, float]:
    """A rate's 95% interval as a confidence sequence (bounded, analysis.bounded_sequences): valid after
    an adaptive stop as a fixed-size (Wilson) interval is not; NaN without games."""
    if n == 0:
        return float("nan"), float("nan")
    rate = count / n
    sd = math.sqrt(rate * (1 - rate) * n / (n - 1)) if n > 1 else 0.0
    fam = family([rate], [sd], [n], DEFAULT_MARGINS.ties, alpha, sd_design=RATE_SD_DESIGN, within=(0, 1))
    return float(fam.low[0]), float(fam.high[0])


def mean_sequence(mean: float, sd: float, n: int, alpha: float = ALPHA) -> tuple[float, float]:
    """A mean length's 95% interval as a confidence sequence (the normal mixture: a length has no bound);
    NaN with fewer than two games."""
    if n < 2 or not math.isfinite(sd):
        return float("nan"), float("nan")
    fam = family([mean], [sd], [n], DEFAULT_MARGINS.length, alpha, sd_design=max(sd, LENGTH_SD_DESIGN))
    return float(fam.low[0]), float(fam.high[0])


def length_verdict(c: dict, unit: str) -> Verdict:
    """How long games run: the mean with its 95% interval (a confidence sequence, valid after an adaptive
    stop), the median and the range (a description: a single run's length has nothing to be fair to)."""
    d = hist_distribution(c["length"])
    n = int(d["n"])
    d["ci_low"], d["ci_high"] = mean_sequence(d["mean"], d["sd"], n)
    sentence = (f"Length: games last {d['mean']:.1f} {unit} on average [{d['ci_low']:.1f}, "
                f"{d['ci_high']:.1f}], median {d['median']:.0f}, from {d['min']:.0f} to {d['max']:.0f}. "
                f"n = {n:,} games.")
    return Verdict("length", "How long do games run?", "info", sentence, value=d["mean"], low=d["ci_low"],
                   high=d["ci_high"], unit=unit, margin=None, n=n, detail={"median": d["median"]})


def seconds_per_game(manifest: RunManifest) -> float | None:
    """This run's own wall time per game: every session's seconds over its games (starting workers
    included, as the next games will pay it too); None when unknown."""
    sessions = [s for s in manifest.sessions if int(s.get("games_played", 0)) > 0
                and float(s.get("seconds", 0.0)) > 0]
    games = sum(int(s["games_played"]) for s in sessions)
    return sum(float(s["seconds"]) for s in sessions) / games if games >= 100 else None


def run_verdicts(run: Any, margins: Margins = DEFAULT_MARGINS) -> list[Verdict]:
    """Every headline verdict of a self-play run (a report's RunTally): seats, start player, ties and the
    tie-break, length, in that order; the asked ones judged at their share of the error rate
    (`run_split`), the others described."""
    spec = run.spec
    c = run.common
    fair = fair_share(c)
    pace = seconds_per_game(run.manifest)
    handicap = run.handicap  # in the game's score unit (analysis.handicaps.handicap_table)
    rescore = run.own.get("rescore")
    configured = next(iter(rescore["reference"])) if rescore else ""
    looks = getattr(run, "looks", [])  # the tallies of the run's earlier looks (RunTally.looks)
    commons = [t["common"] for t in looks]
    return [seat_verdict(c, fair, margins, pace, handicap, looks=commons),
            start_verdict(c, fair, margins, pace, looks=commons),
            tie_verdict(c, rescore, configured, spec.vocabulary.tie_rule, margins=margins,
                        seconds_per_game=pace, looks=[(t.get("game") or {}).get("rescore") for t in looks]),
            length_verdict(c, spec.vocabulary.length)]


def error_rate_text(split: dict[str, float]) -> str:
    """The report's error rate in a sentence: "The chance that any verdict above is wrong is at most 5%
    (2.5% for the seat gap, 2.5% for the seat changes); descriptions are outside it."."""
    if not split:
        return "No question was judged against a margin; every figure is a description with its interval."
    return (f"The chance that any verdict here is wrong is at most {split_text(split, FAMILY_NAMES)} "
            "(--questions chooses what is judged); figures marked as descriptions are outside it, each with "
            "its own 95% interval.")


def all_decided(verdicts: list[Verdict]) -> bool:
    """Whether every verdict is decided (descriptions count as decided)."""
    return all(v.decided for v in verdicts)


# ---- one error rate for the page ------------------------------------------------------------------------
@dataclass(frozen=True)
class JudgedSet:
    """Verdicts a page shows that were judged together at one error rate (a run's own, a comparison's):
    what they are in the page's words ("each of the 2 runs' own verdicts"), the rate of each such set (0
    when it judges nothing: descriptions only), and how many such sets the page shows."""

    what: str
    rate: float
    count: int = 1


@dataclass(frozen=True)
class PageError:
    """The chance that any verdict on a page is wrong, at most `total`; `sentence` says it; `alone` when
    one set carries the whole of it (a single run's page) or nothing is judged, so that the sets' own
    sentences already say as much."""

    total: float
    sentence: str
    alone: bool


def each_of(count: int, one: str, many: str, of: int = 1) -> str:
    """"the run's own verdicts" for one, "each of the 3 runs' own verdicts" for several; "one run's own
    verdicts" for one of `of` alike on the page."""
    if count == 1:
        return f"{'the' if of <= 1 else 'one'} {one}"
    return f"each of the {count:,} {many}"


def judged_sets(rates: Sequence[float], one: str, many: str) -> list[JudgedSet]:
    """The sets of one kind on a page (`one`, `many`: their name, "run's own verdicts"), from each set's
    rate: one JudgedSet per rate, counting the sets at it ("each of the 3 runs' own verdicts" at 5%)."""
    rates = list(rates)
    return [JudgedSet(each_of(rates.count(r), one, many, len(rates)), r, rates.count(r))
            for r in sorted(set(rates), reverse=True)]


def judged_rate(verdicts: Sequence[Verdict], rate: float = ALPHA) -> float:
    """The error rate of a set of verdicts judged together: `rate` (its whole, however it is split over
    the questions) when any of them is judged against a margin, else 0 (only descriptions)."""
    return rate if any(v.margin is not None and v.status != "info" for v in verdicts) else 0.0


def judged_split(verdicts: Sequence[Verdict]) -> dict[str, float]:
    """Each judged verdict's share of its set's error rate, by key (a comparison's verdicts carry theirs
    as ``alpha``); descriptions have none."""
    return {v.key: v.detail["alpha"] for v in verdicts if "alpha" in v.detail and v.status != "info"}


def page_error(sets: Sequence[JudgedSet], where: str = "On this page") -> PageError:
    """The page-wide error rate by the union bound: each judged set keeps its own rate (nothing is split
    again), so the chance that any verdict on the page is wrong is at most the sum of the sets' rates. The
    one place every page (report, compare, sheet, workbench card) states it from; a set judging nothing
    (descriptions only) adds 0 and is named as such."""
    shown = [s for s in sets if s.count > 0]
    total = sum(s.rate * s.count for s in shown)
    carrying = [s for s in shown if s.rate > 0]
    parts = ", ".join(f"{_pct(s.rate)} for {s.what}" for s in carrying)
    parts += "".join(f"; 0% for {s.what}, nothing judged" for s in shown if s.rate <= 0)
    if total <= 0:
        return PageError(0.0, f"{where} no verdict is judged against a margin; every figure is a description "
                              "with its own 95% interval.", alone=True)
    alone = len(carrying) == 1 and carrying[0].count == 1
    if total >= 1:
        return PageError(total, f"{where} the error rates of the judged verdicts add up to {_pct(total)} "
                                f"({parts}), which bounds nothing: read each set at its own rate.",
                         alone=alone)
    return PageError(total, f"{where} the chance that any verdict is wrong is at most {_pct(total)} "
                            f"({parts}).", alone=alone)
