"""`--until-decided`: play in rounds until every asked question (`--questions`) is decided, or a cap is
reached. One loop, `play_until_decided`, serves `balance simulate`, `balance profile` (each level) and
`balance compare` (both configs alike): the command hands it how to play a run up to N games in all and how
to judge what is there, and the loop decides how far to play next and when to stop.

Why looking after every round is allowed: the verdicts' intervals (analysis.verdicts) are confidence
sequences, valid at every number of games at once, so stopping as soon as every verdict is decided does not
raise their error rate, however many rounds it takes (tests/test_until_decided.py measures it on per-game
outcomes drawn from known distributions, against an ordinary fixed-size interval looked at as often).

The rounds: the first plays to `first` games (`first_round`: 1,000 for the fast agents, `MIN_GAMES` when a
seat searches); after it the loop says the plan (the games that would decide every verdict at its margin
if there were no difference at all, and the time that takes at the pace measured so far). Each next round
plays to where 15% of the ways the run can go on decide the undecided questions (`Verdict.soon`,
analysis.sequences.stated_forecasts: looking often costs a round's start-up, overshooting costs games), at
least 5% more than the games in hand and at most half as many again, never past the games cap; with a
time cap, never more than the time left allows at the measured pace (the first round is played whole: no
pace is known before it). After every round it says one line per question, the answer so far in words
(status, figure, the interval that decided it, and "decided" or the forecast with its chance and time).

The stopping rule itself is a pure function of a run's merged tally: `tally_statuses` (the status of every
judged question, the same as `analysis.verdicts.run_verdicts` gives, without the sentences) and `decided`.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from analysis.run_tally import fair_share, read_run_tally
from analysis.verdicts import (
    DECIDED,
    DEFAULT_MARGINS,
    FORECAST_CHANCE,
    MARGIN_PP,
    MARGIN_UNITS,
    MIN_GAMES,
    MOST_GAMES,
    STATUS_WORDS,
    Family,
    Margins,
    Verdict,
    about,
    all_decided,
    classify,
    duration,
    games_for,
    judged_families,
    run_verdicts,
)
from sim.app.bounds import positive_float
from sim.core.errors import ConfigError, RunFailed

#: the games cap of --until-decided when --games is not given
DEFAULT_CAP = 200_000
#: the first round of the fast agents (a searching agent starts at MIN_GAMES: it takes seconds a game)
FIRST_GAMES = 1000
#: a round grows the games in hand by at least this factor (a round has a fixed cost: workers start, the
#: new chunks are tallied) and at most by GROWTH_MOST (scripts/sequential_study.py weighs the two)
GROWTH_LEAST, GROWTH_MOST = 1.05, 1.5
FORECAST_PERCENT = f"{100 * FORECAST_CHANCE:.0f}%"

REASONS = ("decided", "games cap", "time cap")
WORDS = {**STATUS_WORDS, "info": "(a description, not asked)"}


@dataclass
class UntilDecidedResult:
    """What `play_until_decided` did: the games in hand at its last look (in all, counting games that were
    there before), the verdicts of that look, why it stopped (one of REASONS), the games it played itself
    (the sum of what `play_to` returned), its rounds and wall time, and the games at each look."""

    games: int
    verdicts: list[Verdict]
    reason: str
    played: int = 0
    rounds: int = 0
    seconds: float = 0.0
    looks: list[int] = field(default_factory=list)
    planned: int | None = None  # the games that would decide it with no difference at all (the plan)

    @property
    def decided(self) -> bool:
        return self.reason == "decided"


# ---- the stopping rule, on a tally alone --------------------------------------------------------------
def _families(common: dict, margins: Margins, rescore: dict | None) -> dict[str, tuple[Family, float]]:
    return judged_families(common, fair_share(common), margins, rescore)


def tally_statuses(common: dict, margins: Margins = DEFAULT_MARGINS,
                   rescore: dict | None = None) -> dict[str, str]:
    """The stopping rule's view of a tally (pure): the status of every question judged against a margin,
    by key ("seats", "start", and "tiebreak" when the tally re-scores ties), the same statuses
    `analysis.verdicts.run_verdicts` gives. `common` is a common tally (analysis.run_tally.common_tally:
    games, seat_games, seat_units, seat_squares in 1/SHARE_SCALE, optionally sizes), `rescore` the
    game's tie-break re-scoring tally (`RunTally.own["rescore"]`) or None."""
    return {key: classify(fam, margin) for key, (fam, margin) in _families(common, margins, rescore).items()}


