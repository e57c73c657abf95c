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
from dataclasses import KW_ONLY, dataclass, field, replace
from statistics import NormalDist
from typing import Any

import numpy as np

from analysis.handicaps import BONUS_RANGE
from analysis.tally import SHARE_SCALE, mean_sd
from sim.errors import ConfigError

ALPHA = 0.05
#: no verdict on fewer games: the confidence sequence's guarantee is asymptotic, and a handful of games
#: says nothing a designer should act on
MIN_GAMES = 200
#: "about N more games" is not said past this; the figure is then "more than" it
MOST_GAMES = 10_000_000

WITHIN, SMALL, BEYOND, UNDECIDED, TOO_FEW = "within", "small", "beyond", "undecided", "too_few"
DECIDED = (WITHIN, SMALL, BEYOND)


@dataclass(frozen=True)
class Margins:
    """What difference matters, per question: win-rate differences as shares (0.02 = 2 percentage
    points), game length in the game's own unit, a component's worth in score points."""

    seats: float = 0.02
    start: float = 0.02
    tiebreak: float = 0.02
    ties: float = 0.02
    length: float = 1.0
    worth: float = 1.0

    #: the questions whose margin is a win rate (given in percentage points on the command line)
    RATES = ("seats", "start", "tiebreak", "ties")

    def text(self, key: str) -> str:
        value = getattr(self, key)
        return f"{_num(100 * value)} pp" if key in self.RATES else _num(value)


DEFAULT_MARGINS = Margins()


def _num(x: float) -> str:
    return f"{x:g}"


def parse_margins(text: str | None) -> Margins:
    """`--margin`: one number (percentage points of win rate, for every win-rate question: ``2`` or
    ``2pp``) or ``key=value`` pairs (``seats=2,start=1,length=1,worth=1``); ConfigError on anything
    else."""
    margins = Margins()
    if text is None or not text.strip():
        return margins
    keys = [f for f in Margins.__dataclass_fields__]
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
            if name in Margins.RATES and number >= 100:
                raise ConfigError(f"--margin: {name} is in percentage points of win rate (2 = 2 pp), "
                                  f"got {number:g}")
            margins = replace(margins, **{name: number / 100 if name in Margins.RATES else number})
    return margins


# ---- the confidence sequence --------------------------------------------------------------------------
def _z(alpha: float) -> float:
    return NormalDist().inv_cdf(1 - alpha / 2)


def planned_games(sd: float, margin: float, alpha: float) -> float:
    """The games at which the sequence is tightest: those a single fixed-size test would need to tell
    an estimate of 0 from the margin (chosen from the margin, never from the data)."""
    return max(float(MIN_GAMES), (_z(alpha) * sd / margin) ** 2)


def half_width(sd: Any, n: Any, alpha: float, planned: float) -> np.ndarray:
    """Half-width of the two-sided normal-mixture confidence sequence of a mean after n observations of
    sample sd `sd`, tightest near `planned` observations (Waudby-Smith et al. 2024, eq. for the
    asymptotic Robbins sequence): sd * sqrt(2 (n r + 1) / (n^2 r) * log(sqrt(n r + 1) / alpha))."""
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
class Family:
    """Estimates judged together: their values, sds, games and simultaneous interval bounds."""

    value: np.ndarray
    sd: np.ndarray
    n: np.ndarray
    low: np.ndarray
    high: np.ndarray
    alpha_each: float
    planned: float


def family(mean: np.ndarray, sd: np.ndarray, n: np.ndarray, margin: float, alpha: float = ALPHA,
           sd_design: float | None = None) -> Family:
    """Simultaneous confidence sequences of several means (Bonferroni: alpha / len each), tightest at the
    games a fixed test would need at the margin for a standard deviation `sd_design` (default: the
    largest sd here, a design choice that does not move with the data once games accumulate)."""
    mean, sd, n = (np.atleast_1d(np.asarray(x, dtype=float)) for x in (mean, sd, n))
    each = alpha / len(mean)
    design = sd_design if sd_design is not None else float(np.nanmax(sd)) if len(sd) else 0.5
    planned = planned_games(max(design, 1e-9), margin, each)
    half = half_width(sd, n, each, planned)
    return Family(value=mean, sd=sd, n=n, low=mean - half, high=mean + half, alpha_each=each, planned=planned)


