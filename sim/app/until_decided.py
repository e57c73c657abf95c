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
least 5% more than the games in hand and at most half as many again, never past the games cap.

With a time cap no round starts that the time left cannot pay for: a round's seconds are estimated at the
pace of the level being played, measured on that level's own games (`RunsCost`: each run directory's
earlier sessions, so a stage that plays two levels prices each at its own pace, and games already there or
played by another level never set it), and at the loop's own measured pace, whichever is slower; the time
of a look (reading the tallies) is kept aside for the look after the last round. Before anything of the
level is timed the loop plays a small first batch (`probe`, the smallest chunk), times it, and sizes the
first round by it, so the first round is priced too (to half the time left: a few games' pace is rough).
A round that would add fewer than 5% to the games in hand is not started (its fixed costs would be most
of it). After every round it says one line per question, the answer so far in words (status, the seat it
speaks of, figure, the interval that decided it, and "decided" or the forecast with its chance and time).

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
from analysis.sequences import forecast_held_text
from analysis.verdicts import (
    DECIDED,
    DEFAULT_MARGINS,
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
    judged_families,
    pp_interval,
    run_verdicts,
)
from sim.app.bounds import positive_float
from sim.core.errors import ConfigError, RunFailed
from storage.run_dir import RunDirectory, mark_stopped_adaptively

#: the games cap of --until-decided when --games is not given
DEFAULT_CAP = 200_000
#: the first round of the fast agents (a searching agent starts at MIN_GAMES: it takes seconds a game)
FIRST_GAMES = 1000
#: a round grows the games in hand by at least this factor (a round has a fixed cost: workers start, the
#: new chunks are tallied) and at most by GROWTH_MOST (scripts/sequential_study.py weighs the two)
GROWTH_LEAST, GROWTH_MOST = 1.05, 1.5
#: the first timed batch of a fast agent under a time cap (first_probe)
PROBE_GAMES = 100

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
            need = max(need, d.games_for(margin, float(sd)))
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


def first_probe(smallest_chunk: int, minutes: float | None) -> int | None:
    """The first timed batch of a level with nothing of it timed yet (`probe` of play_until_decided): its
    smallest chunk when that is less than its first round (a searching agent: the first round's estimate
    is said after seconds, not minutes); with a time cap, at most PROBE_GAMES of a fast agent too, so
    that no first round goes unpriced."""
    if smallest_chunk < first_round(smallest_chunk):
        return smallest_chunk
    return probe_games(smallest_chunk) if minutes is not None else None


def probe_games(smallest_chunk: int) -> int:
    """The games of a first timed batch on one lane: a searching agent's smallest chunk, at most
    PROBE_GAMES of a fast agent (what `first_probe` plays, and sim.app.plain_run's batch a lane)."""
    return min(PROBE_GAMES, smallest_chunk)


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
    """The interval a progress line shows: a difference's as the verdicts show it (outward, never on the
    margin it decided against: "[-6.8, -2.03]", not "[-6.8, -2.0]")."""
    if v.unit == "pp":
        return pp_interval(v.low, v.high, v.margin)
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
            held = f" ({forecast_held_text(v.forecast_key)}{when})" if v.forecast_key else ""
            state = f"about {more:,} more games{held}"
        else:
            state = "the estimate sits near the margin: no forecast"
        seat = verdict_seat(v)
        who = f"seat {seat} " if seat is not None else ""
        lines.append(f"  {v.key:<7} {words.get(v.status, v.status)} so far{margin}: "
                     f"{who}{_number(v.value, v.unit)} {_interval(v)}, {state}")
    return lines


def verdict_seat(v: Verdict) -> int | None:
    """The seat a verdict's figure speaks of, for a question of every seat (the seats, the tie-break, a
    comparison's seat changes): the first seat that decided it (`detail` "named_seats", or "named" of a
    change), else the seat farthest from none (the one its figure is then given for); None for a question
    of one figure (the start player is seat 0 by its name, the seat gap is no seat's)."""
    detail = v.detail or {}
    if v.key not in ("seats", "tiebreak"):
        return None
    named = detail.get("named_seats")
    if named is None and "seat_changes" in detail:
        named = detail.get("named")
    if named:
        return int(named[0])
    rows = detail.get("seats") or detail.get("tiebreak_effect") or detail.get("seat_changes") or []
    figures = [(abs(float(row.get("difference", row.get("change", 0.0)))), int(row["seat"])) for row in rows
               if "seat" in row]
    return max(figures)[1] if figures else None


def _gained_text(gained: int, got: int, spent: float) -> str:
    """A round's new games: played, at what pace, or (a resumed run's first look) already there."""
    if gained and not got:
        return f"{gained:,} already there"
    rate = f", {gained / spent:,.0f} games/s" if gained and spent > 0 else ""
    return f"{gained:,} more in {spent:.1f} s{rate}"


class _Pace:
    """The loop's own pace: seconds of `play_to` a game gained, round by round (the first timed batch
    left out once a round after it is timed: it carries the start-up of workers and kernels)."""

    def __init__(self) -> None:
        self.rounds: list[tuple[int, float, bool]] = []  # (games, seconds, a probe)

    def note(self, games: int, seconds: float, probe: bool = False) -> None:
        if games > 0 and seconds > 0:
            self.rounds.append((games, seconds, probe))

    def per_game(self) -> float | None:
        """Seconds a game: the slower of the average and the last round's (a machine that got busier is
        believed at once)."""
        kept = [r for r in self.rounds if not r[2]] or self.rounds
        if not kept:
            return None
        games, seconds = sum(r[0] for r in kept), sum(r[1] for r in kept)
        return max(seconds / games, kept[-1][1] / kept[-1][0])


def play_until_decided(play_to: Callable[[int], Any], judge: Callable[[], list[Verdict]], cap_games: int,
                       cap_minutes: float | None = None, say: Callable[[str], None] = print, *,
                       first: int = FIRST_GAMES, plan: Callable[[], int | None] | None = None,
                       words: Mapping[str, str] = WORDS,
                       clock: Callable[[], float] = time.monotonic,
                       cost: Callable[[int], float | None] | None = None,
                       probe: int | None = None, reserve: float = 0.0,
                       warm: Callable[[], None] | None = None) -> UntilDecidedResult:
    """Play in rounds until every verdict `judge` returns is decided (analysis.verdicts.all_decided), or
    `cap_games` games are in hand, or `cap_minutes` have passed.

    `play_to(n)` brings the run (or runs) to n games in all, playing only the missing ones, and returns
    the games it played (an int; anything else counts the growth of the games in hand). `judge()` reads
    what is there now and returns its verdicts; the games in hand are the largest `Verdict.n`. `plan()`,
    called once after the first look, gives the games that would decide every verdict at its margin if
    there were no difference at all (said with the time it takes at the measured pace). `words` names the
    statuses in the progress lines. `say` gets every line: the plan, a header and one line per verdict
    after each round, the reason it stopped. ConfigError on caps that cannot work (check_caps).

    `cost(n)`, if given, is the seconds playing to n games would take from what is there now at each
    level's own pace (`RunsCost`), None when a level that must play has no timed game yet; the loop
    prices a round at the slower of it and its own measured pace. `probe`: before the first round, when
    neither prices it, the loop plays to `probe` games first and times them (the smallest chunk), so that
    the first round is sized by a pace too and its estimate is said before it starts. `reserve`: seconds
    of the time cap kept aside for what the command does after the loop (a comparison's report). `warm`
    (sim.app.runner.warm_kernels) loads or compiles the kernels before anything is timed, so that no pace
    carries a first compile (a minute on a fresh install); its time counts against the time cap."""
    check_caps(cap_games, cap_minutes)
    loop = _Loop(play_to, judge, cap_games, cap_minutes, say=say, clock=clock, cost=cost, reserve=reserve)
    if warm is not None:
        warm()
    target = min(cap_games, max(MIN_GAMES, first))
    if probe is not None and 0 < probe < target and loop.estimate(target, 0) is None:
        loop.play_probe(probe)
    target = loop.first_target(target)
    while True:
        verdicts = loop.play_round(target)
        if loop.rounds == 1 and plan is not None:
            loop.planned = plan()
            if loop.planned is not None:
                say(_plan_line(loop.planned, loop.own.per_game(), cap_games, cap_minutes))
        loop.say_look(verdicts, words)
        reason, target = loop.next_step(verdicts)
        if reason is not None:
            return loop.stop(reason, verdicts)
        more = loop.estimate(target, loop.have)
        say(f"  -> on to {target:,} games" + (f", about {duration(more)}" if more else ""))


class _Loop:
    """What `play_until_decided` holds between rounds: the games in hand and played, its own pace, the
    time kept aside for a look, and how a round is priced against the time cap."""

    def __init__(self, play_to: Callable[[int], Any], judge: Callable[[], list[Verdict]], cap_games: int,
                 cap_minutes: float | None, *, say: Callable[[str], None], clock: Callable[[], float],
                 cost: Callable[[int], float | None] | None, reserve: float) -> None:
        self.play_to, self.judge, self.say, self.clock = play_to, judge, say, clock
        self.cap_games, self.cap_minutes, self.cost, self.reserve = cap_games, cap_minutes, cost, reserve
        self.started = clock()
        self.have, self.played, self.rounds, self.held = 0, 0, 0, 0
        self.own = _Pace()
        self.looks: list[int] = []
        self.planned: int | None = None
        self.look_seconds = 0.0  # the longest look (reading the tallies, saying the lines): kept aside
        self.probed, self.probe_seconds = 0, 0.0
        self.round_line, self.look_started = "", 0.0

    def estimate(self, to: int, held: int) -> float | None:
        """Seconds to play to `to` games from `held`: the slower of `cost` and the loop's own pace."""
        figures = [self.cost(to)] if self.cost is not None else []
        pace = self.own.per_game()
        figures.append(pace * max(0, to - held) if pace else None)
        known = [f for f in figures if f is not None]
        return max(known) if known else None

    def left(self) -> float:
        if self.cap_minutes is None:
            return math.inf
        return 60 * self.cap_minutes - (self.clock() - self.started) - self.look_seconds - self.reserve

    def fitting(self, to: int, held: int) -> int:
        """The most games in all, up to `to`, that the time left pays for (`to` when nothing prices it)."""
        if self.cap_minutes is None:
            return to
        budget = self.left()
        if self.own.rounds and all(r[2] for r in self.own.rounds):  # timed on a first batch alone: a few
            budget /= 2  # games' pace may be half the true one (lengths vary); the next round sees better
        if self.estimate(to, held) is None:
            return to if budget > 0 else held
        low, high = held, to  # the estimate grows with the games: the largest that fits
        while low < high:
            mid = (low + high + 1) // 2
            if (self.estimate(mid, held) or 0.0) <= budget:
                low = mid
            else:
                high = mid - 1
        return low

    def play_probe(self, probe: int) -> None:
        """Play and time a first batch of `probe` games, so that the first round is sized by a pace (and a
        look's time, with a time cap)."""
        self.say(f"until decided: timing a first batch of {probe:,} games, to size the first round by")
        before = self.clock()
        got = self.play_to(probe)
        self.probe_seconds = self.clock() - before
        if isinstance(got, int) and not isinstance(got, bool) and got > 0:
            self.own.note(min(got, probe), self.probe_seconds, probe=True)  # (a pair plays two runs)
            self.probed = got
        self.held = probe
        if self.cap_minutes is not None:  # a look's time too, kept aside for the look after round 1
            before = self.clock()
            self.judge()
            self.look_seconds = self.clock() - before

    def first_target(self, target: int) -> int:
        """The first round's games, within the time cap, said with its estimate."""
        held = self.held
        if self.cap_minutes is not None:
            target = max(held, self.fitting(target, held))
        first_cost = self.estimate(target, held)
        if first_cost and target > held:
            pace = self.own.per_game()
            at = f" at {rate_text(pace)} (the first {held:,} games)" if pace and self.own.rounds else ""
            self.say(f"until decided: round 1 to {target:,} games, about {duration(first_cost)}{at}"
                     + (f"; time cap {self.cap_minutes:g} min" if self.cap_minutes is not None else ""))
        return target

    def play_round(self, target: int) -> list[Verdict]:
        """Play to `target` games and look: the verdicts (the games in hand, the pace and the round's line
        noted)."""
        before = self.clock()
        got = self.play_to(target) if self.rounds or target > self.held else 0  # (a first batch holds them)
        spent = self.clock() - before
        self.look_started = before + spent
        verdicts = self.judge()
        grown, self.have = self.have, max((int(v.n) for v in verdicts), default=target)
        gained = max(0, self.have - grown)
        if isinstance(got, bool) or not isinstance(got, int):
            got = gained
        if self.rounds and not gained and self.have < target:
            raise RunFailed(f"until decided: asked for {target:,} games, the run holds {self.have:,} after "
                            "playing to them")
        if got > 0 and gained > 0:  # the pace: games that were already there cost nothing
            self.own.note(min(got, self.have - max(grown, 0 if self.rounds else self.held)), spent)
        if not self.rounds and self.probed:  # the first round's line counts the first batch in
            got, spent = got + self.probed, spent + self.probe_seconds
        self.played += got
        self.rounds += 1
        self.looks.append(self.have)
        self.round_line = (f"until decided: {self.have:,} games after round {self.rounds} "
                           f"({_gained_text(gained, got, spent)}; ")
        return verdicts

    def say_look(self, verdicts: list[Verdict], words: Mapping[str, str]) -> None:
        """The round's header and one line per verdict; the look's time kept aside for the last one."""
        self.say(f"{self.round_line}{duration(self.clock() - self.started)} in all)")
        for line in progress_lines(verdicts, words, self.own.per_game()):
            self.say(line)
        self.look_seconds = max(self.look_seconds, self.clock() - self.look_started)

    def next_step(self, verdicts: list[Verdict]) -> tuple[str | None, int]:
        """(why it stops, or None; the next round's games in all)."""
        have = self.have
        if all_decided(verdicts):
            return "decided", have
        if have >= self.cap_games:
            return "games cap", have
        target = next_target(verdicts, have, self.cap_games)
        if self.cap_minutes is None:
            return None, target
        fits = self.fitting(target, have)
        least = math.ceil(GROWTH_LEAST * have)
        worth = least if target >= least else target
        if self.left() <= 0 or fits <= have or fits < worth:
            return "time cap", fits
        return None, fits

    def stop(self, reason: str, verdicts: list[Verdict]) -> UntilDecidedResult:
        seconds = self.clock() - self.started
        self.say(_stop_line(reason, self.have, self.rounds, seconds, cap_games=self.cap_games,
                            cap_minutes=self.cap_minutes))
        return UntilDecidedResult(games=self.have, verdicts=verdicts, reason=reason, played=self.played,
                                  rounds=self.rounds, seconds=seconds, looks=self.looks, planned=self.planned)


def rate_text(seconds_a_game: float) -> str:
    """A pace in words: "310 games/s", "2.5 games/s", or "4 s a game" below one a second."""
    rate = 1 / seconds_a_game
    return f"{rate:,.0f} games/s" if rate >= 10 else f"{rate:.1f} games/s" if rate >= 1 \
        else f"{seconds_a_game:,.0f} s a game"


def run_pace(run_dir: str | os.PathLike[str], tables: tuple[str, ...],
             jobs: int | None = None) -> float | None:
    """Seconds a game of one run directory (one level), from its manifest's sessions: what its own games
    took, never another level's, nor games already there. The sessions at `jobs` when there are any; the
    slower of their average and the last one's. None before any game of it was timed."""
    try:
        manifest = RunDirectory(run_dir, tables).read_manifest()
    except (ConfigError, OSError):
        return None
    if manifest is None:
        return None
    timed = []
    for session in manifest.sessions:
        try:
            games, seconds = int(session.get("games_played") or 0), float(session.get("seconds") or 0)
        except (TypeError, ValueError, AttributeError):
            continue
        if games > 0 and math.isfinite(seconds) and seconds > 0:
            timed.append((games, seconds, session.get("jobs")))
    timed = [t for t in timed if t[2] == jobs] or timed
    if not timed:
        return None
    games, seconds = sum(t[0] for t in timed), sum(t[1] for t in timed)
    return max(seconds / games, timed[-1][1] / timed[-1][0])


class RunsCost:
    """`cost` of `play_until_decided` for run directories: the seconds playing to n games would take, each
    directory's missing games at its own pace (`run_pace`). `paired`: every directory plays to the same
    games, at least the most any holds (the two top levels, on the same deals). None when a directory
    that must play has no timed game yet."""

    def __init__(self, dirs: list[tuple[str | os.PathLike[str], tuple[str, ...]]], jobs: int | None = None,
                 paired: bool = False) -> None:
        self.dirs, self.jobs, self.paired = dirs, jobs, paired

    def __call__(self, games: int) -> float | None:
        runs = [RunDirectory(path, tables) for path, tables in self.dirs]
        goal = max([games, *(run.finished_games() for run in runs)]) if self.paired else games
        total = 0.0
        for (path, tables), run in zip(self.dirs, runs, strict=True):
            missing = goal - run.finished_within(goal)
            if missing <= 0:
                continue
            pace = run_pace(path, tables, self.jobs)
            if pace is None:
                return None
            total += missing * pace
        return total


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
        """A look: the verdicts now (intersected with those of the run's earlier looks), this look recorded
        in the manifest (RunManifest.looks) for the looks after it."""
        self.run = read_run_tally(self.run_dir)
        verdicts = run_verdicts(self.run, self.margins)
        mark_stopped_adaptively(self.run_dir, looks=(self.run.n_games,))
        return verdicts

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