def decided(statuses: Mapping[str, str]) -> bool:
    """Whether every judged question is decided: the loop stops."""
    return all(status in DECIDED for status in statuses.values())


def games_if_no_difference(common: dict, margins: Margins = DEFAULT_MARGINS,
                           rescore: dict | None = None) -> int:
    """The plan: the games in all at which every judged equivalence interval would lie inside its margin
    if every difference were exactly 0 (each family's equivalence half-width reaching the margin at the
    observed sds). MOST_GAMES + 1 when none up to it would."""
    need = MIN_GAMES
    for fam, margin in _families(common, margins, rescore).values():
        d = fam.design
        for sd in fam.sd:
            need = max(need, games_for(margin, float(sd), d.eq_alpha, d.eq_planned))
    return need


# ---- the loop -------------------------------------------------------------------------------------------
def check_caps(cap_games: int, cap_minutes: float | None) -> None:
    """Refuse (ConfigError, one line) caps that cannot work: a games cap below MIN_GAMES (no verdict is
    given on fewer games), a time cap that is not a positive number of minutes."""
    if cap_games < MIN_GAMES:
        raise ConfigError(f"--games: with --until-decided it is the cap, and no verdict is given on fewer "
                          f"than {MIN_GAMES} games; got {cap_games:,}")
    if cap_minutes is not None and not (math.isfinite(cap_minutes) and 0 < cap_minutes <= MOST_MINUTES):
        raise ConfigError(f"--minutes: must be a positive number of minutes, at most {MOST_MINUTES:,}, "
                          f"got {cap_minutes:g}")


def first_round(smallest_chunk: int) -> int:
    """The first round's games for a plan whose agents ask for chunks of at least `smallest_chunk` games
    (RunPlan.smallest_chunk: 1,000 for the fast agents, 10 when a seat searches)."""
    return FIRST_GAMES if smallest_chunk >= FIRST_GAMES else MIN_GAMES