def classify(fam: Family, margin: float) -> str:
    """The status of a family of differences against +-margin (module docstring)."""
    if len(fam.n) == 0 or np.nanmin(fam.n) < MIN_GAMES or not np.all(np.isfinite(fam.low)):
        return TOO_FEW
    if np.any((fam.low > margin) | (fam.high < -margin)):
        return BEYOND
    if np.all((fam.low >= -margin) & (fam.high <= margin)):
        return SMALL if np.any((fam.low > 0) | (fam.high < 0)) else WITHIN
    return UNDECIDED


def games_to_decide(fam: Family, margin: float) -> int:
    """How many games in all would decide the family if its estimates and sds stayed as they are: every
    interval inside the margin (estimates inside it), or the farthest estimate's interval outside."""
    value, sd = np.abs(fam.value), fam.sd
    if np.any(value > margin):
        need = [games_for(v - margin, s, fam.alpha_each, fam.planned)
                for v, s in zip(value, sd, strict=True) if v > margin]
        return min(need)
    return max(games_for(margin - v, s, fam.alpha_each, fam.planned) for v, s in zip(value, sd, strict=True))


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


def family_estimate(fam: Family, i: int) -> dict[str, float]:
    """A verdict's estimate and interval: the family's `i`-th value and its bounds."""
    return {"value": float(fam.value[i]), "low": float(fam.low[i]), "high": float(fam.high[i])}


STATUS_WORDS = {WITHIN: "fair within the margin", SMALL: "a small difference, within the margin",
                BEYOND: "unfair", UNDECIDED: "undecided", TOO_FEW: "too few games"}


def pp(share: float, sign: bool = True) -> str:
    """A difference of win rates in percentage points: "+4.9 pp"."""
    share = round(100 * share, 1) + 0.0  # no "-0.0"
    return f"{share:+.1f} pp" if sign else f"{share:.1f} pp"


def pp_interval(low: float, high: float) -> str:
    low, high = (round(100 * x, 1) + 0.0 for x in (low, high))
    return f"[{low:+.1f}, {high:+.1f}]"


def against(value: float, low: float, high: float, what: str = "the fair share") -> str:
    """A difference with its interval in words: "10.7 pp [7.6, 13.8] above the fair share"; signed when
    the interval holds 0."""
    if low > 0:
        return f"{100 * value:.1f} pp [{100 * low:.1f}, {100 * high:.1f}] above {what}"
    if high < 0:
        return f"{-100 * value:.1f} pp [{-100 * high:.1f}, {-100 * low:.1f}] below {what}"
    return f"{pp(value)} {pp_interval(low, high)} against {what}"


def more_games_text(needed: int | None, n: int, seconds_per_game: float | None) -> str:
    """"about 6,100 more games (about 40 s on this machine) would decide it"."""
    if needed is None:
        return ""
    if needed > MOST_GAMES:
        return (f"more than {MOST_GAMES:,} games would be needed to decide it (the estimate sits on the "
                "margin)")
    more = max(needed - n, 1)
    more = about(more)
    when = f" (about {duration(more * seconds_per_game)} on this machine)" if seconds_per_game else ""
    return f"about {more:,} more games{when} would decide it"


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


def seat_family(c: dict, fair: float, margin: float) -> Family:
    """Every seat's win rate minus the fair share, as one family (a common tally's sums)."""
    k = len(c["seat_games"])
    moments = [share_moments(int(c["seat_games"][s]), c["seat_units"][s], c["seat_squares"][s], fair)
               for s in range(k)]
    design = math.sqrt(fair * (1 - fair))
    return family(np.array([m for m, _ in moments]), np.array([s for _, s in moments]),
                  c["seat_games"].astype(float), margin, sd_design=design)


def seat_verdict(c: dict, fair: float, margins: Margins, seconds_per_game: float | None = None,
                 handicap: Any = None) -> Verdict:
    """Are the seats fair? Every seat's win rate against the fair share, within `margins.seats`."""
    fam = seat_family(c, fair, margins.seats)
    status = classify(fam, margins.seats)
    n = int(c["games"])
    far = int(np.nanargmax(np.abs(fam.value)))
    best, worst = int(np.nanargmax(fam.value)), int(np.nanargmin(fam.value))
    m = margins.text("seats")
    rates = fam.value + fair
    share = f"the fair share of {100 * fair:.1f}%"
    seat_text = (f"seat {far} wins {100 * rates[far]:.1f}% of games, "
                 f"{against(fam.value[far], fam.low[far], fam.high[far], share)}")
    if status == TOO_FEW:
        sentence = f"Seats: too few games for a verdict ({n:,}; at least {MIN_GAMES} are needed)."
    elif status == BEYOND:
        sentence = (f"Seats: unfair. Seat {best} is favoured: it wins {100 * rates[best]:.1f}% of games, "
                    f"{against(fam.value[best], fam.low[best], fam.high[best], share)}, beyond the {m} "
                    f"margin; seat {worst} wins least, {100 * rates[worst]:.1f}%.")
    elif status in (WITHIN, SMALL):
        small = "" if status == WITHIN else " The difference is real but smaller than the margin."
        sentence = (f"Seats: fair within the {m} margin. Every seat's win rate is within {m} of "
                    f"{share} (the farthest: {seat_text}).{small}")
    else:
        sentence = f"Seats: undecided at the {m} margin: {seat_text}"
    needed = games_to_decide(fam, margins.seats) if status == UNDECIDED else None
    if needed is not None:
        sentence += f"; {more_games_text(needed, n, seconds_per_game)}."
    evens, evens_short = (handicap_texts(handicap, deciding_seat(fam, margins.seats), margins.seats)
                          if status in (BEYOND, SMALL, UNDECIDED) else ("", ""))
    sentence += (f" {evens}" if evens else "") + f" n = {n:,} games."
    shown = far if status != BEYOND else best
    short = (f"seat {shown} wins {100 * rates[shown]:.1f}%, "
             f"{against(fam.value[shown], fam.low[shown], fam.high[shown], f'{100 * fair:.1f}%')}"
             + (f"; seat {worst} {100 * rates[worst]:.1f}%" if status == BEYOND else "")
             + (f"; {more_games_text(needed, n, seconds_per_game)}" if needed is not None else "") + "."
             + (f" {evens_short}" if evens_short else ""))
    detail = {"seats": [{"seat": s, "win_rate": float(rates[s]), "difference": float(fam.value[s]),
                         "ci_low": float(fam.low[s]), "ci_high": float(fam.high[s])}
                        for s in range(len(rates))], "fair_share": fair, "favoured_seat": best}
    return Verdict("seats", "Are the seats fair?", status, sentence, **family_estimate(fam, far), unit="pp",
                   margin=margins.seats, n=n, needed=needed, detail=detail,
                   short=short if status != TOO_FEW else "")


def units(x: float, unit: str) -> str:
    """A whole number of score units in words: "1 point", "3 points", "2 tokens"."""
    return f"{abs(x):.0f} {unit[:-1] if abs(x) == 1 and unit.endswith('s') else unit}"


def about(games: int) -> int:
    """An estimate of games, to two significant digits from 100 on."""
    return int(float(f"{games:.2g}")) if games >= 100 else games


def deciding_seat(fam: Family, margin: float) -> int:
    """The seat whose deviation from the fair share decides the seats' status: of the seats whose interval
    lies wholly outside +-margin, the farthest from it; if none, the farthest seat."""
    outside = (fam.low > margin) | (fam.high < -margin)
    return int(np.nanargmax(np.abs(fam.value) + 2.0 * outside))  # a deviation is at most 1


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
    bounds = f" [{100 * low:.1f}, {100 * high:.1f}]" if np.isfinite(low) and np.isfinite(high) else ""
    return f"{100 * share:.1f}%{bounds}"


def signed_units(x: float, unit: str) -> str:
    """A whole bonus in score units with its sign: "-1 point", "0 points", "+2 tokens"."""
    return ("-" if x < 0 else "+" if x > 0 else "") + units(x, unit)


def start_family(c: dict, fair: float, margin: float) -> Family:
    """Seat 0's win rate minus the fair share (a common tally's sums), as a family of one."""
    mean, sd = share_moments(int(c["seat_games"][0]), c["seat_units"][0], c["seat_squares"][0], fair)
    return family(np.array([mean]), np.array([sd]), np.array([float(c["seat_games"][0])]), margin,
                  sd_design=math.sqrt(fair * (1 - fair)))