def _round_up(games: int) -> int:
    """Targets read as round numbers: up to a multiple of 100 from 1,000 games on, else of 10."""
    step = 100 if games >= 1000 else 10
    return -(-games // step) * step


def next_target(verdicts: list[Verdict], have: int, cap: int) -> int:
    """The games in all the next round plays to: where the undecided verdicts are decided in 15% of the
    ways the run can go on (the largest `soon`, analysis.sequences.stated_forecasts), at least
    GROWTH_LEAST and at most GROWTH_MOST times the games in hand, never past the cap. An undecided verdict
    with no forecast (too few games, or its estimate on the margin) asks for the most."""
    needs = [v.soon if v.soon is not None else v.needed for v in verdicts if not v.decided]
    most = math.floor(GROWTH_MOST * have)
    want = max(needs) if needs and all(n is not None and n <= MOST_GAMES for n in needs) else most
    least = math.ceil(GROWTH_LEAST * have)
    return min(cap, max(have + 1, min(most, _round_up(max(want, least)))))


def _number(value: float, unit: str) -> str:
    if unit == "pp":
        return f"{100 * value:+.1f} pp"
    if unit == "share":
        return f"{100 * value:.1f}%"
    return f"{value:.1f} {unit}"


def _interval(v: Verdict) -> str:
    if v.unit == "pp":
        return f"[{100 * v.low:+.1f}, {100 * v.high:+.1f}]"
    if v.unit == "share":
        return f"[{100 * v.low:.1f}%, {100 * v.high:.1f}%]"
    return f"[{v.low:.1f}, {v.high:.1f}]"


def progress_lines(verdicts: list[Verdict], words: Mapping[str, str] = WORDS,
                   pace: float | None = None) -> list[str]:
    """One line per verdict, the current answer in words: its question's key, the status "so far", the
    figure and the interval that decided it, the margin, and "decided" or, undecided, the forecast (with
    its time at `pace`, seconds a game)."""
    lines = []
    for v in verdicts:
        if v.status == "info":
            described = words.get("info", WORDS["info"])
            lines.append(f"  {v.key:<7} {described}: {_number(v.value, v.unit)} {_interval(v)}")
            continue
        margin = f" (margin ±{_number(v.margin, v.unit).lstrip('+')})" if v.margin is not None else ""
        if v.decided:
            state = "decided"
        elif v.needed is not None and v.needed <= MOST_GAMES:
            more = about(max(v.needed - v.n, 1))
            when = f", about {duration(more * pace)}" if pace else ""
            state = f"about {more:,} more games ({FORECAST_PERCENT} of runs decide within{when})"
        else:
            state = "the estimate sits near the margin: no forecast"
        lines.append(f"  {v.key:<7} {words.get(v.status, v.status)} so far{margin}: "
                     f"{_number(v.value, v.unit)} {_interval(v)}, {state}")
    return lines


def _gained_text(gained: int, got: int, spent: float) -> str:
    """A round's new games: played, at what pace, or (a resumed run's first look) already there."""
    if gained and not got:
        return f"{gained:,} already there"
    rate = f", {gained / spent:,.0f} games/s" if gained and spent > 0 else ""
    return f"{gained:,} more in {spent:.1f} s{rate}"


def play_until_decided(play_to: Callable[[int], Any], judge: Callable[[], list[Verdict]], cap_games: int,
                       cap_minutes: float | None = None, say: Callable[[str], None] = print, *,
                       first: int = FIRST_GAMES, plan: Callable[[], int | None] | None = None,
                       words: Mapping[str, str] = WORDS,
                       clock: Callable[[], float] = time.monotonic) -> UntilDecidedResult:
    """Play in rounds until every verdict `judge` returns is decided (analysis.verdicts.all_decided), or
    `cap_games` games are in hand, or `cap_minutes` have passed.

    `play_to(n)` brings the run (or runs) to n games in all, playing only the missing ones, and returns
    the games it played (an int; anything else counts the growth of the games in hand). `judge()` reads
    what is there now and returns its verdicts; the games in hand are the largest `Verdict.n`. `plan()`,
    called once after the first look, gives the games that would decide every verdict at its margin if
    there were no difference at all (said with the time it takes at the measured pace). `words` names the
    statuses in the progress lines. `say` gets every line: the plan, a header and one line per verdict
    after each round, the reason it stopped. ConfigError on caps that cannot work (check_caps)."""
    check_caps(cap_games, cap_minutes)
    started = clock()
    target = min(cap_games, max(MIN_GAMES, first))
    have, played, rounds = 0, 0, 0
    play_seconds, play_games = 0.0, 0
    looks: list[int] = []
    planned = None
    while True:
        before = clock()
        got = play_to(target)
        spent = clock() - before
        verdicts = judge()
        grown, have = have, max((int(v.n) for v in verdicts), default=target)
        gained = max(0, have - grown)
        if isinstance(got, bool) or not isinstance(got, int):
            got = gained
        if rounds and not gained and have < target:
            raise RunFailed(f"until decided: asked for {target:,} games, the run holds {have:,} after "
                            "playing to them")
        played += got
        if got > 0 and gained > 0:  # the pace: games that were already there cost nothing
            play_seconds, play_games = play_seconds + spent, play_games + gained
        pace = play_seconds / play_games if play_games and play_seconds > 0 else None
        rounds += 1
        looks.append(have)
        if rounds == 1 and plan is not None:
            planned = plan()
            if planned is not None:
                say(_plan_line(planned, pace, cap_games, cap_minutes))
        say(f"until decided: {have:,} games after round {rounds} ({_gained_text(gained, got, spent)}; "
            f"{duration(clock() - started)} in all)")
        for line in progress_lines(verdicts, words, pace):
            say(line)
        reason = None
        if all_decided(verdicts):
            reason = "decided"
        elif have >= cap_games:
            reason = "games cap"
        else:
            target = next_target(verdicts, have, cap_games)
            if cap_minutes is not None:
                left = 60 * cap_minutes - (clock() - started)
                fits = have + int(left / pace) if pace else (target if left > 0 else have)
                target = min(target, fits)
                if left <= 0 or target <= have:
                    reason = "time cap"
        if reason is not None:
            seconds = clock() - started
            say(_stop_line(reason, have, rounds, seconds, cap_games=cap_games, cap_minutes=cap_minutes))
            return UntilDecidedResult(games=have, verdicts=verdicts, reason=reason, played=played,
                                      rounds=rounds, seconds=seconds, looks=looks, planned=planned)
        say(f"  -> on to {target:,} games")


def _plan_line(planned: int, pace: float | None, cap_games: int, cap_minutes: float | None) -> str:
    if planned > MOST_GAMES:
        games = f"more than {MOST_GAMES:,} games"
    else:
        games = f"about {about(planned):,} games"
    when = f" (about {duration(planned * pace)} at the pace so far, {1 / pace:,.0f} games/s)" \
        if pace and planned <= MOST_GAMES else ""
    cap = f"cap {cap_games:,} games" + (f" or {cap_minutes:g} min" if cap_minutes is not None else "")
    beyond = "; that is past the cap, so it may stop undecided" if planned > cap_games else ""
    return (f"until decided: plan: were there no difference at all, {games} in all would decide every "
            f"verdict at its margin{when}; a real difference near a margin takes longer, one far from it "
            f"less ({cap}{beyond})")


def _stop_line(reason: str, have: int, rounds: int, seconds: float, cap_games: int,
               cap_minutes: float | None) -> str:
    if reason == "decided":
        why = "every verdict decided"
    elif reason == "games cap":
        why = f"the games cap ({cap_games:,}) reached with a verdict undecided"
    else:
        why = f"the time cap ({cap_minutes or 0:g} min) reached with a verdict undecided"
    return f"until decided: stopped: {why}, at {have:,} games after {rounds} round(s) in {duration(seconds)}"


# ---- a run directory's judge ----------------------------------------------------------------------------
class RunJudge:
    """The verdicts of one self-play run directory, read afresh at every look (analysis.run_tally: only the
    chunks played since are tallied, the others come from the cache beside their parts); `plan` is
    `games_if_no_difference` of the last look's tally."""

    def __init__(self, run_dir: str | os.PathLike[str], margins: Margins = DEFAULT_MARGINS) -> None:
        self.run_dir, self.margins = run_dir, margins
        self.run: Any = None

    def __call__(self) -> list[Verdict]:
        self.run = read_run_tally(self.run_dir)
        return run_verdicts(self.run, self.margins)

    def plan(self) -> int | None:
        if self.run is None:
            return None
        return games_if_no_difference(self.run.common, self.margins, self.run.own.get("rescore"))


# ---- the options, as every command that plays until decided takes them ---------------------------------
MARGIN_HELP = ("the difference that matters, for the verdicts: percentage points of win rate (default 2, for "
               "seats, start player and tie-break), or per question, e.g. seats=2,start=1,length=1,worth=1 "
               f"(length in the game's unit, worth in score points); a win-rate margin from {MARGIN_PP[0]:g} "
               f"to below {MARGIN_PP[1]:g}, length and worth from {MARGIN_UNITS[0]:g} to {MARGIN_UNITS[1]:g}")
#: the ceiling of --minutes (about two years), said in its help: past it the time left overflows a count of
#: games
MOST_MINUTES = 1_000_000


#: the argparse type of --minutes: a finite number above 0, at most MOST_MINUTES
minutes_float = positive_float(MOST_MINUTES, "a number of minutes")


def add_margin_option(parser: Any) -> None:
    """`--margin`, as every command that gives verdicts takes it (analysis.verdicts.parse_margins)."""
    parser.add_argument("--margin", metavar="M", help=MARGIN_HELP)


QUESTIONS_HELP = ("the questions judged against their --margin, a comma list of seats, start, ties, length, "
                  "or all (default: seats; with compare, seats is 'is the variant fairer?' and each seat's "
                  "change); they share the report's 5%% error rate evenly, the others are described with "
                  "their intervals")


def add_questions_option(parser: Any) -> None:
    """`--questions`, as every command that judges seats takes it (analysis.questions.parse_questions)."""
    parser.add_argument("--questions", metavar="Q", help=QUESTIONS_HELP)


def add_until_decided_options(parser: Any, what: str = "the run") -> None:
    """`--until-decided`, `--minutes`, `--margin` and `--questions` of a command that plays games; `what`
    names what is played in rounds ("the run", "each level", "both configs alike")."""
    parser.add_argument("--until-decided", action="store_true",
                        help=f"play {what} in rounds until every asked question (--questions; default: the "
                             "seats) is decided at its --margin, or --games or --minutes is reached; the "
                             "verdicts' intervals are confidence sequences, so looking after every round is "
                             "allowed")
    parser.add_argument("--minutes", type=minutes_float, metavar="M",
                        help=f"with --until-decided: stop after about this many minutes too, at most "
                             f"{MOST_MINUTES:,} (default: no "
                             "time cap)")
    add_margin_option(parser)
    add_questions_option(parser)