def tiebreak_family(rescore: dict | None, margin: float) -> Family | None:
    """Each seat's win rate under the configured tie-break minus under shared wins, the same games
    re-scored (a game's re-scoring tally), as one family; None when there is nothing to judge (no
    re-scoring, or tied wins are shared)."""
    if rescore is None or "shared" not in rescore["rules"] or next(iter(rescore["reference"])) == "shared":
        return None
    games, t = rescore["seat_games"], rescore["rules"]["shared"]  # shared minus the configured rule
    moments = [mean_sd(int(games[s]), -int(t["change"][s]), int(t["change_squares"][s]), SHARE_SCALE)
               for s in range(len(games))]
    return family(np.array([m for m, _ in moments]), np.array([s for _, s in moments]), games.astype(float),
                  margin, sd_design=0.2)


def judged_families(c: dict, fair: float, margins: Margins, rescore: dict | None) -> dict[str, tuple]:
    """Every question judged against a margin, by key: (its family, its margin). What the verdicts and
    the stopping rule of --until-decided both judge."""
    out = {"seats": (seat_family(c, fair, margins.seats), margins.seats),
           "start": (start_family(c, fair, margins.start), margins.start)}
    tie = tiebreak_family(rescore, margins.tiebreak)
    if tie is not None:
        out["tiebreak"] = (tie, margins.tiebreak)
    return out


def start_verdict(c: dict, fair: float, margins: Margins, seconds_per_game: float | None = None) -> Verdict:
    """Does the start player (seat 0) gain? Its win rate minus the fair share, within `margins.start`."""
    fam = start_family(c, fair, margins.start)
    mean = float(fam.value[0])
    status = classify(fam, margins.start)
    n = int(c["games"])
    m = margins.text("start")
    gap = against(mean, float(fam.low[0]), float(fam.high[0]))
    rate = 100 * (mean + fair)
    words = {TOO_FEW: f"too few games for a verdict ({n:,}; at least {MIN_GAMES} are needed)",
             BEYOND: (f"{'an advantage' if mean > 0 else 'a disadvantage'} beyond the {m} margin: it wins "
                      f"{rate:.1f}%, {gap}"),
             WITHIN: f"no advantage beyond {m}: it wins {rate:.1f}%, {gap}",
             SMALL: (f"a small {'advantage' if mean > 0 else 'disadvantage'}, within the {m} margin: it "
                     f"wins {rate:.1f}%, {gap}"),
             UNDECIDED: f"undecided at the {m} margin: it wins {rate:.1f}%, {gap}"}
    needed = games_to_decide(fam, margins.start) if status == UNDECIDED else None
    more = f"; {more_games_text(needed, n, seconds_per_game)}" if needed is not None else ""
    sentence = f"Start player (seat 0): {words[status]}{more}. n = {n:,} games."
    short = f"wins {rate:.1f}%, {gap}{more}." if status != TOO_FEW else ""
    return Verdict("start", "Does the start player gain?", status, sentence, **family_estimate(fam, 0),
                   unit="pp", margin=margins.start, n=n, needed=needed, short=short)


def tie_verdict(c: dict, rescore: dict | None, configured: str, rule_ref: str, *, margins: Margins,
                seconds_per_game: float | None = None) -> Verdict:
    """How often ties decide, and whom the configured tie-break favours: each seat's win rate under the
    run's rule minus under shared wins (the same games re-scored, paired), one family over the seats."""
    from analysis.ties import count_rates

    n = int(c["games"])
    counts = count_rates(n, {"tied": int(c["ties"][0]), "decided": int(c["ties"][1])})
    same = int(c["ties"][0]) == int(c["ties"][1])
    often = (f"the top score is tied in {100 * counts['tied_rate']:.1f}% of games "
             f"[{100 * counts['tied_ci_low']:.1f}%, {100 * counts['tied_ci_high']:.1f}%]"
             + ("" if counts["tied"] == 0 else "; the tie-break decides every one of them" if same else
                f", and the tie-break decides {100 * counts['decided_rate']:.1f}%"))
    detail = {"tie_rate": counts["tied_rate"], "tie_ci_low": counts["tied_ci_low"],
              "tie_ci_high": counts["tied_ci_high"], "rule": configured}
    fam = tiebreak_family(rescore, margins.tiebreak)
    if fam is None:
        why = "tied wins are shared (no tie-break)" if configured == "shared" else "no re-scoring"
        return Verdict("ties", "How often do ties decide, and whom does the tie-break favour?", "info",
                       f"Ties: {often}; {why} ({rule_ref}). n = {n:,} games.", value=counts["tied_rate"],
                       low=counts["tied_ci_low"], high=counts["tied_ci_high"], unit="share", margin=None, n=n,
                       detail=detail)
    k = len(fam.value)
    status = classify(fam, margins.tiebreak)
    best = int(np.nanargmax(fam.value))
    m = margins.text("tiebreak")
    effect = (f"seat {best} gains {pp(fam.value[best])} {pp_interval(fam.low[best], fam.high[best])} "
              f"against sharing tied wins")
    words = {TOO_FEW: "too few games to say whom it favours",
             BEYOND: f"the tie-break ({configured}) favours seat {best} beyond the {m} margin: {effect}",
             WITHIN: f"the tie-break ({configured}) moves no seat's win rate by more than {m} ({effect})",
             SMALL: f"the tie-break ({configured}) favours seat {best} a little, within the {m} margin: "
                    f"{effect}",
             UNDECIDED: f"whether the tie-break ({configured}) favours a seat by more than {m} is undecided: "
                        f"{effect}"}
    needed = games_to_decide(fam, margins.tiebreak) if status == UNDECIDED else None
    more = f"; {more_games_text(needed, n, seconds_per_game)}" if needed is not None else ""
    sentence = f"Ties: {often}; {words[status]}{more} ({rule_ref}). n = {n:,} games."
    short = (f"tied in {100 * counts['tied_rate']:.1f}% of games; the tie-break ({configured}, {rule_ref}) "
             f"moves seat {best} by {pp(fam.value[best])} {pp_interval(fam.low[best], fam.high[best])} "
             f"against sharing tied wins{more}.")
    detail["tiebreak_effect"] = [{"seat": s, "difference": float(fam.value[s]), "ci_low": float(fam.low[s]),
                                  "ci_high": float(fam.high[s])} for s in range(k)]
    return Verdict("tiebreak", "How often do ties decide, and whom does the tie-break favour?", status,
                   sentence, **family_estimate(fam, best), unit="pp", margin=margins.tiebreak, n=n,
                   needed=needed, detail=detail, short=short if status != TOO_FEW else "")


def length_verdict(c: dict, unit: str) -> Verdict:
    """How long games run: the mean with its 95% interval, the median and the range (a description: a
    single run's length has nothing to be fair to)."""
    from analysis.tally import hist_distribution

    d = hist_distribution(c["length"])
    n = int(d["n"])
    sentence = (f"Length: games last {d['mean']:.1f} {unit} on average [{d['ci_low']:.1f}, "
                f"{d['ci_high']:.1f}], median {d['median']:.0f}, from {d['min']:.0f} to {d['max']:.0f}. "
                f"n = {n:,} games.")
    return Verdict("length", "How long do games run?", "info", sentence, value=d["mean"], low=d["ci_low"],
                   high=d["ci_high"], unit=unit, margin=None, n=n, detail={"median": d["median"]})


def seconds_per_game(manifest: dict) -> float | None:
    """This machine's wall time per game, from the run's fastest session of at least 100 games (a
    session's time includes starting its workers, which a short one pays most for); None when unknown."""
    paces = [float(s["seconds"]) / int(s["games_played"]) for s in manifest.get("sessions", [])
             if int(s.get("games_played", 0)) >= 100 and float(s.get("seconds", 0.0)) > 0]
    return min(paces) if paces else None


def run_verdicts(run: Any, margins: Margins = DEFAULT_MARGINS) -> list[Verdict]:
    """Every headline verdict of a self-play run (a report's RunTally): seats, start player, ties and the
    tie-break, length, in that order."""
    from analysis.seats import fair_share

    spec = run.spec
    c = run.common
    fair = fair_share(c)
    pace = seconds_per_game(run.manifest)
    handicap = run.handicap  # in the game's score unit (analysis.handicaps.handicap_table)
    rescore = run.own.get("rescore")
    configured = next(iter(rescore["reference"])) if rescore else ""
    return [seat_verdict(c, fair, margins, pace, handicap), start_verdict(c, fair, margins, pace),
            tie_verdict(c, rescore, configured, spec.vocabulary.tie_rule, margins=margins,
                        seconds_per_game=pace),
            length_verdict(c, spec.vocabulary.length)]


def all_decided(verdicts: list[Verdict]) -> bool:
    """Whether every verdict is decided (descriptions count as decided)."""
    return all(v.decided for v in verdicts)
